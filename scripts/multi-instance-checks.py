#!/usr/bin/env python3
"""What several `proactive serve` instances on one PostgreSQL database promise
(issue #30), checked end to end on a private cluster of their own
(scripts/postgres-cluster.sh: a Unix socket, no TCP; stopped at exit):

1. one truth: a user whose model instance B holds in memory is donated to
   through instance A; B's next answer follows the new donations;
2. erasure everywhere: a user both instances have answered for is erased
   with `proactive forget` (another process); both answer 404 (no
   donations) at once, and after both stop (saving their models) and
   `proactive compact`, no row of any table (pg_dump) and no table or index
   file of the database holds the user's marker;
3. crashes: instance A is killed with SIGKILL KILLS times (default 20) while
   two clients stream donations with identifiers through A and B (a batch
   that fails is posted again, through either); every acknowledged donation
   is stored exactly once;
4. a partition: the whole server (postmaster and every backend) is paused
   with SIGSTOP for 5 s; every request in the pause is answered, within its
   deadline, 503 with Retry-After, not a hang and not a stale answer; after
   SIGCONT both instances answer 200 again within 10 s.

Bounded: loopback Unix sockets only, every request with a timeout, the
flood KILLS kills of 0.1-0.8 s each. Deterministic given the seed except
for timing.

Usage: scripts/multi-instance-checks.py path/to/proactive [KILLS=20] [SEED=11]
"""
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

from donation_flood import DonationFlood  # scripts/donation_flood.py, beside this file
from unix_http import UnixConnection  # scripts/unix_http.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAY = 86400
START = 1790000000  # 2026-09-21T13:33:20Z; the donations' dates count from here


