#!/usr/bin/env python3
# ir_map.py SOURCE [ID] < driver-output: prints each mapped IR line of the last response's
# (or response ID's) `text` as `<op> <- <the .ph source line>`, for FileCheck (showir.test).
import json
import re
import sys

out = sys.stdin.read()
body = out[out.rindex("<-- response" + (" " + sys.argv[2] if len(sys.argv) > 2 else "")):]
body = body[body.index("\n") + 1:]
if "\n<-- " in body:
    body = body[:body.index("\n<-- ")]
result = json.loads(body)["result"]
src = open(sys.argv[1], encoding="utf-8").read().split("\n")
for ir, s in zip(result["text"].split("\n"), result["sourceLines"]):
    if s is None:
        continue
    m = re.search(r"(?:= )?([a-z_]+\.[a-z_]+)", ir)
    print("%s <- %s" % (m.group(1) if m else ir.strip()[:30], src[s].strip()))
