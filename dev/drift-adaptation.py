#!/usr/bin/env python3
"""How fast each model adapts to the simulator's drift (evaluate --online).

Reads a test log and the ranks files written by `proactive evaluate --compare
--ranks-out RANKS` and prints, per day since the drift day, the share of the
drifted habits ranked first: weekday lunch orders (the item changes) and
evening media opens (the app changes from com.example.video to
com.example.podcasts). Uses only the ranks, the test log and the simulator's
documented routines.

usage: drift-adaptation.py TEST.jsonl DRIFT_DATE RANKS.txt [RANKS.model.txt ...]
  DRIFT_DATE: local date of the drift day, e.g. 2026-02-04 (start + days/2)
"""
import datetime
import json
import sys


def drifted(donation):
    if donation["intent"] == "OrderFoodIntent":
        return donation.get("parameters", {}).get("item") != "brunch"
    return donation["app"] in ("com.example.video", "com.example.podcasts")


def main():
    test_path, drift_text, *ranks_paths = sys.argv[1:]
    drift = datetime.date.fromisoformat(drift_text)
    days = []
    with open(test_path, encoding="utf-8") as lines:
        for line in lines:
            donation = json.loads(line)
            local = datetime.datetime.fromisoformat(donation["date"].replace("Z", "+00:00")).date()
            days.append((local - drift).days if drifted(donation) else None)
    buckets = [(-7, -1), (0, 0), (1, 1), (2, 2), (3, 4), (5, 7), (8, 14), (15, 60)]
    print("| model | " + " | ".join(f"day {a}" if a == b else f"days {a}..{b}" for a, b in buckets) + " |")
    print("|---|" + "---:|" * len(buckets))
    for path in ranks_paths:
        ranks = [int(line) for line in open(path, encoding="utf-8") if line.strip()]
        assert len(ranks) == len(days), f"{path}: {len(ranks)} ranks for {len(days)} test donations"
        cells = []
        for low, high in buckets:
            chosen = [rank for rank, day in zip(ranks, days) if day is not None and low <= day <= high]
            cells.append(f"{sum(1 for r in chosen if r == 1) / len(chosen):.2f} ({len(chosen)})" if chosen else "-")
        name = path.rsplit("/", 1)[-1]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
