#!/usr/bin/env python3
"""GEMM with a bias and an activation epilogue (examples/gemm.ph: gemm_relu_f16,
gemm_gelu_bf16), M = N = K = 4096 and 8192, through `ph-run --bench`, next to PyTorch on the
same tensors: `torch.matmul` alone (cuBLAS: the ceiling), the same epilogue eagerly
(`act(a @ b + bias)`) and under `torch.compile` (dynamic=False, one compile per shape).

usage: bench_gemm.py PH_RUN DIR [DIR...] [--iters 20] [--sizes 4096,8192] [--kernels K,...] [--out LOG.jsonl]
                     [--torch matmul,eager,compile]

Each DIR holds one `ph build examples/gemm.ph --kernel K -o DIR/K` folder per kernel (default:
every kernel of KERNELS that a DIR holds); several DIRs (builds with other options, e.g.
PH_GPU_LOWERING=legacy or PH_TILEGPU_STAGES=4) run on the same tensors, labelled by their name.
FLOPs: 2·M·N·K. Every configuration is checked against the fp32 result (`ph-run --ref`); the
fastest one's relative L2 error must be <= 2e-3 (f16) or 1e-2 (bf16). Ratio = PyTorch's time / Ph's.
"""
import argparse, json, os, subprocess, sys, tempfile

import numpy as np
import torch
import torch.nn.functional as F
from cuda_timing import time_cuda

# name -> (dtype, activation, has a bias, output, tolerance)
KERNELS = {
    "gemm_relu_f16": (torch.float16, torch.relu, True, "O", 2e-3),
    "gemm_relu_f16_w8": (torch.float16, torch.relu, True, "O", 2e-3),
    "gemm_gelu_bf16": (torch.bfloat16, lambda x: F.gelu(x, approximate="tanh"), True, "O", 1e-2),
    "gemm_relu": (torch.float16, torch.relu, False, "C", 2e-3),
}


def save(tmp, name, t):
    p = os.path.join(tmp, name + ".npy")
    # NumPy has no bfloat16: ph-run reads bf16 tensors from float32 .npy files (docs/running.md).
    np.save(p, t.float().cpu().numpy() if t.dtype == torch.bfloat16 else t.cpu().numpy())
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ph_run"); ap.add_argument("dirs", nargs="+")
    ap.add_argument("--iters", type=int, default=20); ap.add_argument("--out", default=None)
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--kernels", default=None)
    ap.add_argument("--torch", default="matmul,eager,compile", help="which PyTorch timings (matmul = cuBLAS)")
    a = ap.parse_args()
    log = open(a.out, "a") if a.out else None
    ok, rows, torch_times = True, [], {}
    with tempfile.TemporaryDirectory() as tmp:
        names = a.kernels.split(",") if a.kernels else [k for k in KERNELS if any(os.path.isdir(os.path.join(d, k)) for d in a.dirs)]
        for kernel in names:
            dtype, act, has_bias, out_name, tol = KERNELS[kernel]
            for n in [int(s) for s in a.sizes.split(",")]:
                g = torch.Generator(device="cuda").manual_seed(n)
                A = (torch.randn(n, n, device="cuda", generator=g) / 8).to(dtype)
                B = (torch.randn(n, n, device="cuda", generator=g) / 8).to(dtype)
                bias = torch.randn(1, n, device="cuda", generator=g).to(dtype) if has_bias else torch.zeros(1, n, device="cuda", dtype=dtype)
                ref = act(A.float() @ B.float() + bias.float())
                for d in a.dirs:
                    if not os.path.isdir(os.path.join(d, kernel)):
                        continue
                    args = [a.ph_run, os.path.join(d, kernel), "--kernel", kernel, "--bench", "--json",
                            "--iters", str(a.iters), "--warmup", "3",
                            "--in", f"A={save(tmp, 'A', A)}", "--in", f"B={save(tmp, 'B', B)}",
                            "--ref", f"{out_name}={save(tmp, 'ref', ref)}"]
                    if has_bias:
                        args += ["--in", f"Bias={save(tmp, 'Bias', bias)}"]
                    r = subprocess.run(args, capture_output=True, text=True)
                    try:
                        res_rows = json.loads(r.stdout)["rows"]
                    except ValueError:
                        print(f"{kernel} n={n}: ph-run failed ({r.returncode}): {r.stderr[-1500:]}{r.stdout[-1500:]}")
                        ok = False
                        continue
                    res = min(res_rows, key=lambda x: x["ms"])
                    try:
                        err = float(res["check"].split()[1])
                    except (IndexError, ValueError, KeyError):
                        err = float("nan")
                    ok = ok and err <= tol
                    flops = 2.0 * n ** 3
                    tf = lambda ms: flops / (ms * 1e-3) / 1e12
                    key = (str(dtype), kernel.replace("_w8", ""), n)
                    if key not in torch_times:  # PyTorch's times once per problem, whatever the Ph build
                        mm = lambda: A @ B
                        eager = lambda: act(A @ B + bias)
                        compiled = torch.compile(lambda x, y, z: act(x @ y + z), dynamic=False)
                        comp = lambda: compiled(A, B, bias)
                        want = a.torch.split(",")
                        torch_times[key] = {name: time_cuda(f, a.iters) for name, f in
                                            [("matmul", mm), ("eager", eager), ("compile", comp)] if name in want}
                    t = torch_times[key]
                    row = {"kernel": kernel, "label": os.path.basename(os.path.normpath(d)), "n": n, "config": res.get("config"), "ph_ms": res["ms"], "ph_tflops": tf(res["ms"]),
                           "err": err, "registers": res.get("registers"), "shared": res.get("sharedBytes"),
                           "torch": {k: {"ms": v, "tflops": tf(v)} for k, v in t.items()},
                           "configs": [{"config": x.get("config"), "ms": x["ms"]} for x in res_rows]}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    if log:
                        log.write(json.dumps(row) + "\n")
    print(f"\n{'kernel':24} {'n':>5} {'config':22} {'Ph TF/s':>8} {'matmul':>8} {'eager':>8} {'compile':>8} "
          f"{'Ph/cuBLAS':>9} {'Ph/compile':>10} {'err':>8}")
    nan = {"ms": float("nan"), "tflops": float("nan")}
    for r in rows:
        t = {k: r["torch"].get(k, nan) for k in ("matmul", "eager", "compile")}
        print(f"{(r['kernel'] + (' ' + r['label'] if r['label'] else '')):24} {r['n']:5} {str(r['config']):22} {r['ph_tflops']:8.1f} {t['matmul']['tflops']:8.1f} "
              f"{t['eager']['tflops']:8.1f} {t['compile']['tflops']:8.1f} {t['matmul']['ms'] / r['ph_ms']:9.2f} "
              f"{t['compile']['ms'] / r['ph_ms']:10.2f} {r['err']:8.1e}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
