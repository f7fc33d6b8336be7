#!/usr/bin/python3
"""How much the bounds check: the share of outputs whose bound exceeds 10 % of their
magnitude (the largest |value| the interpreter computes), under the uniform bound `tol`
(4 err + 2 u_out bound on every element) and under the one the runners use, `abs` +
`rel` |value| per element (phgen.Gen.record_out). Interpreter runs only.

    bounds.py --ph build/bin/ph [--count 200] [--seed 1] [--feature if]

With --feature, only the programs that use it (`if`: values that flow through an `if`, whose
bound is the largest a branch leaves, Gen._stmt_if) count, and for those the bound is also
checked against what the interpreter computes: an output whose largest |value| exceeds its
bound is the generator's mistake (a bound that does not hold), counted and named.
"""
import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import phgen  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--ph", required=True)
ap.add_argument("--count", type=int, default=200)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--feature", default="")
args = ap.parse_args()
caps = difftest.probe_caps(args.ph)
n = loose_old = loose_new = programs = 0
over = []
ratios_old, ratios_new = [], []
for seed in range(args.seed, args.seed + args.count):
    case = phgen.generate(seed, caps)
    if args.feature and args.feature not in case.features:
        continue
    programs += 1
    d = tempfile.mkdtemp(prefix="ph-bounds-")
    try:
        src = os.path.join(d, "k.ph")
        open(src, "w").write(case.source)
        cfg = case.configs[0]
        ins = difftest.make_inputs(case, cfg, d)
        p, outs = difftest.run_target(args.ph, src, case, cfg, "interp", ins, d)
        if p.returncode:
            continue
        for k, spec in case.outputs.items():
            if spec["dtype"] == "i32":
                continue
            r = np.load(outs[k]).astype(np.float64)
            r = np.abs(r[~np.isnan(r)])
            if r.size == 0 or r.max() == 0:
                continue
            mag = r.max()
            if mag > spec["bound"] * (1 + 1e-6) + 1e-6:
                over.append((seed, k, float(mag), spec["bound"]))
            old = spec["tol"] / mag
            new = float(np.minimum(spec["abs"] + spec["rel"] * r, spec["tol"]).max()) / mag
            n += 1
            loose_old += old > 0.1
            loose_new += new > 0.1
            ratios_old.append(old)
            ratios_new.append(new)
    finally:
        shutil.rmtree(d, ignore_errors=True)
q = lambda a, x: float(np.quantile(a, x)) * 100
print(f"{n} float outputs of {programs} programs{' with ' + args.feature if args.feature else ''} "
      f"(seeds {args.seed}..{args.seed + args.count - 1}); {len(over)} beyond their magnitude bound"
      + "".join(f"\n  seed {s} {k}: max |value| {m:.4g} > bound {b:.4g}" for s, k, m, b in over[:10]))
print(f"  uniform bound (tol):        {loose_old} above 10 % of the magnitude ({100 * loose_old / n:.1f} %); "
      f"median {q(ratios_old, .5):.2g} %, 90th percentile {q(ratios_old, .9):.2g} %")
print(f"  per element (abs + rel|r|): {loose_new} above 10 % ({100 * loose_new / n:.1f} %); "
      f"median {q(ratios_new, .5):.2g} %, 90th percentile {q(ratios_new, .9):.2g} %")
