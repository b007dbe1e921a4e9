"""Clients that stream batches of donations with identifiers at `proactive serve` while something
breaks it (dev/kill-serve.py, scripts/multi-instance-checks.py), and the check that every
donation a server acknowledged is stored exactly once.

    flood = DonationFlood(post=lambda client, attempt, body: post_somewhere(body))
    flood.start()
    ...                                  # kill, restart, pause
    flood.stop()
    problems = flood.problems(stored)    # stored: identifier -> how many rows hold it

Each client posts BATCH donations a request (JSON Lines; users PREFIXu0..6, com.example.coffee's
OrderCoffeeIntent, a minute apart, identifiers PREFIX<client>-<n>). A batch that is not
acknowledged (`post` returns None) is posted again, whole, with the next attempt number; a
re-posted donation already stored is answered "duplicate": acknowledged, not stored twice. A
donation answered anything but "stored" or "duplicate" is a failure.
"""
import json
import random
import threading
import time

BATCH = 25


class DonationFlood:
    def __init__(self, post, clients=2, prefix="c", seed=7, give_up=lambda: False):
        """`post(client, attempt, body)` returns the parsed answer of a 2xx, else None; `give_up()`,
        asked after a failed post once `stop` was called, ends that client without its batch."""
        self.post, self.clients, self.prefix, self.seed, self.give_up = post, clients, prefix, seed, give_up
        self.acknowledged = set()
        self.batches = 0
        self.retries = 0
        self.rejected = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._threads = []

    def start(self):
        self._threads = [threading.Thread(target=self._client, args=(index,), daemon=True)
                         for index in range(self.clients)]
        for thread in self._threads:
            thread.start()

    def stop(self, timeout=60):
        self._done.set()
        for thread in self._threads:
            thread.join(timeout=timeout)

    def _client(self, index):
        rng = random.Random(self.seed * 1000 + index)
        number = 0
        while not self._done.is_set():
            lines, ids = [], []
            for _ in range(BATCH):
                identifier = f"{self.prefix}{index}-{number}"
                number += 1
                ids.append(identifier)
                lines.append(json.dumps({
                    "user": f"{self.prefix}u{number % 7}", "app": "com.example.coffee", "intent": "OrderCoffeeIntent",
                    "parameters": {"item": rng.choice(["latte", "mocha", "tea"])},
                    "date": 1790000000 + number * 60 + index, "identifier": identifier}))
            body = "\n".join(lines)
            attempt = 0
            while True:
                answer = self.post(index, attempt, body)
                if answer is not None:
                    statuses = [result["status"] for result in answer["results"]]
                    with self._lock:
                        if any(status not in ("stored", "duplicate") for status in statuses):
                            self.rejected.append(answer["results"])
                        self.acknowledged.update(ids)
                        self.batches += 1
                    break
                with self._lock:
                    self.retries += 1
                attempt += 1
                if self._done.is_set() and self.give_up():
                    return  # this batch was never acknowledged
                time.sleep(0.02)

    def summary(self):
        return (f"{self.batches} batches acknowledged ({len(self.acknowledged)} donations), "
                f"{self.retries} failed posts retried")

    def problems(self, stored):
        """What breaks the promise, given `stored` (identifier -> rows holding it): [] when every
        acknowledged donation is stored exactly once and none was rejected."""
        problems = []
        if self.rejected:
            problems.append(f"donations were rejected: {self.rejected[0]}")
        if not self.acknowledged:
            problems.append("no batch was acknowledged")
        missing = [identifier for identifier in self.acknowledged if stored.get(identifier, 0) != 1]
        if missing:
            problems.append(f"{len(missing)} acknowledged donations not stored exactly once, e.g. {missing[:3]}")
        twice = [identifier for identifier, count in stored.items() if count > 1]
        if twice:
            problems.append(f"{len(twice)} identifiers stored more than once")
        return problems
