"""Checks every file under Schemas/ against the JSON Schema 2020-12 meta-schema and validates its examples."""
import json
import pathlib
import sys

import jsonschema

root = pathlib.Path(__file__).resolve().parent.parent / "Schemas"
failures = 0
for path in sorted(root.rglob("*.schema.json")):
    schema = json.loads(path.read_text())
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
        examples = schema.get("examples", [])
        if not examples:
            raise ValueError("has no examples")
        for example in examples:
            validator.validate(example)
    except Exception as error:  # report every file, then fail
        failures += 1
        print(f"{path.relative_to(root)}: {error}", file=sys.stderr)


# Every number a client sends is bounded in its request schema, below and above: code downstream formats, charts and
# converts what the schema let through, and an unbounded number reaches it as 1e308.
def unbounded_numbers(node, pointer=""):
    if isinstance(node, dict):
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "number" in kinds or "integer" in kinds:
            below = "minimum" in node or "exclusiveMinimum" in node
            above = "maximum" in node or "exclusiveMaximum" in node
            if not (below and above):
                yield pointer or "/", "minimum" if not below else "maximum"
        for key, value in node.items():
            if key not in ("examples", "default", "const", "enum"):
                yield from unbounded_numbers(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from unbounded_numbers(item, f"{pointer}/{index}")


for path in sorted((root / "api").glob("*.schema.json")):
    for pointer, missing in unbounded_numbers(json.loads(path.read_text())):
        failures += 1
        print(f"{path.relative_to(root)}: the number at {pointer} has no {missing} (every number a client sends is bounded)", file=sys.stderr)

# The AsyncAPI catalogue: every reference resolves, to a file beside it or to a place inside it.
import yaml  # noqa: E402

catalogue = yaml.safe_load((root / "asyncapi.yaml").read_text())
if catalogue.get("asyncapi") != "3.0.0":
    failures += 1
    print("asyncapi.yaml: not an AsyncAPI 3.0.0 document", file=sys.stderr)


def references(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from references(value)
    elif isinstance(node, list):
        for item in node:
            yield from references(item)


reference_count = 0
for reference in references(catalogue):
    reference_count += 1
    if reference.startswith("#/"):
        node = catalogue
        for token in reference[2:].split("/"):
            node = node.get(token) if isinstance(node, dict) else None
        if node is None:
            failures += 1
            print(f"asyncapi.yaml: {reference} points nowhere", file=sys.stderr)
    elif not (root / reference).resolve().is_file():
        failures += 1
        print(f"asyncapi.yaml: {reference} is not a file beside it", file=sys.stderr)
print(f"schemas checked: {len(list(root.rglob('*.schema.json')))}, asyncapi references: {reference_count}, invalid: {failures}")
sys.exit(1 if failures else 0)
