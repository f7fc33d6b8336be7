#!/usr/bin/env python3
# deep_transcript.py: an lsp_driver.py transcript that opens the deepest program the
# parser's nesting limits accept (198 nested parentheses, 198 unary minuses, 99 nested
# `for`s: tests/lit/check/nesting.test), waits for its diagnostics, hovers, and exits.
import json

n, d = 198, 99
text = ("kernel k(X: tensor<f32>[N, 8]) {\n  let a = " + "(" * n + "1.0" + ")" * n + "\n  let b = " + "-" * n + "1.0\n" +
        "".join("  " * i + "  for i%d in range(0, 2, 1) {\n" % i for i in range(d)) +
        "  X[0 :+ 1, :] = X[0 :+ 1, :] * a * b\n" + "".join("  }\n" for _ in range(d)) + "}\n")
uri = "file:///tmp/ph-lsp-deep/deep.ph"
msgs = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"processId": None, "rootUri": None, "capabilities": {},
                "initializationOptions": {"ph": {"compileOnSave": False}}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen",
     "params": {"textDocument": {"uri": uri, "languageId": "ph", "version": 1, "text": text}}},
    "#wait textDocument/publishDiagnostics",
    {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
     "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 6}}},
    {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
    "#expect-exit",
]
print("\n---\n".join(m if isinstance(m, str) else json.dumps(m) for m in msgs))
