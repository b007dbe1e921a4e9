#!/usr/bin/env python3
"""Copies a donation log (JSON Lines) without the `count` field: each line then stands for one donation.

usage: drop-counts.py IN.jsonl OUT.jsonl

Used by scripts/results.sh to evaluate aggregated rows by rows rather than by uses.
A line that is not a JSON object stops the copy with FILE:LINE and a non-zero exit.
"""
import json
import os
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    source, target = sys.argv[1:3]
    with open(source) as lines, open(target + ".partial", "w") as out:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                donation = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{source}:{number}: not JSON ({error})")
            if not isinstance(donation, dict):
                sys.exit(f"{source}:{number}: not a JSON object")
            donation.pop("count", None)
            out.write(json.dumps(donation, separators=(",", ":"), ensure_ascii=False) + "\n")
    os.replace(target + ".partial", target)


if __name__ == "__main__":
    main()
