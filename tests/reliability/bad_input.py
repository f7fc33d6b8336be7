#!/usr/bin/python3
# bad_input.py CASE PH-LSP [ARGS...]: one kind of bad input to ph-lsp over its real transport
# (the binary on a pipe). Each case checks the server's answer (a JSON-RPC error or a
# diagnostic), then that it still answers a hover with the right text, and that it never dies.
# Run with CASE=all for every case in one server. Exit 0 = pass; prints what it checked.
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Client  # noqa: E402

case, argv = sys.argv[1], sys.argv[2:]
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(SRC, "examples", "flash_attention.ph")
if not os.path.exists(EXAMPLE):
    EXAMPLE = sorted(p for p in (os.path.join(SRC, "examples", f) for f in os.listdir(os.path.join(SRC, "examples")))
                     if p.endswith(".ph"))[0]
URI = "file:///tmp/ph-reliability/good.ph"
GOOD = open(EXAMPLE, encoding="utf-8").read()


def fail(msg):
    print("FAIL [%s]: %s" % (case, msg))
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


c = Client(argv)
c.initialize()
c.open(URI, GOOD)
# Where to hover: the first `online_softmax`, else the first kernel's name.
idx = GOOD.find("online_softmax(")
if idx < 0:
    idx = GOOD.find("kernel ") + len("kernel ")
line = GOOD[:idx].count("\n")
char = idx - (GOOD[:idx].rfind("\n") + 1)
baseline = c.hover(URI, line, char)
check("result" in baseline and baseline["result"], "the first hover has no result: %r" % baseline)
HOVER_TEXT = json.dumps(baseline["result"])


def still_answers(what):
    check(c.alive(), "the server died after %s (exit %s)" % (what, c.proc.poll()))
    r = c.hover(URI, line, char, timeout=30)
    check(json.dumps(r.get("result")) == HOVER_TEXT, "hover after %s differs: %r" % (what, r))
    print("ok: %s; the server still answers a hover" % what)


def error_reply(rid, timeout=120):
    return c.wait_response(rid, timeout).get("error")


