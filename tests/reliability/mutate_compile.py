#!/usr/bin/python3
# mutate_compile.py PH [--seed S] [--count N] [--stages llvm,ptx] [FILE...]: mutates kernels (element
# types, dot/dot_t, literals, slice lengths, operators, builtins), keeps the mutants `ph check`
# accepts, and compiles each kernel of each through the CPU target (`ph emit --stage llvm`)
# and, with ptx in --stages, the GPU target (`ph emit --stage ptx`). A mutant that checks
# clean but fails to compile is a bug (ARCHITECTURE: `ph check` accepting a program means it
# compiles on every target or gets a diagnostic saying why): printed with its first error
# line, and the exit status is 1. Standard library only. Default seeds: examples/*.ph.
import os
import random
import re
import subprocess
import sys
import tempfile

args = sys.argv[1:]
ph = args.pop(0)
seed, count, stages, files = 1, 200, ["llvm"], []
while args:
    a = args.pop(0)
    if a == "--seed":
        seed = int(args.pop(0))
    elif a == "--count":
        count = int(args.pop(0))
    elif a == "--stages":
        stages = args.pop(0).split(",")
    else:
        files.append(a)
if not files:
    ex = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
    files = sorted(os.path.join(ex, f) for f in os.listdir(ex) if f.endswith(".ph"))
rng = random.Random(seed)
ELEMS = ["f16", "bf16", "f32", "i32"]
BUILTINS = ["exp", "exp2", "log", "sqrt", "rsqrt", "abs"]


def mutate(text):
    """One random change that keeps the program plausible."""
    kinds = []
    elem_sites = [m for m in re.finditer(r"\b(f16|bf16|f32|i32)\b", text)]
    if elem_sites:
        kinds.append("elem")
    if re.search(r"\bdot(_t)?\(", text):
        kinds.append("dot")
    nums = list(re.finditer(r"(?<![\w.])\d+\.\d+(e-?\d+)?\b", text))
    if nums:
        kinds.append("float")
    lens = list(re.finditer(r":\+ (\d+)\b", text))
    if lens:
        kinds.append("len")
    ops = list(re.finditer(r" ([-+*/]) ", text))
    if ops:
        kinds.append("op")
    calls = list(re.finditer(r"\b(" + "|".join(BUILTINS) + r")\(", text))
    if calls:
        kinds.append("builtin")
    k = rng.choice(kinds)
    if k == "elem":
        m = rng.choice(elem_sites)
        new = rng.choice([e for e in ELEMS if e != m.group(1)])
        return text[:m.start()] + new + text[m.end():], "%s -> %s at %d" % (m.group(1), new, m.start())
    if k == "dot":
        m = rng.choice(list(re.finditer(r"\bdot(_t)?\(", text)))
        new = "dot(" if m.group(1) else "dot_t("
        return text[:m.start()] + new + text[m.end():], "%s -> %s" % (m.group(0), new)
    if k == "float":
        m = rng.choice(nums)
        new = rng.choice(["0.0", "-0.0", "1.0e30", "-1.0e30", "3.4e38", "1.0e-45", "65504.0", "70000.0"])
        return text[:m.start()] + new + text[m.end():], "%s -> %s" % (m.group(0), new)
    if k == "len":
        m = rng.choice(lens)
        new = str(rng.choice([1, 2, 3, 7, 16, 33, 128]))
        return text[:m.start(1)] + new + text[m.end(1):], ":+ %s -> %s" % (m.group(1), new)
    if k == "op":
        m = rng.choice(ops)
        new = rng.choice([o for o in "+-*/" if o != m.group(1)])
        return text[:m.start(1)] + new + text[m.end(1):], "%s -> %s" % (m.group(1), new)
    m = rng.choice(calls)
    new = rng.choice([b for b in BUILTINS if b != m.group(1)])
    return text[:m.start(1)] + new + text[m.end(1):], "%s -> %s" % (m.group(1), new)


def kernels(path):
    r = subprocess.run([ph, "check", "--json", path], capture_output=True, text=True)
    return r.returncode, re.findall(r"^kernel (\w+)", open(path).read(), re.M)


seeds = [(f, open(f).read()) for f in files]
tmp = tempfile.mkdtemp(prefix="ph-mutate-")
checked = clean = compiled = 0
bugs = []
for i in range(count):
    f, text = rng.choice(seeds)
    steps = []
    for _ in range(rng.choice([1, 1, 2])):
        text, what = mutate(text)
        steps.append(what)
    path = os.path.join(tmp, "m%04d.ph" % i)
    open(path, "w").write(text)
    checked += 1
    rc, ks = kernels(path)
    if rc != 0:
        continue
    clean += 1
    for k in ks:
        for st in stages:
            r = subprocess.run([ph, "emit", path, "--kernel", k, "--stage", st], capture_output=True, text=True)
            compiled += 1
            if r.returncode != 0:
                err = next((l for l in r.stderr.splitlines() if "error" in l), r.stderr.strip()[:200])
                bugs.append((path, os.path.basename(f), k, st, "; ".join(steps), err))
                print("BUG %s (%s, kernel %s, stage %s; %s): %s" % bugs[-1], flush=True)
print("mutants %d, checked clean %d, kernel compiles %d, clean but not compiling %d" %
      (checked, clean, compiled, len(bugs)))
sys.exit(1 if bugs else 0)
