#!/usr/bin/python3
# safety.py CASE ARGS...: safety checks.
#   no-shell SRC                   no call that goes through a shell (system, popen, "sh -c", ...) in
#                                  SRC/lsp, SRC/tools, SRC/backend, SRC/frontend: tools are started
#                                  with an argument vector, so no user text reaches a shell
#   output-dir PH PH-LSP [ARGS]    compile on save and ph.compile write only inside the output folder;
#                                  an outputDir that escapes the workspace (.., absolute, symlink) is refused
#   listen PH-LSP [ARGS]           --listen PORT binds loopback; another address gets a warning
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Client  # noqa: E402

case = sys.argv[1]


def fail(msg):
    print("FAIL [%s]: %s" % (case, msg))
    sys.exit(1)


def no_shell(src):
    patterns = [r"\bsystem\s*\(", r"\bpopen\s*\(", r"\bexecl[ep]?\s*\(", r"\bwordexp\s*\(",
                r'"/bin/(ba)?sh"', r'"sh"', r'"bash"', r"\bsh -c\b", r'"-c"']
    found, scanned = [], 0
    for area in ["lsp", "tools", "backend", "frontend"]:
        for dirpath, _, files in os.walk(os.path.join(src, area)):
            for f in files:
                if not f.endswith((".cpp", ".h", ".c", ".hpp", ".inc")):
                    continue
                path = os.path.join(dirpath, f)
                scanned += 1
                for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                    code = line.split("//", 1)[0]
                    for p in patterns:
                        if re.search(p, code):
                            found.append("%s:%d: %s" % (os.path.relpath(path, src), n, line.strip()))
    if found:
        fail("calls that may go through a shell (start tools with an argument vector):\n  " + "\n  ".join(found))
    # The one process launcher of the server must stay posix_spawn with an argument vector.
    sub = open(os.path.join(src, "lsp", "Subprocess.cpp"), encoding="utf-8").read()
    if "posix_spawnp(" not in sub:
        fail("lsp/Subprocess.cpp no longer uses posix_spawnp")
    print("ok: %d files in lsp/ tools/ backend/ frontend/, no shell" % scanned)


def tree(root):
    out = set()
    for dirpath, dirs, files in os.walk(root):
        for f in files + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            out.add(os.path.relpath(os.path.join(dirpath, f), root))
    return out


def output_dir(ph, argv):
    base = tempfile.mkdtemp(prefix="ph-safety-")
    ws = os.path.join(base, "ws")
    outside = os.path.join(base, "outside")
    os.makedirs(os.path.join(ws, "src"))
    os.makedirs(outside)
    os.symlink(outside, os.path.join(ws, "link"))
    src = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    text = open(os.path.join(src, "examples", sorted(f for f in os.listdir(os.path.join(src, "examples"))
                                                     if f.endswith(".ph"))[0]), encoding="utf-8").read()
    path = os.path.join(ws, "src", "k.ph")
    open(path, "w", encoding="utf-8").write(text)
    uri = "file://" + path
    bad = ["../outside", "../../../../../../tmp/ph-safety-escape", outside, "link/out", "src/../../outside", ""]
    c = Client(argv)
    try:
        c.initialize(options={"ph": {"path": ph, "compileOnSave": True, "outputDir": ".ph-build"}}, root=ws)
        c.open(uri, text)
        before_ws, before_out = tree(ws), tree(outside)
        for setting in bad:
            c.notify("workspace/didChangeConfiguration", {"settings": {"ph": {"outputDir": setting}}})
            start = len(c.notifications)
            c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
            m = c.wait_notification(lambda m: m["method"] == "window/showMessage" and "refused" in m["params"]["message"],
                                    timeout=120, start=start)
            if setting and setting not in m["params"]["message"]:
                fail("the refusal does not name the setting: %r" % m)
            r = c.request("workspace/executeCommand", {"command": "ph.compile", "arguments": [{"uri": uri}]}, timeout=120)
            if "error" not in r or "refused" not in r["error"]["message"]:
                fail("ph.compile with outputDir %r was not refused: %r" % (setting, r))
            print("ok: outputDir %r refused on save and by ph.compile" % setting)
        # A folder inside the workspace is accepted: whatever `ph build` writes lands inside it.
        c.notify("workspace/didChangeConfiguration", {"settings": {"ph": {"outputDir": "build/out"}}})
        r = c.request("workspace/executeCommand", {"command": "ph.compile", "arguments": [{"uri": uri}]}, timeout=300)
        if "error" in r and "refused" in r["error"]["message"]:
            fail("outputDir build/out was refused: %r" % r)
        start = len(c.notifications)
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        # The event, not a pause: the build the save started has ended (ph/compiled).
        c.wait_notification(lambda m: m["method"] == "ph/compiled", timeout=300, start=start)
        c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
        if c.shutdown(timeout=120) != 0:
            fail("exit code after shutdown")
    finally:
        c.kill()
    new = sorted(tree(ws) - before_ws)
    stray = [p for p in new if not p.startswith("build/out/")]
    if stray or tree(outside) != before_out or os.path.exists("/tmp/ph-safety-escape"):
        fail("files written outside the output folder: %r, outside: %r" % (stray, sorted(tree(outside) - before_out)))
    print("ok: an accepted outputDir build/out: %d files written, all inside it (%s)" %
          (len(new), "ph ok" if "result" in r else "ph build: " + r["error"]["message"][:60].replace("\n", " ")))


def listen(argv):
    def start(spec):
        p = subprocess.Popen(argv + ["--listen", spec], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=dict(os.environ, PH_LSP_NO_GPU="1"))
        lines = []
        deadline = time.time() + 120
        while time.time() < deadline:
            line = p.stderr.readline().decode()
            if not line:
                break
            lines.append(line)
            if "listening on" in line:
                break
        return p, "".join(lines)

    for spec in ["0", ":0", "127.0.0.1:0"]:
        p, err = start(spec)
        m = re.search(r"listening on (\S+):(\d+)", err)
        try:
            if not m or m.group(1) != "127.0.0.1":
                fail("--listen %s: %r (want loopback)" % (spec, err))
            if "warning" in err:
                fail("--listen %s warns: %r" % (spec, err))
            # It answers on loopback: initialize over TCP.
            s = socket.create_connection(("127.0.0.1", int(m.group(2))), timeout=10)
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}).encode()
            s.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            data = b""
            while b"capabilities" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            if b"capabilities" not in data:
                fail("--listen %s: no initialize answer over TCP" % spec)
            s.close()
            print("ok: --listen %s binds 127.0.0.1 without a warning and answers" % spec)
        finally:
            p.kill()
            p.wait()
    p, err = start("0.0.0.0:0")
    p.kill()
    p.wait()
    if "warning" not in err or "not a loopback address" not in err or "listening on 0.0.0.0" not in err:
        fail("--listen 0.0.0.0:0 did not warn: %r" % err)
    print("ok: --listen 0.0.0.0:0 warns: %s" % err.splitlines()[0])


if case == "no-shell":
    no_shell(sys.argv[2])
elif case == "output-dir":
    output_dir(sys.argv[2], sys.argv[3:])
elif case == "listen":
    listen(sys.argv[2:])
else:
    fail("unknown case")
print("PASS: " + case)
