#!/usr/bin/env bash
# What the PostgreSQL store's marks cost an instance before each answer (PostgresStoreMarks, in
# PostgresChangeWatch.swift): the server round trip of its one query for the credentials' version,
# the erasure journal's and the donations' marks and the WAL position (the same SQL as `ask()`),
# measured with pgbench (libpq, one client, as one instance asks) on a private cluster holding a
# simulated store, beside a bare `SELECT 1` on the same connection type (the transport's floor).
#
# Usage: dev/pg-watch-cost.sh [path/to/proactive]   (default: the debug build)
#        SECONDS_EACH=10 USERS=200 DAYS=60 to change the run
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/proactive-binary.sh
P="${1:-$(proactive_binary debug)}"
SECONDS_EACH="${SECONDS_EACH:-10}"
WORK="$(mktemp -d)"
CLUSTER="$(mktemp -d)"  # its own folder: the server may run as another user (postgres-cluster.sh)
cleanup() { bash scripts/postgres-cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
URL="$(bash scripts/postgres-cluster.sh start "$CLUSTER")"
"$P" simulate --users "${USERS:-200}" --days "${DAYS:-60}" --seed 7 -o "$WORK/log.jsonl" 2>/dev/null
"$P" retention set --keep-all --store "$URL" >/dev/null
"$P" import "$WORK/log.jsonl" --store "$URL" --progress none >/dev/null 2>&1
"$P" train --store "$URL" >/dev/null 2>&1
rows="$(psql -h "$CLUSTER" -U proactive -d proactive -Atc 'SELECT count(*) FROM donation')"
cat > "$WORK/marks.sql" <<'SQL'
SELECT (SELECT value FROM proactive_sequence WHERE name = 'credential'),
       (SELECT value FROM proactive_sequence WHERE name = 'model_erasure'),
       GREATEST((SELECT value FROM proactive_sequence WHERE name = 'donation'), (SELECT coalesce(max(id), 0) FROM donation)),
       (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint;
SQL
echo "SELECT 1;" > "$WORK/floor.sql"
run() {  # prints the average latency in ms of one query file
  pgbench -h "$CLUSTER" -U proactive -n -c 1 -T "$SECONDS_EACH" -f "$1" proactive 2>/dev/null \
    | awk -F'= ' '/latency average/ { split($2, a, " "); print a[1] }'
}
floor="$(run "$WORK/floor.sql")"
marks="$(run "$WORK/marks.sql")"
echo "{\"donations\": $rows, \"seconds_each\": $SECONDS_EACH, \"select_1_ms\": $floor, \"marks_ms\": $marks, \"loadavg_1min\": $(cut -d' ' -f1 /proc/loadavg)}"
