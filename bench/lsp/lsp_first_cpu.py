#!/usr/bin/env python3
# lsp_first_cpu.py - a fresh ph-lsp's first diagnostics of the 5,040-line file (lsp_bench.py's
# 63 x examples/mha.ph), with the server's user and system CPU and minor page faults from
# /proc/PID/stat around didOpen -> publishDiagnostics (10 ms ticks: read the means).
#
#   python3 bench/lsp/lsp_first_cpu.py --lsp build/bin/ph-lsp [--runs 20]
#
# Environment variables pass through (PH_LSP_FIRST_THREADS, PH_LSP_INLINE_CACHE, ...).
import argparse, os, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsp_bench as lb  # noqa: E402


def stat(pid):
    with open("/proc/%d/stat" % pid) as f:
        x = f.read().rsplit(")", 1)[1].split()
    tck = os.sysconf("SC_CLK_TCK")
    return int(x[11]) * 1000.0 / tck, int(x[12]) * 1000.0 / tck, int(x[7])  # utime, stime, minflt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lsp", default=os.path.join(lb.SRC, "build", "bin", "ph-lsp"))
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    text = lb.mha_copies()
    rows = []
    for _ in range(args.runs):
        srv = lb.Server([args.lsp, "--no-gpu-detect", "--debounce-ms", "0"])
        srv.initialize()
        a = stat(srv.proc.pid)
        t = time.perf_counter()
        srv.open("file:///bench/first.ph", text)
        srv.wait_diagnostics("file:///bench/first.ph", 1)
        wall = (time.perf_counter() - t) * 1e3
        b = stat(srv.proc.pid)
        rows.append((wall, b[0] - a[0], b[1] - a[1], b[2] - a[2]))
        srv.close()
    print("load average %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    for name, i in (("wall ms", 0), ("user ms", 1), ("system ms", 2), ("minor faults", 3)):
        xs = [r[i] for r in rows]
        print("%-12s median %7.1f  mean %7.1f  max %7.1f" % (name, statistics.median(xs), statistics.mean(xs), max(xs)))


if __name__ == "__main__":
    main()
