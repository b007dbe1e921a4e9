#!/usr/bin/env bash
# What a suggestion costs `proactive serve` beyond its model: the same server, in one run, under
# the same load on three requests that share more and more of the suggestion's path,
#
#   healthz    GET /healthz: no credential, body, model or store (the transport's floor);
#   refused    POST /v1/suggestions with a valid credential and a body the route refuses
#              ({"user":U,"k":0}: 400): the transport, the credential check, reading and parsing
#              the body, and a JSON answer, with no model;
#   suggest    POST /v1/suggestions for a random user at a new moment each request (the load of
#              dev/load-serve.sh and dev/profile-serve.sh): all of it, the model included;
#
# and prints, for each, requests/s, p50/p99 and the server's CPU per request (from /proc), and the
# ratios to /healthz. ROUNDS (default 2) repeats the three in turns.
#
#   KEEP_WORK=/tmp/serve-work PEER=0 dev/load-serve.sh 100 30 8     # prepares and keeps the store
#   dev/serve-floor.sh /tmp/serve-work [SECONDS=8] [CONNECTIONS=16]
#
# Uses the release binary (or $PROACTIVE_BIN) on a copy of WORK/prepared.sqlite, over loopback
# TCP (127.0.0.1, PORT, default 18771); every user is asked once before the load (models into
# memory). SERVE_FLAGS adds flags to `proactive serve` (e.g. SERVE_FLAGS=--global-pool). Needs wrk
# (apt-get install wrk).
set -euo pipefail
case "${1:-}" in -h|--help|"") sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
kept="$1"
seconds="${2:-8}"
connections="${3:-16}"
port="${PORT:-18771}"
rounds="${ROUNDS:-2}"
batch=500
[ -f "$kept/prepared.sqlite" ] && [ -f "$kept/users.txt" ] \
  || { echo "serve-floor.sh: $kept holds no prepared store (prepare it with KEEP_WORK=$kept dev/load-serve.sh)" >&2; exit 2; }
cd "$(dirname "$0")/.."
source dev/wrk-routes.sh
begin_kept_run serve-floor.sh
# shellcheck disable=SC2086  # SERVE_FLAGS: more flags for serve, split on spaces
start_kept_server "$kept" "$port" ${SERVE_FLAGS:-}
first="$(head -n 1 "$work/users.txt")"
status="$(curl -sS -o "$work/refused.txt" -w '%{http_code}' -H "Authorization: Bearer $owner" -d "{\"user\":\"$first\",\"k\":0}" "http://127.0.0.1:$port/v1/suggestions")"
[ "$status" = 400 ] || { echo "serve-floor.sh: the refused body got $status, not 400: $(cat "$work/refused.txt")" >&2; exit 1; }
echo "== $(wc -l < "$work/users.txt") models in memory; the refused body answers 400: $(cat "$work/refused.txt")" >&2
write_lua healthz "$work/healthz.json" > "$work/healthz.lua"
write_lua suggestions "$work/suggest.json" > "$work/suggest.lua"
# The refused question: the suggestion route's credential, headers and body reading, with a body it refuses.
write_lua suggestions "$work/refused.json" | sed 's/,"k":4}/,"k":0}/' > "$work/refused.lua"
grep -q '"k":0' "$work/refused.lua" || { echo "serve-floor.sh: could not write the refused body's script" >&2; exit 1; }
hz="$(getconf CLK_TCK)"
for round in $(seq 1 "$rounds"); do
  for route in healthz refused suggest; do
    before="$(cpu_ticks "$server")"
    wrk -t 1 -c "$connections" -d "${seconds}s" --latency -s "$work/$route.lua" "http://127.0.0.1:$port" >/dev/null
    echo "$(( $(cpu_ticks "$server") - before ))" > "$work/$route.ticks"
  done
  python3 - "$work" "$hz" "$round" <<'EOF'
import json, sys
work, hz, round_ = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = {}
for route in ("healthz", "refused", "suggest"):
    result = json.load(open(f"{work}/{route}.json"))
    ticks = int(open(f"{work}/{route}.ticks").read())
    rate = result["requests"] / (result["duration_us"] / 1e6)
    cpu = ticks / hz * 1e6 / max(result["requests"], 1)
    rows[route] = (rate, cpu)
    print(f"round {round_} {route:8} {rate:9,.0f}/s  p50 {result['p50_us'] / 1000:5.2f} ms  p99 {result['p99_us'] / 1000:5.2f} ms  "
          f"server CPU {cpu:5.0f} us a request  ({result['non2xx']} non-2xx, {result['errors']} errors)")
base_rate, base_cpu = rows["healthz"]
for route in ("refused", "suggest"):
    rate, cpu = rows[route]
    print(f"round {round_} {route:8} against /healthz: rate {rate / base_rate:.2f}x, CPU {cpu / base_cpu:.2f}x")
EOF
done
