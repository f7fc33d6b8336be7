"""Validates `ph build --json --progress`'s stream (stdin): every line but the last a
ph-event (docs/schema/ph-event-v1.json), a `plan` first, `variant` events with index
0, 1, ... in order, each ok one carrying its variant; the last line the ph-output document,
whose variants are the events' in the same order. Prints `plan OF CACHED`, one
`variant INDEX KERNEL [CONFIG] cached|compiled|failed` per event, then `document ok|failed`.
"""
import json
import os
import sys

root = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
schemas = os.path.join(root, "docs", "schema")
event_schema = json.load(open(os.path.join(schemas, "ph-event-v1.json")))
output_schema = json.load(open(os.path.join(schemas, "ph-output-v1.json")))

lines = [l for l in sys.stdin.read().split("\n") if l.strip()]
assert lines, "no output"
events, doc = [json.loads(l) for l in lines[:-1]], json.loads(lines[-1])
try:
    import jsonschema
    from referencing import Registry, Resource
    registry = Registry().with_resource(output_schema["$id"], Resource.from_contents(output_schema))
    validator = jsonschema.Draft202012Validator(event_schema, registry=registry)
    for e in events:
        validator.validate(e)
    jsonschema.validate(doc, output_schema)
except ImportError:
    for e in events:
        for key in event_schema["required"]:
            assert key in e, "event without " + key
assert doc["format"] == "ph-output" and doc["command"] == "build", "the last line is not a build document"
assert events and events[0]["event"] == "plan", "no plan first"
plan = events[0]
print("plan", plan["of"], plan["cached"])
variants = [e for e in events[1:]]
for i, e in enumerate(variants):
    assert e["format"] == "ph-event" and e["version"] == 1
    assert e["event"] == "variant" and e["index"] == i and e["of"] == plan["of"], "out of order: %r" % e
    if e["ok"]:
        assert e["variant"]["kernel"] == e["kernel"] and e["variant"]["configName"] == e["configName"]
    print("variant", i, e["kernel"], "[%s]" % e["configName"], "failed" if not e["ok"] else "cached" if e["cached"] else "compiled")
if doc["ok"]:
    assert len(variants) == plan["of"] == len(doc["variants"])
    for e, v in zip(variants, doc["variants"]):
        assert e["variant"] == v, "the event's variant differs from the document's"
print("document", "ok" if doc["ok"] else "failed")
