#!/usr/bin/env bash
# Crash safety of the importer: SIGKILL at random (seeded) moments, many times.
#
#   scripts/kill-loop.sh [KILLS=50] [SEED=1] [path/to/proactive]
#
# Each round imports a 20,000-line log (unique identifiers, batches of 250)
# into a fresh store and kills the importer with SIGKILL after a random delay;
# in half the rounds the re-import is killed too. After every kill it checks:
#   - `proactive stats --check`: SQLite's integrity_check and foreign keys are ok;
#   - the store holds exactly whole batches: the first R lines of the log, each
#     once, where R is a multiple of the batch size, and R is what the importer
#     reported committed ("committed N rows", --progress log) or one batch more
#     (a batch committed in the instant before its report was printed);
# and after the round a re-import finishes with exit 0, stores the rest, skips
# the R lines already stored (identifiers), and leaves no duplicate.
# Prints one line per kill and a summary; exits non-zero at the first violation.
set -euo pipefail
cd "$(dirname "$0")/.."

kills="${1:-50}"
seed="${2:-1}"
P="${3:-.build/debug/proactive}"
lines=20000
batch=250

[ -x "$P" ] || swift build --product proactive >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log="$work/log.jsonl"
python3 scripts/reliability-log.py --lines "$lines" --prefix k --seed "$seed" --now "$(date +%s)" > "$log"

# Calibrate: how long an uninterrupted import takes here.
start=$(date +%s%N)
"$P" import --store "$work/calibration.sqlite" --batch-size "$batch" --progress none "$log" > /dev/null
full_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "uninterrupted import of $lines lines: ${full_ms} ms; killing at random moments in [0, ${full_ms}] ms (seed $seed)"
RANDOM=$seed

# check STORE STDERR_FILE ROWS_BEFORE LABEL: prints "stored reported" or fails.
check() {
    local store="$1" errors="$2" before="$3" label="$4"
    "$P" stats --check --json --store "$store" > "$work/stats.json" \
        || { echo "FAILED ($label): integrity check: $(cat "$work/stats.json")" >&2; exit 1; }
    "$P" export --store "$store" > "$work/export.jsonl"
    python3 - "$log" "$work/export.jsonl" "$work/stats.json" "$errors" "$before" "$batch" "$lines" "$label" <<'PY'
import json, re, sys
log, export, stats, errors, before, batch, lines, label = sys.argv[1:]
before, batch, lines = int(before), int(batch), int(lines)
def fail(message):
    print("FAILED (%s): %s" % (label, message), file=sys.stderr)
    sys.exit(1)
report = json.load(open(stats))
if report.get("integrity", ["ok"]) not in (["ok"], "ok", []):
    fail("integrity: %s" % report.get("integrity"))
stored = [json.loads(line)["identifier"] for line in open(export)]
rows = report["rows"]
if len(stored) != rows:
    fail("export has %d lines, stats %d rows" % (len(stored), rows))
if len(set(stored)) != rows:
    fail("duplicate identifiers stored")
expected = {"k-%d" % n for n in range(rows)}
if set(stored) != expected:
    fail("the store does not hold the first %d lines of the log" % rows)
if rows % batch != 0 and rows != lines:
    fail("%d rows is not a whole number of batches of %d" % (rows, batch))
committed = [int(m.group(1)) for m in re.finditer(r"committed (\d+) rows", open(errors).read())]
reported = before + (committed[-1] if committed else 0)
if not (reported <= rows <= min(reported + batch, lines)):
    fail("%d rows stored, but %d reported committed (+ at most one batch of %d)" % (rows, reported, batch))
print(rows, reported)
PY
}

# run_killed STORE LABEL: starts an import, kills it after a random delay.
# Prints the delay; sets KILLED=1 when the process was still running.
run_killed() {
    local store="$1" delay_ms=$(( RANDOM % (full_ms + 1) ))
    "$P" import --store "$store" --batch-size "$batch" --progress log "$log" > "$work/out.txt" 2> "$work/err.txt" &
    local pid=$!
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    if kill -KILL "$pid" 2>/dev/null; then KILLED=1; else KILLED=0; fi
    wait "$pid" 2>/dev/null || true
    DELAY=$delay_ms
}

done_kills=0 round=0 exact=0 one_ahead=0 empty=0 partial=0 late=0 complete=0
while [ "$done_kills" -lt "$kills" ]; do
    round=$((round + 1))
    store="$work/round-$round.sqlite"
    before=0
    attempts=$(( RANDOM % 2 + 1 ))   # kill the first import, and in half the rounds the re-import too
    for attempt in $(seq "$attempts"); do
        [ "$done_kills" -lt "$kills" ] || break
        [ "$before" -lt "$lines" ] || break   # already complete: the final re-import below covers it
        run_killed "$store"
        result=$(check "$store" "$work/err.txt" "$before" "round $round, kill $attempt")
        read -r rows reported <<< "$result"
        if [ "$KILLED" = 1 ]; then
            done_kills=$((done_kills + 1))
            if [ "$rows" = "$reported" ]; then exact=$((exact + 1)); else one_ahead=$((one_ahead + 1)); fi
            if [ "$rows" = 0 ]; then empty=$((empty + 1)); elif [ "$rows" = "$lines" ]; then late=$((late + 1)); else partial=$((partial + 1)); fi
            echo "kill $done_kills (round $round): after ${DELAY} ms, $reported rows reported committed, $rows stored: whole batches, integrity ok"
        else
            complete=$((complete + 1))
            echo "round $round: the import finished before the kill at ${DELAY} ms ($rows rows)"
        fi
        before=$rows
    done
    # Re-import to completion: idempotent on identifiers, no duplicates.
    "$P" import --store "$store" --batch-size "$batch" --progress log "$log" > "$work/out.txt" 2> "$work/err.txt" \
        || { echo "FAILED (round $round): re-import exited non-zero: $(cat "$work/err.txt")" >&2; exit 1; }
    grep -q "$lines lines, $((lines - before)) imported, $before already stored, 0 rejected" "$work/out.txt" \
        || { echo "FAILED (round $round): re-import summary: $(head -1 "$work/out.txt")" >&2; exit 1; }
    result=$(check "$store" "$work/err.txt" "$before" "round $round, re-import")
    read -r rows _ <<< "$result"
    [ "$rows" = "$lines" ] || { echo "FAILED (round $round): $rows rows after the re-import" >&2; exit 1; }
    rm -f "$store" "$store-wal" "$store-shm"
done
echo "kill loop: $done_kills SIGKILLs in $round rounds, all checks passed"
echo "  killed mid-import: $partial; before the first commit: $empty; after the last commit: $late"
echo "  stored == reported committed: $exact; one batch committed but not yet reported: $one_ahead"
echo "  imports that finished before their kill (not counted): $complete; every round re-imported to $lines rows with no duplicate"
