#!/usr/bin/env python3
"""ptxas as a process per variant against CUDA's nvJitLink in one process (issue 22; docs/compile.md,
"ptxas in the process (nvJitLink), not taken").

    python3 bench/compile/nvjitlink_bench.py DIR [--arch sm_90a] [--rounds 3]

DIR holds `.ptx` files (a `ph build` folder before its PTX is dropped). Each round assembles every
file with ptxas (one process each) and with libnvJitLink (all in this process, through ctypes), and
prints the CPU seconds of each (children's for ptxas, this process's for nvJitLink), the register
counts each reports, and whether each `.text` section is the same. Needs the CUDA Toolkit
(PH_CUDA_DIR or /usr/local/cuda), no GPU.
"""
import argparse
import ctypes
import glob
import os
import re
import resource
import subprocess
import sys
import tempfile


def cuda_dir():
    return os.environ.get("PH_CUDA_DIR") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"


class NvJitLink:
    def __init__(self):
        libs = sorted(glob.glob(os.path.join(cuda_dir(), "lib64", "libnvJitLink.so*")))
        if not libs:
            raise OSError("no libnvJitLink.so under " + cuda_dir() + "/lib64")
        self.lib = ctypes.CDLL(libs[0])
        suffix = None
        for v in ("13_0", "13_1", "13_2", "12_9", "12_8", "12_6", "12_4", "12_3", "12_2", "12_1", "12_0"):
            try:
                getattr(self.lib, "__nvJitLinkCreate_" + v)
                suffix = v
                break
            except AttributeError:
                continue
        if suffix is None:
            raise OSError("libnvJitLink has no __nvJitLinkCreate_<version> this script knows")
        self.f = {n: getattr(self.lib, "__nvJitLink%s_%s" % (n, suffix))
                  for n in ("Create", "AddData", "Complete", "GetLinkedCubinSize", "GetLinkedCubin",
                            "GetInfoLogSize", "GetInfoLog", "GetErrorLogSize", "GetErrorLog", "Destroy")}

    def assemble(self, ptx, arch):
        h = ctypes.c_void_p()
        opts = [b"-arch=" + arch.encode(), b"-O3", b"-Xptxas=-v"]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        if self.f["Create"](ctypes.byref(h), len(opts), arr):
            raise RuntimeError("nvJitLinkCreate failed")
        data = ptx.encode()
        self.f["AddData"](h, 2, data, ctypes.c_size_t(len(data)), b"k")  # NVJITLINK_INPUT_PTX = 2
        rc = self.f["Complete"](h)
        n = ctypes.c_size_t()
        self.f["GetInfoLogSize"](h, ctypes.byref(n))
        log = ctypes.create_string_buffer(n.value + 1)
        self.f["GetInfoLog"](h, log)
        cubin = b""
        if rc == 0:
            self.f["GetLinkedCubinSize"](h, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            self.f["GetLinkedCubin"](h, buf)
            cubin = buf.raw
        self.f["Destroy"](ctypes.byref(h))
        return rc, cubin, log.value.decode(errors="replace")


def text_section(cubin):
    with tempfile.NamedTemporaryFile(suffix=".cubin") as t:
        t.write(cubin)
        t.flush()
        out = subprocess.run(["readelf", "-S", "-W", t.name], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if ".text." in line and "PROGBITS" in line and ".rela" not in line:
            f = line[line.index("]") + 1:].split()
            off, size = int(f[3], 16), int(f[4], 16)
            return cubin[off:off + size]
    return b""


def registers(log):
    m = re.search(r"Used (\d+) registers", log)
    return int(m.group(1)) if m else -1


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def self_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.dir, "*.ptx")))
    if not files:
        sys.exit("no .ptx files in " + a.dir)
    ptxas = os.path.join(cuda_dir(), "bin", "ptxas")
    jit = NvJitLink()
    ptx = {f: open(f).read() for f in files}
    last = {}
    for rnd in range(a.rounds):
        # The sections are read (readelf, a child process) after both timings.
        made = {}
        c0 = children_cpu()
        for f in files:
            with tempfile.NamedTemporaryFile(suffix=".cubin") as out:
                p = subprocess.run([ptxas, "-arch=" + a.arch, "-v", "-O3", f, "-o", out.name], capture_output=True, text=True)
                made[f] = {"ptxas": (registers(p.stderr), open(out.name, "rb").read())}
        c1 = children_cpu()
        s0 = self_cpu()
        for f in files:
            rc, cubin, log = jit.assemble(ptx[f], a.arch)
            made[f]["jit"] = (registers(log), cubin if rc == 0 else b"")
        s1 = self_cpu()
        last = {f: {k: (r, text_section(c) if c else b"") for k, (r, c) in m.items()} for f, m in made.items()}
        print("round %d: %d files, CPU s: ptxas processes %.2f, nvJitLink in process %.2f" % (rnd + 1, len(files), c1 - c0, s1 - s0))
    for f in files:
        (rp, tp), (rj, tj) = last[f]["ptxas"], last[f]["jit"]
        print("  %s: registers ptxas %d, nvJitLink %d; .text %d / %d bytes, %s" %
              (os.path.basename(f), rp, rj, len(tp), len(tj), "same" if tp == tj else "different"))


if __name__ == "__main__":
    main()
