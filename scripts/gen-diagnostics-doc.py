#!/usr/bin/env python3
"""Writes docs/diagnostics.md from frontend/include/ph/Diagnostics.def.

With --check, exits 1 when the committed page differs (a ctest runs this)."""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
defs = (root / "frontend/include/ph/Diagnostics.def").read_text()
rows = re.findall(r'DIAG\((\w+),\s*"(\w+)",\s*(\w+),\s*"((?:[^"\\]|\\.)*)"\)', defs)
phases = {"E00": "Lexing", "E01": "Parsing", "E02": "Names and declarations", "E03": "Types and shapes",
          "E04": "Kernels", "E05": "Lowering and targets", "E06": "Limits", "W02": "Warnings", "W03": "Warnings", "W05": "Warnings", "W06": "Warnings"}
out = ["# Diagnostics", "",
       "Every diagnostic has a stable code, a severity, a primary range, notes with ranges and, where the fix is",
       "obvious, an edit (a quick fix in the editor). `ph check` prints `file:line:col: error[CODE]: message`;",
       "`ph check --json` and `ph-lsp` carry the same data. Generated from `frontend/include/ph/Diagnostics.def`",
       "by `scripts/gen-diagnostics-doc.py`; `{0}`, `{1}` stand for what was seen.", ""]
last = None
for name, code, sev, fmt in sorted(rows, key=lambda r: (r[1][0] == "W", r[1])):
    phase = phases.get(code[:3], "Other")
    if phase != last:
        out += ["", f"## {phase}", "", "| code | name | severity | message |", "| --- | --- | --- | --- |"]
        last = phase
    cell = fmt.replace("|", "\\|")
    out.append(f"| {code} | {name} | {sev.lower()} | {cell} |")
text = "\n".join(out) + "\n"
path = root / "docs/diagnostics.md"
if "--check" in sys.argv:
    if not path.exists() or path.read_text() != text:
        print("docs/diagnostics.md is out of date: run scripts/gen-diagnostics-doc.py")
        sys.exit(1)
    print("docs/diagnostics.md is up to date")
else:
    path.write_text(text)
