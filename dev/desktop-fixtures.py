"""Writes three weeks of one made-up desktop person in each format the desktop importers read
(datasets/desktop/, docs/DESKTOP.md), written by the real tools where they run here.

Usage: python3 dev/desktop-fixtures.py OUT_DIR AW_PYTHON AW_SERVER
  AW_PYTHON, AW_SERVER: .venv-aw/bin/python and .venv-aw/bin/aw-server (scripts/desktop-checks.sh installs them)

- zsh_history: written by zsh itself (EXTENDED_HISTORY), one `zsh -i` per command with its clock
  set by libfaketime (Debian's faketime package) to the command's time;
- fish_history, bash_history: the documented formats (fish needs a terminal to save history, and
  bash's history clock is not moved by libfaketime);
- places.sqlite, History: Firefox's and Chromium's tables (the schemas of
  Tests/ProactiveStoreTests/BrowserHistoryReaderTests.swift), filled with SQL;
- aw-export.json: posted with aw-client to a real aw-server (memory storage, a private port), then
  GET /api/0/export.

The person (seed 46, times in UTC, Monday 2026-11-02 to Sunday 2026-11-22): weekday mornings mail,
then chat, then work in an editor, terminal and browser; lunch away from the desk; a stand-up at
10:00 in the browser; evenings music and video; weekends light. Habits hold with noise: about one
switch in four is off-habit.
"""
import json
import os
import random
import shlex
import sqlite3
import subprocess
import sys
import time
import urllib.request
from datetime import datetime, timedelta, timezone

SEED = 46
START = datetime(2026, 11, 2, tzinfo=timezone.utc)
DAYS = 21
FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"


def day_plan(rng, day):
    """(minute of day, app) switches of one day."""
    weekend = (START + timedelta(days=day)).weekday() >= 5
    plan = []
    minute = rng.randint(500, 520) if not weekend else rng.randint(560, 620)
    if weekend:
        for app in ["firefox", "spotify", "firefox", "thunderbird"]:
            plan.append((minute, app))
            minute += rng.randint(20, 60)
        for app in ["firefox", "mpv", "spotify"]:
            plan.append((minute + 600, app))
            minute += rng.randint(20, 40)
        return plan
    for app in ["thunderbird", "slack", "code"]:
        plan.append((minute, app))
        minute += rng.randint(5, 15)
    plan.append((600, "firefox"))  # stand-up
    minute = 620
    work = ["code", "Alacritty", "code", "firefox", "Alacritty", "code"]
    while minute < 720:
        app = rng.choice(work) if rng.random() < 0.75 else rng.choice(["slack", "thunderbird", "spotify"])
        plan.append((minute, app))
        minute += rng.randint(4, 20)
    minute = 780 + rng.randint(0, 15)  # back from lunch
    plan.append((minute, "slack"))
    minute += 5
    while minute < 1050:
        app = rng.choice(work) if rng.random() < 0.75 else rng.choice(["slack", "thunderbird", "spotify"])
        plan.append((minute, app))
        minute += rng.randint(4, 25)
    plan.append((1080 + rng.randint(0, 30), "spotify"))
    plan.append((1200 + rng.randint(0, 30), "firefox"))
    plan.append((1230 + rng.randint(0, 30), "mpv"))
    return plan


SITES = {"morning": ["mail.example.com", "github.com", "news.ycombinator.com"],
         "work": ["github.com", "docs.rs", "stackoverflow.com", "github.com", "meet.example.com"],
         "evening": ["youtube.com", "news.ycombinator.com", "en.wikipedia.org"]}
COMMANDS = ["git status", "git pull --rebase", "git commit -am wip", "git push", "cd ~/src/proactive",
            "swift build", "swift test --filter Importers", "ssh build-box", "vim Package.swift", "ls -la",
            "docker compose up -d", "git log --oneline -5", "make docs"]


VERBS = ["fix", "add", "tidy", "test", "document", "speed up"]
THINGS = ["importer", "launcher", "follow loop", "browser reader", "summary", "checkpoint"]


def main():
    out, aw_python, aw_server = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(SEED)
    switches, commands, visits = [], [], []
    for day in range(DAYS):
        base = START + timedelta(days=day)
        plan = day_plan(rng, day)
        for index, (minute, app) in enumerate(plan):
            at = base + timedelta(minutes=minute, seconds=rng.randint(0, 59))
            following = plan[index + 1][0] if index + 1 < len(plan) else minute + 30
            duration = max(8, (following - minute) * 60 - rng.randint(0, 30))
            switches.append((at, duration, app))
            if app == "Alacritty":
                for step in range(rng.randint(2, 5)):
                    command = COMMANDS[min(len(COMMANDS) - 1, int(rng.expovariate(0.35)))]
                    # What never repeats: a commit's message, the day's notes file.
                    if command == "git commit -am wip":
                        command = f'git commit -am "{rng.choice(VERBS)} {rng.choice(THINGS)} {len(commands)}"'
                    elif command == "vim Package.swift":
                        command = f"vim notes/day-{day + 1}-{step}.md"
                    commands.append((at + timedelta(seconds=20 + 40 * step), command))
            if app == "firefox":
                period = "morning" if minute < 600 else "work" if minute < 1080 else "evening"
                for step in range(rng.randint(1, 3)):
                    visits.append((at + timedelta(seconds=5 + 90 * step), rng.choice(SITES[period]), 2 if step == 0 else 1))
    commands.sort()
    visits.sort()
    write_zsh(os.path.join(out, "zsh_history"), commands)
    write_fish(os.path.join(out, "fish_history"), commands)
    write_bash(os.path.join(out, "bash_history"), commands)
    write_firefox(os.path.join(out, "places.sqlite"), visits)
    write_chromium(os.path.join(out, "History"), visits)
    write_activitywatch(os.path.join(out, "aw-export.json"), switches, aw_python, aw_server)
    print(f"{len(switches)} switches, {len(commands)} commands, {len(visits)} visits", file=sys.stderr)


