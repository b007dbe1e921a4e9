#!/usr/bin/env python3
"""The front ends reach the domain only through the Engine and the Runtime.

Reads Package.swift and the `import` lines of every Swift file under Sources/ProactiveCLI and
Sources/ProactiveService, and fails (exit 1, naming the target or the file, line and module) when a
front end depends on, or imports, an internal module outside its allowed set:

  ProactiveService: ProactiveCore, ProactiveEngine, ProactiveRuntime
  ProactiveCLI:     those, and ProactiveService, ProactiveLab, ProactiveCharts, ProactivePostgres

Internal modules are the package's own targets (`.target`, `.executableTarget`); products of other
packages (Hummingbird, Logging, ...) are not checked. Prints a one-line summary when both hold.

Usage: scripts/layering-check.py [REPOSITORY]   (default: this script's repository)
"""
import os
import re
import sys

ALLOWED = {
    "ProactiveService": {"ProactiveCore", "ProactiveEngine", "ProactiveRuntime"},
}
ALLOWED["ProactiveCLI"] = ALLOWED["ProactiveService"] | {"ProactiveService", "ProactiveLab", "ProactiveCharts", "ProactivePostgres"}


def targets(manifest):
    """Each target's name -> (line number, the internal names in its `dependencies: [...]`)."""
    found = {}
    for match in re.finditer(r'\.(?:target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"', manifest):
        name = match.group(1)
        # The call's text: up to the parenthesis that closes it.
        depth, end = 0, match.start()
        for end in range(match.start(), len(manifest)):
            if manifest[end] == "(":
                depth += 1
            elif manifest[end] == ")":
                depth -= 1
                if depth == 0:
                    break
        call = manifest[match.start():end]
        dependencies = re.search(r"dependencies:\s*\[(.*)\]", call, re.S)
        names = []
        if dependencies:
            text = re.sub(r"\.product\([^)]*\)", "", dependencies.group(1))  # other packages' products
            text = re.sub(r"//[^\n]*", "", text)
            names = re.findall(r'"([^"]+)"', text)
        found[name] = (manifest.count("\n", 0, match.start()) + 1, names)
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    manifest_path = os.path.join(root, "Package.swift")
    manifest = open(manifest_path, encoding="utf-8").read()
    declared = targets(manifest)
    internal = set(declared)
    problems = []
    for front, allowed in ALLOWED.items():
        if front not in declared:
            problems.append(f"{manifest_path}: no target {front}")
            continue
        line, names = declared[front]
        for name in names:
            if name in internal and name not in allowed:
                problems.append(f"{manifest_path}:{line}: {front} depends on {name}; a front end reaches the domain through "
                                f"{', '.join(sorted(allowed))} only")
        folder = os.path.join(root, "Sources", front)
        for directory, _, files in os.walk(folder):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(directory, file)
                for number, text in enumerate(open(path, encoding="utf-8"), 1):
                    imported = re.match(r"\s*(?:@[\w]+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([\w]+)", text)
                    if imported and imported.group(1) in internal and imported.group(1) not in allowed:
                        problems.append(f"{os.path.relpath(path, root)}:{number}: imports {imported.group(1)}; {front} may import "
                                        f"{', '.join(sorted(allowed))} only")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"layering-check: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    counts = ", ".join(f"{front} depends on {len([n for n in declared[front][1] if n in internal])} internal modules"
                       for front in ALLOWED)
    print(f"layering-check: the front ends reach the domain through the Engine and the Runtime only ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
