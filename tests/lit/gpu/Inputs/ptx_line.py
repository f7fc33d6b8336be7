"""Prints the PTX line that the first E0505 note naming one points at, read from the PTX
file argv[2] (what `ph emit --stage ptx` printed), so that a test checks that the note's
line number and `ph emit`'s PTX agree. argv[1]: the ph-output document of the failed build."""
import json
import re
import sys

doc = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
for d in doc["diagnostics"]:
    for n in d["notes"]:
        m = re.match(r"ptxas, line (\d+) of the PTX", n["message"])
        if d["code"] == "E0505" and m:
            print("emitted line %s: %s" % (m.group(1), lines[int(m.group(1)) - 1].strip()))
            sys.exit(0)
print("no E0505 note names a PTX line")
