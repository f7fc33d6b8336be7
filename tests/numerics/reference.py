#!/usr/bin/python3
"""Numerical tests of `ph run`: every seed kernel and the masking kernels under
tests/numerics/kernels/, on fresh random inputs, against an independent numpy
reference computed in float64.

    reference.py --ph build/bin/ph --root . --case flash_attention_nk_partial --target interp
    reference.py ... --case all --target interp,cpu     (every case, both targets)
    reference.py --list

Each case writes random inputs as .npy (seeded from PH_NUMERICS_SEED, else
fresh from os.urandom; the seed is printed so a failure can be replayed), runs
`ph run --in ... --out ... --json` on each target, and compares every output
with the numpy reference: the relative error ||out - ref|| / ||ref|| must be
within 1e-5 for f32 outputs and 3e-3 for f16 ones. With several targets the
targets are also compared with each other. Exit status: 0 pass, 1 fail, 77 skip
(the target is not built into this `ph`, or there is no GPU for `gpu`).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

# fp8 tensors travel as uint8 arrays of their codes (docs/running.md, "fp8"); E4M3 names them
# in a case, and the comparisons decode them. e4m3's tolerance is `ph run --check`'s.
E4M3 = "f8e4m3"
TOLERANCE = {np.float32: 1e-5, np.float16: 3e-3, np.int32: 0.0, E4M3: 0.03}  # i32 outputs: exact
SKIP = 77


# ----------------------------------------------------------------------------
# fp8 e4m3 (OCP "FN": bias 7, 3 fraction bits, no infinity, S.1111.111 NaN), from its
# definition, sharing nothing with ph's implementation.
# ----------------------------------------------------------------------------

def _e4m3_table():
    t = np.empty(256)
    for b in range(256):
        e, m = (b >> 3) & 15, b & 7
        v = m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
        t[b] = np.nan if b & 127 == 127 else (-v if b & 128 else v)
    return t


E4M3_VALUES = _e4m3_table()


def e4m3_decode(codes):
    return E4M3_VALUES[np.asarray(codes, dtype=np.uint8)]


def e4m3_encode(x):
    """float64 -> e4m3 codes: nearest, ties to the even code, saturating at 448, NaN -> 0x7F."""
    x = np.asarray(x, dtype=np.float64)
    pos = E4M3_VALUES[:127]  # codes 0..126, increasing
    mag = np.where(np.isnan(x), 0.0, np.abs(x))
    hi = np.clip(np.searchsorted(pos, mag, side="left"), 1, 126)
    lo = hi - 1
    d_lo, d_hi = mag - pos[lo], pos[hi] - mag
    code = np.where(d_lo < d_hi, lo, np.where(d_hi < d_lo, hi, np.where(lo % 2 == 0, lo, hi)))
    code = np.where(mag >= pos[126], 126, code)
    code = code | np.where(np.signbit(x), 128, 0)
    return np.where(np.isnan(x), 127, code).astype(np.uint8)


def storage(dtype):
    """The numpy dtype of a case's tensor type (fp8: the codes)."""
    return np.uint8 if dtype == E4M3 else dtype


def values(a, dtype):
    """A tensor's values in float64 (fp8: its codes decoded)."""
    return e4m3_decode(a) if dtype == E4M3 else a.astype(np.float64)


# ----------------------------------------------------------------------------
# References, in float64, written from the math rather than from the kernels.
# ----------------------------------------------------------------------------

def softmax_rows(s):
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


def attention(q, k, v, scale, causal=False):
    s = (q @ k.T) * scale
    if causal:
        n = s.shape[0]
        s = np.where(np.arange(n)[None, :] > np.arange(n)[:, None], -np.inf, s)
    return softmax_rows(s) @ v


def rotate_half(x, cos, sin):
    h = x.shape[1] // 2
    a, b = x[:, :h], x[:, h:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=1)


def rotate_pairs(x, cos, sin):
    x0, x1 = x[:, :, 0], x[:, :, 1]
    c, s = cos[:, :, 0], sin[:, :, 0]
    return np.stack([x0 * c - x1 * s, x1 * c + x0 * s], axis=2)


