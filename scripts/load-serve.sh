#!/usr/bin/env bash
# Load on `proactive serve` from a separate process (wrk) over loopback TCP
# (127.0.0.1 only), bounded in time: suggestions for random users, then
# donations through the batch route (JSON Lines, BATCH donations a request,
# unique identifiers, stored in SQLite's WAL before the answer).
#
#   scripts/load-serve.sh [USERS=200] [DAYS=60] [SECONDS=10] [CONNECTIONS=16] [BATCH=500]
#
# Builds the release binary (or uses $PROACTIVE_BIN), simulates USERS users (fixed seed), imports and
# trains them, starts the server, asks each user once (models into memory),
# then runs wrk for SECONDS per route. Prints requests/s, p50/p99 latency and
# donations/s; the server's own histogram is at GET /metrics.
set -euo pipefail
users="${1:-200}"
days="${2:-60}"
seconds="${3:-10}"
connections="${4:-16}"
batch="${5:-500}"
port="${PORT:-18766}"
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
export OPENBLAS_NUM_THREADS=1
if [ -n "${PROACTIVE_BIN:-}" ]; then
  P="$PROACTIVE_BIN"   # e.g. a debug build, to try the script (its figures are not the release's)
else
  swift build -c release --product proactive >&2
  P="$(swift build -c release --show-bin-path)/proactive"
fi
work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
store="$work/store.sqlite"
"$P" retention set --keep-all --store "$store" >/dev/null 2>&1
"$P" simulate --users "$users" --days "$days" --seed 7 -o "$work/sim.jsonl" 2>/dev/null
"$P" import "$work/sim.jsonl" --store "$store" --progress none >/dev/null 2>&1
"$P" train --store "$store" --quiet >/dev/null 2>&1
"$P" serve --store "$store" --port "$port" --host 127.0.0.1 --log-level warning --memory-budget 4G 2>"$work/serve.log" &
server=$!
for _ in $(seq 1 200); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
owner="$(cat "$store.owner-credential")"
mapfile -t names < <("$P" stats --store "$store" --json --top 0 | python3 -c 'import json,sys; print("\n".join(u["user"] for u in json.load(sys.stdin)["users"]))')
for name in "${names[@]}"; do
  curl -fsS -o /dev/null -H "Authorization: Bearer $owner" -d "{\"user\":\"$name\",\"k\":4}" "http://127.0.0.1:$port/v1/suggestions"
done
printf '%s\n' "${names[@]}" > "$work/users.txt"

cat > "$work/suggest.lua" <<LUA
local users = {}
for line in io.lines("$work/users.txt") do users[#users + 1] = line end
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer $owner"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local user = users[math.random(#users)]
  return wrk.format(nil, "/v1/suggestions", nil, '{"user":"' .. user .. '","at":"2026-11-20T08:30:00-08:00","k":4}')
end
LUA
cat > "$work/donate.lua" <<LUA
local users = {}
for line in io.lines("$work/users.txt") do users[#users + 1] = line end
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer $owner"
wrk.headers["Content-Type"] = "application/x-ndjson"
local sequence = 0
local prefix = tostring(math.random(1, 1000000000))
request = function()
  local lines = {}
  for i = 1, $batch do
    sequence = sequence + 1
    lines[i] = '{"user":"' .. users[(sequence % #users) + 1] .. '","app":"com.example.load","intent":"PingIntent",'
      .. '"parameters":{"n":' .. (sequence % 50) .. '},"date":' .. (1790000000 + sequence) .. ',"identifier":"' .. prefix .. '-' .. sequence .. '"}'
  end
  return wrk.format(nil, "/v1/donations", nil, table.concat(lines, "\n"))
end
LUA

echo "== suggestions: $users users in memory, ${seconds}s, $connections connections"
wrk -t 1 -c "$connections" -d "${seconds}s" --latency -s "$work/suggest.lua" "http://127.0.0.1:$port" | tee "$work/suggest.txt"
echo "== donations: JSON Lines batches of $batch, ${seconds}s, 4 connections"
wrk -t 1 -c 4 -d "${seconds}s" --latency -s "$work/donate.lua" "http://127.0.0.1:$port" | tee "$work/donate.txt"
rate="$(sed -n 's/^Requests\/sec: *//p' "$work/donate.txt")"
python3 -c "print(f'donations acknowledged: {float(\"$rate\") * $batch:,.0f}/s')"
stored="$(sqlite3 "$store" "select count(*) from donation where app = 'com.example.load'")"
echo "donations stored by the load: $stored"
curl -fsS -H "Authorization: Bearer $owner" "http://127.0.0.1:$port/metrics" | grep -E '^proactive_(models_in_memory|refits_total|donations_stored_total)' || true
kill -TERM "$server"; wait "$server"; server=""
