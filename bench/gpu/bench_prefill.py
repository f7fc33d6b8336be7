#!/usr/bin/env python3
"""Batched prefill attention (examples/mha.ph: mha_f16 and mha_causal_f16, [B, H, N, D] =
[4, 16, 4096, D], D 64 and 128, f16) through `ph-run --bench`, next to PyTorch's
scaled_dot_product_attention with the FLASH_ATTENTION and CUDNN_ATTENTION backends on the
same tensors (Ph reads them from .npy files), in TFLOP/s and ratios.

usage: bench_prefill.py PH_RUN DIR [--iters 20] [--out LOG.jsonl]

DIR holds `mha_f16/` and `mha_causal_f16/` (`ph build examples/mha.ph --kernel K -o DIR/K`).
FLOPs: 4·B·H·N²·D, half of it for causal (the work above the diagonal is skipped).
Every configuration's output is checked against PyTorch's math backend in fp32 (`ph-run --ref`);
the fastest one's rel. L2 error must be <= 2e-3.
"""
import argparse, json, math, os, subprocess, sys, tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from cuda_timing import time_cuda

BACKENDS = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]
B, H, N = 4, 16, 4096


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ph_run"); ap.add_argument("dir")
    ap.add_argument("--iters", type=int, default=20); ap.add_argument("--out", default=None)
    a = ap.parse_args()
    log = open(a.out, "a") if a.out else None
    rows, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        for kernel, causal in [("mha_f16", False), ("mha_causal_f16", True)]:
            for d in [64, 128]:
                scale = 1 / math.sqrt(d)
                torch.manual_seed(d + causal)
                q, k, v = ((torch.rand(B, H, N, d, device="cuda") * 2 - 1).half() for _ in range(3))
                args = [a.ph_run, os.path.join(a.dir, kernel), "--kernel", kernel, "--config", f"D={d}",
                        "--bench", "--json", "--iters", str(a.iters), "--warmup", "3", "--arg", f"scale={scale}"]
                for name, t in [("Q", q), ("K", k), ("V", v)]:
                    p = os.path.join(tmp, name + ".npy"); np.save(p, t.cpu().numpy()); args += ["--in", f"{name}={p}"]
                # Every configuration's output is checked against PyTorch's fp32 math (ph-run --ref, as
                # bench_tensorcore.py does), so the error reported is the timed configuration's.
                ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal, scale=scale)
                p = os.path.join(tmp, "ref.npy"); np.save(p, ref.cpu().numpy()); args += ["--ref", f"O={p}"]
                del ref
                r = subprocess.run(args, capture_output=True, text=True)
                try:  # a failed check still prints its rows (marked MISMATCH)
                    res_rows = json.loads(r.stdout)["rows"]
                except ValueError:
                    print(f"{kernel} D={d}: ph-run failed ({r.returncode}): {r.stderr[-1500:]}{r.stdout[-1500:]}")
                    ok = False
                    continue
                # ph-run --bench times every autotune configuration for this D: the fastest counts.
                res = min(res_rows, key=lambda x: x["ms"])
                try:  # "ok 2.9e-04" or "MISMATCH 1.2e-01": the relative L2 error
                    err = float(res["check"].split()[1])
                except (IndexError, ValueError):
                    err = float("nan")
                ok = ok and err <= 2e-3
                flops = 4 * B * H * N * N * d * (0.5 if causal else 1.0)
                row = {"kernel": kernel, "D": d, "causal": causal, "config": res.get("config"), "ph_ms": res["ms"],
                       "ph_tflops": flops / (res["ms"] * 1e-3) / 1e12, "err": err,
                       "registers": res.get("registers"), "shared": res.get("sharedBytes"), "torch": {}}
                for bname, be in BACKENDS:
                    try:
                        with sdpa_kernel([be]):
                            f = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                            f()
                            ms = time_cuda(f, a.iters)
                        row["torch"][bname] = {"ms": ms, "tflops": flops / (ms * 1e-3) / 1e12}
                    except Exception as e:
                        row["torch"][bname] = None
                rows.append(row)
                print(json.dumps(row), flush=True)
                if log:
                    log.write(json.dumps(row) + "\n")
                del q, k, v
                torch.cuda.empty_cache()
    print()
    print(f"prefill [B, H, N, D] = [{B}, {H}, {N}, D], f16; TFLOP/s = 4BHN^2D (causal: half) / time; "
          "xR = Ph time / torch time")
    print(f"{'kernel':15} {'D':>4} {'Ph ms':>8} {'TFLOP/s':>8} {'err':>8} " +
          " ".join(f"{b + ' ms / TFLOP/s / xR':>28}" for b, _ in BACKENDS))
    for r in rows:
        cells = []
        for b, _ in BACKENDS:
            t = r["torch"][b]
            cells.append(f"{'n/a':>28}" if t is None else f"{t['ms']:9.3f} {t['tflops']:8.1f} x{r['ph_ms'] / t['ms']:6.2f}")
        print(f"{r['kernel']:15} {r['D']:>4} {r['ph_ms']:8.3f} {r['ph_tflops']:8.2f} {r['err']:8.1e} " + " ".join(cells)
              + f"  {r.get('config') or ''}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
