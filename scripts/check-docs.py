#!/usr/bin/env python3
"""Checks that docs and help texts hold up for a newcomer (part of scripts/cli-checks.sh).

1. Every reference to a Markdown file (a name ending in .md) in a tracked
   file or in any `proactive ... --help` names a file the repository has:
   relative to the repository root or to the referring file's folder.
2. Help examples paste: every command's example lines read the same at 80
   columns as at 1000 (ArgumentParser wraps long discussion lines, and a
   wrapped command line breaks when pasted).
3. README.md's command table (the rows after `| task | commands |`) names
   every command `proactive --help` lists.

Usage: scripts/check-docs.py path/to/proactive
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKDOWN = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.md)\b")
TEXT_SUFFIXES = (".md", ".swift", ".sh", ".py", ".txt", ".json", ".expected", ".yml", ".yaml")
problems = []


def tracked_files():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split("\n")
    return [path for path in listed if path.endswith(TEXT_SUFFIXES) and not path.startswith("datasets/")]


def exists(reference, folder):
    return any(os.path.isfile(os.path.join(ROOT, base, reference)) for base in ("", folder))


URL = re.compile(r"[a-z]+://\S+")


def check_references(text, where, folder):
    for number, line in enumerate(text.split("\n"), 1):
        for reference in MARKDOWN.findall(URL.sub("", line)):  # a page on the web is not a file here
            if not exists(reference, folder):
                problems.append(f"{where}:{number}: {reference} does not exist in the repository")


def run_help(binary, path, columns):
    environment = dict(os.environ, COLUMNS=str(columns))
    return subprocess.run([binary, *path, "--help"], capture_output=True, text=True, env=environment).stdout


def subcommands(help_text):
    names, inside = [], False
    for line in help_text.split("\n"):
        if line.startswith("SUBCOMMANDS:"):
            inside = True
            continue
        if inside:
            if not line.strip():
                break
            match = re.match(r"\s{2}(\S+)", line)
            if match and not line.startswith("    ") and match.group(1) != "See":
                names.append(match.group(1))
    return names


def example_lines(help_text):
    lines, inside = [], False
    for line in help_text.split("\n"):
        if re.match(r"^Examples?( line)?:$", line):
            inside = True
            continue
        if inside:
            if not line.strip() or line.startswith("USAGE:"):
                inside = False
                continue
            lines.append(line)
    return lines


def check_command_table(top_level):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("| task | commands |")), None)
    if start is None:
        problems.append("README.md: no command table (a row `| task | commands |`)")
        return
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    table = "\n".join(lines[start:end])
    for name in top_level:
        if not re.search(r"`" + re.escape(name) + r"[ `\\]", table):
            problems.append(f"README.md: the command table does not name `{name}` (proactive --help lists it)")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python3 scripts/check-docs.py PATH/TO/proactive   (e.g. .build/debug/proactive)")
    binary = sys.argv[1]
    for path in tracked_files():
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as handle:
            check_references(handle.read(), path, os.path.dirname(path))
    queue, seen, checked = [[]], set(), 0
    while queue:
        command = queue.pop()
        wide = run_help(binary, command, 1000)
        narrow = run_help(binary, command, 80)
        name = " ".join(["proactive", *command])
        check_references(wide, f"{name} --help", "")
        if example_lines(wide) != example_lines(narrow):
            wrapped = [line for line in example_lines(narrow) if line not in example_lines(wide)]
            problems.append(f"{name} --help: an example line is wrapped at 80 columns: {wrapped[:2]}")
        checked += 1
        if not command:
            check_command_table([sub for sub in subcommands(wide) if sub != "help"])
        for sub in subcommands(wide):
            child = command + [sub]
            if sub != "help" and tuple(child) not in seen:
                seen.add(tuple(child))
                queue.append(child)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"docs: every .md reference exists; {checked} help texts with examples that paste")


main()
