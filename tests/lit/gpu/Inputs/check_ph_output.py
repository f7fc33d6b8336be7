"""Validates a ph-output document (stdin) against docs/schema/ph-output-v1.json.

With the jsonschema module, the whole schema; without it, the envelope and the
required keys of each diagnostic and variant, so the test still fails on a
document that breaks them. Prints `valid <command>` or the first problem.
"""
import json
import os
import sys

root = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
schema = json.load(open(os.path.join(root, "docs", "schema", "ph-output-v1.json")))
doc = json.load(sys.stdin)
try:
    import jsonschema
    jsonschema.validate(doc, schema)
except ImportError:
    for key in schema["required"]:
        assert key in doc, "missing " + key
    assert doc["format"] == "ph-output" and doc["version"] == 1
    for d in doc["diagnostics"]:
        for key in schema["$defs"]["diagnostic"]["required"]:
            assert key in d, "diagnostic without " + key
    for v in doc.get("variants", []):
        for key in schema["$defs"]["variant"]["required"]:
            assert key in v, "variant without " + key
except Exception as e:  # jsonschema.ValidationError
    print("invalid:", str(e).splitlines()[0])
    sys.exit(1)
print("valid", doc["command"])
