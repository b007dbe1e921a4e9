#!/usr/bin/env python3
"""Writes a donation log (JSON Lines, docs/FORMATS.md) for the reliability scripts.

Every line has a unique identifier PREFIX-N (N = 0, 1, ... in file order), so a
store can be checked line by line: which lines it holds, and that none is held
twice. Dates fall in the DAYS days before NOW (inside the default 28-day
retention window). Same arguments, same bytes.

    dev/reliability-log.py --lines 20000 --prefix k --seed 1 --now 1795392000 > log.jsonl
"""
import argparse
import json
import random
import sys
from datetime import datetime, timedelta, timezone


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, required=True)
    parser.add_argument("--prefix", default="r")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--now", type=int, required=True, help="Unix seconds; dates are before it")
    parser.add_argument("--days", type=float, default=20)
    parser.add_argument("--apps", type=int, default=5)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    offset = timezone(timedelta(hours=-8))
    out = sys.stdout
    for number in range(args.lines):
        seconds = args.now - rng.uniform(60, args.days * 86400)
        date = datetime.fromtimestamp(int(seconds), offset).isoformat()
        app = "com.example.app%d" % rng.randrange(args.apps)
        line = {
            "user": "u%d" % rng.randrange(3),
            "app": app,
            "intent": rng.choice(["OpenIntent", "OrderIntent", "PlayIntent"]),
            "parameters": {"item": "item-%d" % rng.randrange(20), "size": rng.choice(["small", "large"])},
            "date": date,
            "identifier": "%s-%d" % (args.prefix, number),
            "context": {"place": rng.choice(["home", "work", "gym"])},
        }
        out.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
