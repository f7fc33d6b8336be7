#!/usr/bin/env python3
"""Writes the flash-decoding checks' inputs (examples/decode_attention.ph's decode_split) into DIR:
q1.npy and q4.npy (f16 [3, 8 * G, 128] for G = 1 and 4), k.npy and v.npy (f16 [3, 8, 600, 128]),
lens.npy (i32 [3]: 1, 517 and 600, a ragged cache), fresh uniform [-1, 1) values each time; and
lens_full.npy (i32 [32], all 4096) for a full-size run. Used by the bench packs that check decode
variants against the interpreter (tilegpu_device.sh, decode_simt_device.sh).

    decode_inputs.py DIR
"""
import sys

import numpy as np

if __name__ == "__main__":
    d = sys.argv[1] + "/"
    rng = np.random.default_rng()
    b, hk, n, D = 3, 8, 600, 128
    for g in (1, 4):
        np.save(d + f"q{g}.npy", rng.uniform(-1, 1, (b, hk * g, D)).astype(np.float16))
    np.save(d + "k.npy", rng.uniform(-1, 1, (b, hk, n, D)).astype(np.float16))
    np.save(d + "v.npy", rng.uniform(-1, 1, (b, hk, n, D)).astype(np.float16))
    np.save(d + "lens.npy", np.array([1, 517, 600], dtype=np.int32))
    np.save(d + "lens_full.npy", np.full(32, 4096, dtype=np.int32))
