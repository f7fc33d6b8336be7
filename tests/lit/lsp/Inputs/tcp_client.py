#!/usr/bin/env python3
# tcp_client.py SERVER [ARGS...]: starts `SERVER --listen 127.0.0.1:0 ARGS`, reads the
# port it prints, connects, and runs initialize / a bad message / shutdown / exit
# over the socket. Prints each response's essentials and the server's exit code.
import json
import re
import socket
import subprocess
import sys

proc = subprocess.Popen([sys.argv[1], "--listen", "127.0.0.1:0"] + sys.argv[2:], stderr=subprocess.PIPE)
line = proc.stderr.readline().decode()
m = re.search(r"listening on ([0-9.]+):(\d+)", line)
if not m:
    sys.exit("no `listening on` line: %r" % line)
print("listening on loopback")
sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=10)
buf = b""


def send(obj=None, raw=None):
    body = raw if raw is not None else json.dumps(obj).encode()
    sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def recv():
    global buf
    while b"\r\n\r\n" not in buf:
        buf += sock.recv(65536)
    head, rest = buf.split(b"\r\n\r\n", 1)
    n = int(re.search(rb"Content-Length: (\d+)", head).group(1))
    while len(rest) < n:
        rest += sock.recv(65536)
    buf = rest[n:]
    return json.loads(rest[:n])


send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
print("initialize:", recv()["result"]["serverInfo"]["name"])
send(raw=b"{oops")
print("bad json:", recv()["error"]["code"])
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
print("shutdown:", recv()["result"])
send({"jsonrpc": "2.0", "method": "exit"})
print("exit code:", proc.wait(timeout=10))
