#!/usr/bin/python3
# hostile_lsp.py PH-LSP [ARGS...]: ph-lsp under a memory cap (prlimit --data, PH_HOSTILE_DATA_MB,
# default 512 MB of data: heap, anonymous mappings and thread stacks, what it writes) gets the
# hostile inputs of issue 20 and must answer every request and publish diagnostics for every
# document, with a peak resident set (VmHWM) under the same figure. (Not an address-space cap:
# each glibc malloc arena reserves 64 MiB it never touches, and the server has up to 8.)
#   - three autotune lists of 1 000 values (10^9 configurations: 3.4 GB and no diagnostics
#     before E0601);
#   - one line of 8 MB of emoji (over the 4 MiB file limit: E0602) and one of 1 MB (under it:
#     one E0001, hover fast);
#   - 300 unknown names (200 diagnostics and one W0601);
#   - a document whose URI is file:///dev/zero (its text is what the editor sent; nothing read);
#   - wrong-typed command arguments and `position.line: -1` (InvalidParams, not InternalError);
#   - then, while a 20,000-line document is being analysed and a request on it is running,
#     `shutdown` + `exit`: the process ends within a second (issue 20: a worker ran on for
#     minutes after `exit`).
# Exit 0 = pass; prints each figure measured.
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Client  # noqa: E402

argv = sys.argv[1:]
cap_mb = int(os.environ.get("PH_HOSTILE_DATA_MB", "512"))
# An ASan build maps terabytes of shadow memory (writable, so data too), so no cap can hold
# it; the release build's run checks the cap, this one everything else, with time limits
# scaled for a sanitized build on a loaded machine.
sanitized = os.environ.get("PH_HOSTILE_SANITIZED") == "1"
slow = 10 if sanitized else 1
if sanitized:
    cap_mb = 0
    print("note: sanitized build: no data cap (ASan's shadow memory needs terabytes)")
elif shutil.which("prlimit"):
    # The cap must bite: a process under a 64 MB data cap cannot allocate 256 MB (a kernel
    # booted with ignore_rlimit_data would let it; then only the peak-RSS check below holds).
    probe = subprocess.run(["prlimit", "--data=%d" % (64 << 20), "--", sys.executable, "-c",
                            "b = bytearray(256 << 20)"], capture_output=True, text=True)
    if probe.returncode == 0:
        print("note: RLIMIT_DATA is not enforced here; only peak RSS is checked")
    argv = ["prlimit", "--data=%d" % (cap_mb << 20), "--"] + argv
else:
    print("note: no prlimit; running without a data cap (peak RSS still checked)")
rss_cap_mb = 0 if sanitized else int(os.environ.get("PH_HOSTILE_DATA_MB", "512"))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


values = ", ".join(str(i) for i in range(1, 1001))
AUTOTUNE = ("@autotune(A in [%s], B in [%s], C in [%s])\n"
            "kernel k(X: tensor<f32>[N, 8]) {\n"
            "  for i in range(0, B, C) {\n"
            "    X[ctx.block.x * A :+ A, :] = X[ctx.block.x * A :+ A, :]\n"
            "  }\n"
            "}\n") % (values, values, values)
EMOJI_BIG = "kernel k(X: tensor<f32>[N, 8]) {\n  let a = " + "\U0001F600" * (2 << 20) + "\n}\n"  # 8 MB
EMOJI = "kernel k(X: tensor<f32>[N, 8]) {\n  let a = 1 " + "\U0001F600" * (256 << 10) + " 2\n}\n"  # 1 MB
MANY = "kernel k(X: tensor<f32>[N, 8]) {\n" + "".join("  b%d = 1\n" % i for i in range(300)) + "}\n"
GOOD = "kernel k(X: tensor<f32>[N, 8]) {\n  X[ctx.block.x * 4 :+ 4, :] = X[ctx.block.x * 4 :+ 4, :] * 2.0\n}\n"
DOCS = {
    "file:///tmp/ph-hostile/autotune.ph": (AUTOTUNE, lambda ds: any(d.get("code") == "E0601" for d in ds)),
    "file:///tmp/ph-hostile/emoji-8mb.ph": (EMOJI_BIG, lambda ds: [d.get("code") for d in ds] == ["E0602"]),
    "file:///tmp/ph-hostile/emoji-1mb.ph": (EMOJI, lambda ds: [d.get("code") for d in ds].count("E0001") == 1),
    "file:///tmp/ph-hostile/many.ph": (MANY, lambda ds: len(ds) == 201 and ds[-1].get("code") == "W0601"),
    "file:///dev/zero": (GOOD, lambda ds: ds == []),
}

c = Client(argv)
start = time.time()
c.initialize()
for uri, (text, _) in DOCS.items():
    c.open(uri, text)
