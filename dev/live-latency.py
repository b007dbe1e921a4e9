#!/usr/bin/env python3
"""Whole-command latency of the live model path (issue: live models).

Builds one simulated heavy user (about 40,000 donations), trains once, then
times each command as a user runs it, process start included:

  suggest / predict        the saved state, nothing new since `train`
  suggest / predict, new   right after `import` added 10 donations since `train`
                           (import folds them into the saved model; each run imports
                           10 donations never stored before)
  import, 10 new           the whole import command, saved model updated
  donate                   one donation, stored; the state learns it on its next read

Then one user with many targets (--many-targets, default 1,000 apps, 5,000
donations; each app once, then uniformly at random, 5-30 minutes apart; fixed
seed) in a store of its own: `train` (wall time, peak RSS), the saved state's
size, and whole `suggest` and `predict` commands (median, p90).

Each figure is the median (and p90) of --runs runs, wall clock measured
around the subprocess. Writes a JSON report.

Usage: dev/live-latency.py PROACTIVE_BINARY OUT_DIR [--runs 21]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time


def run(cmd, env, check=True):
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if check and done.returncode != 0:
        sys.exit(f"live-latency: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return elapsed, done


def summary(samples):
    ordered = sorted(samples)
    return {"median_ms": round(statistics.median(ordered) * 1000, 2),
            "p90_ms": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))] * 1000, 2),
            "min_ms": round(ordered[0] * 1000, 2), "runs": len(ordered)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("out")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--many-targets", type=int, default=1000, help="apps of the many-targets user (0: skip it)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    store = os.path.join(args.out, "live.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(store + suffix):
            os.remove(store + suffix)
    env = dict(os.environ, PROACTIVE_STORE=store, OPENBLAS_NUM_THREADS="1")
    p = args.binary
    log = os.path.join(args.out, "live-heavy.jsonl")
    run([p, "simulate", "--users", "1", "--days", "365", "--seed", "3", "--noise", "100", "-o", log], env)
    lines = open(log).read().splitlines()
    fresh = 10 * 2 * args.runs   # new donations for the "after import" runs, each chunk used once
    history, later = lines[:-fresh], lines[-fresh:]   # these arrive after training
    with open(log + ".history", "w") as f:
        f.write("\n".join(history) + "\n")
    run([p, "retention", "set", "--keep-all"], env)
    run([p, "import", "--progress", "none", log + ".history"], env)
    train_seconds, _ = run([p, "train", "--quiet"], env)
    user = json.loads(history[0])["user"]
    last = json.loads(history[-1])["date"]
    at = last  # the moment right after the history
    query = ["--user", user, "--at", at, "-k", "4"]

    results = {"user": user, "donations": len(history), "train_seconds": round(train_seconds, 2)}
    for name in ("suggest", "predict"):
        run([p, name] + query, env)  # warm the file cache
        results[name] = summary([run([p, name] + query, env)[0] for _ in range(args.runs)])

    # Right after new donations were imported (import folds them into the saved model).
    imports = []
    for offset, name in enumerate(("suggest", "predict")):
        samples = []
        for index in range(args.runs):
            chunk = later[(offset * args.runs + index) * 10:][:10]
            path = os.path.join(args.out, "live-new.jsonl")
            with open(path, "w") as f:
                f.write("\n".join(chunk) + "\n")
            elapsed, done = run([p, "import", "--progress", "none", path], env)
            if "10 stored" not in done.stderr:
                sys.exit(f"live-latency: the import did not store 10 new donations: {done.stderr.strip()}")
            imports.append(elapsed)
            samples.append(run([p, name] + query, env)[0])
        results[name + "_after_import"] = summary(samples)
        results[name + "_after_import"]["new_donations_per_run"] = 10
    results["import_10_new"] = summary(imports)

    # donate: one donation per run, a minute apart after everything imported (in time order).
    base = datetime.datetime.fromisoformat(json.loads(later[-1])["date"].replace("Z", "+00:00"))
    samples = []
    for index in range(args.runs):
        date = (base + datetime.timedelta(minutes=index + 1)).isoformat()
        samples.append(run([p, "donate", "--user", user, "--app", "com.example.notes", "--intent", "open", "--date", date], env)[0])
    results["donate"] = summary(samples)
    _, after = run([p, "predict", "--json"] + query, env)
    results["predict_after_donations_note"] = json.loads(after.stdout).get("note")
    if args.many_targets > 0:
        results["many_targets"] = many_targets(p, args.out, args.many_targets, args.runs)
    results["loadavg_1min"] = float(open("/proc/loadavg").read().split()[0])
    with open(os.path.join(args.out, "live.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps(results, indent=2))


def many_targets(p, out, apps, runs, donations=5000):
    """One user with `apps` targets: train time and peak memory, state size, suggest/predict latency."""
    import random
    store = os.path.join(out, "many.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(store + suffix):
            os.remove(store + suffix)
    env = dict(os.environ, PROACTIVE_STORE=store, OPENBLAS_NUM_THREADS="1")
    r = random.Random(5)
    when = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    log = os.path.join(out, "many.jsonl")
    with open(log, "w") as f:
        for n in range(donations):
            when += datetime.timedelta(seconds=r.randint(300, 1800))
            app = n % apps if n < apps else r.randrange(apps)
            f.write(json.dumps({"user": "many", "app": f"com.example.app{app}", "intent": "open", "parameters": {},
                                "date": when.strftime("%Y-%m-%dT%H:%M:%SZ")}) + "\n")
    run([p, "retention", "set", "--keep-all"], env)
    run([p, "import", "--progress", "none", log], env)
    elapsed, done = run(["/usr/bin/time", "-f", "peak-rss-kb %M", p, "train", "--quiet"], env)
    peak = [line for line in done.stderr.splitlines() if line.startswith("peak-rss-kb")]
    _, listed = run([p, "models", "list", "--json"], env)
    state = json.loads(listed.stdout)
    entry = (state if isinstance(state, list) else state.get("models", []))[0]
    query = ["--user", "many", "--at", (when + datetime.timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ"), "-k", "4"]
    result = {"targets": apps, "donations": donations, "train_seconds": round(elapsed, 2),
              "train_peak_rss_mb": round(int(peak[0].split()[1]) / 1024, 1) if peak else None,
              "state_bytes": entry.get("bytes")}
    for name in ("suggest", "predict"):
        run([p, name] + query, env)
        result[name] = summary([run([p, name] + query, env)[0] for _ in range(runs)])
    return result


if __name__ == "__main__":
    main()
