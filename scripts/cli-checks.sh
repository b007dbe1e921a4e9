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
# A scratch store (a new store keeps everything: the sample has fixed dates).
fresh() { rm -f "$PROACTIVE_STORE"*; }
# The store's donation count (the top-level "donations" field of `stats --json`, before the per-user array).
count() { "$P" stats --json | sed -n 's/^[^[]*"donations":\([0-9]*\).*/\1/p'; }

echo "== import -> export round trip is byte-stable"
fresh
"$P" import datasets/sample/donations.jsonl --progress none >/dev/null
"$P" export > "$WORK/export.jsonl"
cmp "$WORK/export.jsonl" datasets/sample/donations.jsonl || fail "export differs from the canonical sample"

echo "== export then import into the same store stores nothing new (no identifiers)"
fresh
sed 's/,"identifier":"[^"]*"//' datasets/sample/donations.jsonl > "$WORK/anonymous.jsonl"
grep -q identifier "$WORK/anonymous.jsonl" && fail "the identifiers were not removed"
"$P" import "$WORK/anonymous.jsonl" --progress none 2>/dev/null
lines=$(wc -l < "$WORK/anonymous.jsonl")
[ "$(count)" = "$lines" ] || fail "expected $lines donations stored, found $(count)"
"$P" export > "$WORK/anonymous-export.jsonl"
"$P" import "$WORK/anonymous-export.jsonl" --progress none 2> "$WORK/err.txt"
grep -q ": $lines lines: 0 stored, $lines already stored, 0 rejected" "$WORK/err.txt" || fail "re-import summary: $(cat "$WORK/err.txt")"
[ "$(count)" = "$lines" ] || fail "the round trip doubled the store: $(count) donations"
cmp <("$P" export) "$WORK/anonymous-export.jsonl" || fail "the store changed on re-import"

echo "== retention: a new store keeps everything; with a window, old donations are counted, never stored"
fresh
"$P" retention show | grep -qx "default: keep everything" || fail "a new store has a retention window: $("$P" retention show)"
now=$(date -u +%s)
{
  for days in 40 35 1 0; do
    echo "{\"app\":\"com.a\",\"intent\":\"open\",\"date\":$((now - days * 86400 - 60)),\"parameters\":{\"age\":$days}}"
  done
  echo "{\"app\":\"com.h\",\"intent\":\"open\",\"date\":$((now - 3 * 86400)),\"parameters\":{\"age\":3}}"
} > "$WORK/aged.jsonl"
"$P" import "$WORK/aged.jsonl" --progress none 2>/dev/null
[ "$(count)" = 5 ] || fail "a new store did not keep all 5 donations: $(count)"
fresh
"$P" retention set --days 28 >/dev/null
"$P" import "$WORK/aged.jsonl" --progress none 2> "$WORK/err.txt"
grep -q "aged.jsonl: 5 lines: 3 stored, 0 already stored, 2 older than the retention window (28 days) not stored" "$WORK/err.txt" \
  || fail "retention summary: $(cat "$WORK/err.txt")"
grep -q "erased" "$WORK/err.txt" && fail "the import erased something: $(cat "$WORK/err.txt")"
[ "$(count)" = 3 ] || fail "expected 3 donations stored, found $(count)"
"$P" retention apply | grep -q "erased 0 donations" || fail "retention apply erased what the import had just stored"
"$P" retention set --app com.h --days 2 >/dev/null
"$P" import "$WORK/aged.jsonl" --progress none --json 2>/dev/null > "$WORK/import.json"
python3 - "$WORK/import.json" <<'PY' || fail "import --json: $(cat "$WORK/import.json")"
import json, sys
report = json.load(open(sys.argv[1]))
# The app window erased com.h's 3-day-old donation before the import, and the import leaves it out.
assert (report["stored"], report["already_stored"], report["older_than_retention"]) == (0, 2, 3), report
assert report["retention_days"] == {"default": 28, "com.h": 2}, report
PY

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

echo "== docs: every .md a doc, comment or --help names exists; help examples paste (no line wrapped at 80 columns)"
python3 scripts/check-docs.py "$P"

echo "== focus schedule add takes --timezone (and its old spelling --time-zone)"
fresh
"$P" focus schedule add work --days Mon-Fri --start 09:00 --end 17:00 --timezone Europe/Paris | grep -q "schedule 1: work" \
  || fail "--timezone refused"
