#!/usr/bin/env python3
"""Writes a large synthetic donation log (canonical JSON Lines) for load tests.

Deterministic: the same --seed and --lines give the same bytes. Dates increase
with the line number (one donation every 7 seconds from 2026-01-01T00:00:00Z,
written at -05:00), so line N is the N-th donation in export order and a store
that holds the first K lines holds identifiers d-1 .. d-K. Every line has an
identifier, so re-importing is idempotent.

    python3 dev/generate-donations.py --lines 1000000 --seed 7 > /tmp/big.jsonl
"""
import argparse
import json
import random
import sys

APPS = [
    ("com.example.weather", "CheckWeatherIntent", lambda r: {"location": {"id": r.choice(["cupertino", "san-diego", "paris"]), "display": "City"}}),
    ("com.example.coffee", "OrderCoffeeIntent", lambda r: {"item": r.choice(["latte", "mocha", "tea"]), "size": r.choice(["small", "large"]), "shots": r.randint(1, 3)}),
    ("com.example.calendar", "open", lambda r: {}),
    ("com.example.messages", "SendMessageIntent", lambda r: {"recipient": {"id": "p-%d" % r.randint(1, 40)}}),
    ("com.example.shop", "ViewRecentPurchases", lambda r: {"card": {"id": "card-%d" % r.randint(1, 3), "display": "Card"}, "category": "all"}),
]
START = 1767225600  # 2026-01-01T00:00:00Z
OFFSET = -5 * 3600


def iso(seconds):
    import datetime
    local = datetime.datetime.fromtimestamp(seconds + OFFSET, datetime.timezone.utc)
    return local.strftime("%Y-%m-%dT%H:%M:%S") + "-05:00"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--user", default="load")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout
    for index in range(1, args.lines + 1):
        app, intent, params = rng.choice(APPS)
        record = {"user": args.user, "app": app, "intent": intent}
        parameters = params(rng)
        if parameters:
            record["parameters"] = {key: parameters[key] for key in sorted(parameters)}
        record["date"] = iso(START + 7 * index)
        record["identifier"] = "d-%d" % index
        record["context"] = {"focus": rng.choice(["work", "personal"]), "place": rng.choice(["home", "office"])}
        out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
