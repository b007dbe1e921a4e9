#!/usr/bin/env python3
"""Ask the engine about the habits scripts/make-sample.py planted in the bundled sample.

The sample (datasets/sample, four weeks ending Friday 2026-11-20, America/Los_Angeles) was
generated with known habits; this asks `predict` a few minutes before each one, on the weekday
and the weekend after the sample, and says whether the planted habit comes first. It imports the
sample into a fresh store in a temporary folder, adds its definitions and the person's Focus
schedules (datasets/sample/focus-schedules.txt, which set the Focus of the sample's donations, so
the store knows which Focus is on at each question) and trains, as scripts/demo.sh does.

Usage: python3 scripts/sample-habits.py [PROACTIVE_BINARY] [--require N] [--without-focus-schedules]
  --require N   exit 1 unless at least N of the moments are answered with their habit (the check
                scripts/test.sh runs).
  --without-focus-schedules
                declare no Focus schedule: the store then knows no Focus at a question, and the
                model answers from the donations' times, days and order alone.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "datasets", "sample")

# (moment on the user's clock, the planted habit's target, what make-sample.py planted there)
MOMENTS = [
    ("2026-11-23T06:46", "com.example.weather:CheckWeatherIntent(location=cupertino)", "weekday: weather a few minutes after waking at ~06:50"),
    ("2026-11-23T07:28", "com.example.coffee:OrderCoffeeIntent(item=iced latte,size=large)", "weekday: a large iced latte ~07:35"),
    ("2026-11-23T09:10", "com.example.calendar:ViewAgendaIntent", "weekday: the agenda ~09:20"),
    ("2026-11-23T14:50", "com.example.reminders:ViewListIntent(list=work)", "weekday: the work list ~15:00"),
    ("2026-11-23T17:35", "com.example.podcasts:PlayMediaIntent(show=daily-tech)", "weekday: a podcast on the commute ~17:45"),
    ("2026-11-23T21:00", "com.example.messages:SendMessageIntent(recipient=bob@home.example)", "weekday evening: messages to Bob"),
    ("2026-11-21T08:42", "com.example.weather:CheckWeatherIntent(location=cupertino)", "Saturday: weather after waking ~08:45"),
    ("2026-11-21T09:50", "com.example.coffee:OrderCoffeeIntent(item=cappuccino,size=medium)", "Saturday: a medium cappuccino ~10:00"),
    ("2026-11-21T16:45", "com.example.fitness:StartWorkoutIntent(activity=run)", "weekend: a run ~17:00"),
    ("2026-11-22T21:30", "com.example.messages:SendMessageIntent(recipient=bob@home.example)", "weekend evening: messages to Bob"),
]


def run(binary, store, *args):
    env = dict(os.environ, PROACTIVE_STORE=store)
    return subprocess.run([binary, *args], env=env, check=True, capture_output=True, text=True).stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=os.environ.get("PROACTIVE_BIN", os.path.join(HERE, "..", ".build", "debug", "proactive")))
    parser.add_argument("--require", type=int, default=0)
    parser.add_argument("--without-focus-schedules", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = os.path.join(folder, "me.sqlite")
        run(options.binary, store, "import", os.path.join(SAMPLE, "donations.jsonl"), "--user-timezone", "me=America/Los_Angeles")
        run(options.binary, store, "definitions", "add", os.path.join(SAMPLE, "definitions.json"))
        with open(os.path.join(SAMPLE, "focus-schedules.txt"), encoding="utf-8") as schedules:
            for line in [] if options.without_focus_schedules else schedules:
                run(options.binary, store, "focus", "schedule", "add", *line.split(), "--timezone", "America/Los_Angeles")
        run(options.binary, store, "train")
        right = 0
        for at, expected, planted in MOMENTS:
            answer = json.loads(run(options.binary, store, "predict", "--user", "me", "--at", at, "-k", "3", "--json"))
            rows = answer["suggestions"]
            first = rows[0]["target"] if rows else None
            ok = first is not None and first.startswith(expected.split("(")[0]) and first == expected
            right += ok
            shown = ", ".join(f"{row['summary']} {row['probability']:.2f}" for row in rows)
            print(f"{'ok  ' if ok else 'MISS'} {at}  {planted}\n       answered: {shown}")
        print(f"{right} of {len(MOMENTS)} planted habits answered first")
    if options.require and right < options.require:
        print(f"FAILED: need at least {options.require} of {len(MOMENTS)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
