#!/usr/bin/python3
"""The GPU mode's own test, without a GPU: `gpu-prepare` on a few seeds (check, ph build,
the pack), then gpu.py's run half with fake_ph_run.py (the CPU target in ph-run's place, in
batches) must pass; then, with one program's bounds made impossible, it must fail naming that
seed and shrink it into a reproducer.

    gpu_mode_test.py --ph build/bin/ph --ph-run build/bin/ph-run
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--ph", required=True)
ap.add_argument("--ph-run", required=True)
args = ap.parse_args()
py = sys.executable
tmp = tempfile.mkdtemp(prefix="ph-gpu-mode-")
try:
    out = os.path.join(tmp, "diff")
    p = subprocess.run([py, os.path.join(here, "difftest.py"), "gpu-prepare", "--ph", args.ph, "--ph-run",
                        args.ph_run, "--out", out, "--count", "4", "--seed", "11", "-j", "2"])
    print("gpu-prepare exit", p.returncode)
    assert os.path.exists(out + ".tar.xz") and os.path.exists(os.path.join(out, "ph-run"))
    env = dict(os.environ, PH_FAKE_PH=os.path.abspath(args.ph))
    run = [py, os.path.join(out, "gpu.py"), "--ph-run", os.path.join(here, "fake_ph_run.py"), "--dir", out,
           "-j", "2", "--sanitize", "0"]
    p = subprocess.run(run, env=env, capture_output=True, text=True)
    print(p.stdout, p.stderr)
    assert p.returncode == 0, "the run half fails on programs that agree"
    # Make one output's bound impossible: the run half must report that program.
    cases = sorted(d for d in os.listdir(out) if d.startswith("s") and os.path.isdir(os.path.join(out, d)))
    victim = cases[0]
    path = os.path.join(out, victim, "case.json")
    c = json.load(open(path))
    for o in c["outputs"].values():
        o["tol"] = -1.0
    json.dump(c, open(path, "w"))
    p = subprocess.run(run, env=env, capture_output=True, text=True)
    print(p.stdout)
    assert p.returncode == 1 and f"FAIL seed {victim[1:]}: mismatch" in p.stdout, "a failing output went unnoticed"
    assert f"repro seed {victim[1:]}" in p.stdout, "the failure was not shrunk into a reproducer"
    res = json.load(open(os.path.join(out, "results.json")))
    assert res["repros"] and res["repros"][0]["seed"] == int(victim[1:]) and res["repros"][0]["source"]
    print("ok: the GPU mode passes agreeing programs and reports a changed reference")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
