#!/usr/bin/env bash
# The talks' Focus and migration examples through the CLI, on a scratch store.
# Checks each decision and exits non-zero at the first one that differs.
# Usage: scripts/focus-demo.sh [path/to/proactive]   (default: the debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/proactive-binary.sh
P="${1:-$(proactive_binary debug)}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export PROACTIVE_STORE="$WORK/store.sqlite"

# expect [--fails|--not] PATTERN COMMAND...: runs the command, shows its output, checks that the
# pattern matches the output joined into one line (--not: that it does not) and the exit
# status (0, or not 0 with --fails).
expect() {
    local fails=0 negate=0 status=0 output
    if [ "$1" = "--fails" ]; then fails=1; shift; fi
    if [ "$1" = "--not" ]; then negate=1; shift; fi
    local pattern="$1"; shift
    output="$("$@" 2>&1)" || status=$?
    printf '$ %s\n%s\n' "${*/#$P/proactive}" "$output"
    if tr '\n' ' ' <<<"$output" | grep -qE -- "$pattern"; then
        [ $negate = 0 ] || { echo "FAILED: unexpected /$pattern/" >&2; exit 1; }
    else
        [ $negate = 1 ] || { echo "FAILED: expected /$pattern/" >&2; exit 1; }
    fi
    if [ $fails = 1 ] && [ $status = 0 ]; then echo "FAILED: expected a non-zero exit status" >&2; exit 1; fi
    if [ $fails = 0 ] && [ $status != 0 ]; then echo "FAILED: exit status $status" >&2; exit 1; fi
}

cat >"$WORK/mail-filter.json" <<'JSON'
{"title": "Set account and appearance",
 "description": "Choose the account and look of Mail in this Focus",
 "parameters": [
   {"name": "alwaysUseDarkMode", "title": "Always use dark mode", "type": "bool", "optional": false, "default": false},
   {"name": "status", "title": "Status", "type": "string"},
   {"name": "account", "title": "Account", "type": "entity", "entityType": "Account",
    "options": [{"id": "personal", "display": "Personal"}, {"id": "work", "display": "Work"}],
    "matches": "account"}]}
JSON

# Focus as context: Work on weekdays, Personal set by hand at lunch.
expect 'schedule 1: work Mon-Fri 09:00-17:30' "$P" focus schedule add Work --days Mon-Fri --start 09:00 --end 17:30 --timezone America/Los_Angeles
expect 'work \(schedule 1' "$P" focus status --at 2026-11-16T10:00:00-08:00

# Focus filter: declaration, configuration, display representation.
expect 'alwaysUseDarkMode \(bool, default Off\)' "$P" focus filter define --app com.example.mail "$WORK/mail-filter.json"
expect 'Always use dark mode, Account' "$P" focus filter configure --app com.example.mail --focus Personal account=personal
expect 'On, Busy, Work' "$P" focus filter configure --app com.example.mail --focus work account=work alwaysUseDarkMode=on status=Busy
expect 'perform com.example.mail \[configured, Focus personal\]: alwaysUseDarkMode=Off, account=Personal' \
    "$P" focus set personal --at 2026-11-16T12:00:00-08:00

# Notifications in the Personal Focus: the work account is silenced.
expect '^silenced: criteria account=work do not match account == "personal"' \
    "$P" notify --app com.example.mail --criteria account=work --at 2026-11-16T13:00:00-08:00
expect '^delivered' "$P" notify --app com.example.mail --criteria account=personal --at 2026-11-16T13:00:00-08:00
expect 'badge 3' "$P" focus context --app com.example.mail --focus personal --badge 3
expect 'delivered: the notification carries no filter criteria badge com.example.mail in personal: 3' \
    "$P" notify --app com.example.mail --at 2026-11-16T13:00:00-08:00

# After Work's end the manual Personal no longer holds: defaults come back.
expect 'no Focus .*alwaysUseDarkMode=Off \(defaults\)' "$P" focus status --at 2026-11-16T18:00:00-08:00

# People and Focus on the bundled sample log.
# The sample log has fixed dates; a new store keeps all of it (no retention window is set).
"$P" import datasets/sample/donations.jsonl >/dev/null 2>&1
expect 'work	Alice Chen <alice@work.example>	49	49	60	124' "$P" focus people --focus work --definitions datasets/sample/definitions.json
expect 'no one to suggest' "$P" focus people --focus work --min-lift 3

# Suggestions respect the filters: Messages filtered to the personal account in Personal.
cat >"$WORK/messages-filter.json" <<'JSON'
{"title": "Messages account", "parameters": [{"name": "account", "title": "Account", "type": "entity",
  "options": [{"id": "personal", "display": "Personal"}, {"id": "work", "display": "Work"}], "matches": "account"}]}
JSON
"$P" focus filter define --app com.example.messages "$WORK/messages-filter.json" >/dev/null
"$P" focus filter configure --app com.example.messages --focus personal account=personal >/dev/null
expect 'Message Alice Chen' "$P" suggest --user me --definitions datasets/sample/definitions.json --at 2026-11-23T11:00:00-08:00 -k 4
"$P" focus set personal --at 2026-11-23T10:00:00-08:00 >/dev/null
expect --not 'Alice Chen|Carol Diaz' "$P" suggest --user me --definitions datasets/sample/definitions.json --at 2026-11-23T11:00:00-08:00 -k 4

# Migration: a renamed parameter is refused, the compatible schema is applied.
cat >"$WORK/legacy.json" <<'JSON'
{"app":"com.example.coffee","intents":[{"name":"LegacyOrderCoffeeIntent",
  "parameters":[{"name":"item","type":"string"},{"name":"size","type":"enum","cases":["small","medium","large"]}],
  "combinations":[{"parameters":["item","size"],"summary":"Order a ${size} ${item}"}]}]}
JSON
sed -e 's/LegacyOrderCoffeeIntent"/OrderCoffeeIntent","migratesFrom":"LegacyOrderCoffeeIntent"/' "$WORK/legacy.json" >"$WORK/new.json"
sed -e 's/"size"/"cupSize"/g; s/\${size}/${cupSize}/' "$WORK/new.json" >"$WORK/renamed.json"
expect --fails 'migration refused: OrderCoffeeIntent.size: .*likely a rename of "size" to "cupSize"' "$P" migrate apply --legacy "$WORK/legacy.json" --new "$WORK/renamed.json"
expect 'applied: com.example.coffee LegacyOrderCoffeeIntent -> OrderCoffeeIntent' "$P" migrate apply --legacy "$WORK/legacy.json" --new "$WORK/new.json"
echo "focus demo: all checks passed"
