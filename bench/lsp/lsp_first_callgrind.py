#!/usr/bin/env python3
# lsp_first_callgrind.py - instructions of a ph-lsp's first analysis of the 5,040-line file
# (lsp_bench.py's 63 x examples/mha.ph), counted by callgrind: deterministic, unlike CPU
# time on a shared machine. One server under valgrind: initialize, didOpen, wait for the
# first publishDiagnostics, shutdown. Prints the process's total and the inclusive count
# of Scheduler::analyze (the first analysis and its publication; the rest of the
# autotune configurations runs in another function).
#
#   python3 bench/lsp/lsp_first_callgrind.py --lsp build/bin/ph-lsp [--out FILE.cg]
#
# The server is run with PH_LSP_MALLOC_TCACHE=0 (no second start, which would leave
# valgrind behind) and the tunable it would set itself, glibc.malloc.tcache_count=64.
import argparse, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsp_bench as lb  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lsp", default=os.path.join(lb.SRC, "build", "bin", "ph-lsp"))
    ap.add_argument("--out", default=None, help="keep the callgrind file here")
    args = ap.parse_args()
    out = args.out or tempfile.mktemp(suffix=".cg")
    os.environ["PH_LSP_MALLOC_TCACHE"] = "0"
    os.environ["GLIBC_TUNABLES"] = "glibc.malloc.tcache_count=64"
    srv = lb.Server(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, args.lsp, "--no-gpu-detect",
                     "--debounce-ms", "0"])
    srv.initialize()
    srv.open("file:///bench/first.ph", lb.mha_copies())
    srv.wait_diagnostics("file:///bench/first.ph", 1)
    srv.close()
    report = subprocess.run(["callgrind_annotate", "--inclusive=yes", out], capture_output=True, text=True).stdout
    total = re.search(r"^\s*([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", report, re.M)
    first = re.search(r"^\s*([\d,]+) \([ \d.]+%\)\s+\S*Scheduler\.cpp:ph::lsp::Scheduler::analyze\(", report, re.M)
    print("process total        %s instructions" % (total.group(1) if total else "?"))
    print("Scheduler::analyze   %s instructions" % (first.group(1) if first else "?"))
    if not args.out:
        os.unlink(out)


if __name__ == "__main__":
    main()