def elementwise(x, b):
    t = np.abs(x) + b * b
    e = (np.exp(x - x.max(axis=1, keepdims=True)) + np.sqrt(t) / np.sqrt(t + 1.0)
         + np.log(t + 1.0) + np.exp2(np.minimum(x, 0.5)))
    return e, e.sum(axis=1, keepdims=True)


# ----------------------------------------------------------------------------
# Cases: file, kernel, inputs (name -> dtype, shape), scalar args, reference.
# ----------------------------------------------------------------------------

def attn_case(file, kernel, nq, nk, d, dtype, scale=None, causal=False):
    scale = scale if scale is not None else 1.0 / np.sqrt(d)
    return dict(
        file=file, kernel=kernel,
        inputs={"Q": (dtype, (nq, d)), "K": (dtype, (nk, d)), "V": (dtype, (nk, d))},
        args={"scale": scale},
        outputs={"O": dtype},
        ref=lambda i: {"O": attention(i["Q"], i["K"], i["V"], scale, causal)})


def rotary_case(t):
    return dict(
        file="examples/rotary.ph", kernel="rotary",
        inputs={"X": (np.float32, (t, 128)), "Cos": (np.float32, (t, 64)), "Sin": (np.float32, (t, 64))},
        args={}, outputs={"Y": np.float32},
        ref=lambda i: {"Y": rotate_half(i["X"], i["Cos"], i["Sin"])})


def rotary_pairs_case(t):
    return dict(
        file="examples/rotary_pairs.ph", kernel="rotary_pairs",
        inputs={"X": (np.float32, (t, 64, 2)), "Cos": (np.float32, (t, 64, 1)), "Sin": (np.float32, (t, 64, 1))},
        args={}, outputs={"X": np.float32},
        ref=lambda i: {"X": rotate_pairs(i["X"], i["Cos"], i["Sin"])})


def elementwise_case(n):
    def ref(i):
        y, s = elementwise(i["X"], i["B"])
        return {"Y": y, "S": s}
    return dict(
        file="tests/numerics/kernels/elementwise.ph", kernel="elementwise",
        inputs={"X": (np.float32, (n, 16)), "B": (np.float32, (1, 16))},
        args={}, outputs={"Y": np.float16, "S": np.float32}, ref=ref)


def masked_attention(q, k, v, scale, visible, bias=None, score=None):
    """softmax(mask(score(q k^T * scale) + bias)) v, with visible[i, j] the mask."""
    s = (q @ k.T) * scale
    if score is not None:
        s = score(s)
    if bias is not None:
        s = s + bias
    s = np.where(visible, s, -np.inf)
    return softmax_rows(s) @ v


def idx(n, m):
    return np.arange(n)[:, None], np.arange(m)[None, :]


def layer_norm(x, w, b, eps):
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def rms_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * w


def labels(rng, n, v, first):
    """Labels of cross_entropy's rows: `first` (the last column, the ragged tail's first, the last
    of the full blocks, a block boundary), then random ones."""
    out = rng.integers(0, v, size=(n, 1))
    out[:len(first), 0] = first
    return out


def cross_entropy(x, labels):
    """logsumexp(x) - x[label]; a label outside [0, V) picks 0 (cross_entropy.ph's scalar read)."""
    m = x.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=1, keepdims=True))
    lab = labels.astype(np.int64)
    inside = (lab >= 0) & (lab < x.shape[1])
    return lse - np.where(inside, np.take_along_axis(x, np.where(inside, lab, 0), axis=1), 0.0)


def fp8_quantize_ref(i):
    x = i["X"]
    s = np.maximum(np.abs(x).max(axis=1, keepdims=True), 1e-30) / 448.0
    return {"Q": e4m3_decode(e4m3_encode(x / s)), "S": s}


def row_case(file, kernel, n, c, extra_in=None, args=None, ref=None, out="Y"):
    inputs = {"X": (np.float16, (n, c))}
    inputs.update(extra_in or {})
    return dict(file=file, kernel=kernel, inputs=inputs, args=args or {}, outputs={out: np.float16}, ref=ref)


