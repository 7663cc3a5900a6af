"""Static checks of compose.yaml, deploy/Dockerfile and the Kubernetes overlays (no Docker engine and no cluster run
on the CI machines).

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
# The benchmarks are for developers, not shipped in the image.
NOT_SHIPPED = {"caretide-bench"}
topics = set(re.findall(r'case \w+ = "(caretide\.[a-z0-9.-]+)"', topics_source))
services = compose.get("services", {})

for product in products - NOT_SHIPPED:
    if product not in dockerfile:
        problems.append(f"deploy/Dockerfile does not build or copy the product {product}")
for product in NOT_SHIPPED & products:
    if re.search(rf"(?<![\w-]){re.escape(product)}(?![\w-])", dockerfile):
        problems.append(f"deploy/Dockerfile ships {product}, which is for developers only")
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
# Every variable a service reads (read off the code) is set for it, or listed here with why it is not.
def variables_read(*directories):
    found = set()
    for directory in directories:
        for path in (root / "Sources" / directory).rglob("*.swift"):
            found |= set(re.findall(r'(?:environment\["|seconds\(")([A-Z][A-Z0-9_]+)"', path.read_text()))
    return found


shared_variables = variables_read("CaretideRuntime", "CaretideIdentity")
service_variables = {
    "ingest": variables_read("IngestService", "ingest-service"),
    "scoring": variables_read("ScoringService", "scoring-service"),
    "notification": variables_read("NotificationService", "notification-service"),
    "diagnosis": variables_read("DiagnosisService", "diagnosis-service"),
}
# Either one of each group is set: the identity provider's keys as a file (compose's development key) or its
# certs endpoint (a production identity provider).
alternatives = [{"AUTH_JWKS_FILE", "AUTH_JWKS_URL"}]
deliberately_unset = {
    "AUTH_DISABLED": "development only, never in a deployment",
    "CARETIDE_EXIT_WITH_PARENT": "set by `caretide dev` for its children only",
    "METRICS_PORT": "/metrics is served on HTTP_PORT, where Prometheus scrapes it",
    "TIP_TRANSLATIONS_DIR": "optional translations of the tips; without it, English",
    "REPORT_PDF_BROWSER": "the image installs chromium at its default path, /usr/bin/chromium",
    "SMTP_CA_FILE": "the system's roots verify the relay unless it has a private CA",
    "MAIL_SERVICE_TOKEN_FILE": "only with MAIL_ATTACH_REPORT_PDF=true, which is off: the operator then mounts a service token",
    "CONSUMER_BATCH_WINDOW_MS": "unset, each service keeps its own window (notification-service's is shorter than the rest)",
}
readme = (root / "README.md").read_text()
for variable in sorted(shared_variables.union(*service_variables.values())):
    if f"`{variable}`" not in readme:
        problems.append(f"the code reads {variable}, which the README's configuration table does not document")


def check_variables(where, name, environment):
    needed = (shared_variables | service_variables.get(name, set())) - set(deliberately_unset)
    for group in alternatives:
        needed -= group
        if not group & set(environment):
            problems.append(f"{where} {name} sets none of {sorted(group)}")
    for variable in sorted(needed - set(environment)):
        problems.append(f"{where} {name} does not set {variable}, which the service reads")


for name, spec in caretide_services.items():
    check_variables("compose service", name, spec.get("environment") or {})

for name, spec in services.items():
    for dependency in (spec.get("depends_on") or {}):
        if dependency not in services:
            problems.append(f"compose service {name} depends on undefined service {dependency}")

created = set(re.findall(r"caretide\.[a-z0-9.-]+", " ".join(services.get("kafka-topics", {}).get("command", []))))
if created != topics:
    problems.append(f"compose creates topics {sorted(created)} but the code uses {sorted(topics)}")

# Prometheus scrapes every service compose runs, with the rules mounted beside its configuration.
prometheus = services.get("prometheus")
if prometheus is None:
    problems.append("compose.yaml runs no prometheus service")
else:
    if not any(str(volume).startswith("./deploy/prometheus:/etc/prometheus") for volume in prometheus.get("volumes", [])):
        problems.append("compose's prometheus does not mount deploy/prometheus at /etc/prometheus")
    scrape = yaml.safe_load((root / "deploy" / "prometheus" / "prometheus.yml").read_text())
    targets = {target for job in scrape["scrape_configs"] for config in job["static_configs"] for target in config["targets"]}
    for name in caretide_services:
        if f"{name}:8080" not in targets:
            problems.append(f"deploy/prometheus/prometheus.yml does not scrape compose service {name}")

# Kubernetes: each overlay rendered (scripts/kustomize_subset.py) and validated against the API of the version the
# operations guide names; then what compose is checked for, per overlay.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kubernetes_validate  # noqa: E402
from kustomize_subset import containers, render  # noqa: E402

KUBERNETES_VERSION = "1.31.0"
overlays = sorted(path for path in (root / "deploy" / "k8s" / "overlays").iterdir() if path.is_dir())
if {path.name for path in overlays} != {"dev", "prod"}:
    problems.append(f"deploy/k8s/overlays should hold dev and prod, found {[path.name for path in overlays]}")
rendered_count = 0
for overlay in overlays:
    where = f"k8s overlay {overlay.name}:"
    try:
        resources = render(overlay)
    except Exception as error:  # a broken kustomization is a problem to report, not a crash
        problems.append(f"{where} does not render: {error}")
        continue
    rendered_count += len(resources)
    for resource in resources:
        try:
            kubernetes_validate.validate(resource, KUBERNETES_VERSION, strict=True)
        except Exception as error:
            problems.append(f"{where} {resource['kind']} {resource['metadata']['name']} is invalid for Kubernetes {KUBERNETES_VERSION}: {str(error)[:300]}")
    by_kind = {}
    for resource in resources:
        by_kind.setdefault(resource["kind"], {})[resource["metadata"]["name"]] = resource
    config = {}
    for configmap in by_kind.get("ConfigMap", {}).values():
        config.update(configmap.get("data", {}))
    secret_keys = set()
    for name, secret in by_kind.get("Secret", {}).items():
        for key, value in {**secret.get("stringData", {}), **secret.get("data", {})}.items():
            secret_keys.add(key)
            # No real secret in the repository: placeholders only.
            if "REPLACE-ME" not in str(value):
                problems.append(f"{where} Secret {name} key {key} holds a value, not a REPLACE-ME placeholder")
    topics_job = by_kind.get("Job", {}).get("caretide-topics")
    partitions = None
    if topics_job is None:
        problems.append(f"{where} has no caretide-topics Job")
    else:
        container = topics_job["spec"]["template"]["spec"]["containers"][0]
        created_k8s = set(re.findall(r"caretide\.[a-z0-9.-]+", " ".join(container.get("args", []))))
        if created_k8s != topics:
            problems.append(f"{where} the topics Job creates {sorted(created_k8s)} but the code uses {sorted(topics)}")
        partitions = int(next(e["value"] for e in container["env"] if e["name"] == "PARTITIONS"))
    migrate_job = by_kind.get("Job", {}).get("caretide-migrate")
    if migrate_job is None or migrate_job["spec"]["template"]["spec"]["containers"][0]["command"][-1] != "migrate":
        problems.append(f"{where} has no caretide-migrate Job running `caretide migrate`")
    for name in caretide_services:
        deployment = by_kind.get("Deployment", {}).get(f"caretide-{name}")
        if deployment is None:
            problems.append(f"{where} has no Deployment caretide-{name}")
            continue
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        if container.get("command", [""])[0].removeprefix("/app/") not in products:
            problems.append(f"{where} caretide-{name} runs {container.get('command')}, not an executable product")
        if container.get("readinessProbe", {}).get("httpGet", {}).get("path") != "/readyz":
            problems.append(f"{where} caretide-{name} has no readiness probe on /readyz")
        if container.get("livenessProbe", {}).get("httpGet", {}).get("path") != "/healthz":
            problems.append(f"{where} caretide-{name} has no liveness probe on /healthz")
        resources_spec = container.get("resources", {})
        if "memory" not in resources_spec.get("requests", {}) or "memory" not in resources_spec.get("limits", {}):
            problems.append(f"{where} caretide-{name} lacks a memory request or limit")
        environment = {e["name"] for e in container.get("env", [])}
        for source in container.get("envFrom", []):
            if "configMapRef" in source:
                environment |= set(by_kind.get("ConfigMap", {}).get(source["configMapRef"]["name"], {}).get("data", {}))
            if "secretRef" in source:
                secret = by_kind.get("Secret", {}).get(source["secretRef"]["name"], {})
                environment |= set(secret.get("stringData", {})) | set(secret.get("data", {}))
        check_variables(f"{where} Deployment", name, environment)
        if f"caretide-{name}" not in by_kind.get("PodDisruptionBudget", {}):
            problems.append(f"{where} caretide-{name} has no PodDisruptionBudget")
        autoscaler = by_kind.get("HorizontalPodAutoscaler", {}).get(f"caretide-{name}")
        if autoscaler is None:
            problems.append(f"{where} caretide-{name} has no HorizontalPodAutoscaler")
        elif partitions is not None and autoscaler["spec"]["maxReplicas"] > partitions:
            problems.append(f"{where} caretide-{name} may scale to {autoscaler['spec']['maxReplicas']} replicas, more than the {partitions} partitions")
    for container in containers(resources):
        if container["image"].split(":")[-1] == "" or ":" not in container["image"]:
            problems.append(f"{where} image {container['image']} has no tag")

for problem in problems:
    print(problem, file=sys.stderr)
print(f"deployment files checked: {len(products)} products, {len(caretide_services)} services, {len(topics)} topics, "
      f"{len(overlays)} Kubernetes overlays ({rendered_count} resources, Kubernetes {KUBERNETES_VERSION}), problems: {len(problems)}")
sys.exit(1 if problems else 0)