def write_zsh(path, commands):
    if os.path.exists(path):
        os.remove(path)
    env = dict(os.environ, TZ="UTC", HISTFILE=path, SAVEHIST="100000", HISTSIZE="100000", LD_PRELOAD=FAKETIME)
    for at, command in commands:
        env["FAKETIME"] = "@" + at.strftime("%Y-%m-%d %H:%M:%S")
        # The command is put in the history (print -s), not run; the line that does it starts with a
        # space, which HIST_IGNORE_SPACE keeps out of the history.
        subprocess.run(["zsh", "-f", "-i", "-o", "EXTENDED_HISTORY", "-o", "INC_APPEND_HISTORY", "-o", "HIST_IGNORE_SPACE"],
                       input=(" print -s -- " + shlex.quote(command) + "\n").encode(), env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def write_fish(path, commands):
    with open(path, "w") as f:
        for at, command in commands:
            f.write(f"- cmd: {command}\n  when: {int(at.timestamp())}\n")


def write_bash(path, commands):
    with open(path, "w") as f:
        for at, command in commands:
            f.write(f"#{int(at.timestamp())}\n{command}\n")


def browser_schema(name):
    text = open(os.path.join(os.path.dirname(__file__), "..", "Tests", "ProactiveStoreTests", "BrowserHistoryReaderTests.swift")).read()
    start = text.index(f"static let {name} = \"\"\"") + len(f"static let {name} = \"\"\"")
    return text[start:text.index('"""', start)]


def write_firefox(path, visits):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(browser_schema("firefoxSchema"))
    places = {}
    for at, site, visit_type in visits:
        url = f"https://{site}/"
        if url not in places:
            places[url] = db.execute("INSERT INTO moz_places (url, rev_host) VALUES (?, '')", (url,)).lastrowid
        db.execute("INSERT INTO moz_historyvisits (place_id, visit_date, visit_type, session) VALUES (?, ?, ?, 0)",
                   (places[url], int(at.timestamp()) * 1_000_000, visit_type))
    db.commit()
    db.close()


def write_chromium(path, visits):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(browser_schema("chromiumSchema"))
    urls = {}
    for at, site, visit_type in visits:
        url = f"https://{site}/"
        microseconds = (int(at.timestamp()) + 11_644_473_600) * 1_000_000
        if url not in urls:
            urls[url] = db.execute("INSERT INTO urls (url, title, last_visit_time) VALUES (?, '', ?)", (url, microseconds)).lastrowid
        transition = 1 if visit_type == 2 else 0  # TYPED, LINK
        db.execute("INSERT INTO visits (url, visit_time, transition) VALUES (?, ?, ?)", (urls[url], microseconds, transition | 0x30000000))
    db.commit()
    db.close()


def write_activitywatch(path, switches, aw_python, aw_server):
    port = 15846
    server = subprocess.Popen([aw_server, "--testing", "--storage", "memory", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/0/info", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        events = [{"timestamp": at.isoformat(), "duration": duration, "app": app} for at, duration, app in switches]
        away = []
        for day in range(DAYS):  # lunch away on weekdays, nights away
            base = START + timedelta(days=day)
            if base.weekday() < 5:
                away.append({"timestamp": (base + timedelta(hours=12, minutes=5)).isoformat(), "duration": 3000})
        poster = f"""
import json, sys
from datetime import datetime
from aw_client import ActivityWatchClient
from aw_core.models import Event
c = ActivityWatchClient("desktop-fixtures", testing=True, port={port})
c.create_bucket("aw-watcher-window_desk", "currentwindow")
c.create_bucket("aw-watcher-afk_desk", "afkstatus")
data = json.load(sys.stdin)
c.insert_events("aw-watcher-window_desk", [Event(timestamp=datetime.fromisoformat(e["timestamp"]), duration=e["duration"],
                data={{"app": e["app"], "title": e["app"]}}) for e in data["events"]])
c.insert_events("aw-watcher-afk_desk", [Event(timestamp=datetime.fromisoformat(e["timestamp"]), duration=e["duration"],
                data={{"status": "afk"}}) for e in data["away"]])
"""
        subprocess.run([aw_python, "-c", poster], input=json.dumps({"events": events, "away": away}).encode(), check=True)
        export = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/0/export", timeout=30).read()
        with open(path, "wb") as f:
            f.write(export)
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
