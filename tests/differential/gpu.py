#!/usr/bin/python3
"""The GPU mode of the differential tests (issue 17), in two halves:

    # here (the compiler, no GPU needed): generate, check, `ph build`, interpreter references
    difftest.py gpu-prepare --ph build/bin/ph --ph-run build/bin/ph-run --out .device/diff \
        --count 2000 --seed 100000 -j 2
    # on the GPU machine (ph-run only; Python's standard library only, numpy not needed),
    # carrying .device/diff.tar.gz:
    tar xzf .device/diff.tar.gz -C /tmp && python3 /tmp/diff/gpu.py --ph-run /tmp/diff/ph-run \
        --dir /tmp/diff -j 16 --sanitize 40 --log $OUT

`gpu-prepare` writes, per program, `sSEED/build/` (what `ph build` made: cubins and the
manifest), `sSEED/ref_CONFIG_NAME.npy` (the fp64 interpreter's outputs on ph's own seeded
inputs, `--seed SEED`: splitmix64 streams that ph-run draws identically) and `sSEED/case.json`
(kernel, sizes, arguments, configurations, each output's error bound). A program that `ph check`
accepts but `ph build` refuses is a failure recorded in `prepare.json` (this half asserts
"check clean means build succeeds" for the GPU). It also copies this script next to them and
packs everything into `OUT.tar.gz` (the device's carry is limited to 64 MiB).

`gpu.py` (run) runs every configuration of every program with `ph-run --seed SEED --out`,
compares each output with the reference within its bound (NaN where neither wrote), and runs
`--sanitize N` of them (every k-th) under `compute-sanitizer --tool memcheck` and the same
number under `racecheck`, each also with `--check`. It prints one line per failure and a
summary, writes `results.json` into --log (default: DIR), and exits 1 on any failure, 77
when there is no GPU.
"""
import argparse
import ast
import concurrent.futures as cf
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import time


