#!/usr/bin/python3
"""The shrinker's own test: plant a failure in a generated program and shrink it.

A statement that `ph check` refuses (E0201, an unknown name, used in an expression) is put in
the middle of seed 7's kernel; shrinking the `check` failure must end on a program of at most
six lines that still holds the planted statement, simplified inside its expression down to
the unknown name (`tmax(exp(2.0 * (undefined_name + 1.0)), 3.0)` -> `undefined_name`), with the
sizes reduced to 1.
"""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import phgen  # noqa: E402
import shrink  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--ph", required=True)
args = ap.parse_args()
args.targets, args.build = [], False
case = phgen.generate(7, difftest.probe_caps(args.ph))
lines = case.source.rstrip("\n").split("\n")
k = next(i for i, l in enumerate(lines) if l.startswith("kernel "))
lines.insert(k + 2, "  let planted = tmax(exp(2.0 * (undefined_name + 1.0)), 3.0)")
case.source = "\n".join(lines) + "\n"
folder = tempfile.mkdtemp()
res = difftest.run_case(args.ph, case, [], False, folder)
shutil.rmtree(folder)
assert res.status == "check" and "E0201" in res.detail, (res.status, res.detail)
small, sres = shrink.shrink(args, case, res)
print(small.source)
n = len([l for l in small.source.splitlines() if l.strip()])
assert "undefined_name" in small.source, "the planted statement was removed"
assert n <= 6, f"shrunk to {n} lines, expected at most 6"
assert "  let planted = undefined_name" in small.source.splitlines(), "the expression was not simplified"
assert all(v == 1 for v in small.sizes.values()), small.sizes
assert sres.status == "check"
print(f"ok: {len(case.source.splitlines())} lines shrunk to {n}")

# The same statement inside an `if` with an `else`: the shrinker replaces the `if` by its
# branch (shrink.py, pass 2) and ends on the same few lines, no `if` left.
case = phgen.generate(7, difftest.probe_caps(args.ph))
lines = case.source.rstrip("\n").split("\n")
k = next(i for i, l in enumerate(lines) if l.startswith("kernel "))
lines[k + 2:k + 2] = ["  if row + BR > M || ctx.block.x == 0 {", "    let planted = tmax(undefined_name, 3.0)",
                      "  } else {", "    let other = 1.0", "  }"]
case.source = "\n".join(lines) + "\n"
folder = tempfile.mkdtemp()
res = difftest.run_case(args.ph, case, [], False, folder)
shutil.rmtree(folder)
assert res.status == "check" and "E0201" in res.detail, (res.status, res.detail)
small, sres = shrink.shrink(args, case, res)
print(small.source)
n = len([l for l in small.source.splitlines() if l.strip()])
assert "if " not in small.source and "  let planted = undefined_name" in small.source.splitlines(), small.source
assert n <= 6, f"shrunk to {n} lines, expected at most 6"
print(f"ok: an `if` around it shrunk to {n} lines")
