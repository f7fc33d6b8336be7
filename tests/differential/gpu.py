#!/usr/bin/python3
"""The GPU mode of the differential tests (issue 17), in two halves (tests/gpu/difftest_device.sh
runs both):

    # here (the compiler, no GPU needed): generate, `ph build` (which checks first) for the
    # GPU targets, packed into OUT.tar.xz (the device's carry is limited to 64 MiB)
    difftest.py gpu-prepare --ph build/bin/ph --ph-run build/bin/ph-run --out .device/diff \
        --count 2000 --seed 100000 -j 2 [--gpu-targets sm_80,sm_90a]
    # on the GPU machine (ph-run only; Python's standard library only, numpy not needed)
    python3 DIR/gpu.py --ph-run DIR/ph-run --dir DIR -j 16 --sanitize 40 --log $OUT

`gpu-prepare` writes, per program, `sSEED/TARGET/` (what `ph build --target TARGET` made: the
cubins and the manifest, which carries the source) and `sSEED/case.json` (kernel, sizes,
arguments, configurations, each output's error bound, the targets built and what each one's
PTX uses: `wgmma`, `mma` or `simt`). Each program is built for one target, in turn by seed,
and the GEMM-shaped ones for every target; the builds are the whole cost here (about 0.3 s of
CPU a program). A program that `ph build` refuses after its checker accepted it is a failure
recorded in `prepare.json` ("check clean means build succeeds", with ptxas for that
architecture); one the checker refuses is the generator's mistake (`check`).

A target the device cannot run natively (sm_80 on an H200: a cubin runs only on its own major
architecture) travels as its PTX in the cubin's place; the driver compiles it for the device
when it loads it, so the sm_80 code runs there, having passed ptxas for sm_80 here.

`gpu.py` (run) runs every configuration of every program on every target: the jobs go in
batches of 40 through `ph-run --batch` (one process, one CUDA context for all; a context costs
the better part of a second and the driver serialises their creation, which made one process
per run the whole cost: 1 303 runs took 264 s). Each run has `--check`: ph-run's fp64
interpreter computes the reference on the device's CPU from the same seeded inputs (ph's
splitmix64 streams), and each output's largest difference (`--json`) must be within the
generator's bound, with NaN (never written) in the same places. A job that fails in a batch runs again alone (a
fault leaves its context unusable for the jobs after it), and only a failure alone counts.
Each confirmed failure is shrunk on the device over its sizes (each to 1, half, minus one,
with `ph-run --check --json`: the interpreter at the new sizes; kept while it still fails
grossly, beyond 10x the bound) and written into results.json as a reproducer: seed, target,
configuration, sizes, what fails, and the program's source. `difftest.py gpu-cases` turns
them into cases here (and shrinks the program's text when the failure shows on the CPU
target too). Then `--sanitize N` programs (evenly spread, targets alternating) run under
`compute-sanitizer --tool memcheck` and `racecheck`. It prints one line per failure and a
summary, writes `results.json` into --log (default: DIR), stops starting jobs after
--budget seconds (what it did not reach is counted, not hidden), and exits 1 on any failure,
77 when there is no GPU.
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def cfg_text(config):
    return ",".join(f"{k}={v}" for k, v in sorted(config.items()))


def run_args(case, config, sizes=None):
    a = ["--kernel", case["kernel"], "--config", cfg_text(config), "--seed", str(case["seed"])]
    for k, v in sorted((sizes or case["sizes"]).items()):
        a += ["--size", f"{k}={v}"]
    for k, v in sorted(case["args"].items()):
        a += ["--arg", f"{k}={v}"]
    return a


# Targets whose cubins the device runs as they are; others travel as PTX (see the top).
NATIVE = ("sm_90", "sm_90a")
BATCH = 40
MARK = "@@ph-run-batch "


class Job:
    def __init__(self, folder, case, target, ci, config, tmp):
        self.folder, self.case, self.target, self.ci, self.config = folder, case, target, ci, config
        self.rc = None
        self.text = ""
        self.out = ""

    def argv(self):
        # --check: ph-run's fp64 interpreter on the same inputs, on the device's CPU (the
        # preparation here is then only the builds); --json: each output's largest difference.
        return [os.path.join(self.folder, self.target)] + run_args(self.case, self.config) + \
            ["--timeout", "60", "--check", "--json"]

    def tag(self):
        return f"[{self.target} {cfg_text(self.config)}]"


def split_marked(text):
    """{job index: its part of a ph-run --batch stream}, split at the markers."""
    parts, cur = {}, []
    for line in text.splitlines():
        if line.startswith(MARK):
            n = int(line.split()[1])
            parts[n] = "\n".join(cur)
            cur = []
        else:
            cur.append(line)
    return parts, "\n".join(cur)


def run_batch(phrun, jobs, tmp, deadline):
    """Runs `jobs` through `ph-run --batch`, again from the job after one that killed the
    process (a timeout, a crash); sets each job's rc and text."""
    todo = list(jobs)
    while todo and time.time() < deadline:
        fd, path = tempfile.mkstemp(prefix="batch-", suffix=".txt", dir=tmp)
        with os.fdopen(fd, "w") as f:
            for j in todo:
                f.write(" ".join(j.argv()) + "\n")
        try:
            p = subprocess.run([phrun, "--batch", path], capture_output=True, text=True, timeout=60 * len(todo) + 60)
            out, err, rc = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
            rc = 124
        os.unlink(path)
        codes = {}
        for line in out.splitlines():
            if line.startswith(MARK):
                n, c = line.split()[1:3]
                codes[int(n)] = int(c)
        errs, rest = split_marked(err)
        outs, _ = split_marked(out)
        for n, c in codes.items():
            todo[n].rc, todo[n].text, todo[n].out = c, errs.get(n, "")[-800:], outs.get(n, "")
        done = len(codes)
        if done < len(todo):
            # This job ended the process: it is the failure (the others go on in a new batch).
            todo[done].rc = rc if rc else 1
            todo[done].text = ("the process ended: exit %d: " % rc) + rest[-800:]
            done += 1
        todo = todo[done:]


