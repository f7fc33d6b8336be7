#!/usr/bin/python3
"""exact.py REF.npy GOT.npy [LABEL]: are two .npy files (f32, f16, i32 or uint8, the bits of fp8;
bf16 travels as f32)
equal element by element, bit for bit, any NaN equal to any NaN (a NaN's payload and sign
differ between targets and mean nothing)? Prints one line (and the first differing elements);
exit 0 equal, 1 not, 2 unreadable. A conversion has one right answer (docs/language.md,
"Conversions"), so the comparison with the interpreter is exact, not within --check's
tolerance. Standard library only: it runs on the GPU machine too.
"""
import ast
import math
import struct
import sys


def load(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    code = {"<f4": "f", "<f2": "e", "<i4": "i", "|u1": "B"}[header["descr"]]
    raw = {"f": "I", "e": "H", "i": "I", "B": "B"}[code]
    n = 1
    for d in header["shape"]:
        n *= d
    body = data[10 + hlen:]
    return header["descr"], header["shape"], struct.unpack("<%d%s" % (n, code), body[:n * struct.calcsize(code)]), \
        struct.unpack("<%d%s" % (n, raw), body[:n * struct.calcsize(raw)])


def main():
    label = sys.argv[3] if len(sys.argv) > 3 else sys.argv[2]
    try:
        d1, s1, v1, b1 = load(sys.argv[1])
        d2, s2, v2, b2 = load(sys.argv[2])
    except Exception as e:  # noqa: BLE001 - any unreadable file is the answer
        print("ERROR %s: %s" % (label, e))
        return 2
    if (d1, tuple(s1)) != (d2, tuple(s2)):
        print("DIFF  %s: %s%s against %s%s" % (label, d1, s1, d2, s2))
        return 1
    bad = [i for i in range(len(v1))
           if b1[i] != b2[i] and not (isinstance(v1[i], float) and math.isnan(v1[i]) and math.isnan(v2[i]))]
    nan = sum(1 for v in v1 if isinstance(v, float) and math.isnan(v))
    if not bad:
        print("exact %s: %d elements bit-equal (%d NaN in both)" % (label, len(v1), nan))
        return 0
    cols = s1[-1] if s1 else 1
    print("DIFF  %s: %d of %d elements differ" % (label, len(bad), len(v1)))
    for i in bad[:8]:
        print("        [%d, %d] reference %r (0x%x), got %r (0x%x)" % (i // cols, i % cols, v1[i], b1[i], v2[i], b2[i]))
    return 1


if __name__ == "__main__":
    sys.exit(main())