def sequence_starts(rng, n):
    """Each position's sequence start, for random sequence lengths packed into n."""
    starts, s = np.zeros((n, 1), np.int32), 0
    while s < n:
        length = int(rng.integers(1, max(2, n // 2)))
        starts[s:s + length] = s
        s += length
    return starts


def gqa(q, k, v, scale):
    h, n, _ = q.shape
    group = h // k.shape[0]
    i, j = idx(n, n)
    return np.stack([masked_attention(q[x], k[x // group], v[x // group], scale, j <= i) for x in range(h)])


def attention_variants():
    sw, slope, cap = 40, 0.3, 5.0
    n, d = 77, 64
    i, j = idx(n, n)
    qkv = lambda dt: {"Q": (dt, (n, d)), "K": (dt, (n, d)), "V": (dt, (n, d))}
    scale = 1.0 / np.sqrt(d)
    return {
        "sliding_window_attention": dict(
            file="examples/sliding_window_attention.ph", kernel="sliding_window_attention", inputs=qkv(F16),
            args={"scale": scale, "W": sw}, outputs={"O": F16},
            ref=lambda x: {"O": masked_attention(x["Q"], x["K"], x["V"], scale, (j <= i) & (j > i - sw))}),
        "alibi_attention": dict(
            file="examples/alibi_attention.ph", kernel="alibi_attention", inputs=qkv(F16),
            args={"scale": scale, "slope": slope}, outputs={"O": F16},
            ref=lambda x: {"O": masked_attention(x["Q"], x["K"], x["V"], scale, j <= i, bias=-slope * (i - j))}),
        "softcap_attention": dict(
            file="examples/softcap_attention.ph", kernel="softcap_attention",
            inputs={"Q": (F16, (128, d)), "K": (F16, (77, d)), "V": (F16, (77, d))},
            args={"scale": scale, "cap": cap}, outputs={"O": F16},
            ref=lambda x: {"O": masked_attention(x["Q"], x["K"], x["V"], scale, np.ones((128, 77), bool),
                                                 score=lambda s: cap * np.tanh(s / cap))}),
        "document_attention": dict(
            file="examples/document_attention.ph", kernel="document_attention",
            inputs=dict(qkv(F16), Start=(np.int32, (n, 1), sequence_starts)),
            args={"scale": scale}, outputs={"O": F16},
            ref=lambda x: {"O": masked_attention(x["Q"], x["K"], x["V"], scale,
                                                 (j <= i) & (j >= x["Start"].astype(np.int64)))}),
        # The mask on the diagonal blocks only, the blocks of queries last first (a partial
        # last block at N = 77 runs first).
        "gqa_prefill": dict(
            file="examples/gqa_prefill.ph", kernel="gqa_prefill",
            inputs={"Q": (F16, (4, 77, d)), "K": (F16, (2, 77, d)), "V": (F16, (2, 77, d))},
            args={"scale": scale}, outputs={"O": F16},
            ref=lambda x: {"O": gqa(x["Q"], x["K"], x["V"], scale)}),
        # bench/gpu/variants/gqa_prefill.masked.ph: the example's first form, every key block
        # masked, the blocks of queries in launch order.
        "gqa_prefill_masked": dict(
            file="bench/gpu/variants/gqa_prefill.masked.ph", kernel="gqa_prefill",
            inputs={"Q": (F16, (4, 77, d)), "K": (F16, (2, 77, d)), "V": (F16, (2, 77, d))},
            args={"scale": scale}, outputs={"O": F16},
            ref=lambda x: {"O": gqa(x["Q"], x["K"], x["V"], scale)}),
    }
def reductions_ref(i):
    x = i["X"].astype(np.float32)
    n = x.shape[0]
    blocks = np.zeros((3 * 16, 64), np.float32)
    blocks[:n] = x
    b = blocks.reshape(3, 16, 64).astype(np.float64)
    return {"RM": x.min(axis=1, keepdims=True).astype(np.float64),
            "RA": np.argmax(x, axis=1)[:, None],
            "CS": b.sum(axis=1), "CM": b.max(axis=1),
            "H": (x * np.float32(100.0)).astype(np.float16).astype(np.float64),
            "T": np.trunc(x * np.float32(10.0)).astype(np.float64)}


def functions_ref(i):
    """tests/numerics/kernels/functions.ph, from numpy and math (erf), in float64."""
    a, w = i["A"], i["W"]
    a2 = a * 2.0  # exact in f32
    return {"E": np.vectorize(math.erf)(a), "T": np.tanh(a2), "F": np.floor(a2),
            "S": np.sin(w), "C": np.cos(w), "G": 1.0 / (1.0 + np.exp(-w)), "L": np.log2(i["P"])}


def argmax_ties_ref(i):
    x = np.floor(i["X"].astype(np.float32) * np.float32(2.0)).astype(np.float64)
    q = np.arange(x.shape[0])[:, None]
    c = np.arange(x.shape[1])[None, :]
    y = np.where((q % 3 == 0) & ((c == 40) | (c == 9 + q % 5)), np.nan, x)
    return {"A": np.argmax(x, axis=1)[:, None], "H": np.argmax(y, axis=1)[:, None]}


def branches_ref(x, mode):
    y = x * 2.0 if mode == 1 else np.exp(x) if mode == 2 else -x
    last = (x.shape[0] - 1) // 16 * 16
    y[last:] += 1.0
    return y


def simt_skip_ref(i, n):
    x, w = i["X"], i["W"]
    rows = x.shape[0]
    pad = np.zeros(((rows + 15) // 16 * 16, 32))
    pad[:rows] = x
    cs = pad.reshape(-1, 16, 32).sum(axis=1)          # each block's column sums (padding rows are 0)
    step = x @ w + np.repeat(cs, 16, axis=0)[:rows]
    acc = np.zeros_like(step)
    for it in range(4):
        acc = acc + step if it < n else acc * 0.5
    return acc


def half_reductions_ref(i, n):
    x = i["X"]
    pad = np.zeros(((x.shape[0] + 7) // 8 * 8, 32))
    pad[:x.shape[0]] = x
    b = pad.reshape(-1, 8, 32)
    return {"R": x[:, :n].sum(axis=1, keepdims=True) + x.max(axis=1, keepdims=True),
            "C": b.sum(axis=1) + b.max(axis=1)}


def half_sums_ref(i):
    """Sums of f16 tiles, each rounded once to f16, stored into f32 tensors."""
    x = i["X"]
    pad = np.zeros(((x.shape[0] + 7) // 8 * 8, 32))
    pad[:x.shape[0]] = x
    f16 = lambda a: a.astype(np.float16).astype(np.float64)
    return {"R": f16(x.sum(axis=1, keepdims=True)), "C": f16(pad.reshape(-1, 8, 32).sum(axis=1))}


def odd_extents_ref(i, n):
    """tests/numerics/kernels/odd_extents.ph: blocks of 16 rows, the last padded with the zeros
    a masked load gives (they reach colsum and colmax, not the stored rows)."""
    x = i["X"]
    rows = x.shape[0]
    pad = np.zeros(((rows + 15) // 16 * 16, 24))
    pad[:rows] = x
    col = np.arange(24)[None, :]
    y = np.where(col < n, pad * 2.0, pad)
    y[:, 3:7] = np.exp(pad[:, 0:4])
    b, yb = pad.reshape(-1, 16, 24), y.reshape(-1, 16, 24)
    return {"Y": y[:rows], "R": (y.sum(axis=1) + pad.max(axis=1))[:rows, None],
            "C": b.sum(axis=1) + yb.max(axis=1)}


def odd_extents_half_ref(i):
    x = i["X"]
    rows = x.shape[0]
    pad = np.zeros(((rows + 11) // 12 * 12, 48))
    pad[:rows] = x
    y = pad + np.arange(48)[None, :] * 0.0625
    y[:, 40:48] = pad[:, 0:8] * 3.0
    return {"Y": y[:rows], "R": y.sum(axis=1)[:rows, None], "C": y.reshape(-1, 12, 48).sum(axis=1)}


def gemm_case(kernel, m, n, k, bias=True):
    inputs = {"A": (np.float16, (m, k)), "B": (np.float16, (k, n))}
    if bias:
        inputs["Bias"] = (np.float16, (1, n))
    out = "O" if bias else "C"
    return dict(
        file="examples/gemm.ph", kernel=kernel, inputs=inputs, args={}, outputs={out: np.float16},
        ref=lambda i: {out: np.maximum(i["A"] @ i["B"] + (i["Bias"] if bias else 0.0), 0.0)})


F16, F32 = np.float16, np.float32
EPS = 1e-5
UNALIGNED = "tests/numerics/kernels/attention_unaligned.ph"
CAUSAL_UNALIGNED = "tests/numerics/kernels/causal_unaligned.ph"
CASES = {
    # GEMM with a bias and relu (examples/gemm.ph): aligned, and ragged (masked blocks).
    "gemm_relu_f16": gemm_case("gemm_relu_f16", 256, 256, 96 + 32),
    "gemm_relu": gemm_case("gemm_relu", 128, 256, 64, bias=False),
    "gemm_relu_f16_ragged": gemm_case("gemm_relu_f16_ragged", 200, 136, 72),
    # The seed kernels at sizes their @aligned allows.
    "flash_attention": attn_case("examples/flash_attention.ph", "flash_attention", 128, 96, 64, F16),
    "flash_attention_manual": attn_case("examples/flash_attention_manual.ph", "flash_attention_manual",
                                        128, 96, 64, F16),
    "causal_attention": attn_case("examples/causal_attention.ph", "causal_attention", 96, 96, 64, F32,
                                  causal=True),
    "rotary": rotary_case(16),
    "rotary_pairs": rotary_pairs_case(16),
    # Nk not a multiple of BC: the last key block is masked by mask_cols.
    "flash_attention_nk_partial": attn_case("examples/flash_attention.ph", "flash_attention", 64, 77, 64, F16,
                                            scale=0.2),
    "flash_attention_manual_nk_partial": attn_case("examples/flash_attention_manual.ph",
                                                   "flash_attention_manual", 64, 77, 64, F16, scale=0.2),
    # Fewer keys than one block.
    "flash_attention_nk_small": attn_case("examples/flash_attention.ph", "flash_attention", 64, 5, 64, F16),
    # No @aligned: a last partial block of rows, and partial key blocks.
    "attention_unaligned": attn_case(UNALIGNED, "attention_unaligned", 37, 23, 32, F32),
    "attention_unaligned_small": attn_case(UNALIGNED, "attention_unaligned", 5, 3, 32, F32),
    "causal_unaligned": attn_case(CAUSAL_UNALIGNED, "causal_unaligned", 45, 45, 16, F16, causal=True),
    "causal_unaligned_small": attn_case(CAUSAL_UNALIGNED, "causal_unaligned", 3, 3, 16, F16, causal=True),
    "rotary_partial": rotary_case(13),
    "rotary_small": rotary_case(3),
    "rotary_pairs_partial": rotary_pairs_case(21),
    "elementwise_partial": elementwise_case(10),
    # The examples people write (issue 16): ragged rows and columns.
    "softmax": row_case("examples/softmax.ph", "softmax", 13, 300,
                        ref=lambda i: {"Y": softmax_rows(i["X"])}),
    # A row longer than the first configuration's block (1024): the two loops, not the one pass.
    "softmax_blocks": row_case("examples/softmax.ph", "softmax", 5, 2056,
                               ref=lambda i: {"Y": softmax_rows(i["X"])}),
    "layer_norm": row_case("examples/layer_norm.ph", "layer_norm", 13, 300,
                           {"W": (F16, (1, 300)), "B": (F16, (1, 300))}, {"eps": EPS},
                           ref=lambda i: {"Y": layer_norm(i["X"], i["W"], i["B"], EPS)}),
    "rms_norm": row_case("examples/rms_norm.ph", "rms_norm", 13, 300, {"W": (F16, (1, 300))}, {"eps": EPS},
                         ref=lambda i: {"Y": rms_norm(i["X"], i["W"], EPS)}),
    "swiglu": dict(file="examples/swiglu.ph", kernel="swiglu",
                   inputs={"G": (F16, (13, 300)), "U": (F16, (13, 300))}, args={}, outputs={"Y": F16},
                   ref=lambda i: {"Y": i["G"] / (1.0 + np.exp(-i["G"])) * i["U"]}),
    "cross_entropy": dict(file="examples/cross_entropy.ph", kernel="cross_entropy",
                          inputs={"X": (F16, (13, 300)),
                                  "L": (np.int32, (13, 1), lambda rng, n: labels(rng, n, 300, [299, 298, 0]))},
                          args={}, outputs={"Loss": F32},
                          ref=lambda i: {"Loss": cross_entropy(i["X"], i["L"])}),
    # Labels outside [0, V): -1, -100, V and past it read 0, so the loss is the row's logsumexp
    # (PyTorch's ignore_index = -100 would give 0).
    "cross_entropy_outside": dict(file="examples/cross_entropy.ph", kernel="cross_entropy",
                                  inputs={"X": (F16, (13, 300)),
                                          "L": (np.int32, (13, 1), lambda rng, n: labels(rng, n, 300, [-1, -100, 300, 305, 299]))},
                                  args={}, outputs={"Loss": F32},
                                  ref=lambda i: {"Loss": cross_entropy(i["X"], i["L"])}),
    # Full blocks of columns and a ragged last one (2056 = 2 x 1024 + 8), and full blocks alone:
    # cross_entropy.ph's two loops (the unmasked one, then the masked remainder, if any).
    **{name: dict(file="examples/cross_entropy.ph", kernel="cross_entropy",
                  inputs={"X": (F16, (5, v)),
                          "L": (np.int32, (5, 1),
                                lambda rng, n, v=v: labels(rng, n, v, [v - 1, (v - 1) // 1024 * 1024, (v - 1) // 1024 * 1024 - 1, 1024]))},
                  args={}, outputs={"Loss": F32},
                  ref=lambda i: {"Loss": cross_entropy(i["X"], i["L"])})
       for name, v in (("cross_entropy_blocks", 2056), ("cross_entropy_full", 2048))},
    "argmax": dict(file="examples/argmax.ph", kernel="argmax", inputs={"X": (F16, (13, 300))}, args={},
                   outputs={"Out": np.int32}, ref=lambda i: {"Out": np.argmax(i["X"], axis=1)[:, None]}),
    "causal_diagonal": attn_case("examples/causal_diagonal.ph", "causal_diagonal", 150, 150, 64, F16,
                                 causal=True),
    # fp8 (docs/language.md, "fp8"): per-row quantization to e4m3 and back, ragged rows and
    # columns; outputs compared as the codes' values.
    "fp8_quantize": dict(file="examples/fp8_quantize.ph", kernel="fp8_quantize",
                         inputs={"X": (F16, (13, 300))}, args={}, outputs={"Q": E4M3, "S": F32},
                         ref=fp8_quantize_ref),
    "fp8_dequantize": dict(file="examples/fp8_dequantize.ph", kernel="fp8_dequantize",
                           inputs={"Q": (E4M3, (13, 300)),
                                   "S": (F32, (13, 1), lambda rng, n: rng.uniform(0.25, 4.0, size=(n, 1)) / 448)},
                           args={}, outputs={"Y": F16},
                           ref=lambda i: {"Y": i["Q"] * i["S"]}),
    "branches": dict(file="tests/numerics/kernels/branches.ph", kernel="branches",
                     inputs={"X": (F32, (37, 32))}, args={"mode": 2}, outputs={"Y": F32},
                     ref=lambda i: {"Y": branches_ref(i["X"], 2)}),
    "branches_else": dict(file="tests/numerics/kernels/branches.ph", kernel="branches",
                          inputs={"X": (F32, (32, 32))}, args={"mode": 0}, outputs={"Y": F32},
                          ref=lambda i: {"Y": branches_ref(i["X"], 0)}),
    "causal_skip": attn_case("tests/numerics/kernels/skip.ph", "causal_skip", 150, 150, 64, F16, causal=True),
    "simt_skip": dict(file="tests/numerics/kernels/skip.ph", kernel="simt_skip",
                      inputs={"X": (F32, (37, 32)), "W": (F32, (32, 32))}, args={"n": 2}, outputs={"Y": F32},
                      ref=lambda i: {"Y": simt_skip_ref(i, 2)}),
    "half_reductions": dict(file="tests/numerics/kernels/half_reductions.ph", kernel="half_reductions",
                            inputs={"X": (F16, (29, 32)), "C": (F16, (4, 32))}, args={"n": 20},
                            outputs={"R": F16, "C": F16}, ref=lambda i: half_reductions_ref(i, 20)),
    "half_sums": dict(file="tests/numerics/kernels/half_reductions.ph", kernel="half_sums",
                      inputs={"X": (F16, (29, 32)), "C": (F32, (4, 32))}, args={},
                      outputs={"R": F32, "C": F32}, ref=half_sums_ref),
    # Ties everywhere and two NaNs in every third row: the first maximum, or the first NaN.
    "argmax_ties": dict(file="tests/numerics/kernels/argmax_ties.ph", kernel="argmax_ties",
                        inputs={"X": (F32, (37, 64))}, args={}, outputs={"A": np.int32, "H": np.int32},
                        ref=argmax_ties_ref),
    "reductions": dict(file="tests/numerics/kernels/reductions.ph", kernel="reductions",
                       inputs={"X": (F32, (37, 64)), "CS": (F32, (3, 64)), "CM": (F32, (3, 64))}, args={},
                       outputs={"RM": F32, "RA": np.int32, "CS": F32, "CM": F32, "H": F32, "T": np.int32},
                       ref=reductions_ref),
    # erf, tanh, floor, sin, cos, sigmoid and log2, each over a range that exercises it (log2's
    # inputs spread over (2^-10, 100], so its results go negative); 37 rows: a masked last block.
    "functions": dict(file="tests/numerics/kernels/functions.ph", kernel="functions",
                      inputs={"A": (F32, (37, 32), lambda rng, n: rng.uniform(-3.0, 3.0, size=(n, 32))),
                              "W": (F32, (37, 32), lambda rng, n: rng.uniform(-10.0, 10.0, size=(n, 32))),
                              "P": (F32, (37, 32), lambda rng, n: 2.0 ** rng.uniform(-10.0, math.log2(100.0),
                                                                                   size=(n, 32)))},
                      args={}, outputs={k: F32 for k in "ETFSCGL"}, ref=functions_ref),
    # Extents that are not powers of two (24, 48 columns, 12 rows, 3 warps), parts of tiles.
    "odd_extents": dict(file="tests/numerics/kernels/odd_extents.ph", kernel="odd_extents",
                        inputs={"X": (F32, (37, 24)), "C": (F32, (3, 24))}, args={"n": 10},
                        outputs={"Y": F32, "R": F32, "C": F32}, ref=lambda i: odd_extents_ref(i, 10)),
    "odd_extents_half": dict(file="tests/numerics/kernels/odd_extents.ph", kernel="odd_extents_half",
                             inputs={"X": (F16, (29, 48)), "C": (F32, (3, 48))}, args={},
                             outputs={"Y": F16, "R": F32, "C": F32}, ref=odd_extents_half_ref),
    **attention_variants(),
}


def rel_err(out, ref):
    out = out.astype(np.float64)
    denom = np.linalg.norm(ref)
    return float(np.linalg.norm(out - ref) / (denom if denom > 0 else 1.0))


def run_case(name, case, args, rng, tmp):
    inputs = {}
    for tname, (dtype, shape, *gen) in case["inputs"].items():
        # Integer inputs (labels, sequence starts) come from their case's generator; fp8
        # inputs are codes of values drawn across the format's range.
        if gen:
            a = gen[0](rng, shape[0])
        elif dtype == E4M3:
            a = e4m3_encode(rng.uniform(-448.0, 448.0, size=shape))
        else:
            a = rng.uniform(-1.0, 1.0, size=shape)
        a = a.astype(storage(dtype))
        inputs[tname] = a
        np.save(os.path.join(tmp, f"in_{tname}.npy"), a)
    ref = case["ref"]({k: values(v, case["inputs"][k][0]) for k, v in inputs.items()})

    ok = True
    results = {}
    for target in args.target.split(","):
        cmd = [args.ph, "run", os.path.join(args.root, case["file"]), "--kernel", case["kernel"],
               "--target", target, "--json"]
        for tname in case["inputs"]:
            cmd += ["--in", f"{tname}={os.path.join(tmp, f'in_{tname}.npy')}"]
        for aname, v in case["args"].items():
            cmd += ["--arg", f"{aname}={v!r}"]
        for oname in case["outputs"]:
            cmd += ["--out", f"{oname}={os.path.join(tmp, f'{target}_{oname}.npy')}"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            # Why it did not run is the document's `error` (docs/output.md), not words on stderr.
            try:
                why = json.loads(p.stdout).get("error", "")
            except ValueError:
                why = p.stderr
            if "not built" in why or why.startswith("no GPU"):
                print(f"SKIP {name} on {target}: {why.strip()}")
                return SKIP
            print(f"FAIL {name} on {target}: `{' '.join(cmd)}` exited {p.returncode}\n{p.stdout}{p.stderr}")
            return 1
        info = json.loads(p.stdout)
        outs = {}
        for oname, dtype in case["outputs"].items():
            o = np.load(os.path.join(tmp, f"{target}_{oname}.npy"))
            if o.dtype != storage(dtype) or o.shape != ref[oname].shape:
                print(f"FAIL {name} on {target}: {oname} is {o.dtype}{o.shape}, "
                      f"expected {np.dtype(storage(dtype))}{ref[oname].shape}")
                return 1
            o = values(o, dtype) if dtype == E4M3 else o
            outs[oname] = o
            err = rel_err(o, ref[oname])
            tol = TOLERANCE[dtype]
            nan = int(np.isnan(o).sum())
            good = err <= tol and nan == 0
            ok &= good
            print(f"{'ok  ' if good else 'FAIL'} {name} {target} {oname}: rel err vs numpy {err:.3g} "
                  f"(tolerance {tol:g}), {nan} NaN, grid {info['grid']}, {info['time_ms']:.2f} ms")
        results[target] = outs
    # Targets against each other, on the same inputs.
    targets = list(results)
    for i in range(len(targets)):
        for j in range(i + 1, len(targets)):
            for oname, dtype in case["outputs"].items():
                a = results[targets[i]][oname]
                b = results[targets[j]][oname].astype(np.float64)
                err = rel_err(a, b)
                good = err <= TOLERANCE[dtype]
                ok &= good
                print(f"{'ok  ' if good else 'FAIL'} {name} {oname}: {targets[i]} vs {targets[j]} rel err {err:.3g}")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ph", help="the ph binary")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--case", default="all")
    ap.add_argument("--target", default="interp", help="comma-separated: interp,cpu")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    seed = int(os.environ.get("PH_NUMERICS_SEED", int.from_bytes(os.urandom(4), "little")))
    print(f"seed {seed} (replay with PH_NUMERICS_SEED={seed})")
    names = list(CASES) if args.case == "all" else args.case.split(",")
    status = 0
    for name in names:
        if name not in CASES:
            print(f"unknown case `{name}`; --list shows them")
            return 2
        rng = np.random.default_rng([seed, len(name)] + [ord(c) for c in name])
        with tempfile.TemporaryDirectory(prefix="ph-numerics-") as tmp:
            r = run_case(name, CASES[name], args, rng, tmp)
        if r == 1 or (r == SKIP and status == 0):
            status = r
    return status


if __name__ == "__main__":
    sys.exit(main())
