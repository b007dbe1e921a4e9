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
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
from donation_flood import DonationFlood  # noqa: E402  (scripts/donation_flood.py)
from unix_http import UnixConnection  # noqa: E402  (scripts/unix_http.py)


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
    flood = DonationFlood(post=lambda client, attempt, body: post(sock_path, credential, body), prefix="c", seed=seed,
                          give_up=lambda: server.poll() is not None)
    flood.start()
    for round_number in range(kills):
        time.sleep(rng.uniform(0.1, 0.8))
        server.kill()
        server.wait()
        server = start()
    time.sleep(0.3)
    flood.stop(timeout=30)
    server.terminate()
    code = server.wait(timeout=30)

    database = sqlite3.connect(store)
    integrity = database.execute("PRAGMA integrity_check").fetchone()[0]
    rows = database.execute("SELECT identifier, COUNT(*) FROM donation WHERE app = 'com.example.coffee' GROUP BY identifier").fetchall()
    counts = dict(rows)
    print(f"{kills} kills, {flood.summary()}, {len(counts)} stored; integrity_check: {integrity}; "
          f"SIGTERM exit status {code}")
    problems = flood.problems(counts)
    if integrity != "ok":
        problems.append("integrity_check: " + integrity)
    if code != 0:
        problems.append(f"exit status {code} after SIGTERM")
    if problems:
        print("FAILED: " + "; ".join(problems), file=sys.stderr)
        sys.exit(1)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
