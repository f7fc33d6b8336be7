#!/usr/bin/env python3
"""Writes an int32 [N, 1] .npy of the given values (cross_entropy's labels in check_examples.sh:
random i32 inputs lie in [0, 8), so no label would fall in a later block or the ragged tail).

    int_column.py OUT.npy 4103,4096,4095,0

The standard library only, as sequence_starts.py.
"""
import sys

from sequence_starts import npy_int32_column

if __name__ == "__main__":
    with open(sys.argv[1], "wb") as f:
        f.write(npy_int32_column([int(x) for x in sys.argv[2].split(",")]))
