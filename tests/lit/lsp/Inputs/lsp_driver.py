#!/usr/bin/env python3
# lsp_driver.py - plays a JSON-RPC transcript against a language server on a pipe.
#
#   lsp_driver.py TRANSCRIPT -- SERVER [ARGS...]
#
# The transcript is a list of sections separated by lines `---`. Lines starting
# with `//` are comments (lit's RUN and CHECK lines). A section is either one
# JSON message (sent with Content-Length framing) or a directive:
#
#   #wait METHOD [TEXT]  wait for the next notification or server request named
#                        METHOD (whose JSON contains TEXT) and print it
#   #wait-response ID    wait for the response with this JSON id (e.g. null,
#                        for a ParseError) and print it
#   #raw PYTHON-STRING   send these bytes as they are (framing error tests)
#   #sleep MS
#   #expect-exit        close stdin and print the server's exit code
#
# A request (a message with `id` and `method`) waits for its response, which is
# printed. Notifications from the server are queued for #wait, never printed
# otherwise, so the output does not depend on timing. Server-to-client requests
# are answered (null, or the first action of showMessageRequest) automatically.
# In strings, ${SRC} is the source tree and "${FILE:path}" (a whole string) is
# replaced by that file's text (path relative to ${SRC}); ${TMP} is a scratch dir.
#
# Output: `<-- response ID` / `<-- METHOD` followed by the JSON, pretty-printed
# with sorted keys, so FileCheck can match fields line by line.
import json
import os
import select
import subprocess
import sys
import tempfile
import time

SRC = os.environ.get("PH_SRC_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
TMP = tempfile.mkdtemp(prefix="ph-lsp-lit-")
TIMEOUT = float(os.environ.get("LSP_DRIVER_TIMEOUT", "20"))


def substitute(value):
    if isinstance(value, str):
        if value.startswith("${FILE:") and value.endswith("}"):
            with open(os.path.join(SRC, value[7:-1]), encoding="utf-8") as f:
                return f.read()
        return value.replace("${SRC}", SRC).replace("${TMP}", TMP)
    if isinstance(value, list):
        return [substitute(v) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v) for k, v in value.items()}
    return value


def sections(path):
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().splitlines() if not l.lstrip().startswith("//")]
    chunk = []
    for line in lines:
        if line.strip() == "---":
            if "".join(chunk).strip():
                yield "\n".join(chunk)
            chunk = []
        else:
            chunk.append(line)
    if "".join(chunk).strip():
        yield "\n".join(chunk)


class Server:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buf = b""
        self.queue = []  # messages from the server not consumed yet

    def send_bytes(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg):
        body = json.dumps(msg).encode("utf-8")
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _read_one(self, deadline):
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end >= 0:
                headers = self.buf[:end].decode("ascii").split("\r\n")
                length = [int(h.split(":")[1]) for h in headers if h.lower().startswith("content-length")][0]
                if len(self.buf) >= end + 4 + length:
                    body = self.buf[end + 4:end + 4 + length]
                    self.buf = self.buf[end + 4 + length:]
                    return json.loads(body.decode("utf-8"))
            left = deadline - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if not r:
                return None
            data = os.read(self.proc.stdout.fileno(), 65536)
            if not data:
                return None
            self.buf += data

    def pump(self, deadline):
        """Reads one message into the queue, answering server requests."""
        msg = self._read_one(deadline)
        if msg is None:
            return False
        if "method" in msg and "id" in msg:
            result = None
            if msg["method"] == "window/showMessageRequest":
                actions = msg.get("params", {}).get("actions") or []
                result = actions[0] if actions else None
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        self.queue.append(msg)
        return True

    def wait_for(self, pred, what):
        deadline = time.time() + TIMEOUT
        while True:
            for i, m in enumerate(self.queue):
                if pred(m):
                    return self.queue.pop(i)
            if not self.pump(deadline):
                print("TIMEOUT waiting for " + what)
                sys.stdout.flush()
                self.proc.kill()
                sys.exit(1)


def show(header, msg):
    print(header)
    print(json.dumps(msg, indent=2, sort_keys=True, ensure_ascii=False))
    sys.stdout.flush()


def main():
    if "--" not in sys.argv:
        sys.exit("usage: lsp_driver.py TRANSCRIPT -- SERVER [ARGS...]")
    cut = sys.argv.index("--")
    transcript, argv = sys.argv[1], sys.argv[cut + 1:]
    server = Server(argv)
    for section in sections(transcript):
        s = section.strip()
        if s.startswith("#wait "):
            parts = s.split(None, 2)
            method = parts[1]
            text = parts[2] if len(parts) > 2 else None
            msg = server.wait_for(lambda m: m.get("method") == method and (text is None or text in json.dumps(m, ensure_ascii=False)),
                                  method + (" containing " + text if text else ""))
            show("<-- " + method, msg)
        elif s.startswith("#wait-response"):
            want = json.loads(s.split(None, 1)[1])
            msg = server.wait_for(lambda m: "method" not in m and m.get("id") == want, "response %r" % want)
            show("<-- response %s" % json.dumps(want), msg)
        elif s.startswith("#raw"):
            server.send_bytes(eval(s[4:].strip()).encode("utf-8"))
        elif s.startswith("#sleep"):
            time.sleep(float(s.split()[1]) / 1000)
        elif s.startswith("#expect-exit"):
            server.proc.stdin.close()
            try:
                code = server.proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                print("TIMEOUT waiting for the server to exit")
                server.proc.kill()
                sys.exit(1)
            print("exit code: %d" % code)
        else:
            msg = substitute(json.loads(s))
            server.send(msg)
            if "id" in msg and "method" in msg:
                reply = server.wait_for(lambda m: "method" not in m and m.get("id") == msg["id"], "response %r" % msg["id"])
                show("<-- response %s" % json.dumps(msg["id"]), reply)
    if server.proc.poll() is None:
        server.proc.stdin.close()
        try:
            server.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            server.proc.kill()


if __name__ == "__main__":
    main()
