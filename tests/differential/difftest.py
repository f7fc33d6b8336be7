#!/usr/bin/python3
"""Differential testing of Ph (issue 17): random valid programs (phgen.py), every target,
compared with the fp64 interpreter.

    difftest.py run --ph build/bin/ph [--count 200] [--seed 1] [-j 2] [--targets cpu] [--build]
                    [--shrink] [--save-dir tests/differential/cases] [--keep DIR]
    difftest.py cases --ph build/bin/ph DIR        every saved case (regression tests)
    difftest.py one --ph build/bin/ph SEED          one seed, verbose (prints the program)
    difftest.py check --ph build/bin/ph [--seed S --count N] [SEED...] [--features a,b]
                                                    `ph check` only: every program must be accepted
    difftest.py gpu-prepare --ph build/bin/ph --ph-run build/bin/ph-run --out .device/diff [--count 2000]
                    [--gpu-targets sm_80,sm_90a]
    python3 DIR/gpu.py --ph-run DIR/ph-run --dir DIR [-j 16] [--sanitize 40]   (on the GPU machine)
    difftest.py gpu-cases --ph build/bin/ph RESULTS.json --save-dir tests/differential/cases
                                                    the device's reproducers as cases here
    (tests/gpu/difftest_device.sh runs the GPU mode's two halves)

Each program must pass `ph check` (a program that does not is a generator or checker bug and
is counted as such). Then, for each autotune configuration, the interpreter
(`ph run --target interp --out`) gives the reference and every other target runs on the same
.npy inputs (seeded, never zeros); each output must agree with the reference within the bound
the generator derived from the types and the reduction lengths (and agree exactly where an
element was never written: NaN, or INT32_MIN for i32). With --build, `ph build` must succeed:
a program `ph check` accepts must never meet a verifier, legalisation or ptxas error.

A failure is shrunk (shrink.py) and, with --save-dir, written there as a case (the program, its
sizes and inputs' seed, what failed): ctest runs every saved case (`difftest.cases`).
Exit status: 0 all agree, 1 any failure.
"""
import argparse
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phgen  # noqa: E402

NP = {"f32": np.float32, "f16": np.float16, "bf16": np.float32, "i32": np.int32}
TIMEOUT = 120


