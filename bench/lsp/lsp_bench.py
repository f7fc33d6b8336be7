#!/usr/bin/env python3
# lsp_bench.py - latency and memory of ph-lsp over a pipe, as an editor sees them.
#
#   python3 bench/lsp/lsp_bench.py --lsp build/bin/ph-lsp [--iterations 500] [--json out.json]
#
# Measures (wall clock on the client side, so framing, JSON and the pipe count):
#   start-up            spawn -> initialize answered (median and max of 10 starts)
#   hover, completion   p50/p99 over many requests at the interesting positions of the
#                       examples and of a generated 5,000-line file (the snapshot is
#                       ready: this is the request path, not the analysis)
#   diagnostics         didChange -> publishDiagnostics of that version, p50/p99, and
#                       the same minus the debounce (the analysis and publishing)
#   memory              resident set (VmRSS) with 100 files open and analysed
# Targets (issue 3): p99 hover and completion < 5 ms, diagnostics < 30 ms after the
# debounce, start-up < 100 ms, memory < 150 MB.
#
#   python3 bench/lsp/lsp_bench.py --lsp build/bin/ph-lsp --scale [--mlir mlir-lsp-server-22]
#   python3 bench/lsp/lsp_bench.py --lsp build/bin/ph-lsp --first 20   (first diagnostics only)
#
# The scale batch (issue 21), one fresh server per case, --debounce-ms 0: examples/mha.ph
# (80 lines), 63 renamed copies of its kernels (5,040 lines, 252 kernels) edited inside one
# kernel, the same file with a `fn` every kernel calls, edited inside that fn (a comment line,
# then a token: `acc * l` -> `acc * 2.0` and back, which checks every caller again), and
# mlir-lsp-server on a generated 211-line func/scf/arith file, in one batch. Per case: first
# diagnostics (didOpen -> publishDiagnostics), edit -> diagnostics p50/p99, hover p99 and
# peak RSS (VmHWM). Targets: p99 <= 3 ms (80 lines), <= 5 ms (an edit inside one kernel of
# the 5,040-line file); first diagnostics of the big file <= 50 ms; peak RSS <= 30 MiB.
import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import time

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class Server:
    def __init__(self, argv):
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        self.buf = b""
        self.next_id = 0
        self.notes = []

    def send(self, msg):
        body = json.dumps(msg).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def read(self, timeout=None):
        """The next message; None when `timeout` seconds pass without one."""
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end >= 0:
                n = int(self.buf[:end].split(b":")[1])
                if len(self.buf) >= end + 4 + n:
                    body = self.buf[end + 4:end + 4 + n]
                    self.buf = self.buf[end + 4 + n:]
                    return json.loads(body)
            if timeout is not None and not select.select([self.proc.stdout], [], [], timeout)[0]:
                return None
            data = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not data:
                raise RuntimeError("server exited")
            self.buf += data

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == rid and "method" not in m:
                return m
            self.notes.append(m)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri, version):
        for i, m in enumerate(self.notes):
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"].get("version") == version:
                del self.notes[i]
                return m
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"].get("version") == version:
                return m
            self.notes.append(m)

    def publishes(self, uri, version, t0, quiet=0.5):
        """The arrival times (ms after t0) of every publishDiagnostics of `version`: the
        first, then each until none comes for `quiet` seconds: an edit of a fn many kernels call is published in
        stages (its nearest callers, every caller's first configuration, all of them)."""
        self.wait_diagnostics(uri, version)
        times = [(time.perf_counter() - t0) * 1e3]
        while True:
            m = self.read(timeout=quiet)
            if m is None:
                return times
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"].get("version") == version:
                times.append((time.perf_counter() - t0) * 1e3)
            else:
                self.notes.append(m)

    def initialize(self):
        r = self.request("initialize", {"processId": os.getpid(), "rootUri": None,
                                        "capabilities": {"textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}}})
        self.notify("initialized", {})
        return r

    def open(self, uri, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "ph", "version": version, "text": text}})

    def rss_mb(self, field="VmRSS"):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def cpu_ms(self):
        """The server's CPU time so far (user + system), from /proc: load on the machine
        does not inflate it as it does wall-clock latencies."""
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.wait(timeout=10)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def summary(xs):
    return {"n": len(xs), "p50_ms": round(pct(xs, 50), 3), "p99_ms": round(pct(xs, 99), 3), "max_ms": round(max(xs), 3)}


def generated_file(lines_wanted=5000):
    """Copies of the causal attention kernel under new names, plus a local fn each."""
    base = open(os.path.join(SRC, "examples", "causal_attention.ph"), encoding="utf-8").read()
    out, n = [], 0
    while sum(s.count("\n") for s in out) < lines_wanted:
        out.append("/// Scales `x` in place (copy %d).\nfn scale_%d(x, a) {\n  x = x * a\n}\n\n" % (n, n))
        out.append(base.replace("kernel causal_attention", "kernel causal_attention_%d" % n) + "\n")
        n += 1
    return "".join(out)


def positions(text, needles):
    """(line, UTF-16 character) of a point a few characters into each needle's occurrences."""
    out = []
    lines = text.split("\n")
    for i, l in enumerate(lines):
        for needle, delta in needles:
            j = l.find(needle)
            if j >= 0:
                out.append({"line": i, "character": len(l[:j + delta].encode("utf-16-le")) // 2})
    return out


def bench_requests(srv, uri, text, iterations):
    hover_at = positions(text, [("online_softmax(", 4), ("var s:", 4), ("dot_t(", 2), ("kernel ", 9), ("let row", 5)])
    compl_at = positions(text, [("  acc = acc / l", 2), ("    s = s * scale", 8), ("causal_mask(", 3)])
    hov, com = [], []
    for i in range(iterations):
        p = hover_at[i % len(hover_at)]
        t = time.perf_counter()
        r = srv.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": p})
        hov.append((time.perf_counter() - t) * 1e3)
        assert "result" in r, r
        p = compl_at[i % len(compl_at)]
        t = time.perf_counter()
        r = srv.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": p})
        com.append((time.perf_counter() - t) * 1e3)
        assert r["result"]["items"], r
    return summary(hov), summary(com)


def bench_diagnostics(srv, uri, text, iterations, debounce_ms):
    """Alternately inserts and removes a comment on line 0; times each version's diagnostics."""
    lat = []
    version = 1
    for i in range(iterations):
        version += 1
        change = ({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// edit\n"}
                  if i % 2 == 0 else
                  {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "text": ""})
        t = time.perf_counter()
        srv.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
        srv.wait_diagnostics(uri, version)
        lat.append((time.perf_counter() - t) * 1e3)
    s = summary(lat)
    s["after_debounce_p50_ms"] = round(s["p50_ms"] - debounce_ms, 3)
    s["after_debounce_p99_ms"] = round(s["p99_ms"] - debounce_ms, 3)
    return s


def mha_copies(copies=63, with_fn=False):
    """`copies` copies of examples/mha.ph's kernels under distinct names (80 lines each). With
    `with_fn`, a `fn` in the file that every kernel calls (one line more per kernel)."""
    base = open(os.path.join(SRC, "examples", "mha.ph"), encoding="utf-8").read()
    out = []
    if with_fn:
        out.append("/// The last step of every kernel (the bench edits this body).\nfn finish(acc, l) {\n"
                   "  acc = acc * l\n}\n")
    for n in range(copies):
        t = base
        for k in ("mha_causal_bf16", "mha_causal_f16", "mha_bf16", "mha_f16"):
            t = t.replace("kernel %s(" % k, "kernel %s_%d(" % (k, n))
        if with_fn:
            t = t.replace("  O[b, h, row :+ BR, :] = acc\n", "  finish(acc, 1.0)\n  O[b, h, row :+ BR, :] = acc\n")
        out.append(t)
    return "".join(out)


def mlir_file(lines_wanted=211):
    """Functions of func/scf/arith (a loop summing a scaled sequence each), `lines_wanted` lines."""
    out, n = [], 0
    while True:
        f = ("func.func @sum_%d(%%n: index, %%a: f32) -> f32 {\n"
             "  %%c0 = arith.constant 0 : index\n"
             "  %%c1 = arith.constant 1 : index\n"
             "  %%zero = arith.constant 0.0 : f32\n"
             "  %%r = scf.for %%i = %%c0 to %%n step %%c1 iter_args(%%acc = %%zero) -> (f32) {\n"
             "    %%x = arith.index_cast %%i : index to i32\n"
             "    %%y = arith.sitofp %%x : i32 to f32\n"
             "    %%z = arith.mulf %%y, %%a : f32\n"
             "    %%s = arith.addf %%acc, %%z : f32\n"
             "    scf.yield %%s : f32\n"
             "  }\n"
             "  return %%r : f32\n"
             "}\n" % n)
        if sum(x.count("\n") for x in out) + f.count("\n") > lines_wanted:
            break
        out.append(f)
        n += 1
    while sum(x.count("\n") for x in out) < lines_wanted:
        out.append("// padding\n")
    return "".join(out)


def edit_pair(line):
    """Inserting a comment line before `line` (0-based), then removing it."""
    ins = {"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
           "text": "  // edit\n"}
    rem = {"range": {"start": {"line": line, "character": 0}, "end": {"line": line + 1, "character": 0}}, "text": ""}
    return ins, rem


def token_pair(text, line, old, new):
    """Replacing `old` on `line` (0-based) by `new`, then back: a token edit (in the fn every
    kernel calls, every caller is checked again; a comment line only moves their checks)."""
    col = text.split("\n")[line].index(old)
    there = {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + len(old)}}
    back = {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + len(new)}}
    return {"range": there, "text": new}, {"range": back, "text": old}


def scale_case(argv, name, uri, text, language, edit_line, hover_at, iterations, hover_iterations, edits=None):
    srv = Server(argv)
    srv.initialize()
    c0 = srv.cpu_ms()
    t = time.perf_counter()
    srv.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})
    srv.wait_diagnostics(uri, 1)
    first = (time.perf_counter() - t) * 1e3
    first_cpu = srv.cpu_ms() - c0  # at most this much CPU (the rest may have begun)
    time.sleep(2.0 if text.count("\n") > 1000 else 0.2)  # the rest of a lazy first analysis, off the clock
    hov = []
    for i in range(hover_iterations):
        p = hover_at[i % len(hover_at)]
        t = time.perf_counter()
        r = srv.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": p})
        hov.append((time.perf_counter() - t) * 1e3)
        assert "result" in r, r
    ins, rem = edits or edit_pair(edit_line)
    lat, version = [], 1
    c1 = srv.cpu_ms()
    for i in range(iterations):
        version += 1
        t = time.perf_counter()
        srv.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [ins if i % 2 == 0 else rem]})
        srv.wait_diagnostics(uri, version)
        lat.append((time.perf_counter() - t) * 1e3)
    cpu_edit = (srv.cpu_ms() - c1) / max(1, iterations)
    # An editor asks for the visible lines' inlay hints after each edit: 80 lines around it
    # (issue 21: read from those items, not from the version's whole analysis).
    hints, c2 = [], srv.cpu_ms()
    visible = {"start": {"line": max(0, edit_line - 40), "character": 0}, "end": {"line": edit_line + 40, "character": 0}}
    for i in range(max(10, iterations // 4)):
        version += 1
        srv.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [ins if i % 2 == 0 else rem]})
        srv.wait_diagnostics(uri, version)
        t = time.perf_counter()
        r = srv.request("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": visible}) if language == "ph" else {"result": []}
        hints.append((time.perf_counter() - t) * 1e3)
        assert "result" in r, r
    cpu_hints = (srv.cpu_ms() - c2) / max(1, len(hints))
    # What an editor asks after each edit besides diagnostics: semantic tokens, symbols,
    # folding and lenses of the whole file, a hover at the edit (issue 21: read item by
    # item, an item unchanged since the last version from a cache, not from the version's
    # whole analysis).
    feats, c3 = [], srv.cpu_ms()
    at = {"line": edit_line + 1, "character": 4}
    methods = [("textDocument/semanticTokens/full", {}), ("textDocument/documentSymbol", {}),
               ("textDocument/foldingRange", {}), ("textDocument/codeLens", {}), ("textDocument/hover", {"position": at})]
    for i in range(max(10, iterations // 4)):
        version += 1
        srv.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [ins if i % 2 == 0 else rem]})
        srv.wait_diagnostics(uri, version)
        t = time.perf_counter()
        if language == "ph":
            for m, extra in methods:
                params = dict(extra)
                params["textDocument"] = {"uri": uri}
                r = srv.request(m, params)
                assert "result" in r, (m, r)
        feats.append((time.perf_counter() - t) * 1e3)
    cpu_feats = (srv.cpu_ms() - c3) / max(1, len(feats))
    # Each edit left to finish (no edit follows until the server is quiet for 0.5 s): when
    # its first diagnostics come, and its last (the final ones, equal to `ph check`'s).
    settled_first, settled_last, c4 = [], [], srv.cpu_ms()
    for i in range(max(4, iterations // 10)):
        version += 1
        t = time.perf_counter()
        srv.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [ins if i % 2 == 0 else rem]})
        times = srv.publishes(uri, version, t)
        assert times, "no diagnostics for version %d" % version
        settled_first.append(times[0])
        settled_last.append(times[-1])
    cpu_settled = (srv.cpu_ms() - c4) / max(1, len(settled_first))
    peak = srv.rss_mb("VmHWM")
    srv.close()
    d = summary(lat)
    h = summary(hov)
    ih = summary(hints)
    fe = summary(feats)
    return {"case": name, "lines": text.count("\n"), "first_diagnostics_ms": round(first, 2),
            "first_diagnostics_cpu_ms": round(first_cpu, 1),
            "edit_p50_ms": d["p50_ms"], "edit_p99_ms": d["p99_ms"], "edit_max_ms": d["max_ms"],
            "hover_p99_ms": h["p99_ms"], "peak_rss_mib": round(peak, 1), "server_cpu_per_edit_ms": round(cpu_edit, 2),
            "hints_after_edit_p99_ms": ih["p99_ms"], "server_cpu_per_edit_and_hints_ms": round(cpu_hints, 2),
            "features_after_edit_p50_ms": fe["p50_ms"], "features_after_edit_p99_ms": fe["p99_ms"],
            "server_cpu_per_edit_and_features_ms": round(cpu_feats, 2),
            "settled_first_p50_ms": summary(settled_first)["p50_ms"], "settled_last_p50_ms": summary(settled_last)["p50_ms"],
            "settled_last_p99_ms": summary(settled_last)["p99_ms"], "server_cpu_per_settled_edit_ms": round(cpu_settled, 2)}


