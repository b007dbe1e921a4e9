#!/usr/bin/env bash
# SIGKILL while donations are written and live models catch up, then checks
# that no saved model disagrees with the donations.
#
#   dev/kill-live.sh [KILLS=30] [SEED=7] [path/to/proactive]   (2-3 minutes on 2 cores, debug build)
#
# One store for the whole run: two simulated users, the first 40 % of their log
# imported, blend and profile models trained. Then rounds: at once, an
# `import` of the next slice of the log (small batches), one to three
# `donate`s, a query that catches the state up and saves it (`predict` or
# `suggest`, on blend or profile), and every other round a `delete` of a few
# days of one user's donations (its erasure journal is settled by the delete
# itself); after a seeded delay of 0-599 ms every one still running gets
# SIGKILL. Every fourth round aims at the delete instead: the kill lands 0-99 ms
# after its transaction wrote the erasure journal (the saved states have not
# unlearned it yet). After each round:
#   1. `stats --check`: PRAGMA integrity_check is ok;
#   2. `models list`: every saved state plus what it has not folded in yet is
#      the store (learned + new since its high-water mark - journaled
#      deletions of donations it learned = stored), recorded before any
#      reader catches it up;
#   3. per user, `predict --model profile` on the store (which catches the
#      saved state up: folds new donations, unlearns deleted ones) equals, to
#      1e-9 and target for target, `predict` on a copy of the store whose saved
#      states were dropped, after `train --model profile` from scratch (the
#      profile learns a donation exactly as a refit does); no note (nothing
#      unreadable, nothing refitted);
#   4. `predict` (blend) reads its saved state without a refit note, and
#      `models list` is consistent again afterwards.
# Runs rounds until KILLS processes were killed (a round whose processes all
# finished before the kill point is checked but kills nothing). Prints a line
# per round and a summary; exits non-zero when any check fails.
set -euo pipefail
wanted="${1:-30}"
seed="${2:-7}"
cd "$(dirname "$0")/.."
P="${3:-}"
if [ -z "$P" ]; then
  source scripts/proactive-binary.sh
  P="$(proactive_binary debug --build)"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
store="$work/store.sqlite"
export PROACTIVE_STORE="$store"
log="$work/log.jsonl"
"$P" simulate --users 2 --days 150 --seed "$seed" -o "$log" 2> /dev/null
lines=$(wc -l < "$log")
users=(sim0000 sim0001)
at="2026-06-15T08:00:00+02:00"  # a moment after the log: every donation is history

"$P" retention set --keep-all > /dev/null
imported=$((lines * 40 / 100))
head -n "$imported" "$log" > "$work/start.jsonl"
"$P" import --progress none "$work/start.jsonl" 2> /dev/null
"$P" train --quiet > /dev/null
"$P" train --quiet --model profile > /dev/null

# predictions FILE: "target probability" lines of a predict --json, plus "note ..." when it has one.
predictions() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
if d["note"] is not None: print("note", d["note"])
for s in d["suggestions"]: print(s["target"], repr(s["probability"]))' "$1"
}

# same_predictions A B: the same targets, probabilities within 1e-9, neither with a note.
same_predictions() {
  python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
if a["note"] is not None or b["note"] is not None: sys.exit("note: %s / %s" % (a["note"], b["note"]))
pa = {s["target"]: s["probability"] for s in a["suggestions"]}
pb = {s["target"]: s["probability"] for s in b["suggestions"]}
if set(pa) != set(pb): sys.exit("targets differ: %s" % sorted(set(pa) ^ set(pb)))
worst = max(abs(pa[t] - pb[t]) for t in pa)
if worst > 1e-9: sys.exit("probabilities differ by %g" % worst)' "$1" "$2"
}

# consistent FILE: every state in a models list --json is consistent; prints "PENDING_NEW PENDING_DELETED".
consistent() {
  python3 -c '
import json, sys
states = json.load(open(sys.argv[1]))
bad = [s for s in states if s["learned"] + s["pending_new"] - s["pending_deleted"] != s["stored"] or not s["consistent"]]
if bad or not states: sys.exit("inconsistent: %s" % (bad or "no saved states"))
print(sum(s["pending_new"] for s in states), sum(s["pending_deleted"] for s in states))' "$1"
}

# sql STORE QUERY: runs QUERY on STORE (Python's sqlite3), prints the first value of the first row.
sql() {
  python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); c.commit(); print(r[0] if r else "")' "$1" "$2"
}

# journal_written PID: waits until the erasure journal has rows (exit 0) or PID has ended (exit 1), at most 5 s.
journal_written() {
  python3 -c '
import os, sqlite3, sys, time
store, pid = sys.argv[1], sys.argv[2]
end = time.time() + 5
while time.time() < end and os.path.exists("/proc/" + pid):
    try:
        db = sqlite3.connect("file:" + store + "?mode=ro", uri=True, timeout=0.05)
        if db.execute("SELECT count(*) FROM model_erasure").fetchone()[0] > 0: sys.exit(0)
        db.close()
    except sqlite3.Error:
        pass
    time.sleep(0.003)
sys.exit(1)' "$store" "$1"
}

