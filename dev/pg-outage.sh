#!/usr/bin/env bash
# What a PostgreSQL outage costs a caller: a command against a private cluster that is up, then
# with the whole server paused (SIGSTOP of the postmaster and every server process: a network
# partition's stand-in), then resumed; and what one new connection costs (pgbench -C, the price
# of each reconnection after a connection was lost). A command on the paused server must fail
# (exit 1, "cannot be reached now") once the URL's timeout has passed, not hang.
#
# Usage: dev/pg-outage.sh [path/to/proactive]   (default: the debug build)
#        TIMEOUT=2 (the URL's ?timeout= for the paused run), SECONDS_EACH=5 (pgbench)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/proactive-binary.sh
P="${1:-$(proactive_binary debug)}"
TIMEOUT="${TIMEOUT:-2}"
SECONDS_EACH="${SECONDS_EACH:-5}"
WORK="$(mktemp -d)"
CLUSTER="$(mktemp -d)"  # its own folder: the server may run as another user (postgres-cluster.sh)
PAUSED=""
cleanup() {
  [ -z "$PAUSED" ] || kill -CONT $PAUSED 2>/dev/null || true
  bash scripts/postgres-cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
URL="$(bash scripts/postgres-cluster.sh start "$CLUSTER")"
"$P" retention set --keep-all --store "$URL" >/dev/null
"$P" import datasets/sample/donations.jsonl --store "$URL" --progress none >/dev/null 2>&1

seconds() {  # runs a command, prints "elapsed_s exit_status"
  local start end status=0
  start="$(date +%s.%N)"
  "$@" >/dev/null 2>"$WORK/stderr" || status=$?
  end="$(date +%s.%N)"
  echo "$(printf "%.3f" "$(echo "$end - $start" | bc)") $status"
}
read -r up up_status < <(seconds "$P" export --store "$URL&timeout=$TIMEOUT")
postmaster="$(head -n 1 "$CLUSTER/data/postmaster.pid")"
PAUSED="$postmaster $(ps -o pid= --ppid "$postmaster" | tr '\n' ' ')"
kill -STOP $PAUSED
read -r paused paused_status < <(seconds "$P" export --store "$URL&timeout=$TIMEOUT")
message="$(head -c 300 "$WORK/stderr" | tr '\n"' ' _')"
kill -CONT $PAUSED
PAUSED=""
read -r resumed resumed_status < <(seconds "$P" export --store "$URL&timeout=$TIMEOUT")
echo "SELECT 1;" > "$WORK/floor.sql"
connect_ms="$(pgbench -h "$CLUSTER" -U proactive -n -C -c 1 -T "$SECONDS_EACH" -f "$WORK/floor.sql" proactive 2>/dev/null \
  | awk -F'= ' '/average connection time/ { split($2, a, " "); print a[1] }')"
echo "{\"timeout_s\": $TIMEOUT, \"up_s\": $up, \"up_exit\": $up_status, \"paused_s\": $paused, \"paused_exit\": $paused_status," \
     "\"resumed_s\": $resumed, \"resumed_exit\": $resumed_status, \"connect_ms\": ${connect_ms:-null}," \
     "\"loadavg_1min\": $(cut -d' ' -f1 /proc/loadavg), \"paused_message\": \"$message\"}"
