#!/usr/bin/env python3
"""Decode attention (flash-decoding: decode_split + decode_combine of
examples/decode_attention.ph) through `ph-run --bench`, next to PyTorch's
scaled_dot_product_attention with each backend forced, in microseconds and GB/s
against the read bandwidth measured in the same run.

usage: bench_decode.py PH_RUN DIR[,DIR...] [--labels v0,v1] [--iters 30] [--out LOG.jsonl] [--where S=8]

Each DIR is `ph build examples/decode_attention.ph -o DIR` (both kernels, one
manifest). Shapes: B=32, H=32, KV heads 32 (G=1) and 8 (G=4, grouped-query),
cache lengths 4,096 and 32,768, D=128, f16, every sequence at full length.

Bytes counted: the K and V caches read once, plus Q read and O written (f16).
The read bandwidth is a large reduction (over an 8 GiB tensor,
bytes read over time; the fastest of a sum of f16 into f32, an amax of f16 and a sum of
f32), measured here.

Inputs (said in the output too): Ph is timed at full size on ph-run's own
random inputs (`--seed`, uniform [-1, 1), Lens = N from a file); its output
is checked at B=2 (same H, KV heads, N) on PyTorch-made inputs through .npy
files, against PyTorch's math backend in fp32 (rel. L2 error <= 2e-3). PyTorch
is timed on its own tensors of the full shape (the same distribution).
"""
import argparse, json, math, os, subprocess, sys, tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from cuda_timing import time_cuda

BACKENDS = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION),
            ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("math", SDPBackend.MATH)]
B, H, D = 32, 32, 128
SHAPES = [(32, 4096), (8, 4096), (32, 32768), (8, 32768)]  # (KV heads, N)
TOL = 2e-3
# The kernels benched: examples/decode_attention.ph's, or --kernels decode_split_tc,decode_combine_tc
# (examples/decode_attention_tc.ph: GQA on the tensor cores, padded query rows).
KERNELS = ["decode_split", "decode_combine"]
WHERE = {}  # --where: the split configurations timed


def read_bandwidth(iters):
    """The fastest of three large reductions over 8 GiB (bytes read / time)."""
    res = {}
    x = torch.empty(4 << 30, dtype=torch.float16, device="cuda").uniform_(-1, 1)
    res["sum f16->f32"] = x.numel() * 2 / (time_cuda(lambda: torch.sum(x, dtype=torch.float32), iters) * 1e-3) / 1e9
    res["amax f16"] = x.numel() * 2 / (time_cuda(lambda: torch.amax(x), iters) * 1e-3) / 1e9
    del x
    torch.cuda.empty_cache()
    y = torch.empty(2 << 30, dtype=torch.float32, device="cuda").uniform_(-1, 1)
    res["sum f32"] = y.numel() * 4 / (time_cuda(lambda: torch.sum(y), iters) * 1e-3) / 1e9
    del y
    torch.cuda.empty_cache()
    return max(res.values()), res


def ph(ph_run, d, kernel, args, timeout=300):
    r = subprocess.run([ph_run, d, "--kernel", kernel] + args, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"ph-run {kernel} {' '.join(args)} failed ({r.returncode}): {r.stderr[-2000:]}{r.stdout[-2000:]}")
    return r.stdout


def configs(d, kernel):
    m = json.load(open(os.path.join(d, "manifest.json")))
    return [dict((c["name"], c["value"]) for c in k["config"]) for k in m["kernels"] if k["name"] == kernel]


def cfg_text(c):
    return ",".join(f"{k}={v}" for k, v in c.items())


def check_ph(ph_run, d, split_cfg, comb_cfg, hk, n, tmp, scale):
    """Ph's output at B=2 against PyTorch's fp32 math backend on the same inputs."""
    b = 2
    g = torch.Generator(device="cuda").manual_seed(1234 + hk + n)
    q = (torch.rand(b, H, D, device="cuda", generator=g) * 2 - 1).half()
    k = (torch.rand(b, hk, n, D, device="cuda", generator=g) * 2 - 1).half()
    v = (torch.rand(b, hk, n, D, device="cuda", generator=g) * 2 - 1).half()
    files = {}
    for name, t in [("Q", q), ("K", k), ("V", v)]:
        files[name] = os.path.join(tmp, f"c_{name}.npy"); np.save(files[name], t.cpu().numpy())
    files["Lens"] = os.path.join(tmp, "c_lens.npy"); np.save(files["Lens"], np.full(b, n, np.int32))
    outs = {x: os.path.join(tmp, f"c_{x}.npy") for x in ["Op", "Mp", "Lp", "O"]}
    ph(ph_run, d, KERNELS[0], ["--config", cfg_text(split_cfg), "--arg", f"scale={scale}"]
       + sum((["--in", f"{x}={files[x]}"] for x in ["Q", "K", "V", "Lens"]), [])
       + sum((["--out", f"{x}={outs[x]}"] for x in ["Op", "Mp", "Lp"]), []))
    # The tensor-core combine cannot infer H from its partials (laid out per key-value head).
    h_size = ["--size", f"H={H}"] if KERNELS[1] != "decode_combine" else []
    ph(ph_run, d, KERNELS[1], ["--config", cfg_text(comb_cfg)] + h_size
       + sum((["--in", f"{x}={outs[x]}"] for x in ["Op", "Mp", "Lp"]), []) + ["--out", f"O={outs['O']}"])
    o = np.load(outs["O"]).astype(np.float64)
    ref = F.scaled_dot_product_attention(q[:, :, None].float(), k.float(), v.float(), scale=scale,
                                         enable_gqa=hk != H)[:, :, 0].double().cpu().numpy()
    for f in list(files.values()) + list(outs.values()):
        os.remove(f)
    if not np.all(np.isfinite(o)):
        return float("nan")
    return float(np.linalg.norm(o - ref) / np.linalg.norm(ref))


