#!/usr/bin/python3
"""Numerical tests of batched attention and the key-value cache (issue 8), through `ph run`,
against float64 numpy references written from the math, on fresh random inputs.

    kvcache_reference.py --ph build/bin/ph --root . --case decode --target interp
    kvcache_reference.py ... --case all --target cpu

Cases: mha (f16, causal and not, D 64 and 128), kv_append, decode (flash-decoding split +
combine with GQA: lengths 1, not a multiple of the block, and the whole cache; then one
sequence alone), decode_tc (the same on the tensor-core kernels), paged (a shuffled block
table). Relative error ||out - ref|| / ||ref|| within 3e-3 for f16 outputs,
1e-5 for f32. The seed is printed (PH_KVCACHE_SEED replays a failure). Exit 77: the target is
not built into this `ph`.
"""
import argparse, json, os, subprocess, sys, tempfile
import numpy as np

SKIP = 77


def run(ph, root, file, kernel, target, inputs, outputs, tmp, sizes=None, config=None, args=None):
    cmd = [ph, "run", os.path.join(root, file), "--kernel", kernel, "--target", target, "--json"]
    for name, arr in inputs.items():
        path = os.path.join(tmp, f"in_{kernel}_{name}.npy")
        np.save(path, arr)
        cmd += ["--in", f"{name}={path}"]
    paths = {}
    for name in outputs:
        paths[name] = os.path.join(tmp, f"out_{kernel}_{name}.npy")
        cmd += ["--out", f"{name}={paths[name]}"]
    for k, v in (sizes or {}).items():
        cmd += ["--size", f"{k}={v}"]
    for k, v in (args or {}).items():
        cmd += ["--arg", f"{k}={v}"]
    if config:
        cmd += ["--config", config]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PH_STD_DIR=os.path.join(root, "std")))
    if p.returncode != 0:
        # Why it did not run is the document's `error` (docs/output.md), not words on stderr.
        try:
            why = json.loads(p.stdout).get("error", "")
        except ValueError:
            why = p.stderr
        if "not built" in why or "not available" in why or why.startswith("no GPU"):
            print(why.strip())
            sys.exit(SKIP)
        print(" ".join(cmd))
        print(p.stdout, p.stderr)
        raise SystemExit(1)
    return {n: np.load(path) for n, path in paths.items()}


def rel_err(out, ref):
    out = out.astype(np.float64)
    if not np.all(np.isfinite(out)):
        return float("inf")
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))


def check(name, out, ref, tol):
    e = rel_err(out, ref)
    ok = e <= tol
    print(f"  {name}: rel err {e:.3e} (tolerance {tol:g}) {'ok' if ok else 'FAIL'}")
    return ok


def softmax_attention(q, k, v, scale, causal_offset=None):
    s = (q @ k.T) * scale
    if causal_offset is not None:
        i = np.arange(q.shape[0])[:, None] + causal_offset
        s = np.where(np.arange(k.shape[0])[None, :] > i, -np.inf, s)
    s = s - s.max(axis=1, keepdims=True)
    p = np.exp(s)
    return (p / p.sum(axis=1, keepdims=True)) @ v


def case_mha(ph, root, target, rng, tmp):
    ok = True
    for kernel, causal in (("mha_f16", False), ("mha_causal_f16", True)):
        for d in (64, 128):
            b, h, n = 2, 3, 128
            q, k, v = (rng.uniform(-1, 1, (b, h, n, d)).astype(np.float16) for _ in range(3))
            scale = 1.0 / np.sqrt(d)
            out = run(ph, root, "examples/mha.ph", kernel, target, {"Q": q, "K": k, "V": v}, ["O"], tmp,
                      config=f"D={d}", args={"scale": scale})["O"]
            ref = np.empty((b, h, n, d))
            for bi in range(b):
                for hi in range(h):
                    ref[bi, hi] = softmax_attention(q[bi, hi].astype(np.float64), k[bi, hi].astype(np.float64),
                                                    v[bi, hi].astype(np.float64), scale, 0 if causal else None)
            ok &= check(f"{kernel} D={d}", out, ref, 3e-3)
    return ok


def case_kv_append(ph, root, target, rng, tmp):
    b, h, n, d = 3, 2, 40, 128
    kc, vc = (rng.uniform(-1, 1, (b, h, n, d)).astype(np.float16) for _ in range(2))
    kn, vn = (rng.uniform(-1, 1, (b, h, 1, d)).astype(np.float16) for _ in range(2))
    lens = np.array([0, 17, n - 1], dtype=np.int32)
    out = run(ph, root, "examples/kv_append.ph", "kv_append_step", target,
              {"Knew": kn, "Vnew": vn, "Kcache": kc, "Vcache": vc, "Lens": lens}, ["Kcache", "Vcache"], tmp)
    kref, vref = kc.astype(np.float64), vc.astype(np.float64)
    for bi in range(b):
        kref[bi, :, lens[bi], :] = kn[bi, :, 0, :]
        vref[bi, :, lens[bi], :] = vn[bi, :, 0, :]
    # Exact: appending copies bits.
    ok = np.array_equal(out["Kcache"], kref.astype(np.float16)) and np.array_equal(out["Vcache"], vref.astype(np.float16))
    print(f"  kv_append: caches {'equal' if ok else 'DIFFER'} to the reference")
    return ok


