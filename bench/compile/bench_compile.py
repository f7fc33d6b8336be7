#!/usr/bin/env python3
"""Compile time of `ph build`: cold and warm cache, one job and all cores (docs/compile.md).

    python3 bench/compile/bench_compile.py [--ph build/bin/ph[,OTHER_PH]] [--runs 3] [--jobs 1,0]
                                           [--target sm_90] [--json OUT]

Needs no GPU (ptxas from the CUDA Toolkit, as `ph build` does). For each of the three files:
  cold        an empty cache (a fresh folder per run), -j 1 and -j all
  warm        every variant already cached
  warm-edit   one kernel edited (a new constant each run, no line moved): its variants compile,
              the others come from the cache
  warm-moved  lines added at the top (a new count each run): every kernel moves, so every
              variant key is new, but the PTX is the same and ptxas's cubins come from the cache
and, once per file, `ph build --time --no-cache -j 1`'s breakdown per variant: our own time
(context, kir-to-tile, lower, to-nvvm, llvm-ir, llvm-opt, nvptx) beside ptxas's. Figures are whole-process wall and
CPU (user + system of the child) seconds: median [min-max] over --runs runs, with the load
average (1 min) before and after each row. On a shared machine the spread is the noise; quote
medians, and compare two builds of ph with `--ph OLD,NEW`: their runs alternate, so both see
the same load. The breakdown's last line sums ours and ptxas's CPU over the file's variants:
on C cores a cold build cannot take less than that sum over C.
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# file -> (text to edit in one kernel, replacement with {n}: a new constant per run). The
# edit stays on its line, so no other kernel's lines (which the PTX records) move.
# The first kernel's call of std's `attention` in each file: mha.ph's mha_f16 (4 of 16 variants),
# attention_tc.ph's attn_w4 (12 of 48).
EDIT = ("scale, BR, BC)", "scale * 1.{n:06d}, BR, BC)")
FILES = {"examples/flash_attention.ph": EDIT, "examples/mha.ph": EDIT, "bench/gpu/attention_tc.ph": EDIT}


TARGET = "sm_90"


def run_build(ph, src, out, cache_home, jobs, extra=()):
    env = dict(os.environ, XDG_CACHE_HOME=cache_home)
    env.pop("PH_CACHE_DIR", None)
    cmd = [ph, "build", src, "--target", TARGET, "-o", out] + (["-j", str(jobs)] if jobs else []) + list(extra)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr}")
    m = re.search(r"\((\d+) variant\(s\)\): (\d+) compiled, (\d+) cached", p.stdout)
    return wall, cpu, (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None, p.stderr


def summary(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs)}


def fmt(s):
    return f"{s['median']:6.2f} [{s['min']:.2f}-{s['max']:.2f}]"


def breakdown(ph, src, work):
    """Per-phase medians over the variants of one --time --no-cache -j 1 build."""
    _, _, _, err = run_build(ph, src, os.path.join(work, "bd"), os.path.join(work, "bd-xdg"), 1,
                             ["--no-cache", "--time"])
    phases = {}
    ours = []
    ptxas = []
    for line in err.splitlines():
        if not line.startswith("time: "):
            continue
        # `time: K [cfg]: context 1.5, kir-to-tile 3.9 (wall 20.0), ...; ours ...`: CPU ms per step
        body = line.split("]:", 1)[1].split(";", 1)[0] if "]:" in line else ""
        total = 0.0
        for name, ms in re.findall(r"([a-z-]+) ([0-9.]+)", re.sub(r"\(wall [0-9.]+\)", "", body)):
            phases.setdefault(name, []).append(float(ms))
            if name != "ptxas":
                total += float(ms)
            else:
                ptxas.append(float(ms))
        ours.append(total)
    return ({k: statistics.median(v) for k, v in phases.items()}, (statistics.median(ours) if ours else 0),
            sum(ours), sum(ptxas))


def load():
    return os.getloadavg()[0]


def main():
    global TARGET
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ph", default=os.path.join(ROOT, "build", "bin", "ph"),
                    help="ph to time; several, comma-separated: their runs alternate")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", default="1,0", help="comma-separated -j values; 0 = all cores (the default)")
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--target", default=TARGET)
    ap.add_argument("--no-breakdown", action="store_true")
    ap.add_argument("--json", help="write every figure here")
    args = ap.parse_args()
    TARGET = args.target
    phs = args.ph.split(",")
    jobs = [int(j) for j in args.jobs.split(",")]
    cores = len(os.sched_getaffinity(0))
    print(f"ph build compile time ({TARGET}): {cores} core(s), {args.runs} run(s) each, median [min-max] seconds, "
          f"load {load():.1f}")
    rows = []
    work = tempfile.mkdtemp(prefix="ph-bench-compile-")

    def scenario(rel, name, j, runs, before, build, **extra):
        """Runs build(ph, k, r) for r in runs, alternating the phs; a row per ph."""
        walls = {ph: [] for ph in phs}
        cpus = {ph: [] for ph in phs}
        counts = {}
        l0 = load()
        for r in range(runs):
            for k, ph in enumerate(phs):
                if before:
                    before(ph, k, r)
                w, c, counts[ph] = build(ph, k, r)
                walls[ph].append(w), cpus[ph].append(c)
        l1 = load()
        for ph in phs:
            row = {"file": rel, "variants": counts[ph][0], "scenario": name, "jobs": "all" if j == 0 else str(j),
                   "wall": summary(walls[ph]), "cpu": summary(cpus[ph]), "load": [l0, l1]}
            if len(phs) > 1:
                row["ph"] = ph
            if "recompiled" in extra:
                row["recompiled"] = counts[ph][1]
            rows.append(row)

    try:
        for rel in args.files.split(","):
            old, new = FILES[rel]
            text = open(os.path.join(ROOT, rel)).read()
            assert old in text, f"{rel}: `{old}` not found"
            src = os.path.join(work, os.path.basename(rel))

            def write(t):
                with open(src, "w") as f:
                    f.write(t)

            write(text)
            out = os.path.join(work, "out")
            if not args.no_breakdown:
                for ph in phs:
                    phases, ours, ours_sum, ptxas_sum = breakdown(ph, src, work)
                    parts = ", ".join(f"{k} {v:.1f}" for k, v in phases.items())
                    label = f" [{ph}]" if len(phs) > 1 else ""
                    print(f"{rel}{label}: per variant, median CPU ms: {parts}; ours {ours:.1f}")
                    print(f"{rel}{label}: sum over the variants, CPU s: ours {ours_sum / 1e3:.2f}, ptxas "
                          f"{ptxas_sum / 1e3:.2f}; on {cores} core(s) a cold build takes at least "
                          f"{(ours_sum + ptxas_sum) / 1e3 / cores:.2f} s (ptxas alone {ptxas_sum / 1e3 / cores:.2f} s)")
                    rows.append({"file": rel, "scenario": "breakdown", "phases_ms": phases, "ours_ms": ours,
                                 "ours_sum_ms": ours_sum, "ptxas_sum_ms": ptxas_sum, "ph": ph, "load": load()})
            for j in jobs:
                # Cold: an empty cache each run.
                def cold(ph, k, r):
                    home = os.path.join(work, f"cold-{j}-{k}-{r}")
                    w, c, counts, _ = run_build(ph, src, out, home, j)
                    shutil.rmtree(home, ignore_errors=True)
                    return w, c, counts
                scenario(rel, "cold", j, args.runs, None, cold)
                # Warm: one cache per ph, filled once (untimed), then every variant a hit.
                homes = [os.path.join(work, f"warm-{j}-{k}") for k in range(len(phs))]
                for k, ph in enumerate(phs):
                    run_build(ph, src, out, homes[k], j)

                def warm(ph, k, r):
                    w, c, counts, _ = run_build(ph, src, out, homes[k], j)
                    assert counts[1] == 0, counts
                    return w, c, counts
                scenario(rel, "warm", j, args.runs, None, warm)
                # Warm, one kernel edited: a new constant per run (and per ph), so its variants miss each time.
                def edit(ph, k, r):
                    write(text.replace(old, new.format(n=((j + 1) * 100 + r) * 10 + k + 1), 1))

                def again(ph, k, r):
                    w, c, counts, _ = run_build(ph, src, out, homes[k], j)
                    return w, c, counts
                scenario(rel, "warm-edit", j, args.runs, edit, again, recompiled=True)
                # Warm, every kernel moved down: comment lines above them, a new count per run (and per ph).
                def move(ph, k, r):
                    write("// moved\n" * (((j + 1) * 100 + r) * 10 + k + 1) + text)
                scenario(rel, "warm-moved", j, args.runs, move, again, recompiled=True)
                write(text)
                for h in homes:
                    shutil.rmtree(h, ignore_errors=True)
        print(f"{'file':30} {'variants':>8} {'scenario':10} {'-j':>4} {'wall s':>20} {'cpu s':>20} {'load':>10}")
        for row in rows:
            if row["scenario"] == "breakdown":
                continue
            extra = f"  ({row['recompiled']} recompiled)" if "recompiled" in row else ""
            label = f"  {row['ph']}" if "ph" in row else ""
            print(f"{row['file']:30} {row['variants']:8} {row['scenario']:10} {row['jobs']:>4} "
                  f"{fmt(row['wall']):>20} {fmt(row['cpu']):>20} {row['load'][0]:4.1f}-{row['load'][1]:<4.1f}"
                  f"{extra}{label}")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"cores": cores, "runs": args.runs, "target": TARGET, "rows": rows}, f, indent=1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