def run_alone(phrun, job):
    try:
        p = subprocess.run([phrun] + job.argv(), capture_output=True, text=True, timeout=120)
        job.rc, job.text, job.out = p.returncode, p.stderr.strip()[-800:], p.stdout
    except subprocess.TimeoutExpired:
        job.rc, job.text, job.out = 124, "timeout (120 s)", ""


def checks_of(stdout):
    """{output: (maxAbs, nonFinite)} from ph-run --check --json, or None."""
    try:
        i = stdout.index("{")
        j = json.loads(stdout[i:])
        c = {k: (v["interpreter"]["maxAbs"], v["interpreter"]["nonFinite"])
             for k, v in (j.get("checks") or {}).items() if "interpreter" in v}
        if j.get("unchecked"):  # fake_ph_run.py: some outputs it cannot compare
            c["*unchecked"] = (0.0, 0)
        return c
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def unwritten(job):
    """Tensors the kernel never writes, by the build's manifest (an `rw` tensor the generator
    hands to a fn that leaves it alone): ph-run compares only what a kernel writes."""
    try:
        with open(os.path.join(job.folder, job.target, "manifest.json")) as f:
            m = json.load(f)
        return {t["name"] for k in m["kernels"] for t in k["tensors"] if not t.get("written", True)}
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def verdict(job):
    """(status, detail) of a finished job: each output within its bound of the interpreter's
    (ph-run exits 1 when its own, fixed tolerance fails; the bound here is the generator's)."""
    checks = checks_of(job.out) if job.rc in (0, 1) else None
    if checks is None:
        return "crash", f"{job.tag()} gpu: exit {job.rc}: {job.text.strip()[-600:]}"
    skip = unwritten(job) if any(k not in checks for k in job.case["outputs"]) else set()
    for k in sorted(job.case["outputs"]):
        spec = job.case["outputs"][k]
        if k not in checks and ("*unchecked" in checks or k in skip):
            continue
        if k not in checks:
            return "crash", f"{job.tag()} gpu: {k}: not compared ({job.text.strip()[-300:]})"
        mx, nf = checks[k]
        if nf:
            return "mismatch", f"{job.tag()} gpu: {k}: {nf} elements non-finite in one only (NaN: never written)"
        if mx > spec["tol"]:
            return "mismatch", f"{job.tag()} gpu: {k}: max diff {mx:.3g} beyond {spec['tol']:.3g}"
    return "ok", ""


