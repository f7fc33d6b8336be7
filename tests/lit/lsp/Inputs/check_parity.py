#!/usr/bin/env python3
# check_parity.py FILE PH LSP [ARGS...]: the diagnostics ph-lsp publishes for FILE must
# be exactly those `ph check --json FILE` prints: same codes, severities, messages,
# ranges (converted from 1-based byte columns to 0-based UTF-16 columns), notes as
# relatedInformation. Prints one line per diagnostic and `parity: N identical`, or
# the first difference and exits 1.
import json
import os
import subprocess
import sys
import time

import pipe_framing  # beside this file

path = os.path.abspath(sys.argv[1])
ph, lsp = sys.argv[2], sys.argv[3:]
text = open(path, encoding="utf-8").read()
texts = {}


def utf16_col(file, line1, col1):
    if file not in texts:
        texts[file] = open(file, encoding="utf-8").read().split("\n")
    raw = texts[file][line1 - 1].encode("utf-8")[:col1 - 1]
    return len(raw.decode("utf-8", errors="replace").encode("utf-16-le")) // 2


def lsp_range(r):
    f = r["file"]
    return {"start": {"line": r["start"]["line"] - 1, "character": utf16_col(f, r["start"]["line"], r["start"]["col"])},
            "end": {"line": r["end"]["line"] - 1, "character": utf16_col(f, r["end"]["line"], r["end"]["col"])}}


def same(f):
    return os.path.abspath(f) == path


check = json.loads(subprocess.run([ph, "check", "--json", path], capture_output=True, text=True).stdout)
expected = []
for d in check[0]["diagnostics"]:
    e = {"code": d["code"], "severity": {"error": 1, "warning": 2, "note": 3}[d["severity"]], "message": d["message"],
         "range": lsp_range(d["range"])}
    related = [{"message": n["message"], "range": lsp_range(n["range"])} for n in d["notes"]]
    if not same(d["range"]["file"]):
        # Inside a std function: shown at the call its note names, leading back to the std line.
        site = [n for n in d["notes"] if same(n["range"]["file"])]
        if not site:
            continue  # published under the std file's URI, not this document's
        e["range"] = lsp_range(site[0]["range"])
        related.insert(0, {"message": "the error is here", "range": lsp_range(d["range"])})
    if related:
        e["relatedInformation"] = related
    expected.append(e)

proc = subprocess.Popen(lsp, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def send(msg):
    pipe_framing.send(proc, msg)


def read():
    return pipe_framing.read(proc)


uri = "file://" + path
send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": True}}}}})
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
      "params": {"textDocument": {"uri": uri, "languageId": "ph", "version": 1, "text": text}}})
got = None
while got is None:
    m = read()
    if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
        got = m["params"]["diagnostics"]
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
send({"jsonrpc": "2.0", "method": "exit"})
proc.wait(timeout=10)

actual = []
for d in got:
    a = {"code": d["code"], "severity": d["severity"], "message": d["message"], "range": d["range"]}
    if "relatedInformation" in d:
        a["relatedInformation"] = [{"message": r["message"], "range": r["location"]["range"]} for r in d["relatedInformation"]]
    actual.append(a)

if len(actual) != len(expected):
    print("count differs: ph check %d, ph-lsp %d" % (len(expected), len(actual)))
    sys.exit(1)
for e, a in zip(expected, actual):
    if e != a:
        print("differs:\n  ph check: %s\n  ph-lsp:   %s" % (json.dumps(e, ensure_ascii=False), json.dumps(a, ensure_ascii=False)))
        sys.exit(1)
    r = a["range"]["start"]
    print("%d:%d %s %s" % (r["line"], r["character"], a["code"], a["message"]))
print("parity: %d identical" % len(actual))