def scale_batch(args):
    argv = [args.lsp, "--no-gpu-detect", "--debounce-ms", "0"]
    small = open(os.path.join(SRC, "examples", "mha.ph"), encoding="utf-8").read()
    big = mha_copies()
    big_fn = mha_copies(with_fn=True)
    hover_needles = [("attention(", 3), ("var acc", 5), ("dot_t(", 2), ("kernel ", 9), ("let row", 5)]

    def line_of(text, needle, nth=0):
        lines = text.split("\n")
        hits = [i for i, l in enumerate(lines) if needle in l]
        return hits[min(nth, len(hits) - 1)]

    rows = []
    # The edit: a comment line inserted and removed inside one kernel's body (the big file:
    # a kernel in the middle); for the fn case, inside `finish`, which every kernel calls.
    rows.append(scale_case(argv, "mha.ph, edit inside a kernel", "file:///bench/mha.ph", small, "ph",
                           line_of(small, "let h = ctx.block.y", 2), positions(small, hover_needles),
                           args.diag_iterations, args.iterations))
    rows.append(scale_case(argv, "63 x mha.ph, edit inside one kernel", "file:///bench/mha_x63.ph", big, "ph",
                           line_of(big, "let h = ctx.block.y", 126), positions(big, hover_needles)[:400],
                           args.diag_iterations, args.iterations))
    rows.append(scale_case(argv, "63 x mha.ph + fn, edit inside the fn", "file:///bench/mha_x63_fn.ph", big_fn, "ph",
                           line_of(big_fn, "acc = acc * l"), positions(big_fn, hover_needles)[:400],
                           max(10, args.diag_iterations // 5), args.iterations))
    fn_line = line_of(big_fn, "acc = acc * l")
    rows.append(scale_case(argv, "63 x mha.ph + fn, token edit inside the fn", "file:///bench/mha_x63_fn_token.ph",
                           big_fn, "ph", fn_line, positions(big_fn, hover_needles)[:400],
                           max(10, args.diag_iterations // 5), args.iterations,
                           edits=token_pair(big_fn, fn_line, "acc * l", "acc * 2.0")))
    if args.mlir:
        m = mlir_file()
        rows.append(scale_case([args.mlir], "mlir-lsp-server, func/scf/arith", "file:///bench/sum.mlir", m, "mlir",
                               line_of(m, "arith.mulf", 8), positions(m, [("%z = arith.mulf", 2), ("%acc", 2)]),
                               args.diag_iterations, args.iterations))
    print("load average %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    print("| case | lines | first diagnostics (server CPU) | edit -> diagnostics p50 / p99 | server CPU per edit | "
          "inlay hints after an edit p99 (CPU per edit + hints) | tokens+symbols+folding+lenses+hover after an edit "
          "p50 / p99 (CPU per edit + them) | an edit left to finish: first / last diagnostics p50, last p99 (CPU) | hover p99 | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| %s | %d | %.1f ms (%.0f ms) | %.2f / %.2f ms | %.2f ms | %.2f ms (%.2f ms) | %.2f / %.2f ms (%.2f ms) | %.2f / %.2f ms, %.2f ms (%.1f ms) | %.2f ms | %.1f MiB |" %
              (r["case"], r["lines"], r["first_diagnostics_ms"], r["first_diagnostics_cpu_ms"], r["edit_p50_ms"], r["edit_p99_ms"],
               r["server_cpu_per_edit_ms"], r["hints_after_edit_p99_ms"], r["server_cpu_per_edit_and_hints_ms"],
               r["features_after_edit_p50_ms"], r["features_after_edit_p99_ms"], r["server_cpu_per_edit_and_features_ms"],
               r["settled_first_p50_ms"], r["settled_last_p50_ms"], r["settled_last_p99_ms"], r["server_cpu_per_settled_edit_ms"],
               r["hover_p99_ms"], r["peak_rss_mib"]))
    return rows


def first_batch(args):
    """Only the first diagnostics of the two 5,040-line files, `--first N` fresh servers each:
    wall p50/p99 and the server's CPU (10 ms ticks: the mean over the runs is the figure)."""
    argv = [args.lsp, "--no-gpu-detect", "--debounce-ms", "0"]
    rows = []
    for name, text in (("63 x mha.ph", mha_copies()), ("63 x mha.ph + fn", mha_copies(with_fn=True))):
        walls, cpus = [], []
        for _ in range(args.first):
            srv = Server(argv)
            srv.initialize()
            c0 = srv.cpu_ms()
            t = time.perf_counter()
            srv.open("file:///bench/first.ph", text)
            srv.wait_diagnostics("file:///bench/first.ph", 1)
            walls.append((time.perf_counter() - t) * 1e3)
            cpus.append(srv.cpu_ms() - c0)
            srv.close()
        w = summary(walls)
        rows.append({"case": name, "runs": args.first, "wall_p50_ms": w["p50_ms"], "wall_p99_ms": w["p99_ms"],
                     "cpu_mean_ms": round(statistics.mean(cpus), 1)})
    print("load average %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    print("| file | runs | first diagnostics wall p50 / p99 | server CPU (mean) |")
    print("| --- | --- | --- | --- |")
    for r in rows:
        print("| %s | %d | %.1f / %.1f ms | %.1f ms |" % (r["case"], r["runs"], r["wall_p50_ms"], r["wall_p99_ms"], r["cpu_mean_ms"]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lsp", default=os.path.join(SRC, "build", "bin", "ph-lsp"))
    ap.add_argument("--iterations", type=int, default=500)
    ap.add_argument("--diag-iterations", type=int, default=100)
    ap.add_argument("--debounce-ms", type=int, default=25)
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--scale", action="store_true", help="only the scale batch (issue 21)")
    ap.add_argument("--mlir", default=None, help="mlir-lsp-server to measure beside ph-lsp in the scale batch")
    ap.add_argument("--first", type=int, default=0, help="only the first diagnostics of the 5,040-line files, N servers each")
    args = ap.parse_args()
    if args.first:
        rows = first_batch(args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=2)
        return
    if args.scale:
        rows = scale_batch(args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=2)
        return
    argv = [args.lsp, "--no-gpu-detect", "--debounce-ms", str(args.debounce_ms)]
    results = {"lsp": args.lsp, "debounce_ms": args.debounce_ms}

    starts = []
    for _ in range(10):
        srv = Server(argv)
        srv.initialize()
        starts.append((time.perf_counter() - srv.t_spawn) * 1e3)
        srv.close()
    results["startup"] = {"median_ms": round(statistics.median(starts), 3), "max_ms": round(max(starts), 3)}

    srv = Server(argv)
    srv.initialize()
    cases = [("causal_attention.ph", open(os.path.join(SRC, "examples", "causal_attention.ph"), encoding="utf-8").read()),
             ("generated_5000_lines.ph", generated_file())]
    for name, text in cases:
        uri = "file:///bench/" + name
        t = time.perf_counter()
        srv.open(uri, text)
        srv.wait_diagnostics(uri, 1)
        open_ms = (time.perf_counter() - t) * 1e3
        hov, com = bench_requests(srv, uri, text, args.iterations)
        diag = bench_diagnostics(srv, uri, text, args.diag_iterations, args.debounce_ms)
        results[name] = {"lines": text.count("\n"), "open_to_diagnostics_ms": round(open_ms, 3),
                         "hover": hov, "completion": com, "diagnostics_after_edit": diag}
        srv.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    srv.close()

    # 100 files open: the examples, round robin, each under its own URI.
    srv = Server(argv)
    srv.initialize()
    examples = sorted(f for f in os.listdir(os.path.join(SRC, "examples")) if f.endswith(".ph"))
    texts = [open(os.path.join(SRC, "examples", f), encoding="utf-8").read() for f in examples]
    rss0 = srv.rss_mb()
    for i in range(100):
        srv.open("file:///bench/open/%03d.ph" % i, texts[i % len(texts)])
    for i in range(100):
        srv.wait_diagnostics("file:///bench/open/%03d.ph" % i, 1)
    results["memory"] = {"rss_idle_mb": round(rss0, 1), "rss_100_files_mb": round(srv.rss_mb(), 1)}
    srv.close()

    print(json.dumps(results, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
