#!/usr/bin/env python3
"""Generate the bundled sample: four weeks of one person's donations.

Deterministic (fixed seed, no clock reads): running it again rewrites the
same bytes. The person lives in America/Los_Angeles (the log carries the
local offset, so daylight saving ends mid-log on 2026-11-01) and follows
the routine from the talks:

  weekdays  wake ~06:50, check the weather for Cupertino within minutes;
            order a large iced latte ~07:35 (the coffee app also donates a
            `date` parameter, which the definitions leave out of the
            supported combination -- `proactive lint` flags it);
            look at the calendar before the first meeting ~09:20;
            Work Focus 09:00-17:30 with messages to Alice (a colleague);
            card purchases at lunch, then a look at Recent Purchases;
            the work reminders list ~15:00; a podcast on the commute
            ~17:45; Personal Focus in the evening with messages to Bob.
  weekends  wake later (~08:45), weather, a medium cappuccino on Saturday,
            a run with the fitness app at ~17:00 and a look at the rain
            forecast in the evening.
  noise     occasional San Diego weather checks (group "san-diego", for
            the delete-by-group example) and random app opens.

Writes datasets/sample/donations.jsonl (canonical JSON Lines, see
docs/FORMATS.md), datasets/sample/definitions.json, and
datasets/sample/focus-schedules.txt: the person's Focus schedules, which
set the Focus of every donation, one `proactive focus schedule add` per line
(FOCUS, --days, --start, --end; America/Los_Angeles), so a store of the
sample knows which Focus is on at a question as the device did.

Usage: python3 scripts/make-sample.py [--out DIR] [--days N] [--seed S]
"""
import argparse
import datetime as dt
import json
import os
import random
from zoneinfo import ZoneInfo

ZONE = ZoneInfo("America/Los_Angeles")
USER = "me"

DEFINITIONS = [
    {"app": "com.example.weather", "intents": [{
        "name": "CheckWeatherIntent",
        "parameters": [{"name": "location", "type": "entity", "entityType": "City"}],
        "combinations": [{"parameters": ["location"], "summary": "Weather in ${location}"}],
        "widgetKind": "com.example.weather.forecast"}]},
    {"app": "com.example.coffee", "intents": [{
        "name": "OrderCoffeeIntent",
        "parameters": [{"name": "item", "type": "string"},
                       {"name": "size", "type": "enum", "cases": ["small", "medium", "large"]},
                       {"name": "date", "type": "date"}],
        "combinations": [{"parameters": ["item", "size"], "summary": "Order a ${size} ${item}"},
                         {"parameters": ["item"], "summary": "Order a ${item}"}],
        "migratesFrom": "LegacyOrderCoffeeIntent"}]},
    {"app": "com.example.calendar", "intents": [{
        "name": "ViewAgendaIntent", "parameters": [],
        "combinations": [{"parameters": [], "summary": "Today's agenda"}],
        "widgetKind": "com.example.calendar.upnext"}]},
    {"app": "com.example.reminders", "intents": [{
        "name": "ViewListIntent",
        "parameters": [{"name": "list", "type": "entity", "entityType": "ReminderList"}],
        "combinations": [{"parameters": ["list"], "summary": "Reminders: ${list}"}],
        "widgetKind": "com.example.reminders.list"}]},
    {"app": "com.example.bank", "intents": [{
        "name": "ViewRecentPurchasesIntent",
        "parameters": [{"name": "card", "type": "entity", "entityType": "Card"},
                       {"name": "category", "type": "enum", "cases": ["all", "food", "travel"]}],
        "combinations": [{"parameters": ["card", "category"], "summary": "Recent ${category} purchases on ${card}"},
                         {"parameters": ["card"], "summary": "Recent purchases on ${card}"}],
        "widgetKind": "com.example.bank.recentpurchases"}]},
    {"app": "com.example.messages", "intents": [{
        "name": "SendMessageIntent", "kind": "sendMessage",
        "parameters": [{"name": "recipient", "type": "entity", "entityType": "Person"},
                       {"name": "account", "type": "enum", "cases": ["work", "personal"]}],
        "combinations": [{"parameters": ["recipient"], "summary": "Message ${recipient}"}]}]},
    {"app": "com.example.podcasts", "intents": [{
        "name": "PlayMediaIntent",
        "parameters": [{"name": "show", "type": "entity", "entityType": "Show"}],
        "combinations": [{"parameters": ["show"], "summary": "Play ${show}"}]}]},
    {"app": "com.example.fitness", "intents": [{
        "name": "StartWorkoutIntent",
        "parameters": [{"name": "activity", "type": "enum", "cases": ["run", "walk", "cycle"]}],
        "combinations": [{"parameters": ["activity"], "summary": "Start a ${activity}"}],
        "widgetKind": "com.example.fitness.rings"}]},
]

