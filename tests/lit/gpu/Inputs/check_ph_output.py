"""Validates a ph-output document (stdin) against docs/schema/ph-output-v1.json.

With the jsonschema module, by jsonschema; without it (CI installs no Python
packages beyond NumPy), by the small validator below, which knows every keyword
the schema uses (type, required, properties, additionalProperties, items,
minItems, maxItems, minimum, enum, const, pattern, $ref, allOf, if/then) and
refuses a schema that uses another, so the test checks the whole document either
way. Prints `valid <command>` or the first problem.
"""
import json
import os
import re
import sys

root = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
schema = json.load(open(os.path.join(root, "docs", "schema", "ph-output-v1.json")))

KNOWN = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "required", "properties",
         "additionalProperties", "items", "minItems", "maxItems", "minimum", "enum", "const", "pattern",
         "allOf", "if", "then"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(value, name):
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def errors(value, s, path):
    """Yields the problems of `value` against the subschema `s`."""
    unknown = set(s) - KNOWN
    if unknown:
        raise SystemExit("check_ph_output.py does not know the schema keyword(s) %s" % sorted(unknown))
    if "$ref" in s:
        target = schema
        for part in s["$ref"].lstrip("#/").split("/"):
            target = target[part]
        yield from errors(value, target, path)
    if "type" in s:
        names = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(is_type(value, n) for n in names):
            yield "%s: %r is not of type %s" % (path, value, "/".join(names))
            return
    if "const" in s and value != s["const"]:
        yield "%s: %r is not %r" % (path, value, s["const"])
    if "enum" in s and value not in s["enum"]:
        yield "%s: %r is not one of %r" % (path, value, s["enum"])
    if "minimum" in s and is_type(value, "number") and value < s["minimum"]:
        yield "%s: %r is less than %r" % (path, value, s["minimum"])
    if "pattern" in s and isinstance(value, str) and not re.search(s["pattern"], value):
        yield "%s: %r does not match %r" % (path, value, s["pattern"])
    if isinstance(value, dict):
        for key in s.get("required", []):
            if key not in value:
                yield "%s: %r is a required property" % (path, key)
        props = s.get("properties", {})
        for key, v in value.items():
            if key in props:
                yield from errors(v, props[key], path + "." + key)
            elif isinstance(s.get("additionalProperties"), dict):
                yield from errors(v, s["additionalProperties"], path + "." + key)
            elif s.get("additionalProperties") is False:
                yield "%s: unexpected property %r" % (path, key)
    if isinstance(value, list):
        if "minItems" in s and len(value) < s["minItems"]:
            yield "%s: fewer than %d items" % (path, s["minItems"])
        if "maxItems" in s and len(value) > s["maxItems"]:
            yield "%s: more than %d items" % (path, s["maxItems"])
        if "items" in s:
            for i, v in enumerate(value):
                yield from errors(v, s["items"], "%s[%d]" % (path, i))
    for sub in s.get("allOf", []):
        yield from errors(value, sub, path)
    if "if" in s and not any(True for _ in errors(value, s["if"], path)) and "then" in s:
        yield from errors(value, s["then"], path)


doc = json.load(sys.stdin)
try:
    import jsonschema
    try:
        jsonschema.validate(doc, schema)
        problem = None
    except jsonschema.ValidationError as e:
        problem = str(e).splitlines()[0]
except ImportError:
    problem = next(errors(doc, schema, "$"), None)
if os.environ.get("PH_CHECK_OUTPUT_BUILTIN"):
    # The built-in validator as well (tests/lit/run/json-schema.test runs both).
    problem = problem or next(errors(doc, schema, "$"), None)
if problem:
    print("invalid:", problem)
    sys.exit(1)
print("valid", doc["command"])
