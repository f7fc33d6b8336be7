#!/usr/bin/python3
"""ph-run --batch (the GPU mode's runner, gpu.py): one marker a job with that job's exit code,
blank lines skipped, a failing job not stopping the ones after it. Both jobs here fail before
any GPU is needed (a folder that is not there: 1; an unknown option: 2).

    batch_test.py PH-RUN
"""
import os
import subprocess
import sys
import tempfile

with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    f.write("/nonexistent --kernel k\n\n--no-such-option\n")
try:
    p = subprocess.run([sys.argv[1], "--batch", f.name], capture_output=True, text=True)
finally:
    os.unlink(f.name)
print(p.stdout, p.stderr)
assert p.returncode == 1, p.returncode
assert p.stdout.splitlines() == ["@@ph-run-batch 0 1", "@@ph-run-batch 1 2"], p.stdout
assert [l for l in p.stderr.splitlines() if l.startswith("@@")] == ["@@ph-run-batch 0 1", "@@ph-run-batch 1 2"]
print("ok: ph-run --batch")
