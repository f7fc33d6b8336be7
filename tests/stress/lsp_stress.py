#!/usr/bin/python3
# lsp_stress.py PH PH-LSP [ARGS...]: a stress test of ph-lsp over its real transport.
# Thousands of random incremental edits (several changes per message, UTF-16 positions,
# non-ASCII text, whole-document replacements) to several open documents, interleaved with
# hovers, completions and other requests that are not waited for, $/cancelRequest of some of
# them, saves, and synchronous probes, all as fast as the pipe takes them. At the end:
#   - every request got exactly one answer (a result or an error; RequestCancelled allowed),
#   - the server never died and never took longer than PH_STRESS_HANG_S to answer a probe,
#   - the diagnostics it published for each document's final version equal `ph check --json`
#     on the final text (codes, severities, messages, ranges),
#   - its resident memory stayed flat (start / peak / end printed; end - start < 64 MB).
# One document has many items (kernels, and fns they call): edits there insert and remove
# whole kernels and fns, break and repair calls, so the incremental analysis (an item cache,
# docs/lsp.md) is compared with ph check across items; the server may publish a version
# twice (first autotune configurations, then all), so the comparison waits for it to settle.
# PH_STRESS_EDITS (default 20000) sets the number of edits; PH_STRESS_SEED the random seed.
import json
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reliability"))
from lspclient import Client, position_of, expected_diagnostics, published  # noqa: E402

ph, argv = sys.argv[1], sys.argv[2:]
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EDITS = int(os.environ.get("PH_STRESS_EDITS", "20000"))
SEED = int(os.environ.get("PH_STRESS_SEED", "20261129"))
HANG_S = float(os.environ.get("PH_STRESS_HANG_S", "30"))
rng = random.Random(SEED)

SNIPPETS = ["(", ")", "[", "]", "{", "}", " + ", " * ", "let ", "var ", "for ", "kernel ", "fn ", "@", "@autotune(",
            "\u00e9", "\U0001F600", "\u03c3", "\u4e2d\u6587", "\n", "dot_t(", "online_softmax(", ",", "1.0e30",
            "ctx.block.", "tile<f32>[", "///", " // caf\u00e9 \U0001F680\n", "rowmax(", "x", "0", ";", ":",
            # Whole items and calls across them (the item cache).
            "\nfn helper(x, a) {\n  x = x * a\n}\n", "\n/// doc\nfn finish(acc, l) {\n  acc = acc / l\n}\n",
            "\n@tensorcore\n@autotune(BR in [32, 64])\nkernel extra(X: tensor<f32>[N, D]) {\n  var t: tile<f32>[BR, D] = X[ctx.block.x * BR :+ BR, :]\n  helper(t, 2.0)\n  X[ctx.block.x * BR :+ BR, :] = t\n}\n",
            "  finish(acc, l)\n", "helper(acc, 0.5)\n", "\n}\n"]


def fail(msg):
    print("FAIL: " + msg)
    sys.stdout.flush()
    client.kill()
    sys.exit(1)


examples = sorted(os.path.join(SRC, "examples", f) for f in os.listdir(os.path.join(SRC, "examples")) if f.endswith(".ph"))
paths = examples[:4] + [os.path.join(SRC, "std", "attention.ph")]
tmp = tempfile.mkdtemp(prefix="ph-lsp-stress-")
# Many items: 6 renamed copies of mha.ph's kernels, each calling a fn of the file.
mha = open(os.path.join(SRC, "examples", "mha.ph"), encoding="utf-8").read()
many = "fn finish(acc, l) {\n  acc = acc * l\n}\n"
for n in range(6):
    t = mha
    for k in ("mha_causal_bf16", "mha_causal_f16", "mha_bf16", "mha_f16"):
        t = t.replace("kernel %s(" % k, "kernel %s_%d(" % (k, n))
    many += t.replace("  O[b, h, row :+ BR, :] = acc\n", "  finish(acc, 1.0)\n  O[b, h, row :+ BR, :] = acc\n")
many_path = os.path.join(tmp, "many_items.ph")
with open(many_path, "w", encoding="utf-8") as f:
    f.write(many)
paths.append(many_path)
docs = []
for i, p in enumerate(paths):
    d = os.path.join(tmp, "d%d" % i)
    os.makedirs(d)
    path = os.path.join(d, os.path.basename(p))
    text = open(p, encoding="utf-8").read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    docs.append({"uri": "file://" + path, "path": path, "text": text, "version": 1})

client = Client(argv)
client.initialize(options={"ph": {"path": ph, "compileOnSave": True, "outputDir": ".ph-build"}}, root=tmp)
for d in docs:
    client.open(d["uri"], d["text"])
client.hover(docs[0]["uri"], 0, 0)
rss_start = client.rss_kb()
rss_peak = rss_start
pending = {}   # request id -> method
cancelled = set()
counts = {"edits": 0, "changes": 0, "requests": 0, "cancels": 0, "saves": 0, "probes": 0}
probe_worst = 0.0
t0 = time.time()


def random_change(text):
    kind = rng.random()
    if kind < 0.01:  # a whole-document replacement (keeps the text, perhaps with a tail)
        return {"text": text + rng.choice(["", "\n// tail \u00e9\n"])}, None
    n = len(text)
    a = rng.randrange(n + 1)
    b = min(n, a + rng.choice([0, 0, 0, 1, 2, 5, 20]))
    # Never split a surrogate pair in Python terms: code points are whole characters here.
    new = rng.choice(SNIPPETS) if rng.random() < 0.6 else ""
    if kind > 0.97:
        new = text[a:b][::-1] + new
    return {"range": {"start": position_of(text, a), "end": position_of(text, b)}, "text": new}, (a, b, new)