# ------------------------------------------------------------------ a .npy reader without numpy
def read_npy(path):
    """(shape, flat list of floats or ints) of a little-endian C-order .npy (f2, f4, i4)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    major = data[6]
    if major == 1:
        hlen = struct.unpack("<H", data[8:10])[0]
        start = 10
    else:
        hlen = struct.unpack("<I", data[8:12])[0]
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    body = data[start + hlen:]
    shape = tuple(header["shape"])
    n = 1
    for d in shape:
        n *= d
    code = {"<f2": "e", "<f4": "f", "<i4": "i", "<f8": "d"}[header["descr"]]
    return shape, list(struct.unpack("<%d%s" % (n, code), body[: n * struct.calcsize(code)]))


def compare(spec, ref, got):
    (rs, r), (gs, g) = ref, got
    if rs != gs:
        return f"shape {gs} but the interpreter's is {rs}"
    tol = spec["tol"]
    bad = 0
    first = None
    worst = 0.0
    for i, (a, b) in enumerate(zip(r, g)):
        if spec["dtype"] == "i32":
            d = abs(a - b)
            ok = d <= tol
        else:
            an, bn = math.isnan(a), math.isnan(b)
            if an or bn:
                ok, d = an and bn, (0.0 if an and bn else math.inf)
            else:
                d = abs(a - b)
                ok = d <= tol
        if not ok:
            bad += 1
            worst = max(worst, d)
            if first is None:
                first = (i, b, a)
    if bad:
        return f"{bad} of {len(r)} elements beyond {tol:.3g} (max diff {worst:.3g}); first flat index {first[0]}: {first[1]!r} vs {first[2]!r}"
    return None


def cfg_text(config):
    return ",".join(f"{k}={v}" for k, v in sorted(config.items()))


def run_args(case, config):
    a = ["--kernel", case["kernel"], "--config", cfg_text(config), "--seed", str(case["seed"])]
    for k, v in sorted(case["sizes"].items()):
        a += ["--size", f"{k}={v}"]
    for k, v in sorted(case["args"].items()):
        a += ["--arg", f"{k}={v}"]
    return a


def run_one(phrun, folder, tmp):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    res = {"seed": case["seed"], "status": "ok", "detail": "", "runs": 0}
    for ci, config in enumerate(case["configs"]):
        outs = {}
        cmd = [phrun, os.path.join(folder, "build")] + run_args(case, config)
        for k in sorted(case["outputs"]):
            outs[k] = os.path.join(tmp, f"s{case['seed']}_{ci}_{k}.npy")
            cmd += ["--out", f"{k}={outs[k]}"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            res.update(status="crash", detail=f"[{cfg_text(config)}] gpu: timeout")
            return res
        res["runs"] += 1
        if p.returncode != 0:
            res.update(status="crash", detail=f"[{cfg_text(config)}] gpu: exit {p.returncode}: {(p.stdout + p.stderr).strip()[-800:]}")
            return res
        for k in sorted(case["outputs"]):
            m = compare(case["outputs"][k], read_npy(os.path.join(folder, f"ref_{ci}_{k}.npy")), read_npy(outs[k]))
            os.unlink(outs[k])
            if m:
                res.update(status="mismatch", detail=f"[{cfg_text(config)}] gpu: {k}: {m}")
                return res
    return res


def sanitize_one(cs, tool, phrun, folder):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    extra = ["--leak-check", "full"] if tool == "memcheck" else []
    cmd = [cs, "--tool", tool] + extra + ["--error-exitcode", "3", phrun, os.path.join(folder, "build")] + \
        run_args(case, case["configs"][0])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"seed": case["seed"], "tool": tool, "status": "timeout", "detail": ""}
    out = p.stdout + p.stderr
    summ = [l for l in out.splitlines() if "ERROR SUMMARY" in l or "RACECHECK SUMMARY" in l]
    return {"seed": case["seed"], "tool": tool, "status": "ok" if p.returncode == 0 else "fail",
            "detail": (summ[-1] if summ else "") if p.returncode == 0 else out[-1500:]}


def run(args):
    t0 = time.time()
    phrun = os.path.abspath(args.ph_run)
    info = subprocess.run([phrun, "--info"], capture_output=True, text=True)
    print(info.stdout.strip().splitlines()[0] if info.stdout.strip() else info.stderr.strip())
    if info.returncode != 0:
        print("skipped: no GPU")
        return 77
    root = os.path.abspath(args.dir)
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if d.startswith("s") and os.path.exists(os.path.join(root, d, "case.json")))
    tmp = os.path.join(root, "gpu-out")
    os.makedirs(tmp, exist_ok=True)
    print(f"gpu: {len(folders)} programs, -j{args.jobs}", flush=True)
    results = []
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for r in ex.map(lambda f: run_one(phrun, f, tmp), folders):
            results.append(r)
            if r["status"] != "ok":
                print(f"FAIL seed {r['seed']}: {r['status']}: {r['detail']}", flush=True)
    t1 = time.time()
    sres = []
    cs = shutil.which("compute-sanitizer") or ("/usr/local/cuda/bin/compute-sanitizer"
                                               if os.path.exists("/usr/local/cuda/bin/compute-sanitizer") else None)
    if args.sanitize and cs and folders:
        step = max(1, len(folders) // args.sanitize)
        sample = folders[::step][: args.sanitize]
        jobs = [(t, f) for f in sample for t in ("memcheck", "racecheck")]
        with cf.ThreadPoolExecutor(max(1, args.jobs // 2)) as ex:
            for r in ex.map(lambda tf: sanitize_one(cs, tf[0], phrun, tf[1]), jobs):
                sres.append(r)
                if r["status"] != "ok":
                    print(f"FAIL sanitizer {r['tool']} seed {r['seed']}: {r['detail']}", flush=True)
    elif args.sanitize:
        print("compute-sanitizer not found: sanitizer sample skipped")
    by = {}
    for r in results:
        by[r["status"]] = by.get(r["status"], 0) + 1
    runs = sum(r["runs"] for r in results)
    sfail = sum(r["status"] != "ok" for r in sres)
    print(f"gpu: {len(results)} programs, {runs} runs in {t1 - t0:.1f} s: " +
          ", ".join(f"{k} {v}" for k, v in sorted(by.items())))
    if sres:
        print(f"compute-sanitizer: {len(sres)} runs ({len(sres) // 2} programs x memcheck, racecheck) in "
              f"{time.time() - t1:.1f} s: {len(sres) - sfail} clean, {sfail} failing")
    log = args.log or root
    os.makedirs(log, exist_ok=True)
    with open(os.path.join(log, "results.json"), "w") as f:
        json.dump({"results": results, "sanitizer": sres, "seconds": time.time() - t0}, f)
    return 1 if (sfail or any(r["status"] != "ok" for r in results)) else 0


# ------------------------------------------------------------------ the half that runs here
def prepare(args):
    """Generate, check, build and compute the references (needs numpy and the compiler)."""
    import tempfile
    import difftest
    import phgen
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    seeds = list(range(args.seed, args.seed + args.count))
    t0 = time.time()

    def one(seed):
        case = phgen.generate(seed, args.int_tiles)
        folder = os.path.join(out, f"s{seed}")
        os.makedirs(folder)
        src = os.path.join(folder, f"{case.kernel}.ph")
        with open(src, "w") as f:
            f.write(case.source)
        ok, msg = difftest.check_program(args.ph, src)
        if not ok:
            shutil.rmtree(folder)
            return {"seed": seed, "status": "check", "detail": msg[-800:]}
        p = subprocess.run([args.ph, "build", src, "--kernel", case.kernel, "-o", os.path.join(folder, "build")],
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            shutil.rmtree(folder)
            text = p.stdout + p.stderr
            errs = [l for l in text.splitlines() if "error" in l or l.startswith("ph build:")]
            return {"seed": seed, "status": "build", "detail": "\n".join(errs[:1]) + "\n" + text[-1500:]}
        for ci, config in enumerate(case.configs):
            cmd = [args.ph, "run", src, "--target", "interp"] + run_args(case.__dict__, config)
            for k in sorted(case.outputs):
                cmd += ["--out", f"{k}={os.path.join(folder, f'ref_{ci}_{k}.npy')}"]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                shutil.rmtree(folder)
                return {"seed": seed, "status": "interp", "detail": (p.stdout + p.stderr)[-800:]}
        os.unlink(src)  # the manifest carries the source
        for f in os.listdir(os.path.join(folder, "build")):
            if f.endswith(".ptx"):  # ph-run loads the cubins
                os.unlink(os.path.join(folder, "build", f))
        with open(os.path.join(folder, "case.json"), "w") as f:
            json.dump({k: case.__dict__[k] for k in ("seed", "kernel", "sizes", "args", "configs", "outputs")}, f)
        return {"seed": seed, "status": "ok", "detail": ""}

    results = []
    known = difftest.load_known()
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for r in ex.map(one, seeds):
            for k in known:
                if r["status"] == k["status"] and k["pattern"] in r["detail"]:
                    r["status"] = "known:" + k["id"]
            results.append(r)
            if r["status"].startswith("known:"):
                print(f"known seed {r['seed']}: {r['status']}", flush=True)
            elif r["status"] != "ok":
                print(f"FAIL seed {r['seed']}: {r['status']}: {r['detail'].strip().splitlines()[0] if r['detail'].strip() else ''}", flush=True)
    shutil.copy(os.path.abspath(__file__), os.path.join(out, "gpu.py"))
    if args.ph_run:
        # ph-run links no MLIR; without its debug information it is a few MB.
        shutil.copy(args.ph_run, os.path.join(out, "ph-run"))
        subprocess.run(["strip", os.path.join(out, "ph-run")], check=False)
    with open(os.path.join(out, "prepare.json"), "w") as f:
        json.dump(results, f)
    by = {}
    for r in results:
        by[r["status"]] = by.get(r["status"], 0) + 1
    print(f"gpu-prepare: {len(results)} programs in {time.time() - t0:.1f} s: " +
          ", ".join(f"{k} {v}" for k, v in sorted(by.items())))
    tar = out.rstrip("/") + ".tar.gz"
    subprocess.run(["tar", "czf", tar, "-C", os.path.dirname(out), os.path.basename(out)], check=True)
    print(f"packed {tar} ({os.path.getsize(tar) / 2**20:.1f} MiB)")
    return 1 if any(r["status"] not in ("ok",) and not r["status"].startswith("known:") for r in results) else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ph-run", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("-j", "--jobs", type=int, default=16)
    ap.add_argument("--sanitize", type=int, default=40)
    ap.add_argument("--log")
    return run(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
