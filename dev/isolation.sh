#!/usr/bin/env bash
# App isolation through the CLI: as app A (--as-app), every operation on app B's
# donations, relevant shortcuts, timelines and Focus filter is refused, the
# same operations on A's own data work, and commands that work on every app's
# data refuse --as-app. The device owner (no --as-app) sees both apps.
#
#   dev/isolation.sh [path/to/proactive]
#
# Prints one line per check; exits non-zero at the first that differs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/proactive-binary.sh
P="${1:-$(proactive_binary debug)}"
[ -x "$P" ] || swift build --product proactive >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PROACTIVE_STORE="$work/store.sqlite"
A=com.example.mail
B=com.example.bank
checks=0

# refused DESCRIPTION COMMAND...: must exit non-zero saying an app may not.
refused() {
    local what="$1"; shift
    local output status=0
    output="$("$@" 2>&1)" || status=$?
    [ "$status" != 0 ] || { echo "FAILED: $what was allowed: $output" >&2; exit 1; }
    grep -q "may not" <<<"$output" || { echo "FAILED: $what failed for another reason: $output" >&2; exit 1; }
    checks=$((checks + 1))
    echo "refused: $what"
}

# allowed DESCRIPTION PATTERN COMMAND...: must exit 0 with output matching PATTERN.
allowed() {
    local what="$1" pattern="$2"; shift 2
    local output
    output="$("$@" 2>&1)" || { echo "FAILED: $what: $output" >&2; exit 1; }
    grep -qE -- "$pattern" <<<"$output" || { echo "FAILED: $what: expected /$pattern/ in: $output" >&2; exit 1; }
    checks=$((checks + 1))
    echo "allowed: $what"
}

now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cat > "$work/filter.json" <<'JSON'
{"title": "Account", "parameters": [{"name": "account", "title": "Account", "type": "entity",
  "options": [{"id": "personal", "display": "Personal"}, {"id": "work", "display": "Work"}], "matches": "account"}]}
JSON
for app in $A $B; do
    "$P" donate --app "$app" --intent OpenIntent --identifier "$app-1" --group g --user u1 > /dev/null
    echo "[{\"widgetKind\":\"$app.widget\",\"role\":\"information\",\"relevanceProviders\":[]}]" > "$work/$app-shortcuts.json"
    "$P" shortcuts set --user u1 --app "$app" "$work/$app-shortcuts.json" > /dev/null
    echo "{\"app\":\"$app\",\"widgetKind\":\"$app.widget\",\"entries\":[{\"date\":\"$now\",\"score\":5,\"duration\":600}]}" > "$work/$app-timeline.json"
    "$P" timeline set --user u1 "$work/$app-timeline.json" > /dev/null
    "$P" focus filter define --app "$app" "$work/filter.json" > /dev/null
done
cat > "$work/b-log.jsonl" <<JSON
{"app":"$B","intent":"OpenIntent","date":"$now","identifier":"$B-imported"}
JSON

AS=(--as-app $A)
# Donations
refused "donate for $B"                "$P" donate "${AS[@]}" --app $B --intent OpenIntent
refused "import $B's log"              "$P" import "${AS[@]}" "$work/b-log.jsonl"
refused "export $B's donations"        "$P" export "${AS[@]}" --app $B
refused "count $B's donations"         "$P" stats "${AS[@]}" --app $B
refused "delete $B's donation by id"   "$P" delete "${AS[@]}" --app $B --identifier $B-1
refused "delete $B's group"            "$P" delete "${AS[@]}" --app $B --group g
refused "delete $B's donations"        "$P" delete "${AS[@]}" --app $B
# Relevant shortcuts, timelines, Focus filters
refused "replace $B's shortcuts"       "$P" shortcuts set "${AS[@]}" --user u1 --app $B "$work/$B-shortcuts.json"
refused "replace $B's timeline"        "$P" timeline set "${AS[@]}" --user u1 "$work/$B-timeline.json"
refused "redefine $B's Focus filter"   "$P" focus filter define "${AS[@]}" --app $B "$work/filter.json"
refused "configure $B's Focus filter"  "$P" focus filter configure "${AS[@]}" --app $B --focus work account=work
refused "read $B's Focus filter"       "$P" focus filter show "${AS[@]}" --app $B
refused "set $B's app context"         "$P" focus context "${AS[@]}" --app $B --focus work --badge 1
# The device owner's commands
for command in "suggest --user u1" "stack --user u1 --widgets $A.widget --day 2026-11-20" "forget --user u1" \
               "retention show" "retention apply" "pause on" "compact" "focus status" "focus set work" \
               "focus schedule list" "focus people --focus work" "feedback list --user u1" "feedback add tap --user u1 --target x"; do
    # shellcheck disable=SC2086
    refused "$command as an app" "$P" $command "${AS[@]}"
done

# What A may do with its own data, and what it sees
allowed "export own donations"         "\"app\":\"$A\""  "$P" export "${AS[@]}"
[ "$("$P" export "${AS[@]}" | grep -c $B || true)" = 0 ] || { echo "FAILED: $B's donations visible to $A" >&2; exit 1; }
allowed "list own shortcuts only"      "^$A"              "$P" shortcuts list "${AS[@]}" --user u1
[ "$("$P" shortcuts list "${AS[@]}" --user u1 | grep -c $B || true)" = 0 ] || { echo "FAILED: $B's shortcuts visible to $A" >&2; exit 1; }
allowed "list own timelines only"      "^$A"              "$P" timeline list "${AS[@]}" --user u1
[ "$("$P" timeline list "${AS[@]}" --user u1 | grep -c $B || true)" = 0 ] || { echo "FAILED: $B's timelines visible to $A" >&2; exit 1; }
allowed "show own Focus filter only"   "^$A: Account"     "$P" focus filter show "${AS[@]}"
[ "$("$P" focus filter show "${AS[@]}" | grep -c $B || true)" = 0 ] || { echo "FAILED: $B's filter visible to $A" >&2; exit 1; }
allowed "configure own Focus filter"   "$A in work"       "$P" focus filter configure "${AS[@]}" --app $A --focus work account=work
allowed "donate for itself"            "\"app\":\"$A\""  "$P" donate "${AS[@]}" --app $A --intent OpenIntent --identifier $A-2
allowed "delete own donation"          "deleted 1"        "$P" delete "${AS[@]}" --app $A --identifier $A-1
allowed "delete all own donations"     "deleted 1"        "$P" delete "${AS[@]}" --all
# B's data is untouched; the device owner sees everything.
allowed "owner sees $B's donation"     "\"identifier\":\"$B-1\"" "$P" export --app $B
allowed "owner lists both apps"        "$B"               "$P" shortcuts list --user u1
echo "isolation: $checks checks passed"
