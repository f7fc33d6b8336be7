#!/usr/bin/env python3
# robustness.py PH LSP [ARGS...]: random edits (deletions, insertions of brackets,
# keywords and non-ASCII text, in UTF-16 positions) to every example, each followed
# by requests at random positions (some past the end). Every request must get a
# result or a JSON-RPC error, the server must stay up, and after the last edit its
# diagnostics must equal `ph check --json` on the same text: proof that the
# server's copy of the document followed every incremental edit.
import glob
import json
import os
import random
import subprocess
import sys
import tempfile

import pipe_framing  # beside this file

ph, lsp = sys.argv[1], sys.argv[2:]
src = os.environ.get("PH_SRC_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
rng = random.Random(1234)
proc = subprocess.Popen(lsp, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
pending = []  # notifications read while waiting for a response


def send(msg):
    pipe_framing.send(proc, msg)


def read():
    return pipe_framing.read(proc)


next_id = [100]


def request(method, params):
    next_id[0] += 1
    send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
    while True:
        m = read()
        if m.get("id") == next_id[0] and "method" not in m:
            if "result" not in m and "error" not in m:
                sys.exit("FAIL: neither result nor error: %r" % m)
            return m
        pending.append(m)


def u16(s):
    return len(s.encode("utf-16-le")) // 2


def position_of(text, index):
    before = text[:index]
    line = before.count("\n")
    col = u16(before[before.rfind("\n") + 1:])
    return {"line": line, "character": col}


SNIPPETS = ["(", ")", "[", "]", "{", "}", ":+", "let ", "var ", "for ", "kernel ", "fn ", "@", "@autotune(",
            "é", "😀", "σ", "\n", "dot_t(", "online_softmax(", ",", "1.0e30", "ctx.block.", "tile<f32>[", "///"]

send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
read()
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
files = sorted(glob.glob(os.path.join(src, "examples", "*.ph"))) + [os.path.join(src, "std", "attention.ph")]
requests = 0
methods = ["textDocument/hover", "textDocument/completion", "textDocument/definition", "textDocument/signatureHelp",
           "textDocument/references", "textDocument/documentHighlight", "textDocument/prepareRename"]
whole = ["textDocument/semanticTokens/full", "textDocument/documentSymbol", "textDocument/foldingRange",
         "textDocument/codeLens"]
for fi, path in enumerate(files):
    text = open(path, encoding="utf-8").read()
    uri = "file:///tmp/ph-lsp-robustness/%d.ph" % fi
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": uri, "languageId": "ph", "version": 1, "text": text}}})
    for v in range(2, 80):
        a = rng.randrange(len(text) + 1)
        b = min(len(text), a + rng.choice([0, 0, 1, 3, 10]))
        new = rng.choice(SNIPPETS) if rng.random() < 0.7 else ""
        change = {"range": {"start": position_of(text, a), "end": position_of(text, b)}, "text": new}
        text = text[:a] + new + text[b:]
        send({"jsonrpc": "2.0", "method": "textDocument/didChange",
              "params": {"textDocument": {"uri": uri, "version": v}, "contentChanges": [change]}})
        pos = position_of(text, rng.randrange(len(text) + 1))
        if rng.random() < 0.1:
            pos = {"line": pos["line"] + 1000, "character": 5}
        for m in rng.sample(methods, 3):
            params = {"textDocument": {"uri": uri}, "position": pos}
            if m == "textDocument/references":
                params["context"] = {"includeDeclaration": True}
            request(m, params)
            requests += 1
        request(rng.choice(whole), {"textDocument": {"uri": uri}})
        request("textDocument/inlayHint", {"textDocument": {"uri": uri},
                                           "range": {"start": {"line": 0, "character": 0}, "end": {"line": 999, "character": 0}}})
        request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                            "range": {"start": pos, "end": pos}, "context": {"diagnostics": []}})
        requests += 3
    # The server's text must be ours: compare its diagnostics with `ph check` on our copy.
    final = 79
    got = None
    for m in pending:
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"].get("version") == final:
            got = m["params"]["diagnostics"]
    while got is None:
        m = read()
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"].get("version") == final:
            got = m["params"]["diagnostics"]
    pending.clear()
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, os.path.basename(path))
        open(f, "w", encoding="utf-8").write(text)
        want = json.loads(subprocess.run([ph, "check", "--json", f], capture_output=True, text=True).stdout)[0]["diagnostics"]
    # The document's own diagnostics, and those inside std functions that a note ties to a call in it.
    def here(f):
        return os.path.basename(f) == os.path.basename(path) and not f.startswith(os.path.join(src, "std"))
    main_diags = [(w["code"], w["message"]) for w in want
                  if here(w["range"]["file"]) or any(here(n["range"]["file"]) for n in w["notes"])]
    mine = [(g["code"], g["message"]) for g in got]
    if main_diags != mine:
        sys.exit("FAIL: %s: diagnostics after the edits differ from ph check:\n  ph check: %r\n  ph-lsp:   %r" % (path, main_diags, mine))
    send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
    print("%s: 78 edits, diagnostics match ph check (%d)" % (os.path.basename(path), len(mine)))

send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
while "result" not in read():
    pass
send({"jsonrpc": "2.0", "method": "exit"})
code = proc.wait(timeout=10)
print("requests answered: %d" % requests)
print("exit code: %d" % code)