CUPERTINO = {"id": "cupertino", "display": "Cupertino"}
SAN_DIEGO = {"id": "san-diego", "display": "San Diego"}
ALICE = {"id": "alice@work.example", "display": "Alice Chen"}
BOB = {"id": "bob@home.example", "display": "Bob Rivera"}
CAROL = {"id": "carol@work.example", "display": "Carol Diaz"}
VISA = {"id": "visa-4242", "display": "Visa 4242"}
WORK_LIST = {"id": "work", "display": "Work"}
HOME_LIST = {"id": "home", "display": "Home"}
SHOW = {"id": "daily-tech", "display": "Daily Tech"}
RANDOM_APPS = ["com.example.news", "com.example.photos", "com.example.maps", "com.example.notes"]


class Log:
    def __init__(self, rng):
        self.rng = rng
        self.rows = []

    def identifier(self):
        return "%08X-%04X-%04X" % (self.rng.getrandbits(32), self.rng.getrandbits(16), self.rng.getrandbits(16))

    def add(self, when, app, intent, parameters=None, group=None, focus=None, place=None):
        local = when.replace(microsecond=0)
        offset = local.utcoffset()
        minutes = int(offset.total_seconds() // 60)
        sign = "-" if minutes < 0 else "+"
        date = local.strftime("%Y-%m-%dT%H:%M:%S") + "%s%02d:%02d" % (sign, abs(minutes) // 60, abs(minutes) % 60)
        row = {"user": USER, "app": app, "intent": intent}
        if parameters:
            row["parameters"] = {k: parameters[k] for k in sorted(parameters)}
        row["date"] = date
        row["identifier"] = self.identifier()
        if group:
            row["group"] = group
        context = {}
        if focus:
            context["focus"] = focus
        if place:
            context["place"] = place
        if context:
            row["context"] = {k: context[k] for k in sorted(context)}
        self.rows.append((local.timestamp(), row))


def at(day, hour, minute, rng, jitter):
    base = dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZONE)
    return base + dt.timedelta(minutes=rng.gauss(0, jitter), seconds=rng.randrange(60))


# The person's Focus schedules (FOCUS, days, start, end; local time): the Focus of every donation.
FOCUS_SCHEDULES = [("sleep", "daily", "23:00", "06:30"), ("work", "Mon-Fri", "09:00", "17:30"),
                   ("personal", "daily", "18:00", "23:00")]


def focus_at(when, weekday):
    """The Focus FOCUS_SCHEDULES put on at `when` (a schedule ending after midnight runs on
    from the day before), or None."""
    minute = when.hour * 60 + when.minute
    for focus, days, start, end in FOCUS_SCHEDULES:
        first, last = (int(t[:2]) * 60 + int(t[3:]) for t in (start, end))
        on_day = days == "daily" or weekday < 5
        if first < last and on_day and first <= minute < last:
            return focus
        if first >= last and (minute >= first or minute < last):
            return focus
    return None


def generate(days, seed, first_day):
    rng = random.Random(seed)
    log = Log(rng)
    for offset in range(days):
        day = first_day + dt.timedelta(days=offset)
        weekday = day.weekday()
        weekend = weekday >= 5

        def add(when, app, intent, parameters=None, group=None, place=None):
            log.add(when, app, intent, parameters, group, focus_at(when, weekday), place)

        wake = at(day, 8 if weekend else 6, 45 if weekend else 50, rng, 12 if weekend else 6)
        add(wake + dt.timedelta(minutes=rng.uniform(1, 6)), "com.example.weather", "CheckWeatherIntent",
            {"location": CUPERTINO}, group="cupertino", place="home")
        if not weekend and rng.random() < 0.92:
            when = at(day, 7, 35, rng, 6)
            add(when, "com.example.coffee", "OrderCoffeeIntent",
                {"item": "iced latte", "size": "large", "date": when.strftime("%Y-%m-%d")}, place="home")
        if weekday == 5:
            when = at(day, 10, 0, rng, 15)
            add(when, "com.example.coffee", "OrderCoffeeIntent",
                {"item": "cappuccino", "size": "medium", "date": when.strftime("%Y-%m-%d")}, place="cafe")
        if not weekend:
            add(at(day, 9, 20, rng, 8), "com.example.calendar", "ViewAgendaIntent", place="office")
            for _ in range(rng.randint(2, 4)):
                who = ALICE if rng.random() < 0.8 else CAROL
                add(at(day, rng.randint(9, 16), rng.randrange(60), rng, 5), "com.example.messages", "SendMessageIntent",
                    {"recipient": who, "account": "work"}, place="office")
            if rng.random() < 0.75:
                add(at(day, 12, 40, rng, 10), "com.example.bank", "ViewRecentPurchasesIntent",
                    {"card": VISA, "category": "all"}, place="office")
            if rng.random() < 0.85:
                add(at(day, 15, 0, rng, 6), "com.example.reminders", "ViewListIntent", {"list": WORK_LIST}, place="office")
            if rng.random() < 0.8:
                add(at(day, 17, 45, rng, 8), "com.example.podcasts", "PlayMediaIntent", {"show": SHOW}, place="commute")
        else:
            if rng.random() < 0.7:
                add(at(day, 11, 0, rng, 40), "com.example.reminders", "ViewListIntent", {"list": HOME_LIST}, place="home")
            add(at(day, 17, 0, rng, 20), "com.example.fitness", "StartWorkoutIntent", {"activity": "run"}, place="park")
            add(at(day, 19, 30, rng, 30), "com.example.weather", "CheckWeatherIntent",
                {"location": CUPERTINO}, group="cupertino", place="home")
        for _ in range(rng.randint(1, 3)):
            add(at(day, rng.randint(19, 22), rng.randrange(60), rng, 5), "com.example.messages", "SendMessageIntent",
                {"recipient": BOB, "account": "personal"}, place="home")
        if rng.random() < 0.15:
            add(at(day, rng.randint(10, 20), rng.randrange(60), rng, 5), "com.example.weather", "CheckWeatherIntent",
                {"location": SAN_DIEGO}, group="san-diego")
        for _ in range(rng.randint(0, 2)):
            add(at(day, rng.randint(8, 22), rng.randrange(60), rng, 5), rng.choice(RANDOM_APPS), "open")
    log.rows.sort(key=lambda item: item[0])
    return [row for _, row in log.rows]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "..", "datasets", "sample"))
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--seed", type=int, default=20261120)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    # Four weeks ending on Friday 2026-11-20, the day the talks' examples play out.
    first_day = dt.date(2026, 11, 20) - dt.timedelta(days=args.days - 1)
    rows = generate(args.days, args.seed, first_day)
    with open(os.path.join(args.out, "donations.jsonl"), "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    with open(os.path.join(args.out, "definitions.json"), "w", encoding="utf-8") as handle:
        json.dump(DEFINITIONS, handle, indent=2)
        handle.write("\n")
    with open(os.path.join(args.out, "focus-schedules.txt"), "w", encoding="utf-8") as handle:
        for focus, days, start, end in FOCUS_SCHEDULES:
            handle.write(f"{focus} --days {days} --start {start} --end {end}\n")
    print("wrote %d donations over %d days to %s" % (len(rows), args.days, os.path.normpath(args.out)))


if __name__ == "__main__":
    main()