"$P" focus schedule add gym --days daily --start 18:00 --end 19:00 --time-zone Europe/Paris | grep -q "schedule 2: gym" \
  || fail "--time-zone no longer accepted"
"$P" focus schedule add --help | grep -q -- "--time-zone" && fail "the old spelling --time-zone is listed in the help"

echo "== one vocabulary: --version; '-' is standard output for evaluate --report; summaries on standard error"
"$P" --version | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+ \(store schema v[0-9]+_[a-z_]+, model format [0-9]+\)$' \
  || fail "--version: $("$P" --version 2>&1)"
(
  cd "$WORK"
  "$P" split "$OLDPWD/datasets/sample/donations.jsonl" --train train.jsonl --test test.jsonl >split-out.txt 2>split-err.txt
  [ ! -s split-out.txt ] && grep -q "^split 283 donations" split-err.txt || fail "split: summary not alone on standard error"
  "$P" evaluate --train train.jsonl --test test.jsonl --report - --quiet >report.json 2>table.txt
  python3 -c 'import json,sys; r=json.load(open("report.json")); assert r["events"] > 0 and "hit@1" in r and "mrr" in r' \
    || fail "evaluate --report - did not write the JSON report to standard output: $(head -c 300 report.json)"
  grep -q "| model | hit@1" table.txt || fail "evaluate --report -: the table is not on standard error"
  [ ! -e ./- ] || fail "evaluate --report - wrote a file named -"
)

echo "== one clock per user: the same instant written in two offsets gets one answer; users timezone set/show"
fresh
"$P" import datasets/sample/donations.jsonl >/dev/null 2>&1
"$P" train --quiet >/dev/null
a="$("$P" predict --user me --at 2026-11-24T02:00:00Z -k 3 --json 2>/dev/null)"
b="$("$P" predict --user me --at 2026-11-23T18:00:00-08:00 -k 3 --json 2>/dev/null)"
[ "$a" = "$b" ] || fail "the same instant in two offsets gave two answers:\n$a\n$b"
echo "$a" | grep -q '"clock":"UTC-08:00, the offset of' || fail "predict --json does not say which clock it used: $a"
"$P" users timezone set me America/Los_Angeles | grep -q "me: America/Los_Angeles" || fail "users timezone set"
"$P" users timezone show | grep -q "^me: America/Los_Angeles$" || fail "users timezone show"
"$P" predict --user me --at 2026-11-23T18:00 -k 1 --json 2>/dev/null | grep -q '"clock":"America/Los_Angeles"' \
  || fail "predict does not read --at in the configured zone"
if "$P" users timezone set me Mars/Olympus >zone.txt 2>&1; then fail "an unknown zone was accepted"; fi
grep -q "unknown time zone" zone.txt || fail "users timezone set, unknown zone: $(cat zone.txt)"
rm -f zone.txt

echo "== live models: the online evaluation walked through the engine (rank, donate, learn) gives the same ranks"
(
  cd "$WORK"
  "$P" evaluate --train train.jsonl --test test.jsonl --online --quiet --ranks-out harness.txt >/dev/null
  "$P" evaluate --train train.jsonl --test test.jsonl --online --quiet --through-engine --ranks-out engine.txt >/dev/null
  [ "$(wc -l < engine.txt)" -gt 50 ] || fail "--through-engine wrote $(wc -l < engine.txt) ranks"
  cmp -s harness.txt engine.txt || fail "evaluate --online and --through-engine ranks differ: $(diff harness.txt engine.txt | head -5)"
  if "$P" evaluate --train train.jsonl --test test.jsonl --through-engine >refused.txt 2>&1; then
    fail "--through-engine without --online was accepted"
  fi
  grep -q "add --online" refused.txt || fail "--through-engine without --online: $(cat refused.txt)"
)
fresh
"$P" import datasets/sample/donations.jsonl --progress none >"$WORK/out.txt" 2>"$WORK/err.txt"
[ ! -s "$WORK/out.txt" ] || fail "import wrote to standard output: $(cat "$WORK/out.txt")"
grep -q "283 lines: 283 stored" "$WORK/err.txt" || fail "import summary missing from standard error"

echo "== Focus filters, people and migration (scripts/focus-demo.sh)"
bash scripts/focus-demo.sh "$P" >/dev/null

echo "cli checks: all passed"
