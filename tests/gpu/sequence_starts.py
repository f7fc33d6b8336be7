#!/usr/bin/env python3
"""Writes the `Start` input of examples/document_attention.ph: an int32 [N, 1] .npy holding each
position's sequence start, for sequences of the given lengths packed one after another.

    sequence_starts.py OUT.npy 5,30,1,41        (N = 77: starts 0, 5, 35, 36)

The standard library only (check_examples.sh's build step runs where numpy may be missing).
"""
import struct
import sys


def npy_int32_column(values):
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d, 1), }" % len(values)
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * (pad % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + \
        struct.pack("<%di" % len(values), *values)


def main():
    out, lengths = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
    if any(n <= 0 for n in lengths):
        sys.exit("sequence_starts.py: every length must be positive")
    starts, s = [], 0
    for n in lengths:
        starts += [s] * n
        s += n
    with open(out, "wb") as f:
        f.write(npy_int32_column(starts))


if __name__ == "__main__":
    main()