def check_json(phrun, job, sizes):
    """Runs `job` at `sizes` with --check --json: (exit, {output: (maxAbs, nonFinite)}, text)."""
    argv = [os.path.join(job.folder, job.target)] + run_args(job.case, job.config, sizes) + \
        ["--timeout", "60", "--check", "--json"]
    try:
        p = subprocess.run([phrun] + argv, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return 124, {}, "timeout"
    return p.returncode, checks_of(p.stdout) or {}, p.stderr.strip()[-400:]


def gross_at(job, status, rc, checks):
    """Does a run at other sizes still fail as the job did (grossly, for a mismatch)?"""
    if status == "crash":
        return rc != 0 and not checks
    if rc not in (0, 1) or not checks:
        return False
    for k, (mx, nf) in checks.items():
        if k not in job.case["outputs"]:
            continue
        spec = job.case["outputs"][k]
        if nf or mx > 10 * spec.get("tol", 0.0) + 1e-3 * spec.get("bound", 0.0):
            return True
    return False


def shrink_sizes(phrun, job, status, deadline):
    """The smallest sizes (each to 1, half, minus one, in turn) at which the job still fails."""
    sizes = dict(job.case["sizes"])
    rc, checks, _ = check_json(phrun, job, sizes)
    if not gross_at(job, status, rc, checks):
        return sizes, 1, False  # not gross at its own sizes: leave them
    tries = 1
    changed = True
    while changed and time.time() < deadline:
        changed = False
        for k in sorted(sizes):
            v = sizes[k]
            for nv in sorted({1, v // 2, v - 1}):
                if 1 <= nv < v:
                    cand = dict(sizes, **{k: nv})
                    tries += 1
                    rc, checks, _ = check_json(phrun, job, cand)
                    if gross_at(job, status, rc, checks):
                        sizes, changed = cand, True
                        break
    return sizes, tries, True


def sanitize_one(cs, tool, phrun, folder, target):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    extra = ["--leak-check", "full"] if tool == "memcheck" else []
    cmd = [cs, "--tool", tool] + extra + ["--error-exitcode", "3", phrun, os.path.join(folder, target)] + \
        run_args(case, case["configs"][0])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"seed": case["seed"], "target": target, "tool": tool, "status": "timeout", "detail": ""}
    out = p.stdout + p.stderr
    summ = [l for l in out.splitlines() if "ERROR SUMMARY" in l or "RACECHECK SUMMARY" in l]
    return {"seed": case["seed"], "target": target, "tool": tool, "status": "ok" if p.returncode == 0 else "fail",
            "detail": (summ[-1] if summ else "") if p.returncode == 0 else out[-1500:]}


def run(args):
    t0 = time.time()
    deadline = t0 + args.budget
    phrun = os.path.abspath(args.ph_run)
    info = subprocess.run([phrun, "--info"], capture_output=True, text=True)
    device = info.stdout.strip().splitlines()[0] if info.stdout.strip() else info.stderr.strip()
    print(device)
    if info.returncode != 0:
        print("skipped: no GPU")
        return 77
    root = os.path.abspath(args.dir)
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if d.startswith("s") and os.path.exists(os.path.join(root, d, "case.json")))
    tmp = os.path.join(root, "gpu-out")
    os.makedirs(tmp, exist_ok=True)
    jobs, cases = [], {}
    for folder in folders:
        with open(os.path.join(folder, "case.json")) as f:
            case = json.load(f)
        cases[folder] = case
        for target in case.get("targets", ["build"]):
            for ci, config in enumerate(case["configs"]):
                jobs.append(Job(folder, case, target, ci, config, tmp))
    targets = sorted({j.target for j in jobs})
    print(f"gpu: {len(folders)} programs, {len(jobs)} runs on {', '.join(targets)}, -j{args.jobs}, "
          f"batches of {BATCH}", flush=True)
    # A ph-run without --batch (older than this script) runs every job alone.
    empty = os.path.join(tmp, "empty-batch.txt")
    open(empty, "w").close()
    batched = subprocess.run([phrun, "--batch", empty], capture_output=True).returncode == 0
    if batched:
        chunks = [jobs[i:i + BATCH] for i in range(0, len(jobs), BATCH)]
        with cf.ThreadPoolExecutor(args.jobs) as ex:
            list(ex.map(lambda c: run_batch(phrun, c, tmp, deadline), chunks))
    else:
        print("gpu: this ph-run has no --batch: one process a run", flush=True)
    # Failures in a batch run again alone: only those count.
    again = [j for j in jobs if j.rc != 0 and (j.rc is not None or not batched)]

    def alone(j):
        if time.time() < deadline or j.rc is not None:
            run_alone(phrun, j)
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        list(ex.map(alone, again))
    failures = []
    per = {t: {} for t in targets}
    for j in jobs:
        st, detail = ("not-run", "") if j.rc is None else verdict(j)
        per[j.target][st] = per[j.target].get(st, 0) + 1
        if st not in ("ok", "not-run"):
            failures.append((j, st, detail))
            print(f"FAIL seed {j.case['seed']}: {st}: {detail.splitlines()[0] if detail else ''}", flush=True)
    t1 = time.time()
    repros = []
    for j, st, detail in failures[: args.max_shrink]:
        sizes, tries, gross = shrink_sizes(phrun, j, st, deadline + 60)
        with open(os.path.join(j.folder, j.target, "manifest.json")) as f:
            source = json.load(f).get("source", {}).get("text", "")
        repros.append({"seed": j.case["seed"], "target": j.target, "config": j.config, "status": st,
                       "detail": detail, "sizes": sizes, "original_sizes": j.case["sizes"], "tries": tries,
                       "gross": gross, "kernel": j.case["kernel"], "source": source})
        print(f"repro seed {j.case['seed']} {j.target} [{cfg_text(j.config)}]: sizes {j.case['sizes']} -> {sizes} "
              f"({tries} runs{'' if gross else '; not gross at its own sizes, left'})", flush=True)
    t2 = time.time()
    sres = []
    cs = shutil.which("compute-sanitizer") or ("/usr/local/cuda/bin/compute-sanitizer"
                                               if os.path.exists("/usr/local/cuda/bin/compute-sanitizer") else None)
    if args.sanitize and cs and folders:
        step = max(1, len(folders) // args.sanitize)
        sample = folders[::step][: args.sanitize]
        work = []
        for i, f in enumerate(sample):
            ts = cases[f].get("targets", ["build"])
            t = ts[i % len(ts)]
            work += [(tool, f, t) for tool in ("memcheck", "racecheck")]
        with cf.ThreadPoolExecutor(max(1, args.jobs // 2)) as ex:
            for r in ex.map(lambda w: sanitize_one(cs, w[0], phrun, w[1], w[2]), work):
                sres.append(r)
                if r["status"] != "ok":
                    print(f"FAIL sanitizer {r['tool']} seed {r['seed']} {r['target']}: {r['detail']}", flush=True)
    elif args.sanitize:
        print("compute-sanitizer not found: sanitizer sample skipped")
    instr = {}
    for case in cases.values():
        for t, u in case.get("instr", {}).items():
            instr.setdefault(t, {})
            instr[t][u] = instr[t].get(u, 0) + 1
    sfail = sum(r["status"] != "ok" for r in sres)
    failed_seeds = sorted({j.case["seed"] for j, _, _ in failures})
    for t in targets:
        print(f"gpu {t}: " + ", ".join(f"{k} {v}" for k, v in sorted(per[t].items())) +
              (f"; PTX uses {', '.join(f'{k} {v}' for k, v in sorted(instr.get(t, {}).items()))}" if instr.get(t) else ""))
    print(f"gpu: {len(folders)} programs, {len(jobs)} runs in {t1 - t0:.1f} s ({len(again) if batched else 0} rerun alone): "
          f"{len(failed_seeds)} programs failing")
    if sres:
        print(f"compute-sanitizer: {len(sres)} runs ({len(sres) // 2} programs x memcheck, racecheck) in "
              f"{time.time() - t2:.1f} s: {len(sres) - sfail} clean, {sfail} failing")
    log = args.log or root
    os.makedirs(log, exist_ok=True)
    results = [{"seed": j.case["seed"], "target": j.target, "config": j.config, "status": st, "detail": d}
               for j, st, d in failures]
    with open(os.path.join(log, "results.json"), "w") as f:
        json.dump({"device": device, "programs": len(folders), "runs": len(jobs), "per_target": per,
                   "instr": instr, "failures": results, "repros": repros, "sanitizer": sres,
                   "rerun_alone": len(again), "seconds": {"runs": t1 - t0, "shrink": t2 - t1,
                                                          "total": time.time() - t0}}, f, indent=1)
    notrun = sum(per[t].get("not-run", 0) for t in targets)
    if notrun:
        print(f"gpu: {notrun} runs not reached within --budget {args.budget} s")
    return 1 if (sfail or failures or notrun) else 0


# ------------------------------------------------------------------ the half that runs here
def ptx_in_place(folder):
    """Puts each variant's PTX (NUL-terminated: cuModuleLoadData takes PTX text too) where ph-run
    reads its cubin, so that the driver compiles it for the device's architecture."""
    with open(os.path.join(folder, "manifest.json")) as f:
        m = json.load(f)
    for k in m.get("kernels", []):
        cubin = os.path.join(folder, k["cubin"])
        ptx = cubin[: -len(".cubin")] + ".ptx" if cubin.endswith(".cubin") else None
        if ptx and os.path.exists(ptx):
            with open(ptx, "rb") as f:
                text = f.read()
            with open(cubin, "wb") as f:
                f.write(text + b"\0")


def what_ptx_uses(folder):
    text = ""
    for f in sorted(os.listdir(folder)):
        if f.endswith(".ptx"):
            with open(os.path.join(folder, f)) as fh:
                text += fh.read()
    if "wgmma.mma_async" in text:
        return "wgmma"
    if "mma.sync" in text:
        return "mma"
    return "simt"


def prepare(args):
    """Generate and build (needs the compiler)."""
    import difftest
    import phgen
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    seeds = list(range(args.seed, args.seed + args.count))
    # PH_DIFFTEST_SEEDS: a file of seeds, one a line, instead of the range (the programs an
    # earlier run's builds refused: tests/differential/seeds/).
    if os.environ.get("PH_DIFFTEST_SEEDS"):
        with open(os.environ["PH_DIFFTEST_SEEDS"]) as f:
            seeds = [int(l) for l in f if l.strip()]
    targets = [t for t in args.gpu_targets.split(",") if t]
    t0 = time.time()
    known = difftest.load_known()

    def classify(r):
        for k in known:
            if r["status"] == k["status"] and k["pattern"] in r["detail"]:
                r["status"] = "known:" + k["id"]
        return r

    def one(seed):
        case = phgen.generate(seed, args.int_tiles)
        folder = os.path.join(out, f"s{seed}")
        os.makedirs(folder)
        src = os.path.join(folder, f"{case.kernel}.ph")
        with open(src, "w") as f:
            f.write(case.source)
        rows, built, instr = [], [], {}
        # One target a program, in turn by seed (the preparation here is the cost: a build and
        # the interpreter a program), and every target for the GEMM-shaped ones (wgmma on
        # sm_90a, mma.sync on sm_80: the pair is the point).
        mine = targets if "gemm" in case.features else [targets[seed % len(targets)]]
        for t in mine:
            bdir = os.path.join(folder, t)
            p = subprocess.run([args.ph, "build", src, "--kernel", case.kernel, "--target", t, "--no-cache",
                                "-o", bdir], capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                shutil.rmtree(bdir, ignore_errors=True)
                text = p.stdout + p.stderr
                errs = [l for l in text.splitlines() if "error" in l or l.startswith("ph build:")]
                # ph build checks first: a checker's refusal (E0...) is the generator's mistake
                # or the checker's, not a build failure.
                status = "check" if any(re.search(r"error\[E0[0-4]", l) for l in errs) else "build"
                rows.append(classify({"seed": seed, "target": t, "status": status,
                                      "detail": "\n".join(errs[:1]) + "\n" + text[-1500:]}))
                if status == "check":
                    break
                continue
            instr[t] = what_ptx_uses(bdir)
            if t not in NATIVE:
                ptx_in_place(bdir)
            for f in os.listdir(bdir):
                if f.endswith(".ptx"):
                    os.unlink(os.path.join(bdir, f))
            built.append(t)
            rows.append({"seed": seed, "target": t, "status": "ok", "detail": "", "instr": instr[t]})
        if not built:
            shutil.rmtree(folder)
            return rows
        os.unlink(src)  # the manifests carry the source
        with open(os.path.join(folder, "case.json"), "w") as f:
            d = {k: case.__dict__[k] for k in ("seed", "kernel", "sizes", "args", "configs", "outputs")}
            d.update(targets=built, instr=instr)
            json.dump(d, f)
        return rows

    results = []
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for rows in ex.map(one, seeds):
            for r in rows:
                results.append(r)
                if r["status"].startswith("known:"):
                    print(f"known seed {r['seed']} {r['target']}: {r['status']}", flush=True)
                elif r["status"] != "ok":
                    first = r["detail"].strip().splitlines()[0] if r["detail"].strip() else ""
                    print(f"FAIL seed {r['seed']} {r['target']}: {r['status']}: {first}", flush=True)
    shutil.copy(os.path.abspath(__file__), os.path.join(out, "gpu.py"))
    if args.ph_run:
        # ph-run links no MLIR; without its debug information it is a few MB.
        shutil.copy(args.ph_run, os.path.join(out, "ph-run"))
        subprocess.run(["strip", os.path.join(out, "ph-run")], check=False)
    with open(os.path.join(out, "prepare.json"), "w") as f:
        json.dump(results, f)
    by = {}
    for r in results:
        key = f"{r['target']} {r['status']}" if r["target"] else r["status"]
        by[key] = by.get(key, 0) + 1
    packed = sum(1 for d in os.listdir(out) if d.startswith("s"))
    print(f"gpu-prepare: {len(seeds)} programs in {time.time() - t0:.1f} s, {packed} packed: " +
          ", ".join(f"{k} {v}" for k, v in sorted(by.items())))
    instr = {}
    for r in results:
        if "instr" in r:
            instr.setdefault(r["target"], {})
            instr[r["target"]][r["instr"]] = instr[r["target"]].get(r["instr"], 0) + 1
    for t, u in sorted(instr.items()):
        print(f"  {t}: PTX uses " + ", ".join(f"{k} {v}" for k, v in sorted(u.items())))
    tar = out.rstrip("/") + ".tar.xz"
    # xz: the manifests each carry the program and std's source; its window spans many of them.
    subprocess.run(["tar", "cJf", tar, "-C", os.path.dirname(out), os.path.basename(out)], check=True,
                   env=dict(os.environ, XZ_OPT="-6 -T2"))
    print(f"packed {tar} ({os.path.getsize(tar) / 2**20:.1f} MiB)")
    return 1 if any(r["status"] != "ok" and not r["status"].startswith("known:") for r in results) else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ph-run", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("-j", "--jobs", type=int, default=16)
    ap.add_argument("--sanitize", type=int, default=40)
    ap.add_argument("--max-shrink", type=int, default=10)
    ap.add_argument("--budget", type=float, default=400, help="seconds after which no new job starts")
    ap.add_argument("--log")
    return run(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