def decode_reference(q, k, v, lens, scale, group):
    b, h, d = q.shape
    ref = np.empty((b, h, d))
    for bi in range(b):
        for hi in range(h):
            kv = hi // group
            L = lens[bi]
            ref[bi, hi] = softmax_attention(q[bi, hi][None].astype(np.float64), k[bi, kv, :L].astype(np.float64),
                                            v[bi, kv, :L].astype(np.float64), scale)[0]
    return ref


def decode_batches(n, rng):
    """(B, Lens) pairs: many sequences at lengths less than a block, not a multiple of it and
    the whole cache; then one sequence alone (flash-decoding's case: its splits fill the GPU)."""
    yield 3, np.array([1, 37, n], dtype=np.int32)
    yield 1, np.array([rng.integers(n // 2, n)], dtype=np.int32)


def check_decode(ph, root, target, rng, tmp, file, split, combine, label, split_config=None, combine_config=None,
                 combine_told_h=False):
    """Split + combine of `file` for each of decode_batches against the float64 reference."""
    hk, g, n, d = 2, 4, 300, 128
    h = hk * g
    ok = True
    for b, lens in decode_batches(n, rng):
        q = rng.uniform(-1, 1, (b, h, d)).astype(np.float16)
        k, v = (rng.uniform(-1, 1, (b, hk, n, d)).astype(np.float16) for _ in range(2))
        scale = 1.0 / np.sqrt(d)
        part = run(ph, root, file, split, target, {"Q": q, "K": k, "V": v, "Lens": lens}, ["Op", "Mp", "Lp"], tmp,
                   sizes={"B": b, "H": h}, config=split_config, args={"scale": scale})
        out = run(ph, root, file, combine, target, {"Op": part["Op"], "Mp": part["Mp"], "Lp": part["Lp"]}, ["O"],
                  tmp, sizes={"H": h} if combine_told_h else None, config=combine_config)["O"]
        ok &= check(f"{label}, B={b}, lens {lens.tolist()}", out, decode_reference(q, k, v, lens, scale, g), 3e-3)
    return ok


def case_decode(ph, root, target, rng, tmp):
    return check_decode(ph, root, target, rng, tmp, "examples/decode_attention.ph", "decode_split", "decode_combine",
                        "decode (split + combine, GQA 4:1)")


def case_decode_tc(ph, root, target, rng, tmp):
    """examples/decode_attention_tc.ph: the tensor-core GQA kernels, 16 padded query rows a CTA.
    Their combine reads partials laid out per key-value head, so it is told H."""
    return check_decode(ph, root, target, rng, tmp, "examples/decode_attention_tc.ph", "decode_split_tc",
                        "decode_combine_tc", "decode on tensor cores (split + combine, GQA 4:1, padded rows)",
                        split_config="BC=32,S=16", combine_config="S=16", combine_told_h=True)


def case_paged(ph, root, target, rng, tmp):
    b, hk, g, d, ps, pool, npages = 3, 2, 4, 128, 16, 48, 16
    h = hk * g
    q = rng.uniform(-1, 1, (b, h, d)).astype(np.float16)
    kp, vp = (rng.uniform(-1, 1, (pool, hk, ps, d)).astype(np.float16) for _ in range(2))
    table = rng.permutation(pool)[: b * npages].reshape(b, npages).astype(np.int32)
    lens = np.array([1, ps, 250], dtype=np.int32)
    scale = 1.0 / np.sqrt(d)
    out = run(ph, root, "examples/paged_decode.ph", "paged_decode", target,
              {"Q": q, "Kp": kp, "Vp": vp, "Table": table, "Lens": lens}, ["O"], tmp, args={"scale": scale})["O"]
    # The reference gathers each sequence's pages into a contiguous cache.
    k = np.stack([np.concatenate([kp[p] for p in table[bi]], axis=1) for bi in range(b)])
    v = np.stack([np.concatenate([vp[p] for p in table[bi]], axis=1) for bi in range(b)])
    return check("paged decode (GQA 4:1)", out, decode_reference(q, k, v, lens, scale, g), 3e-3)


CASES = {"mha": case_mha, "kv_append": case_kv_append, "decode": case_decode, "decode_tc": case_decode_tc,
         "paged": case_paged}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ph", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--case", default="all")
    ap.add_argument("--target", default="interp")
    a = ap.parse_args()
    seed = int(os.environ.get("PH_KVCACHE_SEED", int.from_bytes(os.urandom(4), "little")))
    print(f"seed {seed} (PH_KVCACHE_SEED={seed} replays it)")
    rng = np.random.default_rng(seed)
    names = list(CASES) if a.case == "all" else [a.case]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            print(f"{name} on {a.target}:")
            ok &= CASES[name](a.ph, a.root, a.target, rng, tmp)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
