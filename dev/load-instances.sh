#!/usr/bin/env bash
# One and two `proactive serve` instances on one PostgreSQL database, beside one
# instance on a SQLite file with the same donations, under wrk over loopback TCP
# (127.0.0.1 only), bounded in time (issue #30's figures).
#
#   dev/load-instances.sh [USERS=200] [DAYS=60] [SECONDS=10] [CONNECTIONS=16] [BATCH=500]
#
# 1. builds the release binary (or uses $PROACTIVE_BIN); starts a private cluster
#    (scripts/postgres-cluster.sh: a Unix socket, fsync off as in the tests, so
#    the database's figures are its CPU, not a disk's flushes); simulates USERS
#    users over DAYS days (seed 7), imports and trains them into a SQLite file
#    and into the database;
# 2. for each side, `sqlite` (one instance on the file), `pg1` (one instance on
#    the database) and `pg2` (two instances on it, each loaded by its own wrk
#    with half the connections, at the same time): asks every user once (models
#    into memory), then runs wrk for SECONDS on the suggestion route, then on
#    the donation route (JSON Lines, BATCH donations a request, unique
#    identifiers), the same wrk scripts as dev/load-serve.sh (dev/wrk-routes.sh);
# 3. reads each process's CPU from /proc around each run: the instances', and
#    the database server's (the postmaster and every backend).
# Prints, per side and route: requests/s (summed over the instances), p50/p99
# (the worse instance), the instances' CPU per request or donation and the
# database's CPU per request or donation; writes them to $LOAD_OUT/instances.json
# (default out/bench/instances). On 2 cores, wrk, the instances and the database
# share the cores: CPU per request is the figure that carries to a bigger machine.
# Environment: PORT (default 18780; the second instance uses PORT+1).
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
users="${1:-200}"
days="${2:-60}"
seconds="${3:-10}"
connections="${4:-16}"
batch="${5:-500}"
port="${PORT:-18780}"
at="2026-11-20T08:30:00-08:00"
cd "$(dirname "$0")/.."
out="${LOAD_OUT:-out/bench/instances}"
mkdir -p "$out"
bash scripts/ensure-system-packages.sh
command -v wrk >/dev/null || { echo "load-instances.sh: wrk is missing: apt-get install wrk" >&2; exit 1; }
export OPENBLAS_NUM_THREADS=1
source scripts/proactive-binary.sh
P="$(proactive_binary release --build)"
work="$(mktemp -d)"
chmod 755 "$work"
cluster="$work/cluster"
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  bash scripts/postgres-cluster.sh stop "$cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
url="$(bash scripts/postgres-cluster.sh start "$cluster")"
store="$work/store.sqlite"

echo "== preparing $users users x $days days in a SQLite file and in the database" >&2
"$P" simulate --users "$users" --days "$days" --seed 7 -o "$work/sim.jsonl" 2>/dev/null
for location in "$store" "$url"; do
  "$P" retention set --keep-all --store "$location" >/dev/null
  "$P" import "$work/sim.jsonl" --store "$location" --progress none >/dev/null
  "$P" train --store "$location" --quiet >/dev/null
done
python3 -c 'import json, sys
print("\n".join(sorted({json.loads(line)["user"] for line in open(sys.argv[1])})))' "$work/sim.jsonl" > "$work/users.txt"
echo "== $(wc -l < "$work/users.txt") users, $(wc -l < "$work/sim.jsonl") donations" >&2
# What the database holds for them: bytes a donation (tables, indexes, saved states) for the sizing.
psql -X -q -t -A "$url" -c "SELECT count(*), pg_database_size(current_database()),
    pg_total_relation_size('donation'), (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c
    WHERE c.relname LIKE 'model_state%' AND c.relkind = 'r') FROM donation" > "$work/sizes.txt"
stat -c %s "$store" > "$work/sqlite-size.txt"

database_pids() {  # the postmaster and every process it started
  local postmaster
  postmaster="$(head -n 1 "$cluster/data/postmaster.pid")"
  echo "$postmaster $(pgrep -P "$postmaster" | tr '\n' ' ')"
}
ticks() {  # user + system ticks of the given processes (a backend that exited since is not counted)
  local total=0 pid
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] && total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}

owner=""
prefix=""
source dev/wrk-routes.sh

start_instance() {  # $1 store location, $2 port, $3 log; the pid is appended to servers
  local location="$1" instance_port="$2"
  local credential_options=()
  case "$location" in postgres://*) credential_options=(--owner-credential-file "$work/owner-credential") ;; esac
  "$P" serve --store "$location" --port "$instance_port" --host 127.0.0.1 --log-level notice \
    "${credential_options[@]}" 2>"$3" &
  servers+=("$!")
  for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$instance_port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fsS "http://127.0.0.1:$instance_port/healthz" >/dev/null || { cat "$3" >&2; exit 1; }
  case "$location" in postgres://*) owner="$(cat "$work/owner-credential")" ;; *) owner="$(cat "$location.owner-credential")" ;; esac
  local rss_empty
  rss_empty="$(awk '/^VmRSS/ {print $2}' "/proc/${servers[-1]}/status")"
  while read -r name; do
    curl -fsS -o /dev/null -H "Authorization: Bearer $owner" -d "{\"user\":\"$name\",\"k\":4}" "http://127.0.0.1:$instance_port/v1/suggestions"
  done < "$work/users.txt"
  # The instance's resident memory (KB) before any model and with every user's model held, for the sizing.
  echo "$rss_empty $(awk '/^VmRSS/ {print $2}' "/proc/${servers[-1]}/status")" > "$3.rss"
}

