#!/usr/bin/env python3
"""Prefill attention (examples/mha.ph: mha_{f16,bf16} and mha_causal_{f16,bf16}) through
`ph-run --bench`, next to PyTorch's scaled_dot_product_attention with the FLASH_ATTENTION and
CUDNN_ATTENTION backends and FlexAttention on the same tensors (Ph reads them from .npy files), in
TFLOP/s, % of the card's f16 matmul rate measured in the same run, and ratios (issue 15's table).

usage: bench_prefill.py PH_RUN DIR [--iters 20] [--out LOG.jsonl] [--shapes 4x16x4096,1x1x16384]
                        [--dtypes f16,bf16] [--ds 64,128] [--no-flex]

DIR holds one folder a kernel (`ph build examples/mha.ph --kernel K -o DIR/K`); a dtype whose two
kernels are missing is skipped, saying so.
FLOPs: 4·B·H·N²·D, half of it for causal (the work above the diagonal is skipped).
FlexAttention is torch.compile'd with dynamic=False, so every shape gets its own static kernel
(torch.compile's default turns dynamic after a recompile, and slower); its compile is not timed.
The matmul rate is torch.matmul on [8192, 8192] f16 operands, the best of two measurements, one
before and one after the attention rows. --out gets each row as it is measured (with the run's id)
and a last line with both matmul rates.
Every configuration's output is checked against PyTorch's math backend in fp32 (`ph-run --ref`):
none may mismatch, and the fastest one's rel. L2 error must be <= 2e-3 (f16) or 1e-2 (bf16).
"""
import argparse, json, math, os, subprocess, sys, tempfile, time

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from cuda_timing import time_cuda

BACKENDS = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
TOLERANCE = {"f16": 2e-3, "bf16": 1e-2}


def matmul_tflops(iters):
    n = 8192
    a, b = (torch.randn(n, n, device="cuda", dtype=torch.float16) for _ in range(2))
    ms = time_cuda(lambda: torch.matmul(a, b), iters)
    del a, b
    return 2 * n ** 3 / (ms * 1e-3) / 1e12


def make_flex():
    """FlexAttention compiled statically, or None (with why) where this PyTorch lacks it."""
    try:
        import torch._dynamo
        from torch.nn.attention.flex_attention import flex_attention, create_block_mask
    except Exception as e:  # an older PyTorch
        print(f"FlexAttention unavailable: {e}", flush=True)
        return None, None
    for knob in ("cache_size_limit", "recompile_limit"):  # one static graph a shape and dtype
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 256)
    return torch.compile(flex_attention, dynamic=False), create_block_mask


