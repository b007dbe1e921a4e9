#!/usr/bin/env bash
# Kills `proactive import` with SIGKILL at random points of a large import and
# checks what is left: the store passes PRAGMA integrity_check, holds exactly
# the batches the importer reported as committed (byte-identical to the first
# N lines of the log), and re-running the import completes it without
# duplicates.
#
#   scripts/kill-import.sh [ROUNDS=5] [LINES=300000] [SEED=42]
#
# Deterministic given the seed: the log, and the kill points (a share of the
# log committed, then a random delay of under 0.4 s).
set -euo pipefail
rounds="${1:-5}"
lines="${2:-300000}"
seed="${3:-42}"
batch=5000
cd "$(dirname "$0")/.."

swift build -c release --product proactive >&2
bin="$(swift build -c release --show-bin-path)/proactive"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log="$work/donations.jsonl"
python3 scripts/generate-donations.py --lines "$lines" --seed "$seed" > "$log"

rows_and_integrity() {  # prints "ROWS INTEGRITY" for a store
  "$bin" stats --check --json --store "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"], d["integrity"] if isinstance(d["integrity"], str) else "damaged")'
}

last_reported() {  # the last "committed N rows" the importer printed, 0 if none
  (grep -o '^committed [0-9]*' "$1" 2> /dev/null || true) | awk '{n = $2} END {print n + 0}'
}

RANDOM=$seed
failures=0
printf '%-6s %-14s %-10s %-10s %-10s %-9s %s\n' round target reported stored integrity reimport result
for round in $(seq 1 "$rounds"); do
  store="$work/store-$round.sqlite"
  progress="$work/progress-$round.txt"
  # Kill at a random point: once a seeded share (5-90%) of the log is
  # committed, plus a random 0-399 ms, so the kill lands inside a batch,
  # a commit or a checkpoint.
  target=$(( lines * (5 + RANDOM % 86) / 100 ))
  extra=$(( RANDOM % 400 ))
  "$bin" import --progress log --batch-size "$batch" --store "$store" "$log" > /dev/null 2> "$progress" &
  pid=$!
  while kill -0 "$pid" 2> /dev/null && [ "$(last_reported "$progress")" -lt "$target" ]; do sleep 0.02; done
  sleep "$(printf '0.%03d' "$extra")"
  if kill -9 "$pid" 2> /dev/null; then killed=yes; else killed=no; fi
  wait "$pid" 2> /dev/null || true
  reported=$(last_reported "$progress")
  result=ok
  if [ ! -e "$store" ]; then
    stored=0; integrity="no-file"
  else
    read -r stored integrity < <(rows_and_integrity "$store")
    [ "$integrity" = ok ] || result="FAIL(integrity)"
    # A commit may land just before the kill and before its report is written.
    if [ "$stored" -ne "$reported" ] && [ "$stored" -ne $(( reported + batch )) ]; then result="FAIL(rows)"; fi
    # Exactly the first $stored lines, byte for byte.
    if ! cmp -s <("$bin" export --store "$store") <(head -n "$stored" "$log"); then result="FAIL(content)"; fi
  fi
  [ "$killed" = yes ] || result="$result(finished-before-kill)"
  # Resume: identifiers make the re-import skip what is stored.
  "$bin" import --progress none --store "$store" "$log" > "$work/resume-$round.txt"
  read -r after integrity_after < <(rows_and_integrity "$store")
  skipped=$( (grep -o '[0-9]* already stored' "$work/resume-$round.txt" || true) | awk '{print $1}')
  if [ "$after" -ne "$lines" ] || [ "$integrity_after" != ok ] || [ "${skipped:-0}" -ne "$stored" ]; then result="FAIL(reimport)"; fi
  if ! cmp -s <("$bin" export --store "$store") "$log"; then result="FAIL(reimport-content)"; fi
  printf '%-6s %-14s %-10s %-10s %-10s %-9s %s\n' "$round" "$target+${extra}ms" "$reported" "$stored" "$integrity" "$after" "$result"
  case "$result" in FAIL*) failures=$((failures + 1)) ;; esac
done
if [ "$failures" -gt 0 ]; then
  echo "$failures of $rounds rounds failed" >&2
  exit 1
fi
echo "all $rounds rounds passed" >&2
