"""Static checks of compose.yaml and deploy/Dockerfile (no Docker engine runs on the CI machines).

They catch the drift that breaks a deployment silently: a service whose binary the image does not contain, a
required variable missing, a topic the code uses but compose does not create, a dependency on an undefined service.
"""
import pathlib
import re
import sys

import yaml

root = pathlib.Path(__file__).resolve().parent.parent
package = (root / "Package.swift").read_text()
dockerfile = (root / "deploy" / "Dockerfile").read_text()
compose = yaml.safe_load((root / "compose.yaml").read_text())
topics_source = (root / "Sources" / "CaretideSchemas" / "Events" / "Topic.swift").read_text()

problems = []
products = set(re.findall(r'\.executable\(name: "([^"]+)"', package))
topics = set(re.findall(r'case \w+ = "(caretide\.[a-z0-9.-]+)"', topics_source))
services = compose.get("services", {})

for product in products:
    if product not in dockerfile:
        problems.append(f"deploy/Dockerfile does not build or copy the product {product}")
if "Caretide_CaretideSchemaFiles.resources" not in dockerfile:
    problems.append("deploy/Dockerfile does not copy the JSON Schema resource bundle")

def binary_of(spec):
    entrypoint = spec.get("entrypoint") or []
    return entrypoint[0].removeprefix("/app/") if entrypoint else None


# The four services; the CLI (`/app/caretide`, e.g. the auth-keys step) runs from the same image.
caretide_services = {
    name: spec for name, spec in services.items() if spec.get("image") == "caretide:latest" and binary_of(spec) != "caretide"
}
if len(caretide_services) != 4:
    problems.append(f"compose.yaml should run the four services, found {sorted(caretide_services)}")
for name, spec in caretide_services.items():
    binary = binary_of(spec)
    if binary not in products:
        problems.append(f"compose service {name} runs {binary}, which is not an executable product")
    environment = spec.get("environment") or {}
    for variable in ("DATABASE_URL", "KAFKA_BROKERS", "HTTP_PORT"):
        if variable not in environment:
            problems.append(f"compose service {name} lacks {variable}")
    # A service without its identity provider's keys refuses to start (exit 78).
    if environment.get("AUTH_DISABLED") != "1":
        if not ({"AUTH_JWKS_FILE", "AUTH_JWKS_URL"} & set(environment)):
            problems.append(f"compose service {name} lacks AUTH_JWKS_FILE or AUTH_JWKS_URL")
        for variable in ("AUTH_ISSUER", "AUTH_AUDIENCE"):
            if variable not in environment:
                problems.append(f"compose service {name} lacks {variable}")
for name, spec in services.items():
    for dependency in (spec.get("depends_on") or {}):
        if dependency not in services:
            problems.append(f"compose service {name} depends on undefined service {dependency}")

created = set(re.findall(r"caretide\.[a-z0-9.-]+", " ".join(services.get("kafka-topics", {}).get("command", []))))
if created != topics:
    problems.append(f"compose creates topics {sorted(created)} but the code uses {sorted(topics)}")

for problem in problems:
    print(problem, file=sys.stderr)
print(f"deployment files checked: {len(products)} products, {len(caretide_services)} services, {len(topics)} topics, problems: {len(problems)}")
sys.exit(1 if problems else 0)
