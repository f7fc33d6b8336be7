#!/usr/bin/env python3
"""Is the mma.sync GEMM's 8192³ figure limited by the card's power? (issue 14)

Under Nsight Compute one 8192³ launch of gemm_relu_f16_w8 (mma.sync) took 2.52 ms, 436 TFLOP/s,
while bench_gemm.py's median of back-to-back launches was 2.88 ms (docs/tilegpu.md, "Addresses by
rows"); cuBLAS's two figures agree. This times both kernels two ways on the same tensors, each
after the card rested (`--rest` seconds):

  burst      `--burst` launches (after one warm-up) on a card at rest: `ph-run --min-ms 0`;
  sustained  `--sustained` launches back to back (about a second and a half at 8192³).

Ph and cuBLAS get the same protocol (one CUDA event pair per launch, the median), and
nvidia-smi samples power, SM clock and throttle reasons every 20 ms during each phase.

usage: gemm_power.py PH_RUN DIR [--kernel gemm_relu_f16_w8] [--config BM=128,BN=256,BK=64]
                     [--sizes 4096,8192] [--burst 5] [--sustained 500] [--rest 5] [--out LOG.jsonl]

DIR holds `ph build examples/gemm.ph --kernel K -o DIR/K`. Prints one JSON line per phase and a
table. Not a test: the figures are for docs/tilegpu.md.
"""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np
import torch
from cuda_timing import time_cuda


class Sampler:
    """nvidia-smi every 20 ms while a phase runs."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        self.f = open(self.path, "w")
        self.p = subprocess.Popen(["nvidia-smi", "--query-gpu=power.draw,clocks.sm,clocks_event_reasons.active",
                                   "--format=csv,noheader,nounits", "-lms", "20"], stdout=self.f, stderr=subprocess.DEVNULL)
        time.sleep(0.1)
        return self

    def __exit__(self, *exc):
        self.p.terminate(); self.p.wait(); self.f.close()

    def summary(self):
        watts, clocks, capped = [], [], 0
        for line in open(self.path):
            parts = [p.strip() for p in line.split(",")]
            try:
                w, c, r = float(parts[0]), float(parts[1]), int(parts[2], 16)
            except (ValueError, IndexError):
                continue
            if c < 1000:  # idle samples before or after the launches
                continue
            watts.append(w); clocks.append(c); capped += 1 if r & 0x4 or r & 0x80 else 0
        n = len(watts)
        return {"samples": n, "watts": float(np.mean(watts)) if n else None, "watts_max": max(watts) if n else None,
                "sm_mhz": float(np.mean(clocks)) if n else None, "sm_mhz_min": min(clocks) if n else None,
                "power_capped": capped / n if n else None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ph_run"); ap.add_argument("dir")
    ap.add_argument("--kernel", default="gemm_relu_f16_w8"); ap.add_argument("--config", default="BM=128,BN=256,BK=64")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--burst", type=int, default=5); ap.add_argument("--sustained", type=int, default=500)
    ap.add_argument("--rest", type=float, default=5.0); ap.add_argument("--out", default=None)
    a = ap.parse_args()
    log = open(a.out, "a") if a.out else None
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(s) for s in a.sizes.split(",")]:
            g = torch.Generator(device="cuda").manual_seed(n)
            A = (torch.randn(n, n, device="cuda", generator=g) / 8).half()
            B = (torch.randn(n, n, device="cuda", generator=g) / 8).half()
            bias = torch.randn(1, n, device="cuda", generator=g).half()
            files = {}
            for name, t in [("A", A), ("B", B), ("Bias", bias)]:
                files[name] = os.path.join(tmp, name + ".npy"); np.save(files[name], t.cpu().numpy())
            flops = 2.0 * n ** 3
            mm = lambda: A @ B
            for phase, launches in [("burst", a.burst), ("sustained", a.sustained)]:
                for who in ("ph", "cublas"):
                    time.sleep(a.rest)
                    with Sampler(os.path.join(tmp, f"smi-{n}-{phase}-{who}.csv")) as s:
                        if who == "ph":
                            args = [a.ph_run, os.path.join(a.dir, a.kernel), "--kernel", a.kernel, "--config", a.config,
                                    "--bench", "--json", "--warmup", "1", "--iters", str(launches), "--min-ms", "0"]
                            for name, p in files.items():
                                args += ["--in", f"{name}={p}"]
                            r = subprocess.run(args, capture_output=True, text=True)
                            try:
                                res = json.loads(r.stdout)["rows"][0]
                            except (ValueError, KeyError, IndexError):
                                print(f"ph-run failed ({r.returncode}): {r.stderr[-800:]}{r.stdout[-800:]}")
                                return 1
                            ms, lo, hi = res["ms"], res.get("minMs"), res.get("maxMs")
                        else:
                            ms, lo, hi = time_cuda(mm, launches, warmup=1), None, None
                    row = {"n": n, "phase": phase, "who": who, "launches": launches, "ms": ms, "min_ms": lo, "max_ms": hi,
                           "tflops": flops / (ms * 1e-3) / 1e12, **s.summary()}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    if log:
                        log.write(json.dumps(row) + "\n")
    print(f"\n{'n':>5} {'phase':10} {'who':7} {'ms':>8} {'TFLOP/s':>8} {'W mean':>7} {'W max':>6} {'MHz':>6} {'MHz min':>7} {'capped':>7}")
    f = lambda v, spec: format(v, spec) if v is not None else "n/a"
    for r in rows:
        print(f"{r['n']:5} {r['phase']:10} {r['who']:7} {r['ms']:8.3f} {r['tflops']:8.1f} {f(r['watts'], '7.0f')} "
              f"{f(r['watts_max'], '6.0f')} {f(r['sm_mhz'], '6.0f')} {f(r['sm_mhz_min'], '7.0f')} {f(r['power_capped'], '7.2f')}")
    by = {(r["n"], r["phase"], r["who"]): r["ms"] for r in rows}
    for n in sorted({r["n"] for r in rows}):
        for phase in ("burst", "sustained"):
            if (n, phase, "ph") in by and (n, phase, "cublas") in by:
                print(f"{n}³ {phase}: Ph / cuBLAS = {by[(n, phase, 'cublas')] / by[(n, phase, 'ph')]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
