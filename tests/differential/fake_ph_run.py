#!/usr/bin/python3
"""A stand-in for ph-run that runs the CPU target instead of a GPU, so that the GPU mode's
driver (gpu.py: arguments, outputs, .npy reading, comparison, summary) is tested on a machine
without one: `ph-run DIR ARGS...` becomes `ph run SOURCE --target cpu ARGS...` with the source
that DIR's manifest carries. PH_FAKE_PH names the compiler. --info succeeds."""
import json
import os
import subprocess
import sys
import tempfile

args = sys.argv[1:]
if args and args[0] == "--info":
    print("fake GPU: the CPU target through ph run (tests/differential/fake_ph_run.py)")
    sys.exit(0)
m = json.load(open(os.path.join(args[0], "manifest.json")))
with tempfile.NamedTemporaryFile("w", suffix=".ph", delete=False) as f:
    f.write(m["source"]["text"])
try:
    p = subprocess.run([os.environ["PH_FAKE_PH"], "run", f.name, "--target", "cpu"] + args[1:])
finally:
    os.unlink(f.name)
sys.exit(p.returncode)
