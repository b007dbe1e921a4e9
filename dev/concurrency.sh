#!/usr/bin/env bash
# Several processes donating and one training at the same time on one store.
#
#   dev/concurrency.sh [DONORS=4] [DONATIONS=40] [IMPORTERS=2] [LINES=5000] [path/to/proactive]
#
# Starts, all at once and on a store file that does not exist yet:
#   - DONORS processes that each run `proactive donate` DONATIONS times (one process per donation);
#   - IMPORTERS processes that each import a LINES-line log in batches of 100;
#   - one process that trains over and over until the others are done
#     (`proactive train --model profile`: reads every user's donations, fits, saves the models).
# Then checks: every donor and importer exited 0; no "database is locked" or
# "busy" reached anyone's standard error; the store holds exactly
# DONORS*DONATIONS + IMPORTERS*LINES donations, each identifier once; the
# integrity check passes. Prints the counts; exits non-zero on any violation.
set -euo pipefail
cd "$(dirname "$0")/.."

donors="${1:-4}"
donations="${2:-40}"
importers="${3:-2}"
lines="${4:-5000}"
source scripts/proactive-binary.sh
P="${5:-$(proactive_binary debug)}"

[ -x "$P" ] || swift build --product proactive >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PROACTIVE_STORE="$work/store.sqlite"
now=$(date +%s)
for i in $(seq "$importers"); do
    python3 dev/reliability-log.py --lines "$lines" --prefix "c$i" --seed "$i" --now "$now" > "$work/log-$i.jsonl"
done

donor() {
    local d="$1" failures=0
    for n in $(seq "$donations"); do
        "$P" donate --app "com.example.donor$d" --intent LogIntent --user "u$((d % 2))" --identifier "d$d-$n" \
            --param n="$n" > /dev/null 2>> "$work/donor-$d.err" || failures=$((failures + 1))
    done
    echo "$failures" > "$work/donor-$d.failures"
}

trainer() {
    local runs=0 failures=0
    while [ ! -e "$work/done" ]; do
        if "$P" train --model profile --quiet > /dev/null 2> "$work/trainer-last.err"; then
            runs=$((runs + 1))
        elif ! grep -qE "no store at|no users with donations" "$work/trainer-last.err"; then
            failures=$((failures + 1))
            cat "$work/trainer-last.err" >> "$work/trainer.err"
        fi
    done
    echo "$runs $failures" > "$work/trainer.result"
}

start=$(date +%s%N)
trainer &
trainer_pid=$!
pids=()
for d in $(seq "$donors"); do donor "$d" & pids+=($!); done
for i in $(seq "$importers"); do
    "$P" import --batch-size 100 --progress none "$work/log-$i.jsonl" > "$work/import-$i.out" 2> "$work/import-$i.err" &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
touch "$work/done"
wait "$trainer_pid"
seconds=$(( ($(date +%s%N) - start) / 1000000 ))

fail() { echo "FAILED: $*" >&2; exit 1; }
[ "$status" = 0 ] || fail "an importer exited non-zero: $(cat "$work"/import-*.err)"
for d in $(seq "$donors"); do
    [ "$(cat "$work/donor-$d.failures")" = 0 ] || fail "donor $d: $(cat "$work/donor-$d.failures") donations failed: $(head -3 "$work/donor-$d.err")"
done
read -r train_runs train_failures < "$work/trainer.result"
[ "$train_failures" = 0 ] || fail "training failed $train_failures times: $(head -3 "$work/trainer.err")"
if cat "$work"/*.err 2>/dev/null | grep -iE "locked|busy"; then fail "a lock error reached a user"; fi

expected=$(( donors * donations + importers * lines ))
"$P" stats --check --json > "$work/stats.json" || fail "integrity check: $(cat "$work/stats.json")"
"$P" export > "$work/export.jsonl"
python3 - "$work/stats.json" "$work/export.jsonl" "$expected" "$donors" "$donations" "$importers" "$lines" <<'PY'
import json, sys
stats, export, expected, donors, donations, importers, lines = sys.argv[1:]
expected, donors, donations, importers, lines = map(int, (expected, donors, donations, importers, lines))
rows = json.load(open(stats))["rows"]
stored = [json.loads(line)["identifier"] for line in open(export)]
wanted = {"d%d-%d" % (d, n) for d in range(1, donors + 1) for n in range(1, donations + 1)}
wanted |= {"c%d-%d" % (i, n) for i in range(1, importers + 1) for n in range(lines)}
problems = []
if rows != expected: problems.append("%d rows stored, %d donated" % (rows, expected))
if len(stored) != len(set(stored)): problems.append("duplicate identifiers")
missing = wanted - set(stored)
if missing: problems.append("%d donations lost, e.g. %s" % (len(missing), sorted(missing)[:3]))
if problems:
    print("FAILED: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
PY
echo "concurrency: $donors donors x $donations donate processes, $importers importers x $lines lines, 1 trainer ($train_runs fits) in ${seconds} ms"
echo "  $expected donations stored, each once; no lock error reached any process; integrity ok"
