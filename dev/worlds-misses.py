#!/usr/bin/env python3
"""List the confident world questions a model answered with another first target than the oracle's.

Reads the files `proactive worlds --out DIR` writes (questions.jsonl, worlds.jsonl and
predictions-MODEL.jsonl) and prints, per missed question, its moment, mode and moment kind, the
oracle's top target with its probability, and the model's first three targets with the model's
probability and the oracle's, each tagged with what the generator made it: a habit's kind, or
"noise N/day" for a noise app. Then a count of the misses by what the model put first.

Usage:
  proactive worlds --out /tmp/worlds
  python3 dev/worlds-misses.py /tmp/worlds [--model blend] [--kind noise] [--limit 40]

--kind keeps the questions whose oracle top is of that kind ("noise", "daily", ...); questions
asked after a silence are left out unless --silent is given.
"""
import argparse
import collections
import json
import os
import sys


def read_lines(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", help="the folder `proactive worlds --out` wrote")
    parser.add_argument("--model", default="blend", help="whose predictions-MODEL.jsonl to read (default blend)")
    parser.add_argument("--kind", help="only questions whose oracle top is of this kind")
    parser.add_argument("--silent", action="store_true", help="also the questions asked after a silence")
    parser.add_argument("--limit", type=int, default=40, help="misses printed at most (default 40)")
    options = parser.parse_args()
    files = {name: os.path.join(options.folder, name)
             for name in ("questions.jsonl", "worlds.jsonl", "predictions-%s.jsonl" % options.model)}
    for name, path in files.items():
        if not os.path.exists(path):
            sys.exit("worlds-misses: %s not found (run `proactive worlds --out %s` first)" % (path, options.folder))
    questions = {q["id"]: q for q in read_lines(files["questions.jsonl"])}
    worlds = {w["user"]: w for w in read_lines(files["worlds.jsonl"])}

    def tag(user, target):
        world = worlds[user]
        for app in world["noise"]:
            if app["target"] == target:
                return "noise %.1f/day" % app["perDay"]
        for habit in world["habits"]:
            if habit["target"] == target:
                return habit["kind"]
        return "?"

    asked = 0
    misses = []
    for prediction in read_lines(files["predictions-%s.jsonl" % options.model]):
        question = questions[prediction["id"]]
        if not question["confident"] or (question["mode"] == "silent" and not options.silent):
            continue
        if options.kind and question["kind"] != options.kind:
            continue
        asked += 1
        oracle = question["oracle"]["next"]
        top = max(oracle.items(), key=lambda item: (item[1], item[0]))
        ranked = sorted(prediction["scores"].items(), key=lambda item: -item[1])
        if not ranked or ranked[0][0] != top[0]:
            misses.append((question, top, ranked))
    print("%d of %d confident questions missed%s" % (len(misses), asked, " (kind %s)" % options.kind if options.kind else ""))
    first = collections.Counter()
    for question, top, ranked in misses:
        what = tag(question["user"], ranked[0][0]) if ranked else "nothing"
        first["noise" if what.startswith("noise") else what] += 1
    for index, (question, top, ranked) in enumerate(misses[:options.limit]):
        user = question["user"]
        oracle = question["oracle"]["next"]
        model = ", ".join("%s %.2f (oracle %.2f, %s)" % (target.split("/")[0].split(".")[-1], p, oracle.get(target, 0), tag(user, target))
                          for target, p in ranked[:3])
        print("%s %-6s %-6s oracle %s %.2f (%s) | model: %s" % (
            question["at"][:16], question["mode"], question["moment"], top[0].split("/")[0].split(".")[-1], top[1], tag(user, top[0]), model))
    if misses:
        print("the model's first target in the misses: " + ", ".join("%s %d" % item for item in first.most_common()))


if __name__ == "__main__":
    main()