def run_ph(a, kernel, d, scale, tensors, ref, tmp):
    args = [a.ph_run, os.path.join(a.dir, kernel), "--kernel", kernel, "--config", f"D={d}",
            "--bench", "--json", "--iters", str(a.iters), "--warmup", "3", "--arg", f"scale={scale}"]
    for name, t in tensors.items():  # NumPy has no bfloat16: ph-run reads bf16 tensors as float32 arrays
        p = os.path.join(tmp, name + ".npy")
        np.save(p, (t.float() if t.dtype == torch.bfloat16 else t).cpu().numpy())
        args += ["--in", f"{name}={p}"]
    p = os.path.join(tmp, "ref.npy"); np.save(p, ref.cpu().numpy()); args += ["--ref", f"O={p}"]
    r = subprocess.run(args, capture_output=True, text=True)
    try:  # a failed check still prints its rows (marked MISMATCH)
        return json.loads(r.stdout)["rows"], ""
    except ValueError:
        return None, f"ph-run failed ({r.returncode}): {r.stderr[-1500:]}{r.stdout[-1500:]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ph_run"); ap.add_argument("dir")
    ap.add_argument("--iters", type=int, default=20); ap.add_argument("--out", default=None)
    ap.add_argument("--shapes", default="4x16x4096,1x1x16384")
    ap.add_argument("--dtypes", default="f16,bf16"); ap.add_argument("--ds", default="64,128")
    ap.add_argument("--no-flex", action="store_true")
    a = ap.parse_args()
    log = open(a.out, "a") if a.out else None
    run_id = f"{os.uname().nodename}-{os.getpid()}-{int(time.time())}"  # tells appended runs apart
    shapes = [tuple(int(x) for x in s.split("x")) for s in a.shapes.split(",")]
    flex, block_mask = (None, None) if a.no_flex else make_flex()
    mm = [matmul_tflops(a.iters)]
    rows, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        for dname in a.dtypes.split(","):
            dt = DTYPES[dname]
            for kernel, causal in [(f"mha_{dname}", False), (f"mha_causal_{dname}", True)]:
                if not os.path.isdir(os.path.join(a.dir, kernel)):
                    print(f"{kernel}: not built in {a.dir}, skipped", flush=True)
                    continue
                for (B, H, N) in shapes:
                    for d in [int(x) for x in a.ds.split(",")]:
                        scale = 1 / math.sqrt(d)
                        torch.manual_seed(d + causal + N)
                        q, k, v = ((torch.rand(B, H, N, d, device="cuda") * 2 - 1).to(dt) for _ in range(3))
                        with sdpa_kernel([SDPBackend.MATH]):
                            ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal,
                                                                 scale=scale)
                        res_rows, why = run_ph(a, kernel, d, scale, {"Q": q, "K": k, "V": v}, ref, tmp)
                        del ref
                        if res_rows is None:
                            print(f"{kernel} [{B},{H},{N},{d}]: {why}", flush=True)
                            ok = False
                            continue
                        # ph-run --bench times every autotune configuration for this D: the fastest counts.
                        res = min(res_rows, key=lambda x: x["ms"])
                        try:  # "ok 2.9e-04" or "MISMATCH 1.2e-01": the relative L2 error
                            err = float(res["check"].split()[1])
                        except (IndexError, ValueError):
                            err = float("nan")
                        ok = ok and err <= TOLERANCE[dname]
                        # Every configuration timed was checked too: a slower one that is wrong fails the run.
                        wrong = [x.get("config") for x in res_rows if str(x.get("check", "")).startswith("MISMATCH")]
                        if wrong:
                            print(f"{kernel} [{B},{H},{N},{d}]: mismatch in {wrong}", flush=True)
                            ok = False
                        flops = 4 * B * H * N * N * d * (0.5 if causal else 1.0)
                        row = {"kernel": kernel, "shape": [B, H, N, d], "D": d, "causal": causal, "dtype": dname,
                               "config": res.get("config"), "ph_ms": res["ms"],
                               "ph_tflops": flops / (res["ms"] * 1e-3) / 1e12, "err": err,
                               "registers": res.get("registers"), "shared": res.get("sharedBytes"), "torch": {}}
                        timed = []
                        for bname, be in BACKENDS:
                            try:
                                with sdpa_kernel([be]):
                                    f = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                                    f()
                                    timed.append((bname, time_cuda(f, a.iters)))
                            except Exception as e:
                                print(f"SDPA {bname} failed: {str(e)[:300]}", flush=True)
                                timed.append((bname, None))
                        if flex is not None:
                            try:
                                bm = (block_mask(lambda b, h, qi, ki: qi >= ki, None, None, N, N, device="cuda")
                                      if causal else None)
                                f = lambda: flex(q, k, v, block_mask=bm, scale=scale)
                                f()
                                timed.append(("flex", time_cuda(f, a.iters)))
                            except Exception as e:
                                print(f"flex failed: {str(e)[:300]}", flush=True)
                                timed.append(("flex", None))
                        for bname, ms in timed:
                            row["torch"][bname] = None if ms is None else {"ms": ms,
                                                                          "tflops": flops / (ms * 1e-3) / 1e12}
                        row["run"] = run_id
                        rows.append(row)
                        print(json.dumps(row), flush=True)
                        if log:  # row by row: a run cut short keeps what it measured
                            log.write(json.dumps(row) + "\n")
                            log.flush()
                        del q, k, v
                        torch.cuda.empty_cache()
    mm.append(matmul_tflops(a.iters))
    peak = max(mm)
    if log:
        log.write(json.dumps({"run": run_id, "matmul_tflops": mm}) + "\n")
    names = [b for b, _ in BACKENDS] + ([] if flex is None else ["flex"])
    print()
    print(f"prefill attention; TFLOP/s = 4BHN^2D (causal: half) / time; %mm = of torch.matmul's {peak:.1f} "
          f"TFLOP/s (8192^3 f16, this run: {mm[0]:.1f} before, {mm[1]:.1f} after); xR = torch time / Ph time "
          "(above 1: Ph faster)")
    print(f"{'kernel':17} {'shape':>16} {'Ph ms':>8} {'TFLOP/s':>8} {'%mm':>4} {'err':>8} " +
          " ".join(f"{b + ' TFLOP/s  xR':>20}" for b in names))
    for r in rows:
        cells = []
        for b in names:
            t = r["torch"].get(b)
            cells.append(f"{'n/a':>20}" if t is None else f"{t['tflops']:13.1f} {t['ms'] / r['ph_ms']:6.2f}")
        shape = "x".join(str(x) for x in r["shape"])
        print(f"{r['kernel']:17} {shape:>16} {r['ph_ms']:8.3f} {r['ph_tflops']:8.1f} {100 * r['ph_tflops'] / peak:4.0f} "
              f"{r['err']:8.1e} " + " ".join(cells) + f"  {r.get('config') or ''}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
