#!/usr/bin/env python3
"""Every module a target imports is declared in Package.swift as a dependency of that very target.

SwiftPM's `--explicit-target-dependency-import-check error` (which scripts/test also passes) accepts a module that is
reachable through the target's dependencies' own dependencies, so a target could import the Kafka adapter because the
runtime it declares depends on it. This check is stricter: each `import X` in a target's sources names the target
itself, a target or product listed in its own `dependencies`, or a module of the toolchain.

Usage: scripts/check-imports.py            (reads `swift package dump-package`)
Exit 1 naming every target, file and module that is not declared.
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Modules of the toolchain and the platform, which no package declares.
SYSTEM = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Darwin", "Dispatch",
          "Synchronization", "Testing", "XCTest", "_Concurrency", "os", "PackageDescription"}
IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def main() -> int:
    manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                                         capture_output=True, text=True).stdout)
    problems = []
    for target in manifest["targets"]:
        if target["type"] in ("system", "binary", "plugin", "macro"):
            continue
        declared = {target["name"]}
        for dependency in target["dependencies"]:
            kind, value = next(iter(dependency.items()))
            declared.add(value[0])
        default = "Tests" if target["type"] == "test" else "Sources"
        directory = ROOT / (target.get("path") or f"{default}/{target['name']}")
        for source in sorted(directory.rglob("*.swift")):
            text = source.read_text(encoding="utf-8")
            for module in sorted(set(IMPORT.findall(text))):
                if module not in declared and module not in SYSTEM:
                    problems.append(f"{target['name']}: {source.relative_to(ROOT)} imports {module}, "
                                    f"which Package.swift does not declare for {target['name']}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} undeclared import(s): add each module to its target's dependencies", file=sys.stderr)
        return 1
    print(f"imports: every module imported by {len(manifest['targets'])} targets is declared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
