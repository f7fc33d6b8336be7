# lspclient.py - a small LSP client over ph-lsp's real transport (the binary on a pipe), for
# the reliability and stress tests. A reader thread drains the server's output all the time, so
# a test can flood the server without either side blocking on a full pipe. Standard library only.
import json
import os
import subprocess
import threading
import time

# How long a wait may take before the server is declared hung: 20x what an idle machine
# needs at most, because CI runs these under ASan (about 10x slower) on 2 loaded cores.
DEFAULT_TIMEOUT = 120


def utf16_len(s):
    return len(s.encode("utf-16-le")) // 2


def position_of(text, index):
    """The LSP position (UTF-16 columns) of a Python string index."""
    before = text[:index]
    line = before.count("\n")
    return {"line": line, "character": utf16_len(before[before.rfind("\n") + 1:])}


class Client:
    def __init__(self, argv, env=None, stderr=None):
        e = dict(os.environ)
        e.setdefault("PH_LSP_NO_GPU", "1")
        if env:
            e.update(env)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr if stderr is not None else subprocess.DEVNULL, env=e)
        self.lock = threading.Condition()
        self.responses = {}       # id (as JSON text) -> message
        self.notifications = []   # every notification, in order
        self.diagnostics = {}     # uri -> latest publishDiagnostics params
        self.closed = False
        self.next_id = 1000
        self.write_lock = threading.Lock()
        threading.Thread(target=self._reader, daemon=True).start()

    # --- reading -------------------------------------------------------------------------------
    def _reader(self):
        out = self.proc.stdout
        buf = b""
        while True:
            data = os.read(out.fileno(), 1 << 16)
            if not data:
                break
            buf += data
            while True:
                end = buf.find(b"\r\n\r\n")
                if end < 0:
                    break
                length = None
                for h in buf[:end].decode("ascii", "replace").split("\r\n"):
                    if h.lower().startswith("content-length:"):
                        length = int(h.split(":", 1)[1])
                if length is None:
                    raise RuntimeError("server sent a frame without Content-Length")
                if len(buf) < end + 4 + length:
                    break
                msg = json.loads(buf[end + 4:end + 4 + length].decode("utf-8"))
                buf = buf[end + 4 + length:]
                self._dispatch(msg)
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    def _dispatch(self, msg):
        if "method" in msg and "id" in msg:  # a server -> client request: answer null
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            return
        with self.lock:
            if "method" in msg:
                # Only the latest diagnostics per document are kept: a long stress run
                # receives hundreds of thousands of them.
                if msg["method"] == "textDocument/publishDiagnostics":
                    self.diagnostics[msg["params"]["uri"]] = msg["params"]
                else:
                    self.notifications.append(msg)
            else:
                self.responses[json.dumps(msg.get("id"))] = msg
            self.lock.notify_all()

    # --- writing -------------------------------------------------------------------------------
    def send_raw(self, data):
        with self.write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, msg):
        body = json.dumps(msg).encode("utf-8")
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method, params=None):
        m = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)

    def start_request(self, method, params=None):
        with self.lock:
            self.next_id += 1
            rid = self.next_id
        m = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)
        return rid

    def wait_response(self, rid, timeout=DEFAULT_TIMEOUT):
        key = json.dumps(rid)
        deadline = time.time() + timeout
        with self.lock:
            while key not in self.responses:
                left = deadline - time.time()
                if self.closed:
                    raise AssertionError("server closed its output (exit %s) while waiting for %s" % (self.proc.poll(), key))
                if left <= 0:
                    raise AssertionError("no response %s within %ss (server hung?)" % (key, timeout))
                self.lock.wait(left)
            return self.responses.pop(key)

    def request(self, method, params=None, timeout=DEFAULT_TIMEOUT):
        return self.wait_response(self.start_request(method, params), timeout)

    def wait_notification(self, pred, timeout=DEFAULT_TIMEOUT, start=0):
        """The first notification at index >= start satisfying pred."""
        deadline = time.time() + timeout
        with self.lock:
            i = start
            while True:
                while i < len(self.notifications):
                    if pred(self.notifications[i]):
                        return self.notifications[i]
                    i += 1
                left = deadline - time.time()
                if self.closed or left <= 0:
                    raise AssertionError("notification not received (closed=%s)" % self.closed)
                self.lock.wait(left)

    def wait_diagnostics(self, uri, version, timeout=DEFAULT_TIMEOUT):
        deadline = time.time() + timeout
        with self.lock:
            while True:
                d = self.diagnostics.get(uri)
                if d is not None and d.get("version") == version:
                    return d["diagnostics"]
                left = deadline - time.time()
                if self.closed or left <= 0:
                    raise AssertionError("no diagnostics for %s version %s (last: %s)" %
                                         (uri, version, d and d.get("version")))
                self.lock.wait(left)

    # --- lifecycle -----------------------------------------------------------------------------
    def initialize(self, options=None, root=None):
        params = {"capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": True}}}}
        if options is not None:
            params["initializationOptions"] = options
        if root is not None:
            params["rootUri"] = "file://" + root
        r = self.request("initialize", params)
        self.notify("initialized", {})
        return r

    def open(self, uri, text, version=1):
        self.notify("textDocument/didOpen",
                    {"textDocument": {"uri": uri, "languageId": "ph", "version": version, "text": text}})

    def hover(self, uri, line, character, timeout=DEFAULT_TIMEOUT):
        return self.request("textDocument/hover",
                            {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}, timeout)

    def shutdown(self, timeout=DEFAULT_TIMEOUT):
        self.request("shutdown", None, timeout)
        self.notify("exit")
        return self.proc.wait(timeout=timeout)

    def alive(self):
        return self.proc.poll() is None

    def rss_kb(self, field="VmRSS"):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def expected_diagnostics(ph, path):
    """`ph check --json PATH` as the LSP diagnostics the server must publish for PATH: its own,
    and those of std functions at the call in PATH that reached them (their first note in PATH);
    (code, severity, message, range in 0-based lines and UTF-16 columns)."""
    out = subprocess.run([ph, "check", "--json", path], capture_output=True, text=True).stdout
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")

    def col(line1, col1):
        raw = lines[line1 - 1].encode("utf-8")[:col1 - 1]
        return utf16_len(raw.decode("utf-8", errors="replace"))

    def rng(r):
        return ((r["start"]["line"] - 1, col(r["start"]["line"], r["start"]["col"])),
                (r["end"]["line"] - 1, col(r["end"]["line"], r["end"]["col"])))

    result = []
    here = os.path.abspath(path)
    for d in json.loads(out)[0]["diagnostics"]:
        r = d["range"]
        if os.path.abspath(r["file"]) != here:
            # An error inside a std function reached through a call in PATH: the server shows it
            # at the first note in PATH (the call), as lsp/features/Diagnostics.cpp does.
            r = next((n["range"] for n in d.get("notes", []) if os.path.abspath(n["range"]["file"]) == here), None)
            if r is None:
                continue
        result.append((d["code"], {"error": 1, "warning": 2, "note": 3}[d["severity"]], d["message"], rng(r)))
    return result


def published(diags):
    """The server's diagnostics in the form expected_diagnostics returns."""
    return [(d.get("code"), d.get("severity"), d["message"],
             ((d["range"]["start"]["line"], d["range"]["start"]["character"]),
              (d["range"]["end"]["line"], d["range"]["end"]["character"])))
            for d in diags if d.get("source", "ph") == "ph"]
