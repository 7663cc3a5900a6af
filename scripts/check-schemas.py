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
print(f"schemas checked: {len(list(root.rglob('*.schema.json')))}, invalid: {failures}")
sys.exit(1 if failures else 0)
