#!/usr/bin/env bash
# One binary, one answer: evaluates the same split several times (each a new process, so a
# new Swift hash seed) and fails when the ranks files differ.
#
#   dev/repeatable.sh [USERS=50] [RUNS=3] [path/to/proactive]
#
# The split is the reference week's first USERS users (out/results/week-{train,test}.jsonl,
# written by `bash scripts/results.sh --quick`), the model the blend (static). With 50 users
# a release run takes about a second. Exit 1 names the runs that differ.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/proactive-binary.sh
users="${1:-50}" runs="${2:-3}" P="${3:-$(proactive_binary release)}"
for f in out/results/week-train.jsonl out/results/week-test.jsonl; do
  [ -f "$f" ] || { echo "repeatable: $f is missing (bash scripts/results.sh --quick writes it)" >&2; exit 2; }
done
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
python3 - "$users" "$dir" <<'PY'
import json, sys
users, out = int(sys.argv[1]), sys.argv[2]
rows = {part: open(f"out/results/week-{part}.jsonl").readlines() for part in ("train", "test")}
keep = set(sorted({json.loads(line)["user"] for line in rows["train"]})[:users])
for part, lines in rows.items():
    with open(f"{out}/{part}.jsonl", "w") as f:
        f.writelines(line for line in lines if json.loads(line)["user"] in keep)
PY
export OPENBLAS_NUM_THREADS=1
for run in $(seq 1 "$runs"); do
  "$P" evaluate --train "$dir/train.jsonl" --test "$dir/test.jsonl" --model blend --quiet \
    --ranks-out "$dir/ranks-$run.txt" >/dev/null
done
status=0
for run in $(seq 2 "$runs"); do
  if ! cmp -s "$dir/ranks-1.txt" "$dir/ranks-$run.txt"; then
    echo "repeatable: run $run's ranks differ from run 1's ($(wc -l <"$dir/test.jsonl") test rows, $users users)" >&2
    status=1
  fi
done
[ "$status" = 0 ] && echo "repeatable: $runs runs, $(wc -l <"$dir/ranks-1.txt") ranks, identical"
exit "$status"
