#!/usr/bin/python3
"""inputs.py OUT [SEED]: inputs for the fp8 kernels of tests/lit/run/Inputs/fp8.ph and the fp8
examples.

Writes OUT/KERNEL.PARAM.npy and OUT/cases.txt (`KERNEL|N|INPUT=FILE ...|OUTPUT ...`, one line a
kernel). fp8 arrays are uint8 arrays of the codes (docs/running.md, "fp8"). widen, between and
arith get all 256 codes (4 rows of 64); narrow gets f32 values: every finite value of both
formats, the midpoints of neighbours (ties) and one f32 step either side of them, values past
the largest finite one, +-inf, NaN, +-0, f32 subnormals and random bit patterns (N = 64);
narrow16 the same as f16 where exact, and random f16 codes. With SEED, also OUT/examples.txt
(`TAG|FILE|KERNEL|SIZES|INPUT=FILE ...|OUTPUT ...`) and its inputs, drawn from SEED:
examples/fp8_quantize.ph on random f16 rows (ragged 13 x 300 and whole 64 x 128 tiles, no zero
row) and examples/fp8_dequantize.ph on random codes (no NaN code) and positive scales.
Standard library only: it runs on the GPU machine too. Used by tests/lit/run/fp8.test and
tests/gpu/fp8_device.sh.
"""
import math
import os
import random
import struct
import sys


def decode(b, exp_bits, mant_bits, bias, ieee):
    s, e, m = b >> 7, (b >> mant_bits) & ((1 << exp_bits) - 1), b & ((1 << mant_bits) - 1)
    top = (1 << exp_bits) - 1
    if ieee and e == top:
        return float("nan") if m else (-1) ** s * float("inf")
    if not ieee and e == top and m == (1 << mant_bits) - 1:
        return float("nan")
    v = m / 2 ** mant_bits * 2.0 ** (1 - bias) if e == 0 else (1 + m / 2 ** mant_bits) * 2.0 ** (e - bias)
    return -v if s else v


FORMATS = [(4, 3, 7, False), (5, 2, 15, True)]


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def next_f32(v, up):
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    if v == 0:
        return struct.unpack("<f", struct.pack("<I", 1 if up else 0x80000001))[0]
    b += 1 if (v > 0) == up else -1
    return struct.unpack("<f", struct.pack("<I", b))[0]


def narrow_values(rng, n):
    vals = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-40, -1e-40, 1e30, -1e30, 3.4e38,
            448.0, 449.0, 464.0, 480.0, 500.0, 57344.0, 57345.0, 61440.0, 65504.0, 1e5, -1e5]
    for fmt in FORMATS:
        fin = sorted({decode(b, *fmt) for b in range(128)} - {float("nan")})
        fin = [v for v in fin if math.isfinite(v)]
        for i, v in enumerate(fin):
            vals += [v, -v]
            if i + 1 < len(fin):
                mid = (v + fin[i + 1]) / 2
                for x in (mid, next_f32(mid, False), next_f32(mid, True)):
                    vals += [x, -x]
    vals = [f32(v) for v in vals]
    while len(vals) < n * 64:
        if len(vals) % 2:
            vals.append(struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0])
        else:  # in the formats' range
            b = (rng.getrandbits(1) << 31) | ((100 + rng.randrange(50)) << 23) | rng.getrandbits(23)
            vals.append(struct.unpack("<f", struct.pack("<I", b))[0])
    return vals[: n * 64]


def write(path, descr, vals, rows, cols=64):
    code = {"<f4": "f", "<f2": "e", "|u1": "B"}[descr]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(vals), code), *vals))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(2026)
    codes = list(range(256))
    rev = codes[::-1]
    cases = []
    write(os.path.join(out, "codes.npy"), "|u1", codes, 4)
    write(os.path.join(out, "rcodes.npy"), "|u1", rev, 4)
    cases.append("widen|4|X8=codes.npy Y8=codes.npy|X Y")
    cases.append("between|4|X8=codes.npy Y8=codes.npy|A B I H G")
    cases.append("arith|4|X8=codes.npy Y8=rcodes.npy|S D")
    n = 64
    write(os.path.join(out, "narrow.F.npy"), "<f4", narrow_values(rng, n), n)
    cases.append("narrow|%d|F=narrow.F.npy|A B" % n)
    h = []
    for v in narrow_values(rng, n):
        try:
            h.append(struct.unpack("<e", struct.pack("<e", v))[0] if abs(v) <= 65504 or not math.isfinite(v) else v)
        except OverflowError:
            h.append(float("inf") if v > 0 else float("-inf"))
    # Half of the rows random f16 codes instead.
    for i in range(len(h) // 2, len(h)):
        h[i] = struct.unpack("<e", struct.pack("<H", rng.getrandbits(16)))[0]
    h = [x if (not math.isfinite(x) or abs(x) <= 65504) else math.copysign(float("inf"), x) for x in h]
    write(os.path.join(out, "narrow16.H.npy"), "<f2", h, n)
    cases.append("narrow16|%d|H=narrow16.H.npy|A B" % n)
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")
    if len(sys.argv) > 2:
        examples(out, random.Random(int(sys.argv[2])))


def examples(out, rng):
    """The fp8 examples' cases: quantize f16 rows, dequantize codes with a scale per row."""
    lines = []
    for n, c in ((13, 300), (64, 128)):
        # Rows of different magnitudes (the scale is per row), one with an outlier.
        x = []
        for r in range(n):
            mag = 2.0 ** rng.randrange(-8, 9)
            row = [struct.unpack("<e", struct.pack("<e", rng.uniform(-mag, mag)))[0] for _ in range(c)]
            if r % 5 == 0:
                row[rng.randrange(c)] = 60000.0 if r % 2 else -60000.0
            x += row
        tag = "quantize_%dx%d" % (n, c)
        write(os.path.join(out, tag + ".X.npy"), "<f2", x, n, c)
        lines.append("%s|examples/fp8_quantize.ph|fp8_quantize|--size N=%d --size C=%d|X=%s.X.npy|Q S" % (tag, n, c, tag))
        q = [b for b in (rng.getrandbits(8) for _ in range(4 * n * c)) if b & 127 != 127][: n * c]
        sc = [rng.uniform(0.25, 4.0) / 448.0 for _ in range(n)]
        tag = "dequantize_%dx%d" % (n, c)
        write(os.path.join(out, tag + ".Q.npy"), "|u1", q, n, c)
        write(os.path.join(out, tag + ".S.npy"), "<f4", sc, n, 1)
        lines.append("%s|examples/fp8_dequantize.ph|fp8_dequantize|--size N=%d --size C=%d|Q=%s.Q.npy S=%s.S.npy|Y"
                     % (tag, n, c, tag, tag))
    with open(os.path.join(out, "examples.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
