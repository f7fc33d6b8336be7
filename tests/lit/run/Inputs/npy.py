# Writes a .npy for the lit tests: npy.py OUT DTYPE SHAPE [fortran|text]
import sys
import numpy as np
out, dtype, shape = sys.argv[1], sys.argv[2], tuple(int(s) for s in sys.argv[3].split("x") if s)
mode = sys.argv[4] if len(sys.argv) > 4 else ""
if mode == "text":
    open(out, "w").write("Q,K,V\n1,2,3\n")
else:
    a = np.ones(shape, dtype=dtype)
    np.save(out, np.asfortranarray(a) if mode == "fortran" else a)
