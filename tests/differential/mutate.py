#!/usr/bin/python3
"""How sharp the oracle is: mutate generated programs the way a miscompilation would (a row
index off by one, rowsum for rowmax, exp2 for exp, - for +), run original and mutant on the
interpreter with the same inputs, and count the mutants whose outputs changed that the
comparison (the generator's bounds) catches.

    mutate.py PH COUNT [auto] e.g. mutate.py build/bin/ph 150   (seeds 5000 on; prints JSON:
                              mutation -> [applicable, changed an output, detected])

With `auto`, the programs use every form this `ph` accepts (difftest.probe_caps: `where`,
`if` ...), and `if-negate` (an `if` taking the other branch: `if c {` -> `if !(c) {`) applies;
without it, the base language as when the figures in docs/reliability.md were first measured.
"""
import json
import os
import random
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phgen, difftest
import numpy as np
ph = sys.argv[1]; n = int(sys.argv[2])
caps = difftest.probe_caps(ph) if sys.argv[3:] == ["auto"] else frozenset()
muts = [("row-shift", r"(= .*?\[[^\]]*?)\brow :\+", r"\1row + 1 :+"),
        ("rowsum-rowmax", r"rowsum\(", "rowmax("),
        ("exp-exp2", r"\bexp\(", "exp2("),
        ("plus-minus", r"(\w\]?\)?) \+ (\w)", r"\1 - \2"),
        ("if-negate", r"^(\s*(?:\} else )?if )(.*) \{$", r"\1!(\2) {")]
stats = {m[0]: [0, 0, 0] for m in muts}  # applicable, checked, detected
for seed in range(5000, 5000 + n):
    case = phgen.generate(seed, caps)
    for name, pat, rep in muts:
        lines = case.source.split("\n")
        idx = [i for i, l in enumerate(lines) if re.search(pat, l) and not l.strip().startswith(("kernel", "fn", "@", "for", "let row"))]
        if not idx: continue
        i = random.Random(seed).choice(idx)
        new = re.sub(pat, rep, lines[i], count=1)
        if new == lines[i]: continue
        stats[name][0] += 1
        m = phgen.Case(**dict(case.__dict__)); m.source = "\n".join(lines[:i] + [new] + lines[i+1:])
        d = tempfile.mkdtemp(prefix='ph-mutate-')
        try:
            src0 = os.path.join(d, "a.ph"); open(src0, "w").write(case.source)
            src1 = os.path.join(d, "b.ph"); open(src1, "w").write(m.source)
            if not difftest.check_program(ph, src1)[0]: continue
            cfg = case.configs[0]
            ins = difftest.make_inputs(case, cfg, d)
            p0, o0 = difftest.run_target(ph, src0, case, cfg, "interp", ins, d)
            os.makedirs(d + "/m"); 
            p1, o1 = difftest.run_target(ph, src1, m, cfg, "interp", ins, d + "/m")
            if p0.returncode or p1.returncode: continue
            diff_any = any(not np.array_equal(np.load(o0[k]), np.load(o1[k]), equal_nan=True) for k in o0)
            if not diff_any: continue  # the mutation changed nothing observable
            stats[name][1] += 1
            if any(difftest.compare(case, k, np.load(o0[k]), np.load(o1[k])) for k in o0):
                stats[name][2] += 1
        finally:
            shutil.rmtree(d, ignore_errors=True)
print(json.dumps(stats))
