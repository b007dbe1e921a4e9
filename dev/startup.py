#!/usr/bin/env python3
"""Start-up cost of a whole command: `suggest` (or `predict`) for a heavy user against `--version`.

Builds the heavy user of dev/live-latency.py (one simulated user over 365 days
with 100 random app opens a day, seed 3: about 40,000 donations), imports and
trains it once, then runs `proactive --version` and the user's `suggest` in
turns (version, suggest, version, ...) so both see the same machine load.
Each run is timed around the process (wall clock) and its CPU time (user +
system, from wait4) is read; warm-up runs are not counted.

Checks, on the medians: suggest wall <= --ratio x version wall (default 2),
and for each command CPU time <= wall time. Also prints the ratio of CPU
times, which a busy machine moves less than the wall times. Prints the figures (and the
1-minute load average) as JSON; exits 1 when a check fails, 2 on a setup error.

Usage: dev/startup.py PROACTIVE_BINARY OUT_DIR [--runs 30] [--warmup 3] [--ratio 2]
       [--command predict]   time `predict` (top 4 with their reasons) instead of `suggest`
       [--hyperfine]         also time both with `hyperfine -N -w3 -r30` (not interleaved)
       [--compare BINARY]    also run another build's two commands in the same turns, on a
                             store of the same donations that it imported and trained itself (a
                             build may not open a store another version migrated; figures under
                             "compare"; the checks are on the first)
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time


def timed(cmd, env):
    """Runs `cmd`; returns (wall seconds, CPU seconds, exit status, standard error)."""
    started = time.perf_counter()
    process = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    error = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, process.returncode, error


def setup(p, out, env):
    """The heavy user's store, trained; returns the suggest arguments."""
    store = env["PROACTIVE_STORE"]
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(store + suffix):
            os.remove(store + suffix)
    log = os.path.join(out, "startup-heavy.jsonl")
    steps = [[p, "simulate", "--users", "1", "--days", "365", "--seed", "3", "--noise", "100", "-o", log],
             [p, "retention", "set", "--keep-all"],
             [p, "import", "--progress", "none", log],
             [p, "train", "--quiet"]]
    for step in steps:
        done = subprocess.run(step, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            print(f"startup: {' '.join(step)} failed ({done.returncode}): {done.stderr.strip()}", file=sys.stderr)
            sys.exit(2)
    with open(log) as f:
        lines = f.read().splitlines()
    last = json.loads(lines[-1])
    return len(lines), ["suggest", "--user", last["user"], "--at", last["date"], "-k", "4"]


def median_ms(values):
    return round(statistics.median(values) * 1000, 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("out")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--ratio", type=float, default=2.0, help="the most suggest may take, in --version's")
    parser.add_argument("--hyperfine", action="store_true")
    parser.add_argument("--compare", help="another proactive binary, timed in the same turns")
    parser.add_argument("--command", choices=["suggest", "predict"], default="suggest", help="the command timed against --version")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    env = dict(os.environ, PROACTIVE_STORE=os.path.join(args.out, "startup.sqlite"))
    env.pop("OPENBLAS_NUM_THREADS", None)  # as a user runs it: the binary keeps BLAS on one thread itself
    p = os.path.abspath(args.binary)
    donations, suggest = setup(p, args.out, env)
    suggest = [args.command] + suggest[1:]
    asked = args.command
    commands = {"version": [p, "--version"], asked: [p] + suggest}
    turns = {name: (cmd, env) for name, cmd in commands.items()}
    if args.compare:
        other = os.path.abspath(args.compare)
        other_out = os.path.join(args.out, "compare")
        os.makedirs(other_out, exist_ok=True)
        other_env = dict(env, PROACTIVE_STORE=os.path.join(other_out, "startup.sqlite"))
        setup(other, other_out, other_env)
        turns.update({"compare version": ([other, "--version"], other_env), "compare " + asked: ([other] + suggest, other_env)})

    samples = {name: {"wall": [], "cpu": []} for name in turns}
    for index in range(args.warmup + args.runs):
        for name, (cmd, cmd_env) in turns.items():
            wall, cpu, status, error = timed(cmd, cmd_env)
            if status != 0:
                print(f"startup: {' '.join(cmd)} failed ({status}): {error.strip()}", file=sys.stderr)
                sys.exit(2)
            if index >= args.warmup:
                samples[name]["wall"].append(wall)
                samples[name]["cpu"].append(cpu)

    result = {"donations": donations, "runs": args.runs, "loadavg_1min": float(open("/proc/loadavg").read().split()[0]),
              "cores": os.cpu_count()}
    def figures(prefix):
        entry = {}
        for name in ("version", asked):
            sample = samples[prefix + name]
            entry[name] = {"wall_median_ms": median_ms(sample["wall"]), "wall_min_ms": round(min(sample["wall"]) * 1000, 1),
                           "cpu_median_ms": median_ms(sample["cpu"])}
        suggest_, version_ = samples[prefix + asked], samples[prefix + "version"]
        entry["ratio"] = round(statistics.median(suggest_["wall"]) / statistics.median(version_["wall"]), 2)
        # CPU time moves less than wall time with the machine's load: the same ratio on CPU, for reading.
        entry["cpu_ratio"] = round(statistics.median(suggest_["cpu"]) / statistics.median(version_["cpu"]), 2)
        return entry

    result.update(figures(""))
    if args.compare:
        result["compare"] = {"binary": args.compare, **figures("compare ")}
    failures = []
    if result["ratio"] > args.ratio:
        failures.append(f"{asked} takes {result['ratio']}x --version (at most {args.ratio}x)")
    for name in commands:
        if result[name]["cpu_median_ms"] > result[name]["wall_median_ms"]:
            failures.append(f"{name}: CPU {result[name]['cpu_median_ms']} ms > wall {result[name]['wall_median_ms']} ms")
    if args.hyperfine and shutil.which("hyperfine"):
        export = os.path.join(args.out, "startup-hyperfine.json")
        subprocess.run(["hyperfine", "-N", "-w3", "-r30", "--export-json", export, " ".join(commands["version"]),
                        " ".join(commands[asked])], env=env, check=True, stdout=subprocess.DEVNULL)
        with open(export) as f:
            runs = json.load(f)["results"]
        result["hyperfine_median_ms"] = {name: round(entry["median"] * 1000, 1) for name, entry in zip(commands, runs)}
    result["failures"] = failures
    print(json.dumps(result, indent=2))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
