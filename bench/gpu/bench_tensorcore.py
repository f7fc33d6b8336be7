#!/usr/bin/env python3
"""`@tensorcore` flash attention (f16) through `ph-run --bench`, next to PyTorch SDPA's
FLASH_ATTENTION backend (FlashAttention-2) and FlexAttention (Triton) on the same tensors.

usage: bench_tensorcore.py PH_RUN BUILD_DIR [--iters 20] [--no-flex] [--quick]

BUILD_DIR holds attn_w4/, attn_w8/, causal_w4/, causal_w8/: `ph build
bench/gpu/attention_tc.ph --kernel K -o BUILD_DIR/K`. Every autotune configuration that
fits the shape is timed (ph-run marks the best) and checked against PyTorch in fp32
(`--ref`). TFLOP/s count 4·B·H·N²·D (half of it when causal) for every contender; the
ratio is the other's time over Ph's (1.0: as fast, above 1: Ph faster).
"""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from cuda_timing import time_cuda


def run_ph(ph_run, build, kernel, d, arrays, ref, scale, iters):
    """Best ms over the kernel's configurations for head dim d, and every row."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [ph_run, os.path.join(build, kernel), "--kernel", kernel, "--config", f"D={d}", "--bench", "--json",
                "--iters", str(iters), "--warmup", "3", "--arg", f"scale={scale}"]
        for name, a in arrays.items():
            p = os.path.join(tmp, name + ".npy"); np.save(p, a); args += ["--in", f"{name}={p}"]
        p = os.path.join(tmp, "ref.npy"); np.save(p, ref); args += ["--ref", f"O={p}"]
        r = subprocess.run(args, capture_output=True, text=True)
        try:  # a failed check still prints its rows (marked MISMATCH)
            return json.loads(r.stdout), ""
        except ValueError:
            return None, f"ph-run failed ({r.returncode}): {r.stderr[-800:]}{r.stdout[-800:]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ph_run"); ap.add_argument("build")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--no-flex", action="store_true")
    ap.add_argument("--quick", action="store_true", help="one head only")
    ap.add_argument("--flex-budget", type=float, default=150.0,
                    help="seconds of FlexAttention compiling and timing, after which it is skipped")
    a = ap.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    flex = None
    if not a.no_flex:
        from torch.nn.attention.flex_attention import flex_attention, create_block_mask
        flex = torch.compile(flex_attention)
    shapes = [(1, 1, 16384, 64), (1, 1, 16384, 128)]
    if not a.quick:
        shapes += [(4, 16, 4096, 64), (4, 16, 4096, 128)]
    rows, ok = [], True
    flex_s = 0.0
    t0 = time.time()
    for causal in (False, True):
        for (B, H, N, D) in shapes:
            scale = D ** -0.5
            q, k, v = ((torch.rand(B, H, N, D, device=dev) * 2 - 1).half() for _ in range(3))
            with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
                ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal, scale=scale)
            arrays = {"Q": q.cpu().numpy(), "K": k.cpu().numpy(), "V": v.cpu().numpy()}
            refn = ref.cpu().numpy()
            flops = 4.0 * B * H * N * N * D * (0.5 if causal else 1.0)
            line = {"causal": causal, "shape": [B, H, N, D], "ph": None, "ph_config": "", "ph_check": "", "ph_rows": []}
            for kern in (["causal_w4", "causal_w8"] if causal else ["attn_w4", "attn_w8"]):
                res, err = run_ph(a.ph_run, a.build, kern, D, arrays, refn, scale, a.iters)
                if res is None:
                    print(f"{kern} {B}x{H}x{N}x{D}: {err}", flush=True)
                    ok = False
                    continue
                for r in res["rows"]:
                    line["ph_rows"].append({"kernel": kern, **r})
                    good = r["check"].startswith("ok") or r["check"].startswith("pass")
                    if not good:
                        ok = False
                    if good and (line["ph"] is None or r["ms"] < line["ph"]):
                        line["ph"], line["ph_config"], line["ph_check"] = r["ms"], f"{kern} {r['config']}", r["check"]
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                line["flash"] = time_cuda(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale),
                                          a.iters)
            line["flex"] = None
            if flex is not None and flex_s > a.flex_budget:
                print("flex skipped: over --flex-budget", flush=True)
            elif flex is not None:
                try:
                    bm = None
                    if causal:
                        bm = create_block_mask(lambda b, h, qi, ki: qi >= ki, B=None, H=None, Q_LEN=N, KV_LEN=N)
                    tf = time.time()
                    line["flex"] = time_cuda(lambda: flex(q, k, v, block_mask=bm, scale=scale), a.iters)
                    flex_s += time.time() - tf
                except Exception as e:  # FlexAttention unavailable in this PyTorch
                    print(f"flex failed: {e}", flush=True)
            line["tflops"] = {n: (flops / (line[n] * 1e-3) / 1e12 if line[n] else None) for n in ("ph", "flash", "flex")}
            rows.append(line)
            print(json.dumps(line), flush=True)
            print("row:", table_row(line), flush=True)
    print()
    print(HEADER)
    for r in rows:
        print(table_row(r))
    print("(ratio = their time / Ph's time: 1.0 is as fast as FlashAttention-2, above 1 faster)")
    return 0 if ok else 1


HEADER = (f"{'shape':>20} {'causal':>6} {'ph config':>32} {'ph ms':>8} {'TFLOP/s':>8} {'flash ms':>8} {'TFLOP/s':>8} "
          f"{'ratio':>6} {'flex ms':>8} {'TFLOP/s':>8} {'ratio':>6}")


def table_row(r):
    """One line of the table: Ph's best configuration, SDPA flash and FlexAttention."""
    def cell(n):
        t = r[n]
        return f"{'-':>8} {'-':>8}" if t is None else f"{t:8.3f} {r['tflops'][n]:8.1f}"
    def ratio(n):
        return f"{'-':>6}" if r[n] is None or r["ph"] is None else f"{r[n] / r['ph']:6.2f}"
    shape = "x".join(str(x) for x in r["shape"])
    return (f"{shape:>20} {str(r['causal']):>6} {r['ph_config']:>32} {cell('ph')} {cell('flash')} {ratio('flash')} "
            f"{cell('flex')} {ratio('flex')}")


if __name__ == "__main__":
    sys.exit(main())
