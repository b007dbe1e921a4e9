#!/usr/bin/env bash
# Train-and-evaluate speed on the aggregated shape (issue 14's target: 600 simulated users x 75,000 rows
# train and evaluate in <= 18 s on 2 cores), serial against parallel, with peak memory.
#
#   bash dev/speed-aggregated.sh [USERS] [ROWS_PER_USER]     (default 600 125)
#
# Release build, BLAS on one thread per worker. Each step runs under /usr/bin/time -v (wall seconds,
# peak resident memory):
#   simulate  proactive simulate --shape aggregated --users USERS --rows-per-user ROWS_PER_USER --seed 7
#   split     proactive split --by random --seed 7 --train-share 0.75
#   evaluate  proactive evaluate --model blend (fit on the training rows, rank every test row), --jobs 1 and
#             --jobs N (N = cores), static and --online; the ranks of --jobs 1 and --jobs N are compared
#   import    proactive import (the whole log into a fresh store)
#   train     proactive train (every user's default model, fitted and saved), --jobs 1 and --jobs N
# Writes a markdown table and speed.json in out/speed/, and prints the table.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-600}
ROWS=${2:-125}
command -v /usr/bin/time >/dev/null || { echo "speed-aggregated.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
bash scripts/ensure-system-packages.sh
export OPENBLAS_NUM_THREADS=1
source scripts/proactive-binary.sh
P="$(proactive_binary release --build)"
OUT=out/speed
rm -rf "$OUT"
mkdir -p "$OUT"
N=$(nproc)
ROWS_JSON="$OUT/steps.jsonl"
: > "$ROWS_JSON"

# measure NAME COMMAND...: runs it under /usr/bin/time -v, appends {step, seconds, peak_mb, command}.
measure() {
  local name=$1
  shift
  echo "== $name: $*" | sed "s#$P#proactive#g" >&2
  /usr/bin/time -v -o "$OUT/$name.time" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  python3 - "$name" "$OUT/$name.time" "$(printf '%s ' "$@" | sed "s#$P#proactive#g")" >> "$ROWS_JSON" <<'PY'
import json, sys
name, path, command = sys.argv[1:4]
fields = {}
for line in open(path):
    key, _, value = line.strip().rpartition(": ")
    fields[key] = value
clock = fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
seconds = sum(float(part) * 60 ** index for index, part in enumerate(reversed(clock)))
print(json.dumps({"step": name, "seconds": round(seconds, 2), "peak_mb": round(int(fields["Maximum resident set size (kbytes)"]) / 1024, 1),
                  "user_seconds": float(fields["User time (seconds)"]), "command": command.strip()}))
PY
}

measure simulate "$P" simulate --shape aggregated --users "$USERS" --rows-per-user "$ROWS" --seed 7 -o "$OUT/agg.jsonl"
measure split "$P" split "$OUT/agg.jsonl" --by random --seed 7 --train-share 0.75 --train "$OUT/train.jsonl" --test "$OUT/test.jsonl"
for mode in static online; do
  extra=()
  [ "$mode" = online ] && extra=(--online)
  for jobs in 1 "$N"; do
    measure "evaluate-$mode-jobs$jobs" "$P" evaluate --train "$OUT/train.jsonl" --test "$OUT/test.jsonl" --model blend --quiet \
      --jobs "$jobs" --ranks-out "$OUT/ranks-$mode-$jobs.txt" --report "$OUT/report-$mode-$jobs.json" "${extra[@]}"
  done
  cmp "$OUT/ranks-$mode-1.txt" "$OUT/ranks-$mode-$N.txt" || { echo "speed-aggregated.sh: --jobs 1 and --jobs $N ranked differently ($mode)" >&2; exit 1; }
done
for jobs in 1 "$N"; do
  rm -f "$OUT/store.sqlite"*
  measure "import-for-jobs$jobs" "$P" import "$OUT/agg.jsonl" --store "$OUT/store.sqlite" --progress none
  measure "train-jobs$jobs" "$P" train --store "$OUT/store.sqlite" --jobs "$jobs" --quiet
done

python3 - "$ROWS_JSON" "$OUT" "$USERS" "$ROWS" "$N" <<'PY'
import json, sys, datetime
path, out, users, rows, cores = sys.argv[1:6]
steps = [json.loads(line) for line in open(path)]
donations = sum(1 for _ in open(f"{out}/agg.jsonl"))
lines = [f"# Train and evaluate speed, aggregated rows ({users} users, {donations} rows, {cores} cores, "
         f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ})", "",
         "| step | wall s | CPU s (user) | peak MB | command |", "|---|---:|---:|---:|---|"]
for step in steps:
    lines.append(f"| {step['step']} | {step['seconds']:.2f} | {step['user_seconds']:.2f} | {step['peak_mb']:.0f} | `{step['command']}` |")
for mode in ["static", "online"]:
    report = json.load(open(f"{out}/report-{mode}-{cores}.json"))
    lines.append("")
    lines.append(f"blend {mode}: hit@1 {report['hit@1']:.3f}, hit@4 {report['hit@4']:.3f}, mrr {report['mrr']:.3f} "
                 f"on {report['events']} test rows ({report['training_events']} training rows); ranks equal for --jobs 1 and --jobs {cores}")
seconds = {step["step"]: step["seconds"] for step in steps}
evaluate = seconds["split"] + seconds[f"evaluate-static-jobs{cores}"]
train = seconds[f"import-for-jobs{cores}"] + seconds[f"train-jobs{cores}"]
lines += ["", f"split + evaluate (static, --jobs {cores}): {evaluate:.2f} s; import + train (--jobs {cores}): {train:.2f} s; "
          f"issue 14's target, <= 18 s on 2 cores: {'met' if max(evaluate, train) <= 18 else 'MISSED'} "
          "(wall time on a shared machine: an upper bound)"]
text = "\n".join(lines) + "\n"
open(f"{out}/speed.md", "w").write(text)
json.dump({"users": int(users), "rows": donations, "cores": int(cores), "steps": steps}, open(f"{out}/speed.json", "w"), indent=1)
print(text)
PY
