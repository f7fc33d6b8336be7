"""LSP base-protocol framing over a server's pipes, blocking, for the lit clients that talk
to ph-lsp one message at a time (check_parity.py, robustness.py)."""
import json
import sys


def send(proc, msg):
    """Writes `msg` as one Content-Length frame to the server's stdin."""
    body = json.dumps(msg).encode("utf-8")
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def read(proc):
    """The next message from the server's stdout; exits the test if the server closed it."""
    headers = b""
    while not headers.endswith(b"\r\n\r\n"):
        c = proc.stdout.read(1)
        if not c:
            sys.exit("FAIL: the server closed its output (exit %s)" % proc.poll())
        headers += c
    n = int([h for h in headers.decode().split("\r\n") if h.lower().startswith("content-length")][0].split(":")[1])
    return json.loads(proc.stdout.read(n).decode("utf-8"))
