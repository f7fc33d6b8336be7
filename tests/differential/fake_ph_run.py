#!/usr/bin/python3
"""A stand-in for ph-run that runs the CPU target instead of a GPU, so that the GPU mode's
driver (gpu.py: batches, arguments, outputs, .npy reading, comparison, summary) is tested on a
machine without one: `ph-run DIR ARGS...` becomes `ph run SOURCE --target cpu ARGS...` with the
source that DIR's manifest carries, and `ph-run --batch FILE` does that for each line, printing
ph-run's markers. PH_FAKE_PH names the compiler. --info succeeds; --timeout is dropped; with
--check --json, ph run's document passes through (ph-output v1's `run`, the shape ph-run
writes too) with `"unchecked": true` added."""
import json
import os
import subprocess
import sys
import tempfile


def one(args):
    m = json.load(open(os.path.join(args[0], "manifest.json")))
    rest = []
    i = 1
    while i < len(args):
        if args[i] == "--timeout":
            i += 2
            continue
        rest.append(args[i])
        i += 1
    with tempfile.NamedTemporaryFile("w", suffix=".ph", delete=False) as f:
        f.write(m["source"]["text"])
    try:
        p = subprocess.run([os.environ["PH_FAKE_PH"], "run", f.name, "--target", "cpu"] + rest,
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    sys.stderr.write(p.stderr)
    if "--json" in rest and "--check" in rest and p.stdout.strip():
        d = json.loads(p.stdout)
        # ph run --check leaves out tensors that are read as well as written (ph-run compares
        # every written one): they are listed as unchecked, which gpu.py then skips.
        d["unchecked"] = True
        print(json.dumps(d))
    else:
        sys.stdout.write(p.stdout)
    return p.returncode


args = sys.argv[1:]
if args and args[0] == "--info":
    print("fake GPU: the CPU target through ph run (tests/differential/fake_ph_run.py)")
    sys.exit(0)
if len(args) == 2 and args[0] == "--batch":
    failed = 0
    for n, line in enumerate(l for l in open(args[1]) if l.split()):
        rc = one(line.split())
        failed += rc != 0
        sys.stdout.flush()
        sys.stderr.flush()
        print(f"@@ph-run-batch {n} {rc}", flush=True)
        print(f"@@ph-run-batch {n} {rc}", file=sys.stderr, flush=True)
    sys.exit(1 if failed else 0)
sys.exit(one(args))
