#!/usr/bin/env python3
# read_until_first_variant.py CMD...: runs `ph build --json --progress` (CMD) and prints the
# event lines it writes; once the first `variant` event has arrived it creates `go` in the
# current folder, which lets the later variants' ptxas (Inputs/ptxas-wait-for-go.sh) run. A
# build that writes its events only at the end never sees `go`: its ptxas fails after 20 s.
import json
import os
import subprocess
import sys

p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, text=True)
for line in p.stdout:
    e = json.loads(line)
    if e.get("format") == "ph-event":
        print(e["event"], e.get("index", ""), e.get("kernel", ""), "go" if os.path.exists("go") else "before-go")
        if e["event"] == "variant" and not os.path.exists("go"):
            open("go", "w").close()
    else:
        print("document", "ok" if e.get("ok") else "failed")
sys.exit(p.wait())