for uri, (text, ok) in DOCS.items():
    t0 = time.time()
    ds = c.wait_diagnostics(uri, 1, timeout=60)
    codes = sorted(set(d.get("code") for d in ds))
    check(ok(ds), "%s: unexpected diagnostics %s (%d)" % (uri, codes, len(ds)))
    print("ok: %s: %d diagnostics %s, %.2f s after the last open" % (uri.rsplit("/", 1)[-1], len(ds), codes, time.time() - t0))
for uri in DOCS:
    t0 = time.time()
    r = c.hover(uri, 1, 12, timeout=30)
    check("result" in r or r.get("error", {}).get("code") == -32602, "hover on %s: %r" % (uri, r))
    dt = time.time() - t0
    check(dt < 5 * slow, "hover on %s took %.1f s" % (uri, dt))
    print("ok: hover on %s answered in %.3f s" % (uri.rsplit("/", 1)[-1], dt))

# Wrong-typed arguments and negative positions: InvalidParams (-32602), never InternalError.
# (True: it must be InvalidParams; False: any answer but InternalError, e.g. the driver's
# own refusal of a size past its limits.)
bad_args = [
    ({"uri": 5}, True),
    ({"uri": "file:///tmp/ph-hostile/many.ph", "kernel": 7}, True),
    ({"uri": "file:///tmp/ph-hostile/many.ph", "position": {"line": -1, "character": 0}}, True),
    ({"uri": "file:///tmp/ph-hostile/many.ph", "position": {"line": "x", "character": 0}}, True),
    ({"uri": "file:///tmp/ph-hostile/many.ph", "kernel": "k", "target": 3}, True),
    ({"uri": "file:///tmp/ph-hostile/many.ph", "kernel": "k", "sizes": {"N": 2147483647}}, False),
    ({"uri": "file:///tmp/ph-hostile/many.ph", "kernel": "k", "sizes": {"N": 9223372036854775807}}, False),
]
for cmd in ("ph.run", "ph.showIR", "ph.compile"):
    for a, invalid in bad_args:
        t0 = time.time()
        r = c.request("workspace/executeCommand", {"command": cmd, "arguments": [a]}, timeout=60)
        err = r.get("error")
        code = err and err.get("code")
        check(code != -32603, "%s %r: InternalError: %s" % (cmd, a, err))
        check(not invalid or code == -32602, "%s %r: expected InvalidParams, got %r" % (cmd, a, r))
        print("ok: %s %s -> %s in %.2f s" % (cmd, a, code if err else "a result", time.time() - t0))
for params in ({"command": 5}, {"arguments": []}):
    r = c.request("workspace/executeCommand", params)
    check(r.get("error", {}).get("code") == -32602, "executeCommand %r: %r" % (params, r))
for params in ({"textDocument": {"uri": "file:///tmp/ph-hostile/many.ph"}, "position": {"line": -1, "character": 0}},
               {"textDocument": {"uri": "file:///tmp/ph-hostile/many.ph"}, "position": {"line": 0, "character": -1}}):
    r = c.request("textDocument/hover", params)
    check(r.get("error") is None or r["error"]["code"] == -32602, "hover %r: %r" % (params, r))

rss = c.rss_kb()
peak = c.rss_kb("VmHWM")
print("ok: every request answered; RSS %.1f MB, peak %.1f MB %s; %.1f s in all" %
      (rss / 1024.0, peak / 1024.0, "under a %d MB data cap" % cap_mb if cap_mb else "(no cap)", time.time() - start))
check(not rss_cap_mb or peak < rss_cap_mb * 1024, "peak RSS %.1f MB, over %d MB" % (peak / 1024.0, rss_cap_mb))
check(c.alive(), "the server died")
# `exit` while busy: a 20,000-line document (250 copies of a 4-kernel file) is being
# analysed and a request on it waits for that analysis, so workers are running when it comes.
mha = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "mha.ph")).read()
BIG = "".join(mha.replace("kernel mha", "kernel mha%d_" % n) for n in range(250))
c.open("file:///tmp/ph-hostile/big.ph", BIG)
busy = c.start_request("textDocument/semanticTokens/full", {"textDocument": {"uri": "file:///tmp/ph-hostile/big.ph"}})
r = c.request("shutdown", None)
check("error" not in r, "shutdown: %r" % r)
t0 = time.time()
c.notify("exit")
try:
    rc = c.proc.wait(timeout=5 * slow)
except Exception:
    c.kill()
    fail("the server was still running %d s after `exit`" % (5 * slow))
dt = time.time() - t0
check(rc == 0, "exit status %s" % rc)
check(dt < 1.5 * slow, "the server took %.2f s to end after `exit`" % dt)
print("ok: exit status 0, %.2f s after `exit`" % dt)
