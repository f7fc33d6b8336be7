#!/usr/bin/env python3
# lsp_rss.py - where ph-lsp's peak resident set goes, stage by stage (issue 21: <= 30 MiB
# on the 5,040-line file, 63 x examples/mha.ph as lsp_bench.py --scale generates it).
#
#   python3 bench/lsp/lsp_rss.py --lsp build/bin/ph-lsp [--fn] [--edits 20] [--repeat 3]
#
# One fresh server (--debounce-ms 0). Stages: open and first diagnostics, the rest of the
# first analysis (every configuration), edits inside one kernel (or the shared fn, --fn)
# with diagnostics only, inlay hints of the whole file, then each full-document request
# (semantic tokens, document symbols, folding ranges, code lenses) after an edit, --repeat
# times. Per stage: VmRSS after it and VmHWM during it (the peak is reset before each stage
# by writing 5 to /proc/PID/clear_refs), and the server's CPU. The last line is the peak
# over the whole run, lsp_bench.py's "peak RSS". Environment variables pass through
# (PH_LSP_MALLOC_ARENAS, PH_LSP_ITEM_READS, ...).
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_bench import Server, edit_pair, mha_copies  # noqa: E402


def line_of(text, needle, nth=0):
    hits = [i for i, l in enumerate(text.split("\n")) if needle in l]
    return hits[min(nth, len(hits) - 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lsp", default="build/bin/ph-lsp")
    ap.add_argument("--fn", action="store_true", help="the file with a fn every kernel calls, edited inside it")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    text = mha_copies(with_fn=args.fn)
    uri = "file:///bench/rss.ph"
    edit_line = line_of(text, "acc = acc * l") if args.fn else line_of(text, "let h = ctx.block.y", 126)
    srv = Server([args.lsp, "--no-gpu-detect", "--debounce-ms", "0"])
    srv.initialize()
    overall = 0.0
    rows = []

    def reset():
        try:
            with open("/proc/%d/clear_refs" % srv.proc.pid, "w") as f:
                f.write("5")
        except OSError:
            pass

    def stage(name, fn):
        nonlocal overall
        reset()
        c0, t0 = srv.cpu_ms(), time.perf_counter()
        fn()
        wall = (time.perf_counter() - t0) * 1e3
        hwm = srv.rss_mb("VmHWM")
        overall = max(overall, hwm)
        rows.append((name, srv.rss_mb("VmRSS"), hwm, srv.cpu_ms() - c0, wall))

    version = [1]
    ins, rem = edit_pair(edit_line)

    def edit():
        version[0] += 1
        srv.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version[0]},
                                             "contentChanges": [ins if version[0] % 2 == 0 else rem]})
        srv.wait_diagnostics(uri, version[0])

    def request(method, extra=None):
        params = dict(extra or {})
        params["textDocument"] = {"uri": uri}
        r = srv.request(method, params)
        assert "result" in r, (method, r)

    stage("open, first diagnostics", lambda: (srv.open(uri, text), srv.wait_diagnostics(uri, 1)))
    stage("the rest of the first analysis (2 s)", lambda: time.sleep(2.0))
    stage("%d edits, diagnostics only" % args.edits, lambda: [edit() for _ in range(args.edits)])
    whole = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": text.count("\n") + 1, "character": 0}}}
    for method, extra in [("textDocument/inlayHint", whole), ("textDocument/semanticTokens/full", None),
                          ("textDocument/documentSymbol", None), ("textDocument/foldingRange", None),
                          ("textDocument/codeLens", None)]:
        stage("%d x (edit, %s)" % (args.repeat, method.split("/", 1)[1]),
              lambda: [(edit(), request(method, extra)) for _ in range(args.repeat)])
    srv.close()
    print("load average %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    print("| stage | VmRSS after | VmHWM during | server CPU | wall |")
    print("| --- | --- | --- | --- | --- |")
    for name, rss, hwm, cpu, wall in rows:
        print("| %s | %.1f MiB | %.1f MiB | %.0f ms | %.0f ms |" % (name, rss, hwm, cpu, wall))
    print("peak RSS over the run: %.1f MiB" % overall)


if __name__ == "__main__":
    main()
