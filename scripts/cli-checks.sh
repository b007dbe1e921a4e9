#!/usr/bin/env bash
# End-to-end checks of the `proactive` CLI on scratch stores (part of the test
# command). Each check prints what it ran; the first mismatch exits non-zero.
# Usage: scripts/cli-checks.sh [path/to/proactive]   (default: the debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
P="${1:-$(swift build --show-bin-path)/proactive}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export PROACTIVE_STORE="$WORK/store.sqlite"
fail() { echo "FAILED: $*" >&2; exit 1; }
# A scratch store that keeps everything: the sample has fixed dates, and the
# default 28-day retention would erase what is older than that by now.
fresh() { rm -f "$PROACTIVE_STORE"*; "$P" retention set --keep-all >/dev/null; }
# The store's donation count (the top-level "donations" field of `stats --json`, before the per-user array).
count() { "$P" stats --json | sed -n 's/^[^[]*"donations":\([0-9]*\).*/\1/p'; }

echo "== import -> export round trip is byte-stable"
fresh
"$P" import datasets/sample/donations.jsonl --progress none >/dev/null
"$P" export > "$WORK/export.jsonl"
cmp "$WORK/export.jsonl" datasets/sample/donations.jsonl || fail "export differs from the canonical sample"

echo "== bad lines in the middle: good lines kept, bad ones named, exit 2"
fresh
{
  sed -n 1,3p datasets/sample/donations.jsonl
  echo '{"app":"a","intent":"open","date":"2026-11-20T07:00:00Z","count":0}'
  sed -n 4,6p datasets/sample/donations.jsonl
  echo '{"app":"a","intent":"open"'
  sed -n 7,8p datasets/sample/donations.jsonl
} > "$WORK/mixed.jsonl"
status=0
"$P" import "$WORK/mixed.jsonl" --progress none >"$WORK/out.txt" 2>"$WORK/err.txt" || status=$?
[ "$status" = 2 ] || fail "exit status $status, expected 2"
grep -q "mixed.jsonl:4: count: must be >= 1, found 0" "$WORK/err.txt" || fail "line 4 not named: $(cat "$WORK/err.txt")"
grep -q "mixed.jsonl:8: invalid JSON" "$WORK/err.txt" || fail "line 8 not named: $(cat "$WORK/err.txt")"
[ "$(count)" = 8 ] || fail "expected the 8 good lines stored, found $(count)"

echo "== --strict stores nothing from a file with a bad line"
fresh
status=0
"$P" import --strict "$WORK/mixed.jsonl" --progress none >/dev/null 2>&1 || status=$?
[ "$status" = 1 ] || fail "strict exit status $status, expected 1"
[ "$(count)" = 0 ] || fail "strict import stored $(count) donations"

echo "== delete by group for app A leaves app B's same group untouched"
fresh
cat > "$WORK/groups.jsonl" <<'JSONL'
{"app":"com.a","intent":"CheckWeather","date":"2026-11-20T07:00:00Z","group":"san-diego","identifier":"1"}
{"app":"com.a","intent":"CheckWeather","date":"2026-11-20T08:00:00Z","group":"cupertino","identifier":"2"}
{"app":"com.b","intent":"CheckWeather","date":"2026-11-20T09:00:00Z","group":"san-diego","identifier":"1"}
JSONL
"$P" import "$WORK/groups.jsonl" --progress none >/dev/null
"$P" delete --app com.a --group san-diego >/dev/null
"$P" export > "$WORK/left.jsonl"
grep -q '"app":"com.b".*"group":"san-diego"' "$WORK/left.jsonl" || fail "app B's group was touched"
grep -q '"app":"com.a".*"group":"san-diego"' "$WORK/left.jsonl" && fail "app A's group is still there"
[ "$(count)" = 2 ] || fail "expected 2 donations left, found $(count)"
status=0
"$P" delete --group san-diego >/dev/null 2>&1 || status=$?
[ "$status" != 0 ] || fail "a delete by group without --app was accepted"

echo "== predict on the sample: morning routine first at 07:30, not at 21:00"
fresh
"$P" import datasets/sample/donations.jsonl --user-timezone me=America/Los_Angeles --progress none >/dev/null
"$P" definitions add datasets/sample/definitions.json >/dev/null
"$P" train --quiet >/dev/null
"$P" predict --user me --at 2026-11-23T07:30 -k 2 > "$WORK/morning.txt"
cat "$WORK/morning.txt"
sed -n 2p "$WORK/morning.txt" | grep -qE "Weather in Cupertino|Order a large iced latte" || fail "morning top target is not weather or coffee"
grep -q "usually 0[67]:00" "$WORK/morning.txt" || fail "no time-of-day reason in the morning prediction"
"$P" predict --user me --at 2026-11-23T21:00 -k 1 > "$WORK/evening.txt"
cat "$WORK/evening.txt"
grep -qE "Weather in Cupertino|iced latte" "$WORK/evening.txt" && fail "the morning routine tops the evening"

echo "== a corrupt store file is reported, not crashed on"
printf 'not a database at all, just text' > "$WORK/corrupt.sqlite"
status=0
"$P" stats --store "$WORK/corrupt.sqlite" >/dev/null 2>"$WORK/err.txt" || status=$?
[ "$status" != 0 ] || fail "a corrupt store was accepted"
grep -qi "error" "$WORK/err.txt" || fail "no error message for a corrupt store"

echo "== Focus filters, people and migration (scripts/focus-demo.sh)"
bash scripts/focus-demo.sh "$P" >/dev/null

echo "cli checks: all passed"