def bench_ph(ph_run, d, hk, n, iters, tmp, scale):
    g = H // hk
    lens = os.path.join(tmp, "lens.npy"); np.save(lens, np.full(B, n, np.int32))
    best = None
    for c in configs(d, KERNELS[0]):
        if c.get("G") != g or c.get("D") != D or any(c.get(k) != v for k, v in WHERE.items()):
            continue
        out = ph(ph_run, d, KERNELS[0], ["--config", cfg_text(c), "--size", f"B={B}", "--size", f"H={H}",
                                             "--size", f"HK={hk}", "--size", f"N={n}",
                                             "--in", f"Lens={lens}", "--seed", "7", "--arg", f"scale={scale}",
                                             "--bench", "--json", "--iters", str(iters), "--warmup", "3"])
        row = json.loads(out)["rows"][0]
        r = {"config": c, "split_us": row["ms"] * 1e3, "registers": row.get("registers"),
             "shared": row.get("sharedBytes"), "spills": row.get("spillStores", row.get("spills"))}
        print("   ph split", cfg_text(c), f"{r['split_us']:.1f} us", f"regs {r['registers']} smem {r['shared']}", flush=True)
        if best is None or r["split_us"] < best["split_us"]:
            best = r
    if best is None:
        raise RuntimeError(f"no decode_split configuration with G={g} in {d}")
    comb = [c for c in configs(d, KERNELS[1]) if c.get("S") == best["config"]["S"] and c.get("D") == D]
    if not comb:
        raise RuntimeError(f"no decode_combine configuration with S={best['config']['S']} in {d}")
    # The tensor-core combine reads partials laid out per key-value head: it has HK too.
    hk_size = ["--size", f"HK={hk}"] if KERNELS[1] != "decode_combine" else []
    out = ph(ph_run, d, KERNELS[1], ["--config", cfg_text(comb[0]), "--size", f"B={B}", "--size", f"H={H}"] + hk_size + [
                                     "--seed", "7", "--bench", "--json",
                                           "--iters", str(iters), "--warmup", "3"])
    best["combine_us"] = json.loads(out)["rows"][0]["ms"] * 1e3
    best["combine_config"] = comb[0]
    best["err"] = check_ph(ph_run, d, best["config"], comb[0], hk, n, tmp, scale)
    os.remove(lens)
    return best


