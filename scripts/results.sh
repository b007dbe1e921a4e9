#!/usr/bin/env bash
# The results table: every built-in model on every log of the table, one markdown table.
#
#   bash scripts/results.sh [--quick]
#
# Builds the release CLI, then for each log makes a train/test split and runs
# `proactive evaluate --compare` (every baseline and the default model; the full
# run adds the engine's other models, `--model profile` and `--model logistic`).
# Logs:
#   android-online, android-static  the bundled Android Digital Wellbeing log (docs/RESULTS.md's split:
#                                    --by time --train-share 0.25, America/New_York), with and without --online
#   knowledgec-10.13, -10.14         the bundled knowledgeC databases, read with --format knowledgec;
#                                    split --by time --train-share 0.5, --online
#   sim-sequential                   simulate (routines), --by time --train-share 0.25, --online
#   sim-aggregated                   simulate --shape aggregated (context rows with counts, no order);
#                                    split --by random --train-share 0.75 --seed 7 (rows have no order, so a
#                                    time split would be a random split too), evaluated without --online
#   sim-aggregated-rows              the same split with `count` left out of every row (scripts/drop-counts.py):
#                                    each row counts once ("counting rows" rather than uses)
#   sim-aggregated-week              simulate --shape aggregated-week (one reference week, seven parts of the day,
#                                    rows at the start of their part so many share an instant, 4,000 apps,
#                                    counts 1 to tens of thousands, issue 27's real log); split --by random
#                                    --train-share 0.8 --seed 7, evaluated without --online
#   sim-aggregated-week-rows         the same split with `count` left out of every row
# --quick uses smaller simulated logs (30 users x 60 days; aggregated 300 users x 100 rows; aggregated-week
# 300 users) and only --compare, so the whole run takes about a minute on 2 cores (build check included);
# the full run uses 100 users x 60 days (docs/RESULTS.md), 600 users x 125 rows (issue 14's speed shape),
# 585 aggregated-week users (issue 27's real log) and adds profile and logistic.
#
# Writes:
#   docs/RESULTS-TABLE.md     the table: hit@1 / hit@4 / mrr per model per log, the best baseline per column,
#                             and whether the default model is >= the best baseline on each metric (YES/NO)
#   out/results/results.json  the same, machine-readable (diff two runs with scripts/results-diff.py A B)
# and prints the table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=0
for argument in "$@"; do
  case "$argument" in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "results.sh: unknown argument $argument (usage: results.sh [--quick])" >&2; exit 2 ;;
  esac
done
bash scripts/ensure-system-packages.sh
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
source scripts/proactive-binary.sh
P="$(proactive_binary release --build)"
OUT=out/results
rm -rf "$OUT"
mkdir -p "$OUT"
COMMANDS="$OUT/commands.txt"
: > "$COMMANDS"
STARTED=$(date +%s)

# Runs a command, logging it (with `proactive` for the binary's path) for the table's "how measured" section.
run() {
  printf '%s\n' "$*" | sed "s#$P#proactive#g" >> "$COMMANDS"
  "$@"
}

# evaluate LOG TRAIN TEST [evaluate options...]: --compare, plus profile and logistic in the full run.
evaluate() {
  local name=$1 train=$2 test=$3
  shift 3
  echo "== $name" >&2
  run "$P" evaluate --train "$train" --test "$test" --compare --quiet --report "$OUT/$name.compare.json" "$@" > "$OUT/$name.compare.txt"
  if [ "$QUICK" -eq 0 ]; then
    for model in profile logistic; do
      run "$P" evaluate --train "$train" --test "$test" --model "$model" --quiet --report "$OUT/$name.$model.json" "$@" > /dev/null
    done
  fi
}

# Android Digital Wellbeing (one person, 31 days)
run "$P" convert --format android-usage datasets/device-logs/app_usage --timezone America/New_York -o "$OUT/android.jsonl" 2> /dev/null
run "$P" split "$OUT/android.jsonl" --by time --train-share 0.25 --train "$OUT/android-train.jsonl" --test "$OUT/android-test.jsonl"
evaluate android-online "$OUT/android-train.jsonl" "$OUT/android-test.jsonl" --online --timezone America/New_York
evaluate android-static "$OUT/android-train.jsonl" "$OUT/android-test.jsonl" --timezone America/New_York

# knowledgeC (macOS 10.13 and 10.14 test databases)
for version in 10.13 10.14; do
  run "$P" convert --format knowledgec "datasets/device-logs/knowledgec-$version.db" -o "$OUT/knowledgec-$version.jsonl" 2> /dev/null
  run "$P" split "$OUT/knowledgec-$version.jsonl" --by time --train-share 0.5 \
    --train "$OUT/knowledgec-$version-train.jsonl" --test "$OUT/knowledgec-$version-test.jsonl"
  evaluate "knowledgec-$version" "$OUT/knowledgec-$version-train.jsonl" "$OUT/knowledgec-$version-test.jsonl" --online
done

# Simulated: routines (sequential) and aggregated context rows
if [ "$QUICK" -eq 1 ]; then SEQ=(--users 30 --days 60); AGG=(--users 300 --rows-per-user 100); WEEK=(--users 300); else
  SEQ=(--users 100 --days 60); AGG=(--users 600 --rows-per-user 125); WEEK=(--users 585); fi
run "$P" simulate "${SEQ[@]}" --seed 7 -o "$OUT/sim.jsonl"
run "$P" split "$OUT/sim.jsonl" --by time --train-share 0.25 --train "$OUT/sim-train.jsonl" --test "$OUT/sim-test.jsonl"
evaluate sim-sequential "$OUT/sim-train.jsonl" "$OUT/sim-test.jsonl" --online
run "$P" simulate --shape aggregated "${AGG[@]}" --seed 7 -o "$OUT/agg.jsonl"
run "$P" split "$OUT/agg.jsonl" --by random --seed 7 --train-share 0.75 --train "$OUT/agg-train.jsonl" --test "$OUT/agg-test.jsonl"
evaluate sim-aggregated "$OUT/agg-train.jsonl" "$OUT/agg-test.jsonl"
# The same rows with their counts left out (each row one use): "counting rows" instead of uses.
for part in train test; do
  run python3 scripts/drop-counts.py "$OUT/agg-$part.jsonl" "$OUT/agg-rows-$part.jsonl"
done
evaluate sim-aggregated-rows "$OUT/agg-rows-train.jsonl" "$OUT/agg-rows-test.jsonl"
# One reference week at shared instants (issue 27), with and without counts.
run "$P" simulate --shape aggregated-week "${WEEK[@]}" --seed 7 -o "$OUT/week.jsonl"
run "$P" split "$OUT/week.jsonl" --by random --seed 7 --train-share 0.8 --train "$OUT/week-train.jsonl" --test "$OUT/week-test.jsonl"
evaluate sim-aggregated-week "$OUT/week-train.jsonl" "$OUT/week-test.jsonl"
for part in train test; do
  run python3 scripts/drop-counts.py "$OUT/week-$part.jsonl" "$OUT/week-rows-$part.jsonl"
done
evaluate sim-aggregated-week-rows "$OUT/week-rows-train.jsonl" "$OUT/week-rows-test.jsonl"

SECONDS_TAKEN=$(( $(date +%s) - STARTED ))
python3 scripts/results-table.py "$OUT" --quick "$QUICK" --seconds "$SECONDS_TAKEN" \
  --markdown docs/RESULTS-TABLE.md --json "$OUT/results.json"
echo
cat docs/RESULTS-TABLE.md
echo
echo "written: docs/RESULTS-TABLE.md, $OUT/results.json"
