#!/usr/bin/env python3
"""ptxas's CPU time per variant: one build's PTX under several option sets, or two builds' PTX
(docs/compile.md, "ptxas").

    python3 bench/compile/ptxas_bench.py DIR [DIR2] [--arch sm_90a] [--opts "-v -O3" --opts "-v -O1" ...]
                                         [--rounds 2] [--per-file]

DIR is a `ph build -o DIR` folder (its *.ptx files, one per variant). Each file is assembled
with `ptxas -arch=ARCH OPTS FILE -o TMP` (what `ph build` runs is `-arch=ARCH -v -O3`, the
default), every option set (or DIR's file, then DIR2's) in turn, --rounds times; the figure per
file is the minimum CPU (user + system of the child) over the rounds, so a shared machine's
load shows as spread, not as a slower option. Prints per option set the sum over the files,
the median and the largest file, and with --per-file each file's PTX size and figures.
"""
import argparse
import glob
import os
import resource
import statistics
import subprocess
import sys
import tempfile


def cpu_of(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="one or two `ph build -o` folders")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--opts", action="append", help="an option set (repeatable); default '-v -O3'")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--per-file", action="store_true")
    ap.add_argument("--ptxas", default=os.environ.get("PH_PTXAS", "ptxas"))
    a = ap.parse_args()
    if len(a.dirs) > 2:
        sys.exit("at most two folders")
    optsets = a.opts or ["-v -O3"]
    names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(a.dirs[0], "*.ptx")))
    if not names:
        sys.exit(f"no .ptx in {a.dirs[0]}")
    # (label, folder, options): an option set per folder when two folders are compared.
    cols = [(f"{d}: {o}" if len(a.dirs) > 1 else o, d, o) for d in a.dirs for o in optsets]
    out = os.path.join(tempfile.mkdtemp(prefix="ph-ptxas-bench-"), "x.cubin")
    times = {c[0]: {n: [] for n in names} for c in cols}
    load0 = os.getloadavg()[0]
    for _ in range(a.rounds):
        for n in names:
            for label, d, o in cols:
                times[label][n].append(cpu_of([a.ptxas, f"-arch={a.arch}"] + o.split() + [os.path.join(d, n), "-o", out]))
    print(f"ptxas ({a.arch}), {len(names)} file(s), min CPU of {a.rounds} round(s) per file, "
          f"load {load0:.2f}-{os.getloadavg()[0]:.2f}")
    base = None
    for label, _, _ in cols:
        mins = [min(v) for v in times[label].values()]
        total = sum(mins)
        base = base or total
        print(f"  {label:60s} sum {total:6.2f} s ({(total / base - 1) * 100:+4.0f} %)  "
              f"median {statistics.median(mins) * 1000:4.0f} ms  max {max(mins) * 1000:4.0f} ms")
    if a.per_file:
        print("  file, PTX bytes, ms per column")
        for n in names:
            size = os.path.getsize(os.path.join(a.dirs[0], n))
            print(f"  {n:45s} {size:7d} " + " ".join(f"{min(times[c[0]][n]) * 1000:5.0f}" for c in cols))


if __name__ == "__main__":
    main()