def bench_torch(hk, n, iters, scale, only=None):
    torch.manual_seed(hk * 100003 + n)
    q = (torch.rand(B, H, 1, D, device="cuda") * 2 - 1).half()
    k = (torch.rand(B, hk, n, D, device="cuda") * 2 - 1).half()
    v = (torch.rand(B, hk, n, D, device="cuda") * 2 - 1).half()
    res = {}
    for name, be in BACKENDS:
        if only and name not in only:
            continue
        how = "gqa" if hk != H else "mha"
        try:
            with sdpa_kernel([be]):
                f = lambda: F.scaled_dot_product_attention(q, k, v, scale=scale, enable_gqa=hk != H)
                f()
                res[name] = (time_cuda(f, iters) * 1e3, how)
            continue
        except Exception as e:  # refuses enable_gqa or the shape: try expanded K/V
            first_err = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
        if hk == H:
            res[name] = (None, "refused: " + first_err)
            continue
        try:
            ke, ve = k.repeat_interleave(H // hk, dim=1), v.repeat_interleave(H // hk, dim=1)
            with sdpa_kernel([be]):
                f = lambda: F.scaled_dot_product_attention(q, ke, ve, scale=scale)
                f()
                res[name] = (time_cuda(f, iters) * 1e3, "expanded K/V (reads H/HK times the cache)")
            del ke, ve
        except Exception as e:
            res[name] = (None, "refused: " + first_err)
        torch.cuda.empty_cache()
    del q, k, v
    torch.cuda.empty_cache()
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ph_run"); ap.add_argument("dirs")
    ap.add_argument("--labels", default=None); ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--out", default=None); ap.add_argument("--shapes", default=None,
                                                           help="HK:N,... (default all four)")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--kernels", default=None, help="split,combine kernel names (default decode_split,decode_combine)")
    ap.add_argument("--backends", default=None, help="SDPA backends to time (default: all four)")
    ap.add_argument("--where", default=None,
                    help="K=V,...: time only the split configurations with these values (each is a process "
                         "that draws its own inputs: at N=32768 seconds apiece)")
    a = ap.parse_args()
    if a.where:
        try:
            WHERE.update((k, int(v)) for k, v in (x.split("=") for x in a.where.split(",")))
        except ValueError:
            sys.exit(f"bench_decode.py: --where takes NAME=INTEGER,... (got {a.where!r})")
    if a.kernels:
        KERNELS[:] = a.kernels.split(",")
    dirs = a.dirs.split(",")
    labels = a.labels.split(",") if a.labels else [os.path.basename(x.rstrip("/")) for x in dirs]
    shapes = [tuple(int(x) for x in s.split(":")) for s in a.shapes.split(",")] if a.shapes else SHAPES
    scale = 1 / math.sqrt(D)
    log = open(a.out, "a") if a.out else None
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    bw, bws = read_bandwidth(a.iters)
    print("read bandwidth (8 GiB reductions): " + ", ".join(f"{k} {v:.0f} GB/s" for k, v in bws.items())
          + f"; the fastest, {bw:.0f} GB/s, is the reference", flush=True)
    print("inputs: Ph timed on ph-run's random inputs (--seed 7, Lens = N from a .npy), checked at B=2 on "
          "PyTorch-made inputs (.npy) vs SDPA math fp32; PyTorch timed on its own random tensors", flush=True)
    if log:
        log.write(json.dumps({"read_bandwidth_GBs": bw, "reductions": bws, "device": torch.cuda.get_device_name()}) + "\n")
    rows, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        for hk, n in shapes:
            nbytes = 2 * B * hk * n * D * 2 + 2 * B * H * D * 2
            print(f"== HK={hk} N={n}: {nbytes / 1e9:.2f} GB", flush=True)
            tr = {} if a.no_torch else bench_torch(hk, n, a.iters, scale, a.backends.split(",") if a.backends else None)
            for name, (us, how) in tr.items():
                print(f"   torch {name}: " + (f"{us:.1f} us ({how})" if us else how), flush=True)
            for d, lab in zip(dirs, labels):
                try:
                    p = bench_ph(a.ph_run, d, hk, n, a.iters, tmp, scale)
                except Exception as e:
                    print(f"   {lab}: FAILED {e}", flush=True)
                    ok = False
                    continue
                tot = p["split_us"] + p["combine_us"]
                row = {"version": lab, "HK": hk, "N": n, "bytes": nbytes, "ph": p, "total_us": tot,
                       "GBs": nbytes / (tot * 1e-6) / 1e9, "torch": tr, "read_bw": bw}
                row["pct_bw"] = 100 * row["GBs"] / bw
                ok = ok and p["err"] <= TOL
                rows.append(row)
                print(f"   {lab}: split {p['split_us']:.1f} + combine {p['combine_us']:.1f} = {tot:.1f} us, "
                      f"{row['GBs']:.0f} GB/s ({row['pct_bw']:.1f}% of read bw), err {p['err']:.1e}", flush=True)
                if log:
                    log.write(json.dumps(row) + "\n"); log.flush()
    print()
    print(f"read bandwidth {bw:.0f} GB/s (fastest 8 GiB reduction). us = median; xR = Ph time / torch time")
    hdr = f"{'version':8} {'HK':>3} {'N':>6} {'split':>8} {'comb':>6} {'total us':>9} {'GB/s':>6} {'%bw':>5} {'err':>7} "
    print(hdr + " ".join(f"{b:>18}" for b, _ in BACKENDS))
    for r in rows:
        cells = []
        for b, _ in BACKENDS:
            us, how = r["torch"].get(b, (None, "-"))
            cells.append(f"{'n/a':>18}" if not us else f"{us:9.1f} x{r['total_us'] / us:5.2f}{'e' if 'expanded' in how else ' '}")
        print(f"{r['version']:8} {r['HK']:>3} {r['N']:>6} {r['ph']['split_us']:8.1f} {r['ph']['combine_us']:6.1f} "
              f"{r['total_us']:9.1f} {r['GBs']:6.0f} {r['pct_bw']:5.1f} {r['ph']['err']:7.1e} " + " ".join(cells))
    print("(e: backend refused enable_gqa; timed on K/V expanded to H heads)")
    for hk, n in shapes:
        r0 = next((r for r in rows if r["HK"] == hk and r["N"] == n), None)
        if r0:
            nb = r0["bytes"]
            print(f"torch GB/s HK={hk} N={n}: " + ", ".join(
                f"{b} {nb / (us * 1e-6) / 1e9:.0f} ({100 * nb / (us * 1e-6) / 1e9 / bw:.0f}%)"
                for b, (us, how) in r0["torch"].items() if us))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
