#!/usr/bin/env bash
# Kills `proactive import` with SIGKILL at random points of a large import and
# checks what is left: the store passes PRAGMA integrity_check, holds exactly
# the batches the importer reported as committed (byte-identical to the first
# N lines of the log), and re-running the import completes it without
# duplicates. In every other round the resuming import is killed too (a crash
# while recovering from a crash), and checked the same way.
#
#   dev/kill-import.sh [KILLS=50] [LINES=300000] [SEED=42]
#
# Deterministic given the seed: the log, and the kill points (a share of the
# log committed, then a random delay of under 0.4 s). Prints a line per round
# and a summary; runs rounds until KILLS importers were killed (an import that
# finishes before its kill point is checked but not counted); exits non-zero
# when any round fails.
set -euo pipefail
wanted="${1:-50}"
lines="${2:-300000}"
seed="${3:-42}"
batch=5000
cd "$(dirname "$0")/.."

source scripts/proactive-binary.sh
bin="$(proactive_binary release --build)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log="$work/donations.jsonl"
python3 dev/generate-donations.py --lines "$lines" --seed "$seed" > "$log"

rows_and_integrity() {  # prints "ROWS INTEGRITY" for a store
  "$bin" stats --check --json --store "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"], d["integrity"] if isinstance(d["integrity"], str) else "damaged")'
}

last_reported() {  # the last "committed N rows" the importer printed, 0 if none
  (grep -o '^committed [0-9]*' "$1" 2> /dev/null || true) | awk '{n = $2} END {print n + 0}'
}

# killed_import STORE PROGRESS TARGET EXTRA_MS: imports into STORE, kills the importer once
# TARGET rows (of this run) are reported committed plus EXTRA_MS; sets KILLED=yes|no.
killed_import() {
  "$bin" import --progress log --batch-size "$batch" --store "$1" "$log" > /dev/null 2> "$2" &
  local pid=$!
  while kill -0 "$pid" 2> /dev/null && [ "$(last_reported "$2")" -lt "$3" ]; do sleep 0.02; done
  sleep "$(printf '0.%03d' "$4")"
  if kill -9 "$pid" 2> /dev/null; then KILLED=yes; else KILLED=no; fi
  wait "$pid" 2> /dev/null || true
}

# check STORE BEFORE REPORTED: sets STORED and RESULT. The store must hold the first STORED
# lines byte for byte, STORED = BEFORE + REPORTED or one batch more (a commit may land just
# before the kill and before its report is written), and pass the integrity check.
check() {
  STORED=0 RESULT=ok
  [ -e "$1" ] || { [ "$3" = 0 ] || RESULT="FAIL(no-file)"; return; }
  local integrity
  read -r STORED integrity < <(rows_and_integrity "$1")
  [ "$integrity" = ok ] || RESULT="FAIL(integrity)"
  local expected=$(( $2 + $3 ))
  if [ "$STORED" -ne "$expected" ] && [ "$STORED" -ne $(( expected + batch > lines ? lines : expected + batch )) ]; then RESULT="FAIL(rows)"; fi
  if ! cmp -s <("$bin" export --store "$1") <(head -n "$STORED" "$log"); then RESULT="FAIL(content)"; fi
}

RANDOM=$seed
failures=0 kills=0 ahead=0 round=0
printf '%-6s %-14s %-9s %-8s %-22s %-9s %s\n' round target reported stored "resume killed at" reimport result
while [ "$kills" -lt "$wanted" ]; do
  round=$((round + 1))
  if [ "$round" -gt $((3 * wanted + 3)) ]; then echo "only $kills kills in $((round - 1)) rounds: imports finish before their kill point" >&2; exit 1; fi
  store="$work/store-$round.sqlite"
  # The log is dated January 2026: keep it all (a new store's default, stated explicitly).
  "$bin" retention set --keep-all --store "$store" > /dev/null
  # Kill at a random point: once a seeded share (5-90%) of the log is
  # committed, plus a random 0-399 ms, so the kill lands inside a batch,
  # a commit or a checkpoint.
  target=$(( lines * (5 + RANDOM % 86) / 100 ))
  extra=$(( RANDOM % 400 ))
  killed_import "$store" "$work/progress-$round.txt" "$target" "$extra"
  reported=$(last_reported "$work/progress-$round.txt")
  check "$store" 0 "$reported"
  result=$RESULT stored=$STORED
  [ "$KILLED" = yes ] && kills=$((kills + 1)) || result="$result(finished-before-kill)"
  [ "$stored" -eq "$reported" ] || ahead=$((ahead + 1))
  # Every other round: kill the resuming import too, after a further share of what is left.
  resumed="-"
  if [ $((round % 2)) = 0 ] && [ "$stored" -lt "$lines" ] && [ "$kills" -lt "$wanted" ]; then
    target2=$(( (lines - stored) * (RANDOM % 90) / 100 ))
    extra2=$(( RANDOM % 400 ))
    killed_import "$store" "$work/resume-progress-$round.txt" "$target2" "$extra2"
    check "$store" "$stored" "$(last_reported "$work/resume-progress-$round.txt")"
    [ "$RESULT" = ok ] || result="$RESULT(resume)"
    if [ "$KILLED" = yes ]; then kills=$((kills + 1)); resumed="$STORED rows"; else resumed="finished"; fi
    stored=$STORED
  fi
  # Resume: identifiers make the re-import skip what is stored.
  "$bin" import --progress none --store "$store" "$log" 2> "$work/resume-$round.txt"
  read -r after integrity_after < <(rows_and_integrity "$store")
  skipped=$( (grep -o '[0-9]* already stored' "$work/resume-$round.txt" || true) | awk '{print $1}')
  if [ "$after" -ne "$lines" ] || [ "$integrity_after" != ok ] || [ "${skipped:-0}" -ne "$stored" ]; then result="FAIL(reimport)"; fi
  if ! cmp -s <("$bin" export --store "$store") "$log"; then result="FAIL(reimport-content)"; fi
  printf '%-6s %-14s %-9s %-8s %-22s %-9s %s\n' "$round" "$target+${extra}ms" "$reported" "$stored" "$resumed" "$after" "$result"
  case "$result" in FAIL*) failures=$((failures + 1)) ;; esac
  rm -f "$store" "$store-wal" "$store-shm"
done
echo "$kills SIGKILLs in $round rounds ($ahead times one batch was committed but not yet reported)" >&2
if [ "$failures" -gt 0 ]; then
  echo "$failures of $round rounds failed" >&2
  exit 1
fi
echo "all $round rounds passed" >&2