for step in range(EDITS):
    d = docs[-1] if rng.random() < 0.3 else rng.choice(docs)
    changes = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        change, span = random_change(d["text"])
        changes.append(change)
        if span is None:
            d["text"] = change["text"]
        else:
            a, b, new = span
            d["text"] = d["text"][:a] + new + d["text"][b:]
    # Keep documents from growing or shrinking without bound.
    if len(d["text"]) > 60000 or len(d["text"]) < 200:
        d["text"] = open(paths[docs.index(d)], encoding="utf-8").read()
        changes.append({"text": d["text"]})
    d["version"] += 1
    client.notify("textDocument/didChange", {"textDocument": {"uri": d["uri"], "version": d["version"]},
                                             "contentChanges": changes})
    counts["edits"] += 1
    counts["changes"] += len(changes)
    # Requests at random places of random documents, not waited for.
    for _ in range(rng.choice([0, 1, 1, 2])):
        e = rng.choice(docs)
        pos = position_of(e["text"], rng.randrange(len(e["text"]) + 1))
        method = rng.choice(["textDocument/hover", "textDocument/hover", "textDocument/completion",
                             "textDocument/completion", "textDocument/signatureHelp", "textDocument/definition",
                             "textDocument/documentSymbol", "textDocument/semanticTokens/full",
                             "textDocument/inlayHint", "textDocument/codeLens"])
        params = {"textDocument": {"uri": e["uri"]}}
        if method in ("textDocument/hover", "textDocument/completion", "textDocument/signatureHelp",
                      "textDocument/definition"):
            params["position"] = pos
        if method == "textDocument/inlayHint":
            params["range"] = {"start": {"line": 0, "character": 0}, "end": {"line": 10 ** 5, "character": 0}}
        rid = client.start_request(method, params)
        pending[rid] = method
        counts["requests"] += 1
        if rng.random() < 0.25:  # cancel it, now or a little later
            target = rid if rng.random() < 0.7 else rng.choice(list(pending))
            client.notify("$/cancelRequest", {"id": target})
            cancelled.add(target)
            counts["cancels"] += 1
    if rng.random() < 0.01:
        client.notify("textDocument/didSave", {"textDocument": {"uri": d["uri"]}})
        counts["saves"] += 1
    if step % 200 == 199:  # a synchronous probe: the server must answer promptly
        t = time.time()
        r = client.hover(d["uri"], 0, 0, timeout=HANG_S)
        probe_worst = max(probe_worst, time.time() - t)
        counts["probes"] += 1
        if "result" not in r and "error" not in r:
            fail("probe got %r" % r)
    if step % 50 == 0:
        if not client.alive():
            fail("the server died (exit %s) after %d edits" % (client.proc.poll(), step))
        rss_peak = max(rss_peak, client.rss_kb())

# Every request answered exactly once.
deadline = time.time() + HANG_S
for rid, method in pending.items():
    r = client.wait_response(rid, timeout=max(1, deadline - time.time()))
    if "error" in r:
        code = r["error"]["code"]
        if code == -32800 and rid not in cancelled:
            fail("%s %d was cancelled without $/cancelRequest: %r" % (method, rid, r))
        if code not in (-32800, -32602) or (code == -32602 and "not open" in r["error"]["message"]):
            fail("%s %d failed: %r" % (method, rid, r))
    elif "result" not in r:
        fail("%s %d: neither result nor error: %r" % (method, rid, r))
with client.lock:
    extra = list(client.responses)
if extra:
    fail("responses nobody asked for: %r" % extra[:5])
elapsed = time.time() - t0

# The final diagnostics equal `ph check` on the final text (after the last publication of
# the final version: the first configurations may come first, then all of them).
for d in docs:
    client.wait_diagnostics(d["uri"], d["version"], timeout=HANG_S)
client.hover(docs[0]["uri"], 0, 0, timeout=HANG_S)
time.sleep(1.0)
for d in docs:
    got = published(client.wait_diagnostics(d["uri"], d["version"], timeout=HANG_S))
    with open(d["path"], "w", encoding="utf-8", newline="") as f:
        f.write(d["text"])
    want = expected_diagnostics(ph, d["path"])
    if got != want:
        fail("%s version %d: diagnostics differ from ph check:\n  ph check: %r\n  ph-lsp:   %r" %
             (os.path.basename(d["path"]), d["version"], want[:8], got[:8]))
    print("%s: version %d, %d diagnostics equal ph check" % (os.path.basename(d["path"]), d["version"], len(got)))

rss_peak = max(rss_peak, client.rss_kb())
rss_end = client.rss_kb()
code = client.shutdown(timeout=HANG_S)
print("edits: %d (%d changes), requests: %d, cancels: %d, saves: %d, probes: %d (slowest %.0f ms), %.1f s, %.0f edits/s" %
      (counts["edits"], counts["changes"], counts["requests"], counts["cancels"], counts["saves"], counts["probes"],
       probe_worst * 1000, elapsed, counts["edits"] / elapsed))
print("RSS: start %d kB, peak %d kB, end %d kB" % (rss_start, rss_peak, rss_end))
# PH_STRESS_RSS_MB: ASan holds freed memory in quarantine (256 MB), so sanitize.sh raises it.
if rss_end - rss_start > int(os.environ.get("PH_STRESS_RSS_MB", "64")) * 1024:
    fail("RSS grew by %d kB" % (rss_end - rss_start))
if code != 0:
    fail("exit code %s after shutdown + exit" % code)
print("PASS: exit code 0")
