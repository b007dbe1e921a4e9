"""Posts window and AFK events to an ActivityWatch server with its own client (aw-client).

Usage: aw_feed.py PORT setup            -- creates the buckets
       aw_feed.py PORT switches N SEED  -- posts N app switches after the last one posted (each 20-90 s long)
       aw_feed.py PORT open APP         -- a window of APP comes to the front now-ish and stays (heartbeats)
       aw_feed.py PORT expected         -- prints the switches the rules keep (one identifier a line)

The switches are deterministic for a seed; their times start at 2026-12-01T08:00Z and follow each
other. `expected` applies the documented rules (dwell >= 5 s, a repeat of the previous kept app
folded, nothing AFK here) to the bucket's events as the server returns them, so the check compares
what `proactive follow activitywatch` stored with what the server holds.
"""
import random
import sys
from datetime import datetime, timedelta, timezone

from aw_client import ActivityWatchClient
from aw_core.models import Event

WINDOW = "aw-watcher-window_checkhost"
AFK = "aw-watcher-afk_checkhost"
APPS = ["firefox", "Alacritty", "code", "thunderbird", "org.gnome.Nautilus", "slack"]


def client(port):
    return ActivityWatchClient("proactive-check", testing=True, port=int(port))


def last_end(c):
    events = c.get_events(WINDOW, limit=1)
    if not events:
        return datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc)
    return events[0].timestamp + events[0].duration


def main():
    port, command = sys.argv[1], sys.argv[2]
    c = client(port)
    if command == "setup":
        c.create_bucket(WINDOW, "currentwindow")
        c.create_bucket(AFK, "afkstatus")
        c.insert_event(AFK, Event(timestamp=datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc), duration=86400,
                                  data={"status": "not-afk"}))
    elif command == "switches":
        count, seed = int(sys.argv[3]), int(sys.argv[4])
        rng = random.Random(seed)
        start = last_end(c)
        events = []
        for _ in range(count):
            duration = rng.choice([2, 3, 20, 45, 90])  # 2 and 3 s: passed over (below the 5 s dwell)
            events.append(Event(timestamp=start, duration=duration, data={"app": rng.choice(APPS), "title": "t"}))
            start += timedelta(seconds=duration)
        c.insert_events(WINDOW, events)
    elif command == "open":
        start = last_end(c)
        for second in range(0, 7):
            c.heartbeat(WINDOW, Event(timestamp=start + timedelta(seconds=second), duration=0,
                                      data={"app": sys.argv[3], "title": "now"}), pulsetime=2)
    elif command == "expected":
        events = sorted(c.get_events(WINDOW, limit=-1), key=lambda e: e.timestamp)
        last_app = None
        for index, event in enumerate(events):
            seconds = event.duration.total_seconds()
            if seconds < 5:
                continue
            if event.data["app"] == last_app:
                continue
            last_app = event.data["app"]
            print(f"activitywatch/{WINDOW}/{int(round(event.timestamp.timestamp() * 1000))}")
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
