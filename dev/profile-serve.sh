#!/usr/bin/env bash
# Where `proactive serve` spends its CPU on POST /v1/suggestions (and, with SIGTERM=1, how long
# it takes to stop after a donation flood), on a store prepared by dev/load-serve.sh:
#
#   KEEP_WORK=/tmp/serve-work PEER=0 dev/load-serve.sh 100 30 8     # prepares and keeps the store
#   dev/profile-serve.sh /tmp/serve-work [SECONDS=8] [CONNECTIONS=16]
#
# 1. copies WORK/prepared.sqlite (the kept store, untouched) into a temporary folder and starts
#    the release binary (or $PROACTIVE_BIN) on it over loopback TCP (127.0.0.1, PORT, default 18770);
# 2. asks each user of WORK/users.txt once (every model into memory);
# 3. runs wrk (dev/wrk-routes.sh's suggestions script: a new moment each request) for SECONDS with
#    CONNECTIONS connections while `perf record -g` samples the server (PERF=0: no perf; the
#    figures are then those of the server alone), and prints requests/s, p50/p99 and the server's
#    CPU per request, then `perf report`'s heaviest symbols (self and with children) into
#    $PROFILE_OUT (default out/bench/profile-serve: report.txt, perf.data);
# With ANSWERS=FILE, first writes to FILE the answers (status and body) to a fixed set of questions: each
# user at three moments, one in developer mode, and a few refused bodies; two binaries' files compare byte
# for byte (`cmp`).
# 4. with SIGTERM=1: floods donations through the batch route for FLOOD seconds (default 5, 4
#    connections, 500 a request), waits SETTLE seconds (default 0; the background folds learn the
#    flood meanwhile, so the held models have something to save), sends SIGTERM with every model held
#    and prints how long the server took to exit and its shutdown log lines.
# SERVE_FLAGS adds flags to `proactive serve` (e.g. SERVE_FLAGS="--shutdown-save 4").
# Needs perf (apt-get install linux-perf) and wrk (apt-get install wrk).
set -euo pipefail
case "${1:-}" in -h|--help|"") sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
kept="$1"
seconds="${2:-8}"
connections="${3:-16}"
port="${PORT:-18770}"
batch=500
[ -f "$kept/prepared.sqlite" ] && [ -f "$kept/users.txt" ] \
  || { echo "profile-serve.sh: $kept holds no prepared store (prepare it with KEEP_WORK=$kept dev/load-serve.sh)" >&2; exit 2; }
cd "$(dirname "$0")/.."
out="${PROFILE_OUT:-out/bench/profile-serve}"
mkdir -p "$out"
source dev/wrk-routes.sh
begin_kept_run profile-serve.sh
# shellcheck disable=SC2086  # SERVE_FLAGS: more flags for serve, split on spaces
start_kept_server "$kept" "$port" ${SERVE_FLAGS:-}
echo "== $(wc -l < "$work/users.txt") models in memory" >&2
if [ -n "${ANSWERS:-}" ]; then
  : > "$ANSWERS"
  ask() { curl -sS -o "$work/answer" -w '%{http_code} ' -H "Authorization: Bearer $owner" -d "$1" "http://127.0.0.1:$port/v1/suggestions" >> "$ANSWERS"; cat "$work/answer" >> "$ANSWERS"; }
  while read -r name; do
    ask "{\"user\":\"$name\",\"at\":\"2026-11-20T08:30:00-08:00\",\"k\":4}"
    ask "{\"k\":3,\"at\":\"2026-11-20T19:05:00.250Z\",\"user\":\"$name\",\"context\":{\"focus\":\"work\"}}"
    ask "{\"user\":\"$name\",\"at\":\"2026-11-21T07:00\",\"developer\":true}"
  done < "$work/users.txt"
  for body in '{"user":""}' '{"usr":"x"}' '{"k":0}' '{"k":"4"}' '{"at":"2026-11-20"}' '{"context":{"focus":1}}' '[1]' '{' '{"developer":1}'; do
    ask "$body"
  done
  echo "== answers to $(grep -c . "$ANSWERS") questions in $ANSWERS" >&2
fi
write_lua suggestions "$work/suggestions.json" > "$work/suggestions.lua"
before="$(cpu_ticks "$server")"
if [ "${PERF:-1}" = 1 ]; then
  perf record -g -F 999 -o "$out/perf.data" -p "$server" -- sleep "$seconds" 2>"$work/perf.log" &
  recorder=$!
fi
wrk -t 1 -c "$connections" -d "${seconds}s" --latency -s "$work/suggestions.lua" "http://127.0.0.1:$port" >/dev/null
[ "${PERF:-1}" = 1 ] && wait "$recorder"
ticks=$(( $(cpu_ticks "$server") - before ))
python3 - "$work/suggestions.json" "$ticks" "$(getconf CLK_TCK)" <<'EOF'
import json, sys
result = json.load(open(sys.argv[1]))
ticks, hz = int(sys.argv[2]), int(sys.argv[3])
rate = result["requests"] / (result["duration_us"] / 1e6)
print(f"suggestions {rate:,.0f}/s p50 {result['p50_us'] / 1000:.2f} ms p99 {result['p99_us'] / 1000:.2f} ms "
      f"({result['non2xx']} non-2xx, {result['errors']} errors), server CPU {ticks / hz * 1e6 / max(result['requests'], 1):.0f} us a request")
EOF
if [ "${PERF:-1}" = 1 ]; then
  {
    echo "## self"
    perf report -i "$out/perf.data" --no-children --sort symbol --percent-limit 0.7 --stdio -g none 2>/dev/null | grep -v '^$'
    echo "## with children"
    perf report -i "$out/perf.data" --children --sort symbol --percent-limit 2 --stdio -g none 2>/dev/null | grep -v '^$'
  } > "$out/report.txt"
  echo "== perf report: $out/report.txt" >&2
fi
if [ "${SIGTERM:-0}" = 1 ]; then
  write_lua donations "$work/donations.json" > "$work/donations.lua"
  wrk -t 1 -c 4 -d "${FLOOD:-5}s" -s "$work/donations.lua" "http://127.0.0.1:$port" >/dev/null
  sleep "${SETTLE:-0}"
  started="$(date +%s.%N)"
  kill -TERM "$server"; wait "$server" || true; server=""
  echo "== SIGTERM to exit took $(python3 -c "import sys, time; print(round(time.time() - float(sys.argv[1]), 2))" "$started") s" >&2
  grep -E "saved|committed" "$work/serve.log" >&2 || true
fi
