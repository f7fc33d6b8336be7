#!/usr/bin/python3
"""inputs.py OUT N SEED: inputs for the conversion kernels of tests/lit/run/Inputs/conversions.ph.

Writes OUT/KERNEL.PARAM.npy for every input of every kernel and OUT/cases.txt, one line a
kernel: `KERNEL|INPUT=FILE ...|OUTPUT ...` (gemm_convert is in tests/gpu/conversions/gemm.ph,
and needs N a multiple of 64). Each input is N x 64: the special values of the
conversion table (docs/language.md, "Conversions": ties, overflow, +-inf, NaN, subnormals,
+-0, the i32 ends) first, then seeded random values over the whole range of the type (random
bit patterns) and over a moderate range. Standard library only (it also runs on the GPU
machine, which has no compiler). Used by tests/lit/run/conversions.test (the CPU target) and
tests/gpu/conversions_device.sh (the GPU lowerings).
"""
import os
import random
import struct
import sys

INF, NAN = float("inf"), float("nan")
# f32 values: f16 and bf16 ties and overflow, f32 subnormals, the ends of i32.
F32 = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 2.9999, -0.9999, 65504.0, 65519.99, 65520.0, -65520.0,
       1e5, -1e5, 3.0e38, 3.4028234663852886e38, -3.4028234663852886e38, INF, -INF, NAN,
       1e-8, 6e-8, 3e-5, -3e-5, 6.1e-5, 1e-40, -1e-40, 1.401298464324817e-45, 1.1754942e-38,
       1 + 2 ** -11, 1 + 3 * 2 ** -11, -(1 + 2 ** -11), 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -20,
       2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 4294967296.0, 1e30, -1e30,
       16777216.0, 16777218.0, 0.1, -0.1, 1 / 3, 100.5, 101.5]
# f16 values (exact in f16): the ends, subnormals, values whose product with 256 overflows.
F16 = [0.0, -0.0, 1.0, -1.0, 65504.0, -65504.0, INF, -INF, NAN, 2 ** -24, -(2 ** -24), 2 ** -14, 2 ** -14 - 2 ** -24,
       1000.5, -3.75, 2.0 ** 15, 255.875, -256.0, 0.099975586, 3.0, 2047.0, 2049.0]
# bf16 values (exact in bf16, written as f32): the ends, subnormals, the i32 ends, f16 overflow.
BF16 = [0.0, -0.0, 1.0, -1.0, 3.3895313892515355e38, -3.3895313892515355e38, INF, -INF, NAN,
        2.0 ** 31, -(2.0 ** 31), 2.0 ** 32, -(2.0 ** 40), 2.0 ** -126, 2.0 ** -133, 9.183549615799121e-41,
        65536.0, 65280.0, 65504.0, -65536.0, 2.0 ** -24, 2.0 ** -25, 3.0, 1.5, 257.0, 2147483648.0 - 2 ** 23]
# i32 values: f32 ties (2^24 + 1, + 3), the bf16 double rounding (2^24 + 2^16 + 1: one rounding
# gives 2^24 + 2^17, two through f32 give 2^24), f16's end (65 519 -> 65 504, 65 520 -> inf).
I32 = [0, 1, -1, 2, 16777217, 16777219, -16777217, 16842753, -16842753, 65504, 65519, 65520, -65520, 2049, 2051,
       2147483647, -2147483648, 2147483520, 2147483584, 33554435, 257, 259, -259, 1000000007]


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def bits_f16(b):
    return struct.unpack("<e", struct.pack("<H", b))[0]


def write(path, descr, vals, rows):
    code = {"<f4": "f", "<f2": "e", "<i4": "i"}[descr]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, 64), }" % (descr, rows)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(vals), code), *vals))


def values(kind, n, rng, moderate):
    """n values of `kind`: the special ones, then random ones (bit patterns and a moderate range)."""
    if kind == "f16int":  # small integers: a GEMM's sums are exact in any order
        return [float(rng.randrange(-3, 4)) for _ in range(n)]
    out = list({"f32": F32, "f16": F16, "bf16": BF16, "i32": I32}[kind])
    while len(out) < n:
        whole = rng.random() < 0.5 and not moderate
        if kind == "i32":
            v = rng.randrange(-2 ** 31, 2 ** 31) if whole else rng.randrange(-2 ** 25, 2 ** 25)
        elif kind == "f32":
            v = bits_f32(rng.randrange(0, 2 ** 32)) if whole else rng.uniform(-1, 1) * 2.0 ** rng.randrange(-20, 20)
            v = f32_round(v)
        elif kind == "f16":
            v = bits_f16(rng.randrange(0, 2 ** 16)) if whole else bits_f16(f16_bits(rng.uniform(-4, 4)))
        else:  # bf16: the top half of an f32
            v = bits_f32(rng.randrange(0, 2 ** 16) << 16) if whole else bits_f32(f32_bits(rng.uniform(-4, 4)) & 0xFFFF0000)
        out.append(v)
    return out[:n]


def f32_round(v):
    return struct.unpack("<f", struct.pack("<f", v))[0] if v == v and abs(v) < 3.4e38 else v


def f16_bits(v):
    return struct.unpack("<H", struct.pack("<e", v))[0]


# kernel: ([(input, kind)], [outputs], moderate inputs (arithmetic chains: mostly finite))
KERNELS = {
    "f16_to_bf16": ([("X", "f16")], ["Y"], False),
    "bf16_to_f16": ([("X", "bf16")], ["Y"], False),
    "add16_into_f32": ([("A", "f16"), ("B", "f16")], ["C"], False),
    "float_to_int": ([("X", "f32")], ["Big", "Root"], False),
    "narrow_f32": ([("X", "f32")], ["H", "B"], False),
    "widen_16": ([("A", "f16"), ("B", "bf16")], ["FA", "FB", "IA", "IB"], False),
    "int_to_float": ([("I", "i32")], ["F", "H", "B"], False),
    "explicit_casts": ([("X", "f32")], ["Y", "Z", "W"], False),
    "chain_f16": ([("A", "f16"), ("B", "f16")], ["C", "D"], True),
    "chain_bf16": ([("A", "bf16"), ("B", "bf16")], ["C", "D"], True),
    "mul_add_f32": ([("A", "f32"), ("B", "f32")], ["C"], True),
    # tests/gpu/conversions/gemm.ph (N a multiple of 64): B is 64 x 64
    "gemm_convert": ([("A", "f16int"), ("B", "f16int", 64)], ["H", "Bf", "I", "Sat", "Over"], True),
}
DESCR = {"f32": "<f4", "bf16": "<f4", "f16": "<f2", "f16int": "<f2", "i32": "<i4"}


def main():
    out, rows, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    lines = []
    for k, (ins, outs, moderate) in KERNELS.items():
        args = []
        for j, (name, kind, *fixed) in enumerate(ins):
            n = fixed[0] if fixed else rows
            vals = values(kind, n * 64, rng, moderate)
            if j:  # the second operand: the special values in another order
                rng.shuffle(vals)
            path = "%s.%s.npy" % (k, name)
            write(os.path.join(out, path), DESCR[kind], vals, n)
            args.append("%s=%s" % (name, path))
        lines.append("%s|%s|%s" % (k, " ".join(args), " ".join(outs)))
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
