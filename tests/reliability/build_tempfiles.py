#!/usr/bin/python3
# build_tempfiles.py PH EXAMPLE: `ph build` keeps ptxas's files in one private folder of its
# temporary directory and removes it on every exit path (issue 20: a build stopped by SIGTERM
# left ph-*.ptx, .cubin and .log in /tmp). With TMPDIR pointing at an empty folder:
#   - a build that finishes leaves the folder empty;
#   - a build stopped by SIGTERM, SIGINT, SIGHUP, SIGQUIT or SIGABRT (an abort: a failed
#     check) while ptxas's files exist, too (SIGHUP, SIGQUIT and SIGABRT were not handled);
#   - while it runs, the files are in one `ph-XXXXXX` folder of mode 0700.
# Skips (exit 0, says so) when ptxas is not installed. Exit 0 = pass.
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ph, example = sys.argv[1], sys.argv[2]
if not (shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas") or os.environ.get("PH_PTXAS")):
    print("skip: no ptxas")
    sys.exit(0)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def leftovers(tmp):
    out = []
    for root, dirs, files in os.walk(tmp):
        out += [os.path.join(root, d) for d in dirs] + [os.path.join(root, f) for f in files]
    return out


work = tempfile.mkdtemp(prefix="ph-build-tmp-test-")
try:
    tmp = os.path.join(work, "tmp")
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    r = subprocess.run([ph, "build", example, "--target", "sm_90", "--no-cache", "-o", os.path.join(work, "out")],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        fail("ph build failed: " + r.stderr[-2000:])
    if leftovers(tmp):
        fail("a finished build left %s" % leftovers(tmp))
    print("ok: a finished build leaves %s empty" % tmp)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGABRT):
        # No core file for the signals that dump one.
        p = subprocess.Popen([ph, "build", example, "--target", "sm_90", "--no-cache", "-o", os.path.join(work, "out2")],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
        seen, deadline = [], time.time() + 120
        # Wait until ptxas's files exist, then stop the build.
        while time.time() < deadline and p.poll() is None:
            seen = [f for f in leftovers(tmp) if f.endswith(".ptx")]
            if seen:
                break
            time.sleep(0.005)
        if not seen:
            p.wait()
            print("note: the build finished before a .ptx was seen; %s not sent mid-compile" % sig.name)
        else:
            d = os.path.dirname(seen[0])
            mode = os.stat(d).st_mode & 0o777 if os.path.exists(d) else 0o700
            if os.path.dirname(d) != tmp or not os.path.basename(d).startswith("ph-") or mode != 0o700:
                fail("ptxas's files are in %s (mode %o), not in one private ph-XXXXXX folder" % (d, mode))
            p.send_signal(sig)
            rc = p.wait(timeout=60)
            if rc != -sig:
                fail("after %s the build's status is %s, not death by the signal" % (sig.name, rc))
        # A ptxas child may outlive the driver by a moment: wait for the folder to go (the
        # event), failing only if it stays for a minute.
        gone_by = time.time() + 60
        while leftovers(tmp) and time.time() < gone_by:
            time.sleep(0.05)
        if leftovers(tmp):
            fail("a build stopped by %s left %s" % (sig.name, leftovers(tmp)))
        print("ok: a build stopped by %s mid-compile leaves nothing (%s)" % (sig.name, seen[:1]))
finally:
    shutil.rmtree(work, ignore_errors=True)
