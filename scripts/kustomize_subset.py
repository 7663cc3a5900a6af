"""Renders a kustomization the way `kubectl kustomize` does, for the subset of kustomize Caretide's manifests use
(no kubectl on the CI machines): `resources` (files, or directories with a kustomization), `patches` (strategic-merge
patch files, matched by kind and name; lists of named items merge by name), `images` (newName, newTag), `labels`
(added to every resource's metadata) and `namespace`. Anything else in a kustomization is refused, so the manifests
cannot quietly use a feature this renderer would ignore.
"""
import copy
import pathlib

import yaml

SUPPORTED = {"apiVersion", "kind", "resources", "patches", "images", "labels", "namespace"}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding"}


def render(directory):
    directory = pathlib.Path(directory)
    kustomization = yaml.safe_load((directory / "kustomization.yaml").read_text())
    unsupported = set(kustomization) - SUPPORTED
    if unsupported:
        raise ValueError(f"{directory}/kustomization.yaml uses {sorted(unsupported)}, which this renderer does not support")
    resources = []
    for entry in kustomization.get("resources", []):
        path = directory / entry
        if path.is_dir():
            resources += render(path)
        else:
            resources += [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    for patch in kustomization.get("patches", []):
        for doc in yaml.safe_load_all((directory / patch["path"]).read_text()):
            if not doc:
                continue
            targets = [r for r in resources if r["kind"] == doc["kind"] and r["metadata"]["name"] == doc["metadata"]["name"]]
            if len(targets) != 1:
                raise ValueError(f"patch {patch['path']} matches {len(targets)} resources ({doc['kind']} {doc['metadata']['name']})")
            merge(targets[0], doc)
    for image in kustomization.get("images", []):
        for container in containers(resources):
            name, _, _ = container["image"].partition(":")
            if name == image["name"]:
                container["image"] = f"{image.get('newName', name)}:{image.get('newTag', 'latest')}"
    for label in kustomization.get("labels", []):
        for resource in resources:
            resource["metadata"].setdefault("labels", {}).update(label["pairs"])
    if "namespace" in kustomization:
        for resource in resources:
            if resource["kind"] not in CLUSTER_SCOPED:
                resource["metadata"]["namespace"] = kustomization["namespace"]
    return resources


def merge(target, patch):
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            merge(target[key], value)
        elif isinstance(value, list) and isinstance(target.get(key), list) and all(isinstance(v, dict) and "name" in v for v in value):
            for item in value:
                existing = next((t for t in target[key] if isinstance(t, dict) and t.get("name") == item["name"]), None)
                if existing is None:
                    target[key].append(copy.deepcopy(item))
                else:
                    merge(existing, item)
        else:
            target[key] = copy.deepcopy(value)


def containers(resources):
    for resource in resources:
        spec = resource.get("spec", {}).get("template", {}).get("spec", {})
        yield from spec.get("containers", [])
