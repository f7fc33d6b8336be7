#!/usr/bin/env python3
# ir_lines.py < `ph emit --json`'s document: prints each entry of `lines` as
# `<op> @<line>:<col>-<line>:<col> | <that line of the text>`, for FileCheck (lines.ph),
# and fails when an entry's line of the text does not print its op.
import json
import os
import sys

doc = json.load(sys.stdin)
text = doc["text"].split("\n")
for e in doc["lines"]:
    r = e["range"]
    ir = text[e["irLine"] - 1].strip()
    # `builtin.module` prints as `module`, `func.return` as `return`.
    if e["op"] not in ir and e["op"].split(".", 1)[1] not in ir:
        sys.exit("line %d does not print %s: %s" % (e["irLine"], e["op"], ir))
    print("%s @%s:%d:%d-%d:%d | %s" % (e["op"], os.path.basename(r["file"]), r["start"]["line"], r["start"]["col"],
                                       r["end"]["line"], r["end"]["col"], ir))