def null_id_error(before, timeout=120):
    """Waits for the next error reply with id null (ParseError / InvalidRequest) after `before`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        with c.lock:
            r = c.responses.pop("null", None)
        if r is not None:
            return r["error"]
        time.sleep(0.01)
    fail("no error reply with id null after " + before)


def frame(body):
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def missing_length():
    c.send_raw(b"Content-Type: application/vscode-jsonrpc\r\n\r\n")
    e = null_id_error("a header without Content-Length")
    check(e["code"] == -32700 and "Content-Length" in e["message"], "unexpected error %r" % e)
    still_answers("a header block without Content-Length")


def huge_length():
    c.send_raw(b"Content-Length: 99999999999999999999999999\r\n\r\n")
    e = null_id_error("an absurd Content-Length")
    check(e["code"] == -32700, "unexpected error %r" % e)
    c.send_raw(b"Content-Length: -5\r\n\r\n")
    e = null_id_error("a negative Content-Length")
    check(e["code"] == -32700, "unexpected error %r" % e)
    still_answers("Content-Length 10^26 and -5")


def truncated():
    # A body shorter than its Content-Length, completed with blanks: one ParseError, then
    # the next frame is read normally.
    body = b'{"jsonrpc":"2.0","id":77,"method":"textDocument/hov'
    c.send_raw(b"Content-Length: %d\r\n\r\n" % (len(body) + 40) + body)
    time.sleep(0.2)
    c.send_raw(b" " * 40)
    e = null_id_error("a truncated body")
    check(e["code"] == -32700, "unexpected error %r" % e)
    still_answers("a truncated frame")
    # A frame cut off by the end of input: a separate server must exit cleanly, not crash.
    d = Client(argv)
    d.initialize()
    d.send_raw(b"Content-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":5,")
    d.proc.stdin.close()
    try:
        code = d.proc.wait(timeout=120)
    except Exception:
        d.kill()
        fail("the server did not exit when input ended inside a frame")
    check(code == 1, "exit code %s when input ended inside a frame (want 1: no shutdown)" % code)
    print("ok: input ending inside a frame: the server exits with 1")


def invalid_utf8():
    # Raw invalid bytes inside a JSON string (a document's text): ParseError, carry on.
    body = (b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/x.ph",'
            b'"languageId":"ph","version":1,"text":"kernel k\xff\xfe\xc3("}}}')
    c.send_raw(frame(body))
    e = null_id_error("invalid UTF-8 in a document")
    check(e["code"] == -32700, "unexpected error %r" % e)
    # Invalid UTF-8 in the JSON itself, outside strings, in a request.
    c.send_raw(frame(b'{"jsonrpc":"2.0","id":31,\xc0\xaf"method":"shutdown"}'))
    e = null_id_error("invalid UTF-8 in JSON")
    check(e["code"] == -32700, "unexpected error %r" % e)
    # A lone surrogate escape in a document's text.
    c.send_raw(frame(b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/y.ph",'
                     b'"languageId":"ph","version":1,"text":"let \\ud800 = 1"}}}'))
    e = null_id_error("a lone surrogate")
    check(e["code"] == -32700, "unexpected error %r" % e)
    # An edit whose position falls inside a UTF-16 surrogate pair (between the halves of an
    # emoji): the server must not cut a UTF-8 sequence in two, and must keep answering.
    uri = "file:///tmp/ph-reliability/emoji.ph"
    text = "// \U0001F600\U0001F600\nkernel k(x: tensor<f32>[N]) {\n}\n"
    c.open(uri, text)
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
        {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 4}}, "text": "\u00e9"}]})
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
        {"range": {"start": {"line": 0, "character": 5}, "end": {"line": 0, "character": 8}}, "text": "x"}]})
    diags = c.wait_diagnostics(uri, 3)
    r = c.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    check("result" in r, "documentSymbol after a split surrogate: %r" % r)
    r = c.hover(uri, 0, 4)
    check("result" in r or "error" in r, "hover inside an emoji: %r" % r)
    print("ok: edits inside a surrogate pair: %d diagnostics, symbols answered" % len(diags))
    still_answers("invalid UTF-8 (document, JSON), a lone surrogate, edits inside a surrogate pair")


def deep_json():
    n = 100000
    # A whole message that is an array nested 100000 deep.
    c.send_raw(frame(b"[" * n + b"]" * n))
    e = null_id_error("JSON nested %d deep" % n)
    check(e["code"] in (-32700, -32600), "unexpected error %r" % e)
    # A request whose params are nested 100000 deep.
    body = b'{"jsonrpc":"2.0","id":41,"method":"textDocument/hover","params":' + b'{"a":' * n + b"1" + b"}" * n + b"}"
    c.send_raw(frame(body))
    e = null_id_error("params nested %d deep" % n)  # refused before parsing, so no id
    check(e["code"] == -32700 and "deep" in e["message"], "deep params: %r" % e)
    # Just under the limit is a normal request (InvalidParams: no textDocument).
    body = b'{"jsonrpc":"2.0","id":42,"method":"textDocument/hover","params":' + b'{"a":' * 500 + b"1" + b"}" * 500 + b"}"
    c.send_raw(frame(body))
    e = error_reply(42)
    check(e is not None and e["code"] == -32602, "params nested 500 deep: %r" % e)
    # Unclosed nesting.
    c.send_raw(frame(b"[" * n))
    e = null_id_error("unclosed nesting")
    check(e["code"] == -32700, "unexpected error %r" % e)
    still_answers("JSON nested %d deep (closed, as params, unclosed)" % n)


def big_message():
    # 100 MB body: refused by its header and skipped as it arrives. RSS must stay low.
    n = 100 * 1000 * 1000
    before = c.rss_kb()
    c.send_raw(b"Content-Length: %d\r\n\r\n" % n + b'{"jsonrpc":"2.0","method":"x","params":"')
    chunk = b"A" * (1 << 20)
    sent, peak = 40, before
    while sent < n:
        k = min(len(chunk), n - sent)
        c.send_raw(chunk[:k])
        sent += k
        peak = max(peak, c.rss_kb())
    e = null_id_error("a 100 MB message")
    check(e["code"] == -32700 and "exceeds" in e["message"], "unexpected error %r" % e)
    after = c.rss_kb()
    print("ok: 100 MB message refused (%s); RSS %d kB before, peak %d kB, %d kB after" %
          (e["message"], before, peak, after))
    check(peak - before < 40 * 1024, "RSS grew by %d kB while a refused 100 MB body streamed in" % (peak - before))
    still_answers("a 100 MB message")


def deep_ph():
    n = 5000
    uri = "file:///tmp/ph-reliability/deep.ph"
    cases = {
        "parens": "(" * n + "1.0" + ")" * n,
        "unary": "-" * n + "1.0",
        "binary": "1.0" + " + (1.0" * n + ")" * n,
        "calls": "exp(" * n + "1.0" + ")" * n,
        "index": "x" + "[0" * n + "]" * n,
    }
    for v, (name, expr) in enumerate(sorted(cases.items()), start=1):
        text = "kernel k(x: tensor<f32>[N], y: tensor<f32>[N]) {\n  let a = %s;\n}\n" % expr
        if v == 1:
            c.open(uri, text, version=v)
        else:
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                "contentChanges": [{"text": text}]})
        diags = c.wait_diagnostics(uri, v, timeout=120)
        codes = sorted({d.get("code") for d in diags})
        check("E0106" in codes, "%s nested %d deep: no E0106 (got %r)" % (name, n, codes))
        r = c.hover(uri, 1, 10)
        check("result" in r or "error" in r, "hover on a deep expression: %r" % r)
        print("ok: %s nested %d deep: E0106" % (name, n))
    still_answers("Ph expressions nested %d deep" % n)


def unknown_document():
    uri = "file:///nowhere/not-open.ph"
    for m, extra in [("textDocument/hover", {"position": {"line": 0, "character": 0}}),
                     ("textDocument/completion", {"position": {"line": 0, "character": 0}}),
                     ("textDocument/definition", {"position": {"line": 3, "character": 2}}),
                     ("textDocument/documentSymbol", {}), ("textDocument/semanticTokens/full", {}),
                     ("textDocument/codeLens", {}), ("textDocument/foldingRange", {})]:
        p = {"textDocument": {"uri": uri}}
        p.update(extra)
        r = c.request(m, p)
        check("error" in r and r["error"]["code"] == -32602 and "not open" in r["error"]["message"],
              "%s on an unknown document: %r" % (m, r))
    # Notifications about unknown documents are ignored.
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                        "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                                                      "end": {"line": 0, "character": 0}}, "text": "x"}]})
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    # Not even a URI.
    r = c.request("textDocument/hover", {"textDocument": {"uri": 42}, "position": {"line": 0, "character": 0}})
    check("error" in r, "hover with a numeric URI: %r" % r)
    r = c.request("textDocument/hover", {"position": {"line": 0, "character": 0}})
    check("error" in r and r["error"]["code"] == -32602, "hover without textDocument: %r" % r)
    still_answers("requests and notifications for documents that are not open")


def past_end():
    nlines = GOOD.count("\n")
    for pos in [{"line": 0, "character": 100000}, {"line": nlines + 5, "character": 0},
                {"line": 10 ** 9, "character": 10 ** 9}, {"line": 2 ** 31 - 1, "character": 2 ** 31 - 1},
                {"line": -1, "character": -1}, {"line": 0, "character": 2 ** 40}, {"line": "x", "character": None}]:
        for m in ["textDocument/hover", "textDocument/completion", "textDocument/definition",
                  "textDocument/signatureHelp", "textDocument/references", "textDocument/prepareRename",
                  "textDocument/documentHighlight"]:
            p = {"textDocument": {"uri": URI}, "position": pos}
            if m == "textDocument/references":
                p["context"] = {"includeDeclaration": True}
            r = c.request(m, p)
            check("result" in r or ("error" in r and r["error"]["code"] in (-32602, -32603)), "%s at %r: %r" % (m, pos, r))
            check(not ("error" in r and r["error"]["code"] == -32603), "%s at %r: internal error %r" % (m, pos, r))
    for rng in [{"start": {"line": 0, "character": 0}, "end": {"line": 10 ** 6, "character": 0}},
                {"start": {"line": 5, "character": 0}, "end": {"line": 1, "character": 0}}]:
        r = c.request("textDocument/inlayHint", {"textDocument": {"uri": URI}, "range": rng})
        check("result" in r or "error" in r, "inlayHint over %r: %r" % (rng, r))
    # Edits past the end of a line and of the file, and reversed, on a scratch document.
    uri = "file:///tmp/ph-reliability/edit.ph"
    c.open(uri, "kernel k(x: tensor<f32>[N]) {\n}\n")
    edits = [({"line": 0, "character": 500}, {"line": 0, "character": 600}, "// a"),
             ({"line": 50, "character": 0}, {"line": 60, "character": 3}, "\n// b"),
             ({"line": 1, "character": 0}, {"line": 0, "character": 3}, "x"),
             ({"line": -4, "character": 0}, {"line": 0, "character": 0}, "y")]
    for v, (s, e, t) in enumerate(edits, start=2):
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                            "contentChanges": [{"range": {"start": s, "end": e}, "text": t}]})
    r = c.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    check("result" in r, "documentSymbol after edits past the end: %r" % r)
    still_answers("positions past the end of a line and of the file (requests and edits)")


CASES = {"missing-length": missing_length, "huge-length": huge_length, "truncated": truncated,
         "invalid-utf8": invalid_utf8, "deep-json": deep_json, "big-message": big_message,
         "deep-ph": deep_ph, "unknown-document": unknown_document, "past-end": past_end}
try:
    for name in (sorted(CASES) if case == "all" else [case]):
        CASES[name]()
    code = c.shutdown()
    check(code == 0, "exit code %s after shutdown + exit" % code)
    print("PASS: %s; exit code 0" % case)
finally:
    c.kill()
