"""Prints each diagnostic of a ph-output document (stdin) on one line, with its notes:
`CODE file:line:col-line:col message` and `  note file:line:col-line:col message`, so
that a test asserts the code and the whole range, not only where the text starts."""
import json
import os
import sys


def where(r):
    s, e = r["start"], r["end"]
    return "%s:%d:%d-%d:%d" % (os.path.basename(r["file"]), s["line"], s["col"], e["line"], e["col"])


doc = json.load(sys.stdin)
for d in doc["diagnostics"]:
    print(d["code"], where(d["range"]), d["message"])
    for n in d["notes"]:
        print("  note", where(n["range"]), n["message"])