def request(sock_path, method, path, credential=None, body=None, content_type="application/json", timeout=15):
    """Returns (status, headers, parsed JSON or text); status None when no answer came (refused, reset, timeout)."""
    try:
        connection = UnixConnection(sock_path, timeout)
        headers = {"Content-Type": content_type}
        if credential:
            headers["Authorization"] = "Bearer " + credential
        connection.request(method, path, body=body.encode() if body is not None else None, headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data.decode(errors="replace")
        return response.status, dict(response.getheaders()), parsed
    except (OSError, http.client.HTTPException):
        return None, {}, None


def fail(message):
    raise SystemExit("FAILED: " + message)


class Cluster:
    """A private PostgreSQL cluster in a folder of its own (scripts/postgres-cluster.sh)."""

    def __init__(self, work):
        self.dir = os.path.join(work, "cluster")
        script = os.path.join(ROOT, "scripts", "postgres-cluster.sh")
        self.script = script
        self.url = subprocess.run(["bash", script, "start", self.dir], check=True, capture_output=True,
                                  text=True).stdout.strip()

    def psql(self, sql):
        return subprocess.run(["psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", self.url, "-c", sql],
                              check=True, capture_output=True, text=True).stdout.strip()

    def server_pids(self):
        """The postmaster and every process it started (backends, background workers)."""
        with open(os.path.join(self.dir, "data", "postmaster.pid")) as file:
            postmaster = int(file.readline())
        children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
        return [postmaster] + [int(pid) for pid in children]

    def data_files(self):
        """Every table, index and TOAST file of the cluster's databases (base/), not the WAL."""
        base = os.path.join(self.dir, "data", "base")
        for folder, _, names in os.walk(base):
            for name in names:
                yield os.path.join(folder, name)

    def stop(self):
        subprocess.run(["bash", self.script, "stop", self.dir], capture_output=True)


class Instance:
    """One `proactive serve` on the database, on a socket of its own."""

    def __init__(self, binary, url, work, name, credential_file):
        self.binary, self.url, self.name = binary, url, name
        self.sock = os.path.join(work, name + ".sock")
        self.log_path = os.path.join(work, name + ".log")
        self.credential_file = credential_file
        self.process = None

    def start(self):
        log = open(self.log_path, "a")
        command = [self.binary, "serve", "--database", self.url + "&timeout=1", "--socket", self.sock, "--log-level", "error",
                   "--save-every", "1"]
        command += owner_credential_options(self.credential_file)
        self.process = subprocess.Popen(command, stderr=log, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.process.poll() is not None:
                fail(f"instance {self.name} exited {self.process.returncode}: {open(self.log_path).read()[-2000:]}")
            status, _, _ = request(self.sock, "GET", "/healthz", timeout=1)
            if status == 200:
                return
            time.sleep(0.02)
        fail(f"instance {self.name} did not come up on {self.sock}")

    def kill(self):
        self.process.kill()
        self.process.wait()

    def terminate(self):
        self.process.terminate()
        code = self.process.wait(timeout=60)
        if code != 0:
            fail(f"instance {self.name} exited {code} after SIGTERM: {open(self.log_path).read()[-2000:]}")


def owner_credential_options(path):
    """The serve options that make (or read) the owner's credential for a database store."""
    return ["--owner-credential-file", path]


def donation(user, item, date, identifier=None, marker=None):
    parameters = {"item": item}
    if marker:
        parameters["note"] = marker
    record = {"user": user, "app": "com.example.coffee", "intent": "OrderCoffeeIntent", "parameters": parameters,
              "date": date}
    if identifier:
        record["identifier"] = identifier
    return json.dumps(record)


def post_batch(instance, credential, body, timeout=15):
    """Posts JSON Lines (a string, or a list of lines)."""
    if not isinstance(body, str):
        body = "\n".join(body)
    return request(instance.sock, "POST", "/v1/donations", credential, body, "application/x-ndjson", timeout)


def suggest(instance, credential, user, at, timeout=15):
    """Suggestions for `user` at `at` (Unix seconds)."""
    moment = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    return request(instance.sock, "POST", "/v1/suggestions", credential,
                   json.dumps({"user": user, "at": moment, "k": 3}), timeout=timeout)


def top_item(answer):
    suggestions = answer.get("suggestions") or []
    return suggestions[0]["target"] if suggestions else None


def check_one_truth(a, b, credential):
    print("== multi-instance: donations through A are in B's next answer")
    # Morning tea for two weeks, through B, and B answers (it now holds the user's live model).
    tea = [donation("ana", "tea", START + day * DAY) for day in range(14)]
    status, _, answer = post_batch(b, credential, tea)
    if status != 200:
        fail(f"B stored tea: {status} {answer}")
    at = START + 20 * DAY
    status, _, answer = suggest(b, credential, "ana", at)
    if status != 200 or "tea" not in (top_item(answer) or ""):
        fail(f"B's first answer: {status} {answer}")
    # Then a month of lattes, twice a day, through A.
    lattes = [donation("ana", "latte", START + 14 * DAY + day * DAY // 2) for day in range(60)]
    status, _, answer = post_batch(a, credential, lattes)
    if status != 200:
        fail(f"A stored lattes: {status} {answer}")
    status, _, answer = suggest(b, credential, "ana", START + 45 * DAY)
    if status != 200 or "latte" not in (top_item(answer) or ""):
        fail(f"B did not see A's donations: {status} {answer}")
    print(f"   B answered {top_item(answer)} after A stored 60 lattes (it answered tea before)")


def check_erasure(cluster, binary, a, b, credential, work):
    print("== multi-instance: `proactive forget` through the CLI is unlearned by both, and leaves no byte")
    marker = "zq" + "".join(random.Random(5).choice("bcdfghjklmnpqrstvwxz") for _ in range(14))
    user = "erased-" + marker
    lines = [donation(user, "mocha", START + day * DAY + 3600, marker=marker) for day in range(10)]
    for instance in (a, b):
        status, _, answer = post_batch(instance, credential, lines[:5] if instance is a else lines[5:])
        if status != 200:
            fail(f"{instance.name} stored the user's donations: {status} {answer}")
    for instance in (a, b):
        status, _, answer = suggest(instance, credential, user, START + 12 * DAY)
        if status != 200 or not answer.get("suggestions"):
            fail(f"{instance.name} before forget: {status} {answer}")
    forget = subprocess.run([binary, "forget", "--user", user, "--database", cluster.url], capture_output=True,
                            text=True)
    if forget.returncode != 0:
        fail(f"proactive forget: {forget.stderr}")
    for instance in (a, b):
        status, _, answer = suggest(instance, credential, user, START + 12 * DAY)
        if status != 404:
            fail(f"{instance.name} still answers for the erased user: {status} {answer}")
    print("   A and B answer 404 for the erased user right after `forget` in another process")
    return marker


def check_no_bytes(cluster, binary, marker):
    compact = subprocess.run([binary, "compact", "--database", cluster.url], capture_output=True, text=True)
    if compact.returncode != 0:
        fail(f"proactive compact: {compact.stderr}")
    dump = subprocess.run(["pg_dump", "--data-only", cluster.url], check=True, capture_output=True).stdout
    if marker.encode() in dump:
        fail("a row still holds the erased user's marker (pg_dump)")
    holding = [path for path in cluster.data_files() if marker.encode() in open(path, "rb").read()]
    if holding:
        fail(f"table or index files hold the erased user's marker after compact: {holding}")
    print(f"   after both saved and `compact`: no row (pg_dump, {len(dump)} bytes) and none of "
          f"{sum(1 for _ in cluster.data_files())} table and index files holds the marker")


def check_kill_flood(cluster, a, b, credential, kills, rng):
    print(f"== multi-instance: SIGKILL A {kills} times while two clients stream through A and B")
    clients = (a, b)

    def post(client, attempt, body):  # a batch that fails is posted again through the other instance
        status, _, answer = post_batch(clients[(client + attempt) % 2], credential, body, timeout=10)
        return answer if status == 200 else None

    flood = DonationFlood(post=post, prefix="flood-", seed=rng.randrange(1000))
    flood.start()
    for _ in range(kills):
        time.sleep(rng.uniform(0.1, 0.8))
        a.kill()
        a.start()
    time.sleep(0.3)
    flood.stop()
    rows = cluster.psql("SELECT identifier, count(*) FROM donation WHERE identifier LIKE 'flood-%' GROUP BY identifier")
    counts = dict((line.split("|")[0], int(line.split("|")[1])) for line in rows.splitlines() if line)
    print(f"   {kills} kills, {flood.summary()}, {len(counts)} stored")
    problems = flood.problems(counts)
    if problems:
        fail("; ".join(problems))


def check_partition(cluster, a, b, credential):
    print("== multi-instance: the database paused (SIGSTOP) for 5 s: 503 with Retry-After, then 200")
    for instance in (a, b):  # both hold a live model for the user before the pause
        status, _, answer = suggest(instance, credential, "ana", START + 45 * DAY)
        if status != 200:
            fail(f"{instance.name} before the pause: {status} {answer}")
    pids = cluster.server_pids()
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    paused_until = time.time() + 5
    answers = []
    try:
        while time.time() < paused_until - 0.5:
            for instance in (a, b):
                started = time.time()
                status, headers, answer = suggest(instance, credential, "ana", START + 45 * DAY, timeout=15)
                answers.append((instance.name, "suggest", status, round(time.time() - started, 2), headers))
                started = time.time()
                status, headers, answer = post_batch(instance, credential,
                                                     [donation("ana", "latte", START + 50 * DAY)], timeout=15)
                answers.append((instance.name, "donate", status, round(time.time() - started, 2), headers))
                if time.time() >= paused_until - 0.5:
                    break
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    bad = [(name, kind, status, seconds) for name, kind, status, seconds, headers in answers
           if status != 503 or "Retry-After" not in headers and "retry-after" not in headers]
    if not answers:
        fail("no request was made during the pause")
    if bad:
        fail(f"answers during the pause that are not 503 with Retry-After: {bad}")
    slowest = max(seconds for _, _, _, seconds, _ in answers)
    print(f"   {len(answers)} requests in the pause, every one 503 with Retry-After, the slowest in {slowest} s")
    recovered = {}
    deadline = time.time() + 10
    while time.time() < deadline and len(recovered) < 2:
        for instance in (a, b):
            if instance.name in recovered:
                continue
            status, _, _ = suggest(instance, credential, "ana", START + 45 * DAY, timeout=5)
            if status == 200:
                recovered[instance.name] = round(time.time() - paused_until, 2)
        time.sleep(0.05)
    if len(recovered) < 2:
        fail(f"not every instance answered 200 within 10 s of SIGCONT: {recovered}")
    print(f"   answering again {max(recovered.values())} s after SIGCONT")


def main():
    binary = os.path.abspath(sys.argv[1])
    kills = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 11
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="multi-instance-")
    os.chmod(work, 0o755)  # the cluster runs as `postgres` when this runs as root
    cluster = Cluster(work)
    instances = []
    try:
        subprocess.run([binary, "retention", "set", "--keep-all", "--database", cluster.url], check=True,
                       capture_output=True)
        credential_file = os.path.join(work, "owner-credential")
        a = Instance(binary, cluster.url, work, "A", credential_file)
        b = Instance(binary, cluster.url, work, "B", credential_file)
        instances = [a, b]
        a.start()
        b.start()
        credential = open(credential_file).read().strip()
        check_one_truth(a, b, credential)
        marker = check_erasure(cluster, binary, a, b, credential, work)
        check_kill_flood(cluster, a, b, credential, kills, rng)
        check_partition(cluster, a, b, credential)
        for instance in instances:
            instance.terminate()
        instances = []
        check_no_bytes(cluster, binary, marker)
        print("multi-instance checks passed")
    finally:
        for instance in instances:
            if instance.process and instance.process.poll() is None:
                instance.process.kill()
        cluster.stop()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