RANDOM=$seed
kills=0 round=0 failures=0 between=0 next_line=$((imported + 1)) donated=0
printf '%-6s %-18s %-36s %-16s %-8s %s\n' round delay killed "pending new/del" stored result
while [ "$kills" -lt "$wanted" ]; do
  round=$((round + 1))
  if [ "$round" -gt $((4 * wanted + 4)) ]; then echo "only $kills kills in $((round - 1)) rounds" >&2; exit 1; fi
  pids=() names=()
  # The next slice of the log (wraps around: a re-imported donation is "already stored").
  size=$((100 + RANDOM % 300))
  [ "$next_line" -gt "$lines" ] && next_line=1
  sed -n "${next_line},$((next_line + size - 1))p" "$log" > "$work/slice.jsonl"
  next_line=$((next_line + size))
  "$P" import --progress none --batch-size $((10 + RANDOM % 40)) "$work/slice.jsonl" > /dev/null 2>&1 &
  pids+=($!) names+=(import)
  for _ in $(seq $((1 + RANDOM % 3))); do
    donated=$((donated + 1))
    user=${users[$((RANDOM % 2))]}
    "$P" donate --user "$user" --app com.example.crash --intent OpenCaseIntent --param "case=c$((donated % 7))" \
      --identifier "crash-$donated" --date "2026-05-$(printf '%02d' $((1 + donated % 28)))T09:$(printf '%02d' $((donated % 60))):00+02:00" \
      > /dev/null 2>&1 &
    pids+=($!) names+=(donate)
  done
  user=${users[$((RANDOM % 2))]}
  case $((RANDOM % 3)) in
    0) "$P" predict --user "$user" --at "$at" > /dev/null 2>&1 & pids+=($!) names+=(predict) ;;
    1) "$P" predict --user "$user" --at "$at" --model profile > /dev/null 2>&1 & pids+=($!) names+=(predict-profile) ;;
    2) "$P" suggest --user "$user" --at "$at" > /dev/null 2>&1 & pids+=($!) names+=(suggest) ;;
  esac
  if [ $((round % 2)) = 0 ]; then
    # A few days of one user's donations (under 10 % of them: unlearned, not refitted).
    day=$((5 + RANDOM % 120))
    from=$(date -u -d "2026-01-05 +$day days" +%Y-%m-%d) to=$(date -u -d "2026-01-05 +$((day + 2)) days" +%Y-%m-%d)
    "$P" delete --user "${users[$((RANDOM % 2))]}" --after "$from" --before "$to" > /dev/null 2>&1 &
    pids+=($!) names+=(delete)
  fi
  delay=$((RANDOM % 600))
  if [ $((round % 4)) = 0 ]; then
    # Aim at the window a crash must survive: the delete committed (journal rows
    # written in its transaction), its saved states not yet caught up and saved.
    journal_written "${pids[-1]}" && delay="journal+$((delay / 6))" || delay="delete-ended+$((delay / 6))"
    sleep "$(printf '0.%03d' "${delay#*+}")"
  else
    sleep "$(printf '0.%03d' "$delay")"
  fi
  killed=()
  for i in "${!pids[@]}"; do
    if kill -9 "${pids[$i]}" 2> /dev/null; then killed+=("${names[$i]}"); fi
  done
  { for pid in "${pids[@]}"; do wait "$pid" || true; done; } 2> /dev/null
  kills=$((kills + ${#killed[@]}))

  # The checks, on what the kills left.
  result=ok
  rm -f "$work/copy.sqlite" "$work/copy.sqlite-wal" "$work/copy.sqlite-shm"
  cp "$store" "$work/copy.sqlite"
  [ -e "$store-wal" ] && cp "$store-wal" "$work/copy.sqlite-wal"
  # The reference: no saved state at all, so train fits from scratch.
  sql "$work/copy.sqlite" "DELETE FROM model_state" > /dev/null
  integrity=$("$P" stats --check --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["integrity"] if isinstance(d["integrity"], str) else "damaged")') || true
  [ "$integrity" = ok ] || result="FAIL(integrity: $integrity)"
  stored=$("$P" stats --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"])')
  "$P" models list --json > "$work/models.json" || true
  if ! pending=$(consistent "$work/models.json" 2> "$work/why.txt"); then result="FAIL(models: $(cat "$work/why.txt"))"; pending="-"; fi
  case "$pending" in -|*" 0") ;; *) between=$((between + 1)) ;; esac  # killed between a delete and its settling
  for user in "${users[@]}"; do
    "$P" predict --user "$user" --at "$at" --model profile -k 100 --json > "$work/live.json" 2> /dev/null || result="FAIL(predict $user)"
    "$P" train --quiet --model profile --user "$user" --store "$work/copy.sqlite" > /dev/null
    [ "$(sql "$work/copy.sqlite" "SELECT count(*) FROM model_state WHERE user = '$user' AND name = 'profile'")" = 1 ] || result="FAIL(train $user)"
    "$P" predict --user "$user" --at "$at" --model profile -k 100 --json --store "$work/copy.sqlite" > "$work/fresh.json" 2> /dev/null
    if ! same_predictions "$work/live.json" "$work/fresh.json" 2> "$work/why.txt"; then result="FAIL(profile $user: $(cat "$work/why.txt"))"; fi
    "$P" predict --user "$user" --at "$at" -k 100 --json > "$work/blend.json" 2> /dev/null || result="FAIL(predict blend $user)"
    if predictions "$work/blend.json" | grep -q '^note'; then result="FAIL(blend $user: $(predictions "$work/blend.json" | grep '^note'))"; fi
  done
  "$P" models list --json > "$work/models.json" || true
  consistent "$work/models.json" > /dev/null 2> "$work/why.txt" || result="FAIL(models after catch-up: $(cat "$work/why.txt"))"
  printf '%-6s %-18s %-36s %-16s %-8s %s\n' "$round" "${delay}ms" "$(IFS=,; echo "${killed[*]:-none}")" "$pending" "$stored" "$result"
  case "$result" in FAIL*) failures=$((failures + 1)) ;; esac
done
echo "$kills SIGKILLs in $round rounds; in $between a delete was killed before its saved states unlearned it (journal pending)" >&2
if [ "$failures" -gt 0 ]; then
  echo "$failures of $round rounds failed" >&2
  exit 1
fi
echo "all $round rounds passed" >&2
