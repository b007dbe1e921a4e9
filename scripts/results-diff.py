#!/usr/bin/env python3
"""Compares two results.json files written by scripts/results.sh.

usage: results-diff.py BEFORE.json AFTER.json

Prints, per log and model, hit@1 / hit@4 / mrr before -> after with the change,
only where something changed, then the YES/NO verdicts that changed.
"""
import json
import sys

METRICS = ["hit@1", "hit@4", "mrr"]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    with open(sys.argv[1]) as file:
        before = json.load(file)
    with open(sys.argv[2]) as file:
        after = json.load(file)
    changed = False
    for name, log in after["logs"].items():
        old = before["logs"].get(name)
        if old is None:
            print(f"{name}: new log")
            changed = True
            continue
        for model, scores in log["models"].items():
            previous = old["models"].get(model)
            if previous is None:
                print(f"{name} {model}: new model")
                continue
            deltas = [scores[m] - previous[m] for m in METRICS]
            if any(abs(d) > 1e-9 for d in deltas):
                changed = True
                print(f"{name} {model}: " + ", ".join(
                    f"{m} {previous[m]:.3f} -> {scores[m]:.3f} ({d:+.3f})" for m, d in zip(METRICS, deltas)))
        for metric in METRICS:
            was, now = old["default_at_least_best_baseline"][metric], log["default_at_least_best_baseline"][metric]
            if was != now:
                changed = True
                print(f"{name}: default >= best baseline on {metric}: {'YES' if was else 'NO'} -> {'YES' if now else 'NO'}")
    if not changed:
        print("no change")


if __name__ == "__main__":
    main()
