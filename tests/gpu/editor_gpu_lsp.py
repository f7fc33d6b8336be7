#!/usr/bin/env python3
"""editor_gpu_lsp.py - an editor's Run and Benchmark, driven over stdio against the real ph-lsp.

What an editor does with default settings on the README's example (examples/flash_attention.ph):
initialize (progress, configuration and lens refresh supported, settings empty), open the file,
wait for the server's GPU status, ask for the code lenses, run the "▶ Run on ..." lens, then the
"Benchmark" lens, exactly as the lens gives their commands. Issue 19; docs/editors.md.

  --expect gpu   the lens is "▶ Run on <GPU>" (--gpu-name: the name nvidia-smi gives; "NVIDIA "
                 is dropped), Run runs on the GPU (target gpu, the device named, the check passed,
                 the server's default sizes in the header), Benchmark gives a time; a CPU
                 fallback (the server's no-GPU offer) is a failure.
  --expect cpu   no GPU (ctest sets PH_LSP_NO_GPU=1): the lens is "▶ Run on CPU", Run and
                 Benchmark come back with the server's offer, which is taken (the editors' "Run on
                 CPU"); then the same checks on the CPU target.

Prints one line per check and "N passed, M failed"; exit status 0 when none failed. --log DIR
writes DIR/lsp_results.json (the replies) and DIR/lsp_traffic.log (every message, timed).
Standard library only (the GPU machine's python3 runs it as it is).
"""
import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Client:
    """Content-Length framed JSON-RPC over the server's stdin/stdout, answered like an editor."""

    def __init__(self, argv, env, traffic):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.t0 = time.monotonic()
        self.traffic = traffic
        self.next_id = 1
        self.replies = {}
        self.notes = queue.Queue()
        self.cond = threading.Condition()
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _log(self, direction, msg):
        if self.traffic:
            self.traffic.write("%8.3f %s %s\n" % (time.monotonic() - self.t0, direction, json.dumps(msg)[:4000]))
            self.traffic.flush()

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def _send(self, msg):
        self._log(">>", msg)
        body = json.dumps(msg).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    with self.cond:
                        self.cond.notify_all()
                    return
                line = line.decode("ascii").rstrip("\r\n")
                if line == "":
                    break
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            msg = json.loads(out.read(int(headers["content-length"])).decode("utf-8"))
            self._log("<<", msg)
            if "method" in msg and "id" in msg:
                self._answer(msg)
            elif "method" in msg:
                self.notes.put(msg)
            else:
                with self.cond:
                    self.replies[msg.get("id")] = msg
                    self.cond.notify_all()

    def _answer(self, msg):
        # The server's requests: empty settings (the defaults), progress and lens refresh taken.
        method = msg["method"]
        if method == "workspace/configuration":
            result = [{} for _ in msg.get("params", {}).get("items", [None])]
        else:
            result = None
        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout):
        mid = self.next_id
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": mid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        with self.cond:
            while mid not in self.replies:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise TimeoutError("%s: no answer in %d s%s" % (method, timeout,
                                       "" if self.proc.poll() is None else " (ph-lsp exited %s)" % self.proc.returncode))
                self.cond.wait(min(left, 0.5))
            reply = self.replies.pop(mid)
        if "error" in reply:
            raise RuntimeError("%s failed: %s" % (method, reply["error"].get("message")))
        return reply.get("result")

    def wait_note(self, method, timeout, pred=lambda m: True):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                m = self.notes.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if m["method"] == method and pred(m):
                return m


def short_gpu_name(name):
    # The lens's words: "NVIDIA H200" reads as "H200" (lsp/Gpu.cpp, runTargetLabel).
    for p in ("NVIDIA ", "Tesla "):
        if name.startswith(p):
            name = name[len(p):]
    return name


