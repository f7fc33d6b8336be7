#!/usr/bin/env python3
"""Flash attention (f16, D=64, one head) and causal attention (f32) through
`ph-run --bench`, next to PyTorch's scaled_dot_product_attention with each
backend forced in turn, on the same inputs; prints times and ratios.

usage: bench_attention.py PH_RUN BUILD_DIR [--sizes 4096,16384] [--iters 20]

BUILD_DIR holds `flash_attention/` and `causal_attention/`, folders made by
`ph build examples/X.ph -o BUILD_DIR/X` (tests/gpu/check_examples.sh build
makes both), and `flash_autotune/` (tests/gpu/Inputs/autotune.ph: flash
attention f16 on the SIMT policy) when it is there. Ph's output is checked against PyTorch's math backend in fp32
(‖o − ref‖/‖ref‖), since the interpreter is too slow at these sizes.
"""
import argparse, json, os, subprocess, sys, tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from cuda_timing import time_cuda as time_torch

BACKENDS = [("math", SDPBackend.MATH), ("efficient", SDPBackend.EFFICIENT_ATTENTION),
            ("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]


def run_ph(ph_run, build, kernel, arrays, scale, iters):
    with tempfile.TemporaryDirectory() as d:
        args = [ph_run, os.path.join(build, kernel), "--kernel", kernel, "--bench", "--json",
                "--iters", str(iters), "--warmup", "3", "--arg", f"scale={scale}"]
        for name, a in arrays.items():
            p = os.path.join(d, name + ".npy"); np.save(p, a); args += ["--in", f"{name}={p}"]
        out = os.path.join(d, "O.npy"); args += ["--out", f"O={out}"]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"ph-run failed ({r.returncode}): {r.stderr}{r.stdout}")
        return json.loads(r.stdout), np.load(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ph_run"); ap.add_argument("build")
    ap.add_argument("--sizes", default="4096,16384"); ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    D, scale = 64, 0.125
    rows, ok = [], True
    cases = [("flash_attention", torch.float16, False), ("causal_attention", torch.float32, True)]
    # tests/gpu/Inputs/autotune.ph's SIMT flash attention (no @tensorcore), where the build has it.
    if os.path.isdir(os.path.join(a.build, "flash_autotune")):
        cases.append(("flash_autotune", torch.float16, False))
    for kernel, dtype, causal in cases:
        for n in [int(s) for s in a.sizes.split(",")]:
            q, k, v = (torch.rand(n, D, device=dev, dtype=torch.float32) * 2 - 1 for _ in range(3))
            q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
            names = {"Q": q, "K": k, "V": v}
            res, o = run_ph(a.ph_run, a.build, kernel, {m: t.cpu().numpy() for m, t in names.items()}, scale, a.iters)
            row = min(res["rows"], key=lambda x: x["ms"])  # the best configuration
            ref = F.scaled_dot_product_attention(q[None, None].float(), k[None, None].float(), v[None, None].float(),
                                                 is_causal=causal, scale=scale)[0, 0].cpu().numpy().astype(np.float64)
            err = float(np.linalg.norm(o.astype(np.float64) - ref) / np.linalg.norm(ref))
            tol = 2e-3 if dtype == torch.float16 else 1e-4
            ok = ok and err <= tol
            line = {"kernel": kernel, "dtype": str(dtype).replace("torch.", ""), "N": n, "ph_ms": row["ms"],
                    "ph_tflops": row["tflops"], "ph_pct_peak": row["pctPeak"], "ph_regs": row["registers"],
                    "ph_smem": row["sharedBytes"], "rel_err_vs_torch_fp32": err, "torch": {}}
            for bname, b in BACKENDS:
                qq, kk, vv = q[None, None], k[None, None], v[None, None]
                try:
                    with sdpa_kernel([b]):
                        F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal, scale=scale)
                        ms = time_torch(lambda: F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal, scale=scale), a.iters)
                    line["torch"][bname] = ms
                except Exception as e:  # a backend that does not take this dtype or shape
                    line["torch"][bname] = None
            rows.append(line)
            print(json.dumps(line), flush=True)
    print()
    print(f"{'kernel':18} {'dtype':8} {'N':>6} {'ph ms':>9} {'TFLOP/s':>8} {'err':>8} " +
          " ".join(f"{b:>16}" for b, _ in BACKENDS))
    for r in rows:
        cells = []
        for b, _ in BACKENDS:
            t = r["torch"][b]
            cells.append(f"{'n/a':>16}" if t is None else f"{t:8.3f}ms x{r['ph_ms'] / t:6.1f}")
        print(f"{r['kernel']:18} {r['dtype']:8} {r['N']:>6} {r['ph_ms']:9.3f} {r['ph_tflops']:8.2f} "
              f"{r['rel_err_vs_torch_fp32']:8.1e} " + " ".join(cells))
    print("(xR = ph time / torch time: how many times slower Ph's kernel is)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
