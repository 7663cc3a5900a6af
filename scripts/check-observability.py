"""Checks the alert rules and the Grafana dashboard against the code and the operations guide.

- every metric an alert rule or a dashboard panel names is one the services export (the names come from the Swift
  sources; a histogram's _bucket, _sum and _count series count as exported), or Prometheus's own `up`;
- every alert links to a section of docs/operations.md that exists, and the guide has a section for every alert.
promtool checks the rules' syntax and runs their unit tests (scripts/test calls it).
"""
import json
import pathlib
import re
import sys

import yaml

root = pathlib.Path(__file__).resolve().parent.parent
sources = "\n".join(path.read_text() for path in (root / "Sources").rglob("*.swift"))
exported = set(re.findall(r'"(caretide_[a-z_]+)"', sources))
for histogram in re.findall(r'timer\("(caretide_[a-z_]+)"', sources):
    exported |= {histogram + suffix for suffix in ("_bucket", "_sum", "_count")}
exported.add("up")

problems = []


def metrics_in(expression):
    names = set(re.findall(r"\b(caretide_[a-z_]+)\b", expression))
    if re.search(r"\bup\{", expression):
        names.add("up")
    return names


rules = yaml.safe_load((root / "deploy" / "prometheus" / "caretide-rules.yml").read_text())
alerts = [rule for group in rules["groups"] for rule in group["rules"] if "alert" in rule]
guide = (root / "docs" / "operations.md").read_text()
# GitHub's anchors: the heading in lower case, punctuation dropped, spaces as hyphens.
anchors = {
    re.sub(r"[^a-z0-9 -]", "", heading.strip().lower()).replace(" ", "-")
    for heading in re.findall(r"^#+ (.+)$", guide, flags=re.MULTILINE)
}
for rule in alerts:
    for name in metrics_in(rule["expr"]) - exported:
        problems.append(f"alert {rule['alert']} names {name}, which no service exports")
    link = rule.get("annotations", {}).get("runbook_url", "")
    if not link.startswith("docs/operations.md#") or link.split("#", 1)[1] not in anchors:
        problems.append(f"alert {rule['alert']} links to {link!r}, not a section of docs/operations.md")
    if rule["alert"].lower() not in anchors:
        problems.append(f"docs/operations.md has no section for {rule['alert']}")

dashboards = sorted((root / "deploy" / "grafana").glob("*.json"))
panels = 0
for path in dashboards:
    dashboard = json.loads(path.read_text())
    queries = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    queries += [variable.get("query", "") for variable in dashboard.get("templating", {}).get("list", []) if variable.get("type") == "query"]
    panels += len(dashboard["panels"])
    if not queries:
        problems.append(f"{path.name} has no queries")
    for query in queries:
        for name in metrics_in(query) - exported:
            problems.append(f"{path.name} names {name}, which no service exports")

for problem in problems:
    print(problem, file=sys.stderr)
print(f"observability checked: {len(alerts)} alerts, {len(dashboards)} dashboard(s) with {panels} panels, "
      f"{len(exported)} exported series names, problems: {len(problems)}")
sys.exit(1 if problems else 0)