def bf16_round(x):
    """float32 -> the nearest bf16 (ties to even), kept in float32 (.npy has no bfloat16)."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16 << 16
    return b.astype(np.uint32).view(np.float32)


def dims_of(spec, sizes, config, case):
    out = []
    for d in spec["dims"]:
        if d.isdigit():
            out.append(int(d))
        elif d in config:
            out.append(int(config[d]))
        elif d in sizes:
            out.append(int(sizes[d]))
        else:
            out.append(int(const_value(case, d)))
    return tuple(out)


def const_value(case, name):
    """An autotune constant's (first) value, read from the program's @autotune."""
    import re
    m = re.search(r"\b%s in \[(\d+)" % name, case.source)
    return int(m.group(1))


def make_inputs(case, config, folder):
    """Seeded inputs: uniform magnitudes in [0.1, 1] with random signs (never zero), rounded to
    the tensor's type; i32 tensors get integers in [1, 8)."""
    rng = np.random.default_rng(case.seed * 7919 + 17)
    files = {}
    for name in sorted(case.inputs):
        spec = case.inputs[name]
        shape = dims_of(spec, case.sizes, config, case)
        if spec["dtype"] == "i32":
            a = rng.integers(1, 8, size=shape).astype(np.int32)
        else:
            a = rng.uniform(0.1, 1.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
            a = a.astype(np.float32)
            if spec["dtype"] == "bf16":
                a = bf16_round(a)
            elif spec["dtype"] == "f16":
                a = a.astype(np.float16)
        path = os.path.join(folder, f"in_{name}.npy")
        np.save(path, a)
        files[name] = path
    return files


def config_arg(config):
    return ",".join(f"{k}={v}" for k, v in sorted(config.items()))


def run_target(ph, src, case, config, target, inputs, folder):
    outs = {}
    cmd = [ph, "run", src, "--kernel", case.kernel, "--target", target, "--config", config_arg(config)]
    for k, v in sorted(case.sizes.items()):
        cmd += ["--size", f"{k}={v}"]
    for k, v in sorted(case.args.items()):
        cmd += ["--arg", f"{k}={v}"]
    for k, p in sorted(inputs.items()):
        cmd += ["--in", f"{k}={p}"]
    for k in sorted(case.outputs):
        outs[k] = os.path.join(folder, f"{target}_{k}.npy")
        cmd += ["--out", f"{k}={outs[k]}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    return p, outs


def compare(case, name, ref, got):
    """None when `got` agrees with `ref` within the output's bound, else a message."""
    spec = case.outputs[name]
    if ref.shape != got.shape:
        return f"{name}: shape {got.shape} but the interpreter's is {ref.shape}"
    if spec["dtype"] == "i32":
        bad = ref != got
        tol = spec.get("tol", 0.0)
        if tol > 0:
            bad = np.abs(ref.astype(np.int64) - got.astype(np.int64)) > tol
        if bad.any():
            i = tuple(int(x) for x in np.argwhere(bad)[0])
            return f"{name}: {int(bad.sum())} of {ref.size} elements differ; first at {i}: {got[i]} vs {ref[i]}"
        return None
    r = ref.astype(np.float64)
    g = got.astype(np.float64)
    rn, gn = np.isnan(r), np.isnan(g)
    if (rn != gn).any():
        i = tuple(int(x) for x in np.argwhere(rn != gn)[0])
        return f"{name}: NaN at {i} in {'the target' if gn[i] else 'the interpreter'} only ({g[i]} vs {r[i]}); {int((rn != gn).sum())} such"
    d = np.abs(np.where(rn, 0.0, r - g))
    if "abs" in spec:
        # abs + rel |ref| per element (phgen.Gen.record_out); never looser than `tol`.
        tol = np.minimum(spec["abs"] + spec["rel"] * np.abs(np.where(rn, 0.0, r)), spec["tol"])
    else:
        tol = np.full(r.shape, spec["tol"])
    if (d > tol).any():
        i = tuple(int(x) for x in np.argwhere(d > tol)[0])
        return (f"{name}: {int((d > tol).sum())} of {ref.size} elements beyond {float(tol.max()):.3g}; max diff "
                f"{d.max():.3g}; first at {i}: {g[i]!r} vs {r[i]!r} (bound there {float(tol[i]):.3g})")
    return None


class Result:
    def __init__(self, seed):
        self.seed = seed
        self.status = "ok"      # ok | check | interp | mismatch | crash | build | skip
        self.detail = ""
        self.runs = {}          # target -> count of (config) runs
        self.features = []
        self.seconds = 0.0


def probe_int_tiles(ph):
    """Does this `ph` keep i32 tile arithmetic in i32 (issue 16's integer tiles)?"""
    src = ("kernel probe(X: tensor<i32>[M, 8], O: tensor<i32>[M, 8]) {\n  let r = ctx.block.x * 8\n"
           "  var a = X[r :+ 8, :]\n  a = a + a\n  O[r :+ 8, :] = a\n}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".ph", delete=False) as f:
        f.write(src)
    try:
        return subprocess.run([ph, "check", f.name], capture_output=True).returncode == 0
    finally:
        os.unlink(f.name)


PROBES = {
    "fns2": "  let t = tanh(X[r :+ 8, :]) + floor(X[r :+ 8, :])\n  O[r :+ 8, :] = t\n",
    "where": "  let x = X[r :+ 8, :]\n  O[r :+ 8, :] = where(x > 0.5 && x < 0.75, x, 1.0)\n",
    "ids": "  let x = X[r :+ 8, :]\n  O[r :+ 8, :] = x + row_ids(x) + col_ids(x)\n",
    "if": ("  var x = X[r :+ 8, :]\n  if ctx.block.x > 0 && r + 8 <= M || !(M < 3) {\n    x = x * 2.0\n"
           "  } else {\n    x = -x\n  }\n  O[r :+ 8, :] = x\n"),
    "conv": "  var x = f16(X[r :+ 8, :])\n  x[:, 0 :+ 4] = f16(X[r :+ 8, 0 :+ 4])\n  O[r :+ 8, :] = x\n",
}


def probe_caps(ph):
    """What this `ph` accepts beyond the base language (phgen.CAPS)."""
    caps = {"gemm"}  # GEMM-shaped kernels: a generator choice, not language
    if probe_int_tiles(ph):
        caps.add("int-tiles")
    for name, body in PROBES.items():
        src = "kernel probe(X: tensor<f32>[M, 8], O: tensor<f32>[M, 8]) {\n  let r = ctx.block.x * 8\n" + body + "}\n"
        with tempfile.NamedTemporaryFile("w", suffix=".ph", delete=False) as f:
            f.write(src)
        try:
            if subprocess.run([ph, "check", f.name], capture_output=True).returncode == 0:
                caps.add(name)
        finally:
            os.unlink(f.name)
    return frozenset(caps)


def check_program(ph, src):
    p = subprocess.run([ph, "check", src], capture_output=True, text=True, timeout=TIMEOUT)
    return p.returncode == 0, p.stdout + p.stderr


def run_case(ph, case, targets, build, folder, res=None):
    """Runs one case in `folder`; returns a Result."""
    res = res or Result(case.seed)
    res.features = case.features
    t0 = time.time()
    src = os.path.join(folder, f"{case.kernel}.ph")
    with open(src, "w") as f:
        f.write(case.source)
    ok, msg = check_program(ph, src)
    if not ok:
        res.status, res.detail = "check", msg.strip()[-2000:]
        return res
    for config in case.configs:
        inputs = make_inputs(case, config, folder)
        p, ref_files = run_target(ph, src, case, config, "interp", inputs, folder)
        res.runs["interp"] = res.runs.get("interp", 0) + 1
        if p.returncode != 0:
            res.status, res.detail = "interp", f"[{config_arg(config)}] interp: {(p.stdout + p.stderr).strip()[-1500:]}"
            return res
        refs = {k: np.load(v) for k, v in ref_files.items()}
        for target in targets:
            p, got_files = run_target(ph, src, case, config, target, inputs, folder)
            res.runs[target] = res.runs.get(target, 0) + 1
            if p.returncode != 0:
                res.status = "crash"
                res.detail = f"[{config_arg(config)}] {target}: exit {p.returncode}: {(p.stdout + p.stderr).strip()[-1500:]}"
                return res
            for k in sorted(refs):
                m = compare(case, k, refs[k], np.load(got_files[k]))
                if m:
                    res.status, res.detail = "mismatch", f"[{config_arg(config)}] {target}: {m}"
                    return res
    if build:
        out = os.path.join(folder, "build")
        p = subprocess.run([ph, "build", src, "--kernel", case.kernel, "-o", out], capture_output=True,
                           text=True, timeout=TIMEOUT)
        res.runs["build"] = res.runs.get("build", 0) + 1
        if p.returncode != 0:
            text = (p.stdout + p.stderr).strip()
            errs = [l for l in text.splitlines() if "error" in l or l.startswith("ph build:")]
            res.status, res.detail = "build", "\n".join(errs[:1] + [text[-2000:]])
            return res
    res.seconds = time.time() - t0
    return res


def one_seed(args, seed):
    folder = tempfile.mkdtemp(prefix=f"ph-diff-{seed}-", dir=args.tmp)
    try:
        case = phgen.generate(seed, args.int_tiles)
        res = run_case(args.ph, case, args.targets, args.build, folder)
        if res.status != "ok" and args.keep:
            dst = os.path.join(args.keep, f"seed{seed}")
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(folder, dst)
            with open(os.path.join(dst, "case.json"), "w") as f:
                f.write(case.to_json())
        return res
    except subprocess.TimeoutExpired as e:
        res = Result(seed)
        res.status, res.detail = "crash", f"timeout: {e.cmd[:3]}"
        return res
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def failure_kind(status):
    return status in ("check", "interp", "mismatch", "crash", "build")


def load_known():
    """Bugs found, written down and not fixed yet (known.json): a failure matching one is
    counted as `known:ID` and does not fail a run, so that CI stays green on them while
    every other failure still fails it. Each has a case in cases/ that fails until fixed."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known.json")
    with open(path) as f:
        return json.load(f)


def classify(res, known):
    for k in known:
        if res.status == k["status"] and k["pattern"] in res.detail:
            res.status = "known:" + k["id"]
            return

def save_case(case, res, save_dir, tag, expect="ok"):
    os.makedirs(save_dir, exist_ok=True)
    base = os.path.join(save_dir, tag)
    with open(base + ".ph", "w") as f:
        f.write(case.source)
    d = json.loads(case.to_json())
    d["expect"] = expect
    d["found"] = {"status": res.status, "detail": res.detail[:600]}
    with open(base + ".json", "w") as f:
        json.dump(d, f, indent=1, sort_keys=True)
    return base


def cmd_run(args):
    seeds = list(range(args.seed, args.seed + args.count))
    print(f"difftest: {len(seeds)} programs, seeds {seeds[0]}..{seeds[-1]}, targets interp+{','.join(args.targets)}"
          f", language {'+'.join(sorted(args.int_tiles)) or 'base'}"
          f"{' + ph build' if args.build else ''}, -j{args.jobs}", flush=True)
    t0 = time.time()
    results = []
    known = load_known()
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for res in ex.map(lambda s: one_seed(args, s), seeds):
            classify(res, known)
            results.append(res)
            if res.status.startswith("known:"):
                print(f"known seed {res.seed}: {res.status}", flush=True)
            elif res.status != "ok":
                print(f"FAIL seed {res.seed}: {res.status}: {res.detail.splitlines()[0] if res.detail else ''}", flush=True)
                if args.verbose:
                    print(res.detail)
    summary(results, time.time() - t0)
    fails = [r for r in results if failure_kind(r.status)]
    if fails and args.shrink:
        import shrink
        for r in fails[: args.max_shrink]:
            case = phgen.generate(r.seed, args.int_tiles)
            small, sres = shrink.shrink(args, case, r)
            print(f"shrunk seed {r.seed} ({r.status}) to {small.source.count(chr(10))} lines:\n{small.source}")
            if args.save_dir:
                print("saved", save_case(small, sres, args.save_dir, f"seed{r.seed}-{r.status}", "fails"))
    return 1 if fails else 0


def summary(results, secs):
    by = {}
    for r in results:
        by[r.status] = by.get(r.status, 0) + 1
    runs = {}
    feats = {}
    for r in results:
        for k, v in r.runs.items():
            runs[k] = runs.get(k, 0) + v
        for f in r.features:
            feats[f] = feats.get(f, 0) + 1
    print(f"difftest: {len(results)} programs in {secs:.1f} s: " + ", ".join(f"{k} {v}" for k, v in sorted(by.items())))
    print("  runs per target: " + ", ".join(f"{k} {v}" for k, v in sorted(runs.items())))
    print("  features: " + ", ".join(f"{k} {v}" for k, v in sorted(feats.items())))


def cmd_one(args):
    case = phgen.generate(args.seed_one, args.int_tiles)
    print(case.source)
    print(json.dumps({k: case.__dict__[k] for k in ("sizes", "args", "configs", "outputs")}, sort_keys=True))
    folder = tempfile.mkdtemp(prefix="ph-diff-one-")
    res = run_case(args.ph, case, args.targets, args.build, folder)
    print(f"{res.status}: {res.detail}\nruns {res.runs}  (files in {folder})")
    return 0 if res.status == "ok" else 1


def cmd_check(args):
    """`ph check` only, on the programs of the given seeds and of --seed :+ --count: every one
    must be accepted (a refusal is a generator bug, or a checker one). Fast: no runs."""
    seeds = list(args.seeds) + list(range(args.seed, args.seed + args.count))
    folder = tempfile.mkdtemp(prefix="ph-diff-check-")

    def one(seed):
        case = phgen.generate(seed, args.int_tiles)
        src = os.path.join(folder, f"{case.kernel}.ph")
        with open(src, "w") as f:
            f.write(case.source)
        ok, msg = check_program(args.ph, src)
        os.unlink(src)
        errs = [ln for ln in msg.splitlines() if "error[" in ln]
        return seed, ok, errs, case.features

    refused, feats = [], {}
    try:
        with cf.ThreadPoolExecutor(max(1, args.jobs)) as ex:
            for seed, ok, errs, features in ex.map(one, seeds):
                for x in features:
                    feats[x] = feats.get(x, 0) + 1
                if not ok:
                    refused.append(seed)
                    print(f"seed {seed}: refused: {errs[0] if errs else '(no error line)'}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    need = [x for x in args.features.split(",") if x]
    missing = [x for x in need if not feats.get(x)]
    print(f"{len(seeds)} programs, {len(seeds) - len(refused)} accepted, {len(refused)} refused"
          + (f"; features never generated: {', '.join(missing)}" if missing else ""))
    if args.verbose:
        print(json.dumps(feats, sort_keys=True))
    return 1 if refused or missing else 0


def cmd_cases(args):
    """Every saved case: the program must check, agree on every target and build."""
    files = sorted(f for f in os.listdir(args.dir) if f.endswith(".json"))
    fails = 0
    for f in files:
        with open(os.path.join(args.dir, f)) as fh:
            d = json.load(fh)
        expect = d.pop("expect", "ok")
        found = d.pop("found", None) or {}
        d.pop("note", None)
        d.pop("gpu", None)  # a failure on the GPU only (gpu-cases): the targets here must pass
        case = phgen.Case(**d)
        folder = tempfile.mkdtemp(prefix="ph-diff-case-")
        try:
            res = run_case(args.ph, case, args.targets, args.build, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        first = res.detail.splitlines()[0] if res.detail else ""
        if expect == "ok":
            # A bug that was fixed: the case must pass.
            ok = res.status == "ok"
            print(f"{'ok   ' if ok else 'FAIL '} {f} (found as: {found.get('status', '?')}) {first}")
        else:
            # A bug written down but not fixed (docs/reliability.md): it must still fail the
            # same way; once it passes, set "expect" to "ok" so that it guards the fix.
            ok = res.status == found.get("status")
            tag = "xfail" if ok else ("XPASS" if res.status == "ok" else "FAIL ")
            print(f"{tag} {f} (known bug, {found.get('status')}) {first}"
                  + ("  -> it passes now: set \"expect\": \"ok\" in the case" if res.status == "ok" else ""))
        fails += not ok
    print(f"difftest cases: {len(files)} cases, {fails} failing")
    return 1 if fails else 0


def cmd_gpu_cases(args):
    """The device's reproducers (gpu.py's results.json) as cases: the program of the seed at the
    shrunk sizes, in the failing configuration. Where the CPU target fails the same way, the
    program's text is shrunk here too (shrink.py) and the case expects the failure; where only
    the GPU fails, the case must pass on the targets here and records the GPU failure (`gpu`),
    for whoever fixes it to rerun with ph-run."""
    import shrink
    with open(args.results) as f:
        doc = json.load(f)
    for r in doc.get("repros", []):
        case = phgen.generate(r["seed"], args.int_tiles)
        if r.get("source") and r["source"] != case.source:
            print(f"seed {r['seed']}: the generator here makes another program than the device ran; "
                  f"using the device's source")
            case.source = r["source"]
        case.sizes = dict(r["sizes"])
        case.configs = [r["config"]]
        folder = tempfile.mkdtemp(prefix="ph-diff-gpu-case-")
        try:
            res = run_case(args.ph, case, args.targets, args.build, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        tag = f"seed{r['seed']}-gpu-{r['target']}-{r['status']}"
        if res.status != "ok":
            small, sres = shrink.shrink(args, case, res)
            base = save_case(small, sres, args.save_dir, tag, "fails")
        else:
            base = save_case(case, res, args.save_dir, tag, "ok")
        with open(base + ".json") as f:
            d = json.load(f)
        d["gpu"] = {k: r[k] for k in ("target", "config", "status", "detail", "original_sizes")}
        with open(base + ".json", "w") as f:
            json.dump(d, f, indent=1, sort_keys=True)
        print(f"seed {r['seed']} {r['target']}: here {res.status}; saved {base}.{{ph,json}}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "one", "cases", "gpu-prepare", "gpu-cases"):
        p = sub.add_parser(name)
        p.add_argument("--ph", required=True)
        p.add_argument("--targets", default="cpu", help="targets compared with interp (comma list; empty for none)")
        p.add_argument("--build", action="store_true", help="also `ph build` for the GPU")
        p.add_argument("-j", "--jobs", type=int, default=2)
        p.add_argument("--tmp", default=None)
        if name in ("run", "gpu-prepare"):
            p.add_argument("--count", type=int, default=100)
            p.add_argument("--seed", type=int, default=1)
        if name == "run":
            p.add_argument("--shrink", action="store_true")
            p.add_argument("--max-shrink", type=int, default=5)
            p.add_argument("--save-dir")
            p.add_argument("--keep")
            p.add_argument("-v", "--verbose", action="store_true")
        if name == "one":
            p.add_argument("seed_one", type=int)
        if name == "cases":
            p.add_argument("dir")
        if name == "gpu-cases":
            p.add_argument("results")
            p.add_argument("--save-dir", required=True)
        if name == "gpu-prepare":
            p.add_argument("--out", required=True)
            p.add_argument("--ph-run", help="copied (stripped) into the pack")
            p.add_argument("--gpu-targets", default="sm_80,sm_90a",
                           help="`ph build --target` for each (comma list); each runs on the device")
    p = sub.add_parser("check")
    p.add_argument("--ph", required=True)
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=0)
    p.add_argument("--features", default="", help="comma list: each must appear in some program")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("seeds", type=int, nargs="*")
    p = sub.add_parser("gpu-run")
    p.add_argument("--ph-run", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("-j", "--jobs", type=int, default=16)
    p.add_argument("--sanitize", type=int, default=40)
    p.add_argument("--max-shrink", type=int, default=10)
    p.add_argument("--budget", type=float, default=400)
    p.add_argument("--log")
    args = ap.parse_args()
    if hasattr(args, "targets"):
        args.targets = [t for t in args.targets.split(",") if t]
    if getattr(args, "ph", None):
        # The language the checker accepts (phgen.CAPS), probed from `ph`: every form it has is
        # generated. PH_DIFFTEST_CAPS narrows it: `base` (none), or a comma list such as
        # `int-tiles` (the programs of seeds written down before issue 16 landed).
        caps = probe_caps(args.ph)
        want = os.environ.get("PH_DIFFTEST_CAPS", "auto")
        allowed = set(caps) if want == "auto" else set(w for w in want.split(",") if w and w != "base")
        args.int_tiles = frozenset(c for c in caps if c in allowed)
    if args.cmd == "run":
        # CI can widen or move the range without editing the test.
        args.count = int(os.environ.get("PH_DIFFTEST_COUNT", args.count))
        args.seed = int(os.environ.get("PH_DIFFTEST_SEED", args.seed))
        return cmd_run(args)
    if args.cmd == "one":
        return cmd_one(args)
    if args.cmd == "check":
        return cmd_check(args)
    if args.cmd == "cases":
        return cmd_cases(args)
    if args.cmd == "gpu-cases":
        return cmd_gpu_cases(args)
    import gpu
    if args.cmd == "gpu-prepare":
        return gpu.prepare(args)
    return gpu.run(args)


if __name__ == "__main__":
    sys.exit(main())