def header(title, reply):
    """The results header as the editors print it (nvim/lua/ph/init.lua, result_header)."""
    inner = reply.get("result") if isinstance(reply.get("result"), dict) else {}
    parts = [title]
    if reply.get("target") or inner.get("target"):
        parts.append("on " + str(reply.get("target") or inner.get("target")))
    sizes = inner.get("sizes") or {}
    if not sizes and isinstance(inner.get("variants"), list) and inner["variants"]:
        sizes = inner["variants"][0].get("sizes") or {}
    defaulted = set(reply.get("defaultSizes") or [])
    if sizes:
        parts.append("sizes " + " ".join("%s=%s%s" % (k, sizes[k], "*" if k in defaulted else "") for k in sorted(sizes)))
        if defaulted:
            parts.append("(* the server's default: see ph.sizes)")
    if reply.get("note"):
        parts.append("· " + reply["note"])
    return "── " + " ".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lsp", required=True, help="the ph-lsp to drive (its `ph` beside it)")
    ap.add_argument("--ph", default="", help="the driver ph-lsp runs (ph-lsp --ph; default: the `ph` beside it)")
    ap.add_argument("--file", default=str(ROOT / "examples" / "flash_attention.ph"))
    ap.add_argument("--expect", choices=["gpu", "cpu"], required=True)
    ap.add_argument("--gpu-name", default="", help="the GPU nvidia-smi names (--expect gpu)")
    ap.add_argument("--timeout", type=float, default=240, help="seconds for each command")
    ap.add_argument("--log", default="", help="folder for lsp_results.json and lsp_traffic.log")
    a = ap.parse_args()

    t0 = time.monotonic()
    passed, failed = [0], [0]

    def check(cond, what):
        (passed if cond else failed)[0] += 1
        print("%s %s (%d ms)" % ("ok  " if cond else "FAIL", what, (time.monotonic() - t0) * 1000), flush=True)
        return cond

    log_dir = Path(a.log) if a.log else None
    if log_dir:
        log_dir.mkdir(parents=True, exist_ok=True)
    traffic = open(log_dir / "lsp_traffic.log", "w") if log_dir else None
    replies = {}
    # The editor's workspace: a folder of its own holding the example (the server may write there).
    work = Path(tempfile.mkdtemp(prefix="ph-editor-gpu-"))
    src = work / "flash_attention.ph"
    shutil.copyfile(a.file, src)
    uri = src.as_uri()
    text = src.read_text()
    env = dict(os.environ)
    client = Client([a.lsp] + (["--ph", a.ph] if a.ph else []), env, traffic)
    try:
        init = client.request("initialize", {
            "processId": os.getpid(), "rootUri": work.as_uri(),
            "workspaceFolders": [{"uri": work.as_uri(), "name": "ws"}],
            "capabilities": {"window": {"workDoneProgress": True},
                             "workspace": {"configuration": True, "codeLens": {"refreshSupport": True}},
                             "textDocument": {"codeLens": {}, "publishDiagnostics": {"relatedInformation": True}}},
            "clientInfo": {"name": "editor_gpu_lsp.py"}}, 30)
        check(init.get("serverInfo", {}).get("name") == "ph-lsp", "initialize: %s %s" % (
            init.get("serverInfo", {}).get("name"), init.get("serverInfo", {}).get("version")))
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "ph", "version": 1, "text": text}})

        # The server's GPU status (it probes the CUDA driver after `initialized`).
        status = client.wait_note("ph/status", 60)
        gpu = (status or {}).get("params", {}).get("gpu")
        print("ph/status: %s" % json.dumps((status or {}).get("params")), flush=True)
        if a.expect == "gpu":
            check(isinstance(gpu, dict) and bool(gpu.get("name")), "ph/status names a GPU: %s" % (gpu and gpu.get("name")))
            if a.gpu_name:
                check(gpu is not None and gpu.get("name") == a.gpu_name, "the server's GPU is nvidia-smi's %r" % a.gpu_name)
        else:
            check(status is not None and gpu is None, "ph/status: no GPU (%s)" % ((status or {}).get("params", {}).get("reason")))

        diags = client.wait_note("textDocument/publishDiagnostics", 30, lambda m: m["params"]["uri"] == uri)
        errors = [d for d in (diags or {}).get("params", {}).get("diagnostics", []) if d.get("severity") == 1]
        check(diags is not None and not errors, "the example has no errors (%s)" % [e.get("message") for e in errors])

        # The lenses, named after the target that will run.
        want_name = short_gpu_name(a.gpu_name or (gpu or {}).get("name", "")) if a.expect == "gpu" else "CPU"
        want = "▶ Run on " + (want_name or "?")
        lenses = client.request("textDocument/codeLens", {"textDocument": {"uri": uri}}, 30) or []
        titles = [l.get("command", {}).get("title") for l in lenses]
        print("lenses: %s" % " | ".join(str(t) for t in titles), flush=True)
        check(want in titles, "the Run lens is %r" % want)
        check("Benchmark" in titles, "a Benchmark lens")
        run_lens = next((l for l in lenses if str(l.get("command", {}).get("title", "")).startswith("▶ Run on")), None)
        bench_lens = next((l for l in lenses if l.get("command", {}).get("title") == "Benchmark"), None)
        if run_lens is None or bench_lens is None:
            raise RuntimeError("no Run or Benchmark lens to click")

        def execute(lens, title):
            cmd = lens["command"]
            started = time.monotonic()
            r = client.request("workspace/executeCommand", {"command": cmd["command"], "arguments": cmd.get("arguments", [])}, a.timeout)
            if isinstance(r, dict) and r.get("ok") is False and isinstance(r.get("offer"), dict):
                offer = r["offer"]
                if not check(a.expect == "cpu", "%s: %s (the server's no-GPU offer %r)" % (title, r.get("error"), offer.get("title"))):
                    return r, time.monotonic() - started
                # The editors' "Run on CPU": the offer's command as given.
                r = client.request("workspace/executeCommand", {"command": offer["command"], "arguments": offer.get("arguments", [])}, a.timeout)
            return r, time.monotonic() - started

        target = "gpu" if a.expect == "gpu" else "cpu"
        # Run: one checked run with the server's default sizes.
        run, secs = execute(run_lens, "Run")
        replies["run"] = run
        run = run if isinstance(run, dict) else {}
        inner = run.get("result") if isinstance(run.get("result"), dict) else {}
        print("%s (%.2f s)\n%s" % (header("ph.run", run), secs, run.get("summary")), flush=True)
        check(run.get("ok") is True, "Run succeeded: %s" % (run.get("summary") or run.get("error") or run.get("stderr")))
        check(run.get("target") == target and inner.get("target") == target,
              "Run ran on the %s target (reply %r, driver %r)" % (target, run.get("target"), inner.get("target")))
        if a.expect == "gpu":
            dev = run.get("device") or inner.get("device")
            check(bool(dev) and (not a.gpu_name or dev == a.gpu_name), "Run names the device: %r" % dev)
        ck = inner.get("check") or {}
        check(ck.get("passed") is True and ck.get("reference") == "interp",
              "the result was checked against the interpreter: %s" % json.dumps({o.get("name"): o.get("max_abs_err") for o in ck.get("outputs", [])}))
        defaulted = set(run.get("defaultSizes") or [])
        sizes = inner.get("sizes") or {}
        check({"Nq", "Nk"} <= defaulted and all(isinstance(sizes.get(k), int) and sizes[k] > 0 for k in ("Nq", "Nk")),
              "the server's default sizes: %s" % " ".join("%s=%s" % (k, sizes.get(k)) for k in sorted(defaulted)))
        h = header("ph.run", run)
        check("Nq=%s*" % sizes.get("Nq") in h and "Nk=%s*" % sizes.get("Nk") in h and " on %s" % target in h,
              "the results header shows them: %s" % h)
        check(isinstance(inner.get("time_ms"), (int, float)) and inner["time_ms"] > 0, "a run time: %s ms" % inner.get("time_ms"))

        # Benchmark: every autotune variant timed.
        bench, secs = execute(bench_lens, "Benchmark")
        replies["bench"] = bench
        bench = bench if isinstance(bench, dict) else {}
        binner = bench.get("result") if isinstance(bench.get("result"), dict) else {}
        print("%s (%.2f s)\n%s" % (header("ph.run (bench)", bench), secs, bench.get("summary")), flush=True)
        check(bench.get("ok") is True, "Benchmark succeeded: %s" % (bench.get("summary") or bench.get("error") or bench.get("stderr")))
        if a.expect == "gpu":
            rows = binner.get("rows") or []
            times = [r.get("ms") for r in rows]
            check(bench.get("target") == "gpu" and bool((binner.get("device") or {}).get("name")),
                  "Benchmark ran on the GPU: %r" % (binner.get("device") or {}).get("name"))
            check(bool(rows) and all(isinstance(t, (int, float)) and t > 0 for t in times), "Benchmark times: %s ms" % times)
            # Each row checked against the interpreter where the launch is small enough for it
            # (ph bench's rule: "unchecked (too large ...)" otherwise); a mismatch fails.
            check(bool(rows) and not any(str(r.get("check", "")).startswith("MISMATCH") for r in rows),
                  "no Benchmark row failed its check: %s" % [r.get("check") for r in rows])
        else:
            variants = binner.get("variants") or []
            times = [v.get("time_ms") for v in variants]
            check(bench.get("target") == "cpu", "Benchmark ran on the CPU target: %r" % bench.get("target"))
            check(bool(variants) and all(isinstance(t, (int, float)) and t > 0 for t in times), "Benchmark times: %s ms" % times)
        check("Nq" in set(bench.get("defaultSizes") or []), "Benchmark took the default sizes too: %s" % bench.get("defaultSizes"))

        client.request("shutdown", None, 10)
        client.notify("exit", None)
        try:
            rc = client.proc.wait(10)
        except subprocess.TimeoutExpired:
            client.proc.kill()
            rc = None
        check(rc == 0, "ph-lsp exited cleanly (%s)" % rc)
    except Exception as e:  # a missing answer or a server that died: one failure, with why
        check(False, "%s: %s" % (type(e).__name__, e))
        if client.proc.poll() is None:
            client.proc.kill()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if log_dir:
            (log_dir / "lsp_results.json").write_text(json.dumps(replies, indent=1))
            if client.stderr:
                traffic.write("--- ph-lsp stderr ---\n" + "".join(client.stderr[-200:]))
            traffic.close()
    print("%d passed, %d failed" % (passed[0], failed[0]), flush=True)
    return 0 if failed[0] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
