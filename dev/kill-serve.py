#!/usr/bin/env python3
"""Kills `proactive serve` with SIGKILL while clients stream donations, and
checks that every donation the server acknowledged (2xx) is stored exactly
once and the store passes PRAGMA integrity_check.

Two client threads post JSON Lines batches of donations with identifiers over
the Unix socket; a batch that fails (connection refused or reset, no answer,
a non-2xx status) is posted again, whole, once the server is back (a
re-posted donation already stored is answered "duplicate": acknowledged, not
stored twice). The killer restarts the server after each kill. Bounded: KILLS
kills (default 20), each after a random 0.1-0.8 s of serving; the clients stop
when the killer is done. Deterministic given the seed except for timing.

Usage: dev/kill-serve.py path/to/proactive [KILLS=20] [SEED=7]
"""
import http.client
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

BATCH = 25


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=5):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def post(sock_path, credential, body):
    """Returns the parsed answer of a 2xx, else None."""
    try:
        connection = UnixConnection(sock_path)
        connection.request("POST", "/v1/donations", body=body.encode(),
                           headers={"Authorization": "Bearer " + credential, "Content-Type": "application/x-ndjson"})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        if 200 <= response.status < 300:
            return json.loads(data)
        return None
    except (OSError, http.client.HTTPException, ValueError):
        return None


def main():
    binary = sys.argv[1]
    kills = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="kill-serve-")
    store = os.path.join(work, "store.sqlite")
    sock_path = os.path.join(work, "proactive.sock")
    subprocess.run([binary, "retention", "set", "--keep-all", "--store", store], check=True, capture_output=True)
    log = open(os.path.join(work, "serve.log"), "w")

    def start():
        process = subprocess.Popen([binary, "serve", "--store", store, "--socket", sock_path, "--log-level", "error"],
                                   stderr=log, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                probe = UnixConnection(sock_path, timeout=1)
                probe.request("GET", "/healthz")
                if probe.getresponse().status == 200:
                    return process
            except OSError:
                pass
            time.sleep(0.02)
        raise SystemExit("FAILED: the server did not come up")

    server = start()
    credential = open(store + ".owner-credential").read().strip()
    acknowledged = set()
    lock = threading.Lock()
    done = threading.Event()
    counters = {"batches": 0, "retries": 0}

    def client(index):
        name = f"c{index}"
        number = 0
        while not done.is_set():
            lines, ids = [], []
            for _ in range(BATCH):
                identifier = f"{name}-{number}"
                number += 1
                ids.append(identifier)
                lines.append(json.dumps({
                    "user": f"u{number % 7}", "app": "com.example.coffee", "intent": "OrderCoffeeIntent",
                    "parameters": {"item": rng.choice(["latte", "mocha", "tea"])},
                    "date": 1790000000 + number * 60 + index, "identifier": identifier}))
            body = "\n".join(lines)
            while True:
                answer = post(sock_path, credential, body)
                if answer is not None:
                    statuses = [result["status"] for result in answer["results"]]
                    if any(status not in ("stored", "duplicate") for status in statuses):
                        raise SystemExit(f"FAILED: a donation was rejected: {answer['results']}")
                    with lock:
                        acknowledged.update(ids)
                        counters["batches"] += 1
                    break
                with lock:
                    counters["retries"] += 1
                if done.is_set() and not server_alive():
                    return  # the last kill: this batch was never acknowledged
                time.sleep(0.02)

    def server_alive():
        return server.poll() is None

    threads = [threading.Thread(target=client, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for round_number in range(kills):
        time.sleep(rng.uniform(0.1, 0.8))
        server.kill()
        server.wait()
        server = start()
    time.sleep(0.3)
    done.set()
    for thread in threads:
        thread.join(timeout=30)
    server.terminate()
    code = server.wait(timeout=30)

    database = sqlite3.connect(store)
    integrity = database.execute("PRAGMA integrity_check").fetchone()[0]
    rows = database.execute("SELECT identifier, COUNT(*) FROM donation WHERE app = 'com.example.coffee' GROUP BY identifier").fetchall()
    counts = dict(rows)
    missing = [identifier for identifier in acknowledged if counts.get(identifier, 0) != 1]
    twice = [identifier for identifier, count in counts.items() if count > 1]
    print(f"{kills} kills, {counters['batches']} batches acknowledged ({len(acknowledged)} donations), "
          f"{counters['retries']} failed posts retried, {len(counts)} stored; integrity_check: {integrity}; "
          f"SIGTERM exit status {code}")
    problems = []
    if integrity != "ok":
        problems.append("integrity_check: " + integrity)
    if missing:
        problems.append(f"{len(missing)} acknowledged donations not stored exactly once, e.g. {missing[:3]}")
    if twice:
        problems.append(f"{len(twice)} identifiers stored more than once")
    if code != 0:
        problems.append(f"exit status {code} after SIGTERM")
    if len(acknowledged) == 0:
        problems.append("no batch was acknowledged")
    if problems:
        print("FAILED: " + "; ".join(problems), file=sys.stderr)
        sys.exit(1)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
