# npyvals.py write OUT f32 ROWS,COLS V1,V2,...: a little-endian f32 .npy of that shape whose
#   elements cycle through the values; npyvals.py print FILE N: its first N values (i32 or
#   f32 files; uint8 for fp8 codes) on one line. Standard library only.
import ast, struct, sys

if sys.argv[1] == "write":
    out, shape = sys.argv[2], tuple(int(s) for s in sys.argv[4].split(","))
    vals = [float(v) for v in sys.argv[5].split(",")]
    n = 1
    for d in shape:
        n *= d
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (shape,)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % n, *[vals[i % len(vals)] for i in range(n)]))
else:
    data = open(sys.argv[2], "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    code = {"<i4": "i", "<f4": "f", "|u1": "B"}[header["descr"]]
    k = int(sys.argv[3])
    size = struct.calcsize(code)
    print(" ".join(str(v) for v in struct.unpack("<%d%s" % (k, code), data[10 + hlen:10 + hlen + size * k])))