stop_instances() {
  for pid in "${servers[@]}"; do kill -TERM "$pid"; wait "$pid" || true; done
  servers=()
}

run_side() {  # $1 side name, $2 store location, $3 instance count
  local side="$1" location="$2" count="$3" index route
  for index in $(seq 0 $((count - 1))); do start_instance "$location" $((port + index)) "$work/$side-$index.log"; done
  for route in suggestions donations; do
    local clients="$connections"
    [ "$route" = donations ] && clients=4
    clients=$(( (clients + count - 1) / count ))  # the connections shared among the instances
    local before_servers before_db wrk_pids=()
    before_servers="$(ticks "${servers[@]}")"
    local db_pids_before=""
    [ "$side" = sqlite ] || db_pids_before="$(database_pids)"
    # shellcheck disable=SC2086  # a list of pids
    before_db="$(ticks $db_pids_before)"
    echo "== $side $route: ${seconds}s, $count instance(s), $clients connections each" >&2
    for index in $(seq 0 $((count - 1))); do
      prefix="$side$index-" write_lua "$route" "$work/$side-$route-$index.json" > "$work/$side-$route-$index.lua"
      wrk -t 1 -c "$clients" -d "${seconds}s" --latency -s "$work/$side-$route-$index.lua" "http://127.0.0.1:$((port + index))" \
        > "$work/$side-$route-$index.wrk" 2>&1 &
      wrk_pids+=("$!")
    done
    for pid in "${wrk_pids[@]}"; do wait "$pid"; done
    local db_ticks=0
    if [ "$side" != sqlite ]; then
      # Backends live as long as their connections (the instances keep theirs), so the same processes are read.
      db_ticks=$(( $(ticks $db_pids_before) - before_db ))
    fi
    echo "{\"server_ticks\": $(( $(ticks "${servers[@]}") - before_servers )), \"db_ticks\": $db_ticks, \"hz\": $(getconf CLK_TCK)}" \
      > "$work/$side-$route.cpu.json"
  done
  stop_instances
}

run_side sqlite "$store" 1
run_side pg1 "$url" 1
run_side pg2 "$url" 2

python3 - "$work" "$out/instances.json" "$users" "$days" "$seconds" "$connections" "$batch" <<'EOF'
import datetime, glob, json, os, sys
work, path = sys.argv[1], sys.argv[2]
users, days, seconds, connections, batch = map(int, sys.argv[3:8])
count, database_bytes, donation_bytes, state_bytes = map(int, open(os.path.join(work, "sizes.txt")).read().strip().split("|"))
sizes = {"donations": count, "database_bytes": database_bytes, "donation_table_bytes": donation_bytes,
         "model_state_bytes": state_bytes, "sqlite_file_bytes": int(open(os.path.join(work, "sqlite-size.txt")).read())}
sizes["rss_kb_no_model"], sizes["rss_kb_models_held"] = map(int, open(os.path.join(work, "pg1-0.log.rss")).read().split())
report = {"sizes": sizes, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
          "users": users, "days": days, "seconds": seconds, "connections": connections, "batch": batch,
          "cores": os.cpu_count(), "sides": {}}
for side in ("sqlite", "pg1", "pg2"):
    entry = {}
    for route in ("suggestions", "donations"):
        results = [json.load(open(name)) for name in sorted(glob.glob(os.path.join(work, f"{side}-{route}-*.json")))]
        cpu = json.load(open(os.path.join(work, f"{side}-{route}.cpu.json")))
        requests = sum(result["requests"] for result in results)
        rate = sum(result["requests"] / (result["duration_us"] / 1e6) for result in results)
        per = batch if route == "donations" else 1
        entry[route] = {
            "instances": len(results), "requests_per_s": rate, "per_second": rate * per,
            "p50_ms": max(result["p50_us"] for result in results) / 1000,
            "p99_ms": max(result["p99_us"] for result in results) / 1000,
            "non2xx": sum(result["non2xx"] for result in results), "errors": sum(result["errors"] for result in results),
            "instances_cpu_us": cpu["server_ticks"] / cpu["hz"] * 1e6 / max(requests * per, 1),
            "database_cpu_us": cpu["db_ticks"] / cpu["hz"] * 1e6 / max(requests * per, 1),
        }
    report["sides"][side] = entry
json.dump(report, open(path, "w"), indent=1)
print(f"{users} users x {days} days, {seconds} s a run, {connections} connections for suggestions, 4 for donations "
      f"({batch} a request), {report['cores']} cores shared by wrk, the instances and the database")
print("| side | route | per s | p50 ms | p99 ms | instances' CPU | database CPU | non-2xx |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for side, entry in report["sides"].items():
    for route, r in entry.items():
        unit = "donation" if route == "donations" else "request"
        print(f"| {side} | {route} | {r['per_second']:,.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | "
              f"{r['instances_cpu_us']:.1f} us a {unit} | {r['database_cpu_us']:.1f} us a {unit} | {r['non2xx'] + r['errors']} |")
print(f"database after import and train: {count:,} donations, {database_bytes / count:,.0f} bytes a donation in all "
      f"({donation_bytes / count:,.0f} in the donation table and its indexes, {state_bytes:,} bytes of saved states); "
      f"the SQLite file {sizes['sqlite_file_bytes'] / count:,.0f} bytes a donation")
held = (sizes["rss_kb_models_held"] - sizes["rss_kb_no_model"]) * 1024 / users
print(f"one instance on the database: RSS {sizes['rss_kb_no_model'] / 1024:,.0f} MB before any model, "
      f"{sizes['rss_kb_models_held'] / 1024:,.0f} MB with every user's model held ({held / 1e6:.2f} MB a user)")
print(f"written to {path}")
EOF
