#!/usr/bin/env bash
# Load on `proactive serve` and on its Python peer, in the same run, from a
# separate process (wrk, Debian's package) over loopback TCP (127.0.0.1 only),
# bounded in time: suggestions for random users, then donations through the
# batch route (JSON Lines, BATCH donations a request, unique identifiers,
# stored in SQLite's WAL before the answer).
#
#   dev/load-serve.sh [USERS=200] [DAYS=60] [SECONDS=10] [CONNECTIONS=16] [BATCH=500]
#
# 1. builds the release binary (or uses $PROACTIVE_BIN), simulates USERS users
#    (fixed seed), imports and trains them;
# 2. exports each user's linear scorer at the load's moment
#    (`proactive models export-weights`) for the peer;
# 3. starts `proactive serve` and asks each user once (models into memory);
#    starts the peer (dev/serve_peer.py: FastAPI + uvicorn[standard] with
#    2 workers, numpy `W @ x` top-4 over the same weights, donations into SQLite
#    in WAL mode; installed from PyPI into .venv-serve-peer on first use);
# 4. runs wrk for SECONDS per route against each, one after the other, with the
#    same scripts, users and connections, timing wrk's own CPU (on 2 cores the
#    load generator competes with the server): GET /healthz first (no credential,
#    model or store: the transport's ceiling on this machine), then the two routes.
# 5. sends the engine SIGTERM with every model held and times its exit (held
#    models saved within `serve --shutdown-save`).
# Prints requests/s, p50/p99 latency, donations/s, each server's own CPU per
# request and per donation (read from /proc: what an answer costs whatever else
# runs), and the SIGTERM time, and writes them to $LOAD_OUT/serve.json (default
# out/bench/serve) for dev/benchmarks-report.py.
# The issue's shape, 1,000 users x 1,000 targets in memory: TARGETS=1000 (the "wide" shape).
#   TARGETS=1000 dev/load-serve.sh 1000 0 10
# Each user has TARGETS apps and DONATIONS donations (default 5,000; each app once, then uniformly at
# random, 5-30 minutes apart, ending 10 minutes before the load's moment: the shape of
# dev/live-latency.py --many-targets). Training such a user costs seconds of CPU, so only
# DISTINCT users (default 20, different seeds) are imported and trained (`proactive train`, the real
# path); then, as a documented script step, every other user is a copy of one of them
# (user i copies user i mod DISTINCT):
#   - its donations: the same JSON Lines with the user's name changed, stored by `proactive import`
#     (the real path: content hashes and ids are the store's own);
#   - its live model state: the source's `model_state` row copied by sqlite3 under the copy's name
#     (the state's bytes name no user), with `high_water` set to the copy's newest donation id, so
#     the state counts as having learned exactly the copy's donations (`models list` is checked: no
#     pending donations). What differs from training every user: each copy's state carries the
#     population prior of the DISTINCT users it was trained with, not of all USERS.
# DAYS is not used by that shape; PEER is not offered for it (the peer serves each user's dense
# W, 1,000 x ~1,050 doubles: 8.4 MB a user, 8.4 GB for 1,000). MEMORY_BUDGET (default 4G; 16G for
# the wide shape) is the server's --memory-budget; the server's RSS once every user's model is
# loaded and after the load is reported (rss_mb). 1,000 x 1,000 needs about 13 GB of memory and
# 25 GB of disk while preparing (each state is about 10.7 MB, mostly the blend's rows of targets x
# features; the copy step writes them all through the WAL) and about 10 minutes.
# Environment: PORT (default 18766; the peer uses PORT+1), PEER=0 to skip the peer. PEER_LAYOUT says
# where the peer stores donations: `both` (the default) runs every route with the peer's own simple table,
# then restarts the peer and runs the donation route again into the engine's own table layout (side
# peer_engine_layout: the same CHECKs, indexes and content-hash dedupe, the fair peer for that route;
# dev/serve_peer.py says what it is); `simple` or `engine` run every route once with that table.
# Preparing once, loading many times (the wide shape's 10 minutes): KEEP_WORK=DIR prepares into DIR (a new
# or empty directory) and keeps it, with a pristine copy of the prepared store (DIR/prepared.sqlite, taken
# after a WAL checkpoint, before the server first runs) and the shape (DIR/shape.json); REUSE_WORK=DIR
# (a DIR kept so, with the same USERS, TARGETS, DISTINCT and DONATIONS, which is checked) skips the
# preparation and restores DIR/store.sqlite from that copy, so each run starts from the same store
# (the previous run's load donations and saved states are gone). The copy is as large as the store
# (about 11 GB for 1,000 x 1,000).
#   KEEP_WORK=/work/wide TARGETS=1000 dev/load-serve.sh 1000 0 10
#   REUSE_WORK=/work/wide TARGETS=1000 dev/load-serve.sh 1000 0 10
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
users="${1:-200}"
days="${2:-60}"
seconds="${3:-10}"
connections="${4:-16}"
batch="${5:-500}"
port="${PORT:-18766}"
targets="${TARGETS:-0}"
distinct="${DISTINCT:-20}"
donations="${DONATIONS:-5000}"
budget="${MEMORY_BUDGET:-4G}"
if [ "$targets" -gt 0 ]; then
  budget="${MEMORY_BUDGET:-16G}"
  [ "${PEER:-0}" = 1 ] && { echo "load-serve.sh: PEER=1 is not offered with TARGETS (see the header)" >&2; exit 2; }
  PEER=0
  [ "$distinct" -ge 1 ] && [ "$distinct" -le "$users" ] || { echo "load-serve.sh: DISTINCT must be 1..USERS" >&2; exit 2; }
fi
peer_port=$((port + 1))
peer_layout="${PEER_LAYOUT:-both}"
case "$peer_layout" in simple|engine|both) ;; *) echo "load-serve.sh: PEER_LAYOUT must be simple, engine or both, not '$peer_layout'" >&2; exit 2 ;; esac
at="2026-11-20T08:30:00-08:00"
cd "$(dirname "$0")/.."
root="$PWD"
out="${LOAD_OUT:-out/bench/serve}"
mkdir -p "$out"
bash scripts/ensure-system-packages.sh
command -v /usr/bin/time >/dev/null || { echo "/usr/bin/time is missing: apt-get install time" >&2; exit 1; }
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
source scripts/proactive-binary.sh
P="$(proactive_binary release --build)"   # $PROACTIVE_BIN: e.g. a debug build, to try the script
if [ "${PEER:-1}" = 1 ]; then
  venv=.venv-serve-peer
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "fastapi>=0.110" "uvicorn[standard]>=0.29" numpy
fi
keep="${KEEP_WORK:-}"
reuse="${REUSE_WORK:-}"
[ -n "$keep" ] && [ -n "$reuse" ] && { echo "load-serve.sh: KEEP_WORK and REUSE_WORK exclude each other" >&2; exit 2; }
wanted_key="users=$users targets=$targets distinct=$distinct donations=$donations days=$days"
if [ -n "$reuse" ]; then
  [ -f "$reuse/prepared.sqlite" ] && [ -f "$reuse/shape.json" ] && [ -f "$reuse/key" ] \
    || { echo "load-serve.sh: REUSE_WORK=$reuse holds no prepared store (prepare it with KEEP_WORK=$reuse)" >&2; exit 2; }
  [ "$(cat "$reuse/key")" = "$wanted_key" ] \
    || { echo "load-serve.sh: REUSE_WORK=$reuse was prepared for '$(cat "$reuse/key")', not '$wanted_key'" >&2; exit 2; }
  work="$reuse"
elif [ -n "$keep" ]; then
  mkdir -p "$keep"
  [ -z "$(ls -A "$keep")" ] || { echo "load-serve.sh: KEEP_WORK=$keep is not empty" >&2; exit 2; }
  work="$keep"
else
  work="$(mktemp -d)"
fi
server=""
peer=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  [ -n "$peer" ] && kill "$peer" 2>/dev/null
  [ -n "$keep" ] || [ -n "$reuse" ] || rm -rf "$work"
}
trap cleanup EXIT
store="$work/store.sqlite"
if [ -n "$reuse" ]; then
  echo "== reusing the store prepared in $reuse (restoring it from prepared.sqlite)" >&2
  rm -f "$store" "$store-wal" "$store-shm"
  cp "$reuse/prepared.sqlite" "$store"
  # Write the copy out before the load, or the kernel flushes it during the donations: back to back on the kept
  # 20-target store (PEER=0, 10 s), donation p99 was 600.8 ms without this and 85.2 ms with it.
  dirty_mb="$(awk '/^Dirty:/ {printf "%.0f", $2 / 1024}' /proc/meminfo)"
  sync_started="$(date +%s.%N)"
  sync "$store"
  echo "== the copy written out ($dirty_mb MB dirty before, $(python3 -c "import sys, time; print(round(time.time() - float(sys.argv[1]), 1))" "$sync_started") s)" >&2
  shape="$(cat "$reuse/shape.json")"
else
"$P" retention set --keep-all --store "$store" >/dev/null 2>&1
if [ "$targets" -gt 0 ]; then
  echo "== preparing $users users x $targets targets x $donations donations ($distinct trained, the others copies)" >&2
  python3 - "$work" "$users" "$distinct" "$targets" "$donations" "$at" <<'EOF'
import datetime, json, os, random, sys
work, users, distinct, apps, donations, at = sys.argv[1], *map(int, sys.argv[2:6]), sys.argv[6]
end = datetime.datetime.fromisoformat(at) - datetime.timedelta(minutes=10)
sources = []
for u in range(distinct):
    r = random.Random(1000 + u)
    gaps = [r.randint(300, 1800) for _ in range(donations)]
    when = end - datetime.timedelta(seconds=sum(gaps))
    lines = []
    for n in range(donations):
        when += datetime.timedelta(seconds=gaps[n])
        app = n % apps if n < apps else r.randrange(apps)
        lines.append({"app": f"com.example.app{app}", "intent": "open", "parameters": {}, "date": when.isoformat()})
    sources.append(lines)
def write(path, names):
    with open(path, "w") as f:
        for name in names:
            for line in sources[int(name[4:]) % distinct]:
                f.write(json.dumps({"user": name, **line}) + "\n")
names = [f"wide{i}" for i in range(users)]
write(os.path.join(work, "distinct.jsonl"), names[:distinct])
write(os.path.join(work, "copies.jsonl"), names[distinct:])
open(os.path.join(work, "users.txt"), "w").write("\n".join(names) + "\n")
EOF
  "$P" import "$work/distinct.jsonl" --store "$store" --progress none >/dev/null 2>&1
  train_started="$(date +%s.%N)"
  /usr/bin/time -f '%M' -o "$work/train.rss" "$P" train --store "$store" --quiet >/dev/null 2>&1
  train_s="$(python3 -c "import sys, time; print(round(time.time() - float(sys.argv[1]), 1))" "$train_started")"
  echo "== trained $distinct users in ${train_s}s (peak RSS $(( $(tail -1 "$work/train.rss") / 1024 )) MB)" >&2
  if [ "$users" -gt "$distinct" ]; then
    "$P" import "$work/copies.jsonl" --store "$store" --progress none >/dev/null 2>&1
    # The documented copy step (see the header): each copy gets its source's state, as of its own newest donation.
    sqlite3 "$store" "INSERT INTO model_state (user, name, bytes, catalogue, high_water, erasure_mark, donation_count,
        definitions_digest, focus_digest, options, trained_at_ms, saved_at_ms)
      SELECT c.user, s.name, s.bytes, s.catalogue, c.high, s.erasure_mark, s.donation_count, s.definitions_digest,
        s.focus_digest, s.options, s.trained_at_ms, s.saved_at_ms
      FROM (SELECT user, max(id) AS high FROM donation GROUP BY user) c
      JOIN model_state s ON s.user = 'wide' || (CAST(substr(c.user, 5) AS INTEGER) % $distinct)
      WHERE CAST(substr(c.user, 5) AS INTEGER) >= $distinct"
  fi
  "$P" models list --store "$store" --json > "$work/models.json" || true  # exit 1 when a state is inconsistent: checked below
  python3 - "$work/models.json" "$users" <<'EOF' >&2
import json, sys
listed = json.load(open(sys.argv[1]))
models = listed if isinstance(listed, list) else listed.get("models", [])
users = {m["user"] for m in models}
pending = [m["user"] for m in models if m["pending_new"] or m["pending_deleted"] or not m["consistent"]]
sizes = sorted(m.get("bytes", 0) for m in models)
print(f"== {len(users)} users with a saved state, {len(pending)} with pending changes or inconsistent; state {sizes[len(sizes) // 2] / 1e6:.2f} MB (median)")
if len(users) != int(sys.argv[2]) or pending:
    sys.exit("load-serve.sh: the copied states do not cover every user as learned")
EOF
  shape="{\"users\": $users, \"targets\": $targets, \"donations_per_user\": $donations, \"distinct_trained\": $distinct, \"train_s\": $train_s}"
else
  echo "== preparing $users users x $days days" >&2
  "$P" simulate --users "$users" --days "$days" --seed 7 -o "$work/sim.jsonl" 2>/dev/null
  "$P" import "$work/sim.jsonl" --store "$store" --progress none >/dev/null 2>&1
  "$P" train --store "$store" --quiet >/dev/null 2>&1
  "$P" models export-weights --store "$store" --at "$at" -o "$work/weights" 2>&1 >&2
  # The users both sides serve: those with exported weights (a logistic part).
  python3 -c 'import json,sys; print("\n".join(e["user"] for e in json.load(open(sys.argv[1]))))' "$work/weights/index.json" > "$work/users.txt"
  shape="$(python3 -c '
import json, sys
index = json.load(open(sys.argv[1]))
targets = [len(e["targets"]) for e in index]
print(json.dumps({"users": len(index), "targets_mean": sum(targets) / len(targets), "targets_max": max(targets),
                  "columns_mean": sum(e["columns"] for e in index) / len(index)}))' "$work/weights/index.json")"
fi
if [ -n "$keep" ]; then
  sqlite3 "$store" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  cp "$store" "$work/prepared.sqlite"
  echo "$shape" > "$work/shape.json"
  echo "$wanted_key" > "$work/key"
  echo "== kept the prepared store in $work (reuse it with REUSE_WORK=$work)" >&2
fi
fi
echo "== shape: $shape" >&2

owner=""
start_engine() {
  "$P" serve --store "$store" --port "$port" --host 127.0.0.1 --log-level notice --memory-budget "$budget" 2>"$work/serve.log" &
  server=$!
  for _ in $(seq 1 200); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  owner="$(cat "$store.owner-credential")"
  while read -r name; do
    curl -fsS -o /dev/null -H "Authorization: Bearer $owner" -d "{\"user\":\"$name\",\"k\":4}" "http://127.0.0.1:$port/v1/suggestions"
  done < "$work/users.txt"
  rss_loaded_mb="$(rss_mb "$server")"
  echo "== engine: every user's model in memory, RSS $rss_loaded_mb MB" >&2
}
rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
rss_loaded_mb=0
start_peer() {  # $1 the peer's donation table layout (simple|engine)
  (cd "$root/dev" && PEER_LAYOUT="$1" PEER_WEIGHTS="$work/weights" PEER_DB="$work/peer.sqlite" exec "$root/$venv/bin/uvicorn" serve_peer:app \
    --host 127.0.0.1 --port "$peer_port" --workers 2 --log-level warning --no-access-log) 2>"$work/peer.log" &
  peer=$!
  for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$peer_port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fsS "http://127.0.0.1:$peer_port/healthz" >/dev/null || { cat "$work/peer.log" >&2; exit 1; }
}

source dev/wrk-routes.sh

run_load() {  # $1 side (engine|peer|peer_engine_layout), $2 port, $3 server pid, $4 routes (default all three)
  for route in ${4:-healthz suggestions donations}; do
    local lua="$work/$1-$route.lua" result="$work/$1-$route.json" clients="$connections"
    [ "$route" = donations ] && clients=4
    write_lua "$route" "$result" > "$lua"
    echo "== $1 $route: ${seconds}s, $clients connections" >&2
    local before; before="$(cpu_ticks "$3")"
    /usr/bin/time -f '{"user_s": %U, "system_s": %S, "wall_s": %e}' -o "$work/$1-$route.cpu.json" \
      wrk -t 1 -c "$clients" -d "${seconds}s" --latency -s "$lua" "http://127.0.0.1:$2" >&2
    echo "{\"ticks\": $(( $(cpu_ticks "$3") - before )), \"hz\": $(getconf CLK_TCK)}" > "$work/$1-$route.server.json"
  done
}

rm -f "$work"/engine-*.json "$work"/peer-*.json "$work"/peer_engine_layout-*.json  # a kept work directory holds an earlier run's results
start_engine
run_load engine "$port" "$server"
rss_after_mb="$(rss_mb "$server")"
echo "== engine: RSS after the load $rss_after_mb MB" >&2
engine_stored="$(sqlite3 "$store" "select count(*) from donation where app = 'com.example.load'")"
curl -fsS -H "Authorization: Bearer $owner" "http://127.0.0.1:$port/metrics" | grep -E '^proactive_(models_in_memory|refits_total|donations_stored_total)' >&2 || true
# Shutdown with every model held and the donations above folded or pending: how long SIGTERM takes.
term_started="$(date +%s.%N)"
kill -TERM "$server"; wait "$server"; server=""
sigterm_s="$(python3 -c "import sys, time; print(round(time.time() - float(sys.argv[1]), 2))" "$term_started")"
echo "== engine: SIGTERM to exit took ${sigterm_s}s" >&2
grep -E "saved [0-9]+ models in|donation batches committed" "$work/serve.log" >&2 || true
peer_stored=0
peer_engine_layout_stored=0
if [ "${PEER:-1}" = 1 ]; then
  rm -f "$work/peer.sqlite" "$work/peer.sqlite-wal" "$work/peer.sqlite-shm"  # a kept work directory may hold an earlier run's
  first_layout=simple; [ "$peer_layout" = engine ] && first_layout=engine
  start_peer "$first_layout"
  run_load peer "$peer_port" "$peer"
  peer_table=donation; [ "$first_layout" = engine ] && peer_table=donation_engine_layout
  peer_stored="$(sqlite3 "$work/peer.sqlite" "select count(*) from $peer_table")"
  kill -TERM "$peer"; wait "$peer" || true; peer=""
  if [ "$peer_layout" = both ]; then  # the donation route again, into the engine's table layout
    start_peer engine
    run_load peer_engine_layout "$peer_port" "$peer" donations
    peer_engine_layout_stored="$(sqlite3 "$work/peer.sqlite" "select count(*) from donation_engine_layout")"
    kill -TERM "$peer"; wait "$peer" || true; peer=""
  fi
fi

PEER_LAYOUT="$peer_layout" python3 - "$work" "$out/serve.json" "$shape" "$seconds" "$connections" "$batch" "$engine_stored" "$peer_stored" "$peer_engine_layout_stored" "$(python3 -c 'import os; print(os.cpu_count())')" "$sigterm_s" "$rss_loaded_mb" "$rss_after_mb" <<'EOF'
import datetime, json, os, sys
work, path, shape, seconds, connections, batch, engine_stored, peer_stored, peer_engine_layout_stored, cores, sigterm_s, rss_loaded, rss_after = sys.argv[1:]
batch = int(batch)
report = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "shape": json.loads(shape), "seconds": int(seconds), "connections": int(connections), "donation_connections": 4,
          "batch": batch, "cores": int(cores), "sides": {}}
report["peer_layout"] = os.environ["PEER_LAYOUT"]  # the peer's donation tables (dev/serve_peer.py)
stored = {"engine": engine_stored, "peer": peer_stored, "peer_engine_layout": peer_engine_layout_stored}
for side in ("engine", "peer", "peer_engine_layout"):
    routes = [route for route in ("healthz", "suggestions", "donations") if os.path.exists(os.path.join(work, f"{side}-{route}.json"))]
    if not routes:
        continue
    entry = {"stored": int(stored[side])}
    if side == "engine":
        entry["sigterm_s"] = float(sigterm_s)
        entry["rss_mb"] = {"models_loaded": int(rss_loaded), "after_load": int(rss_after)}
    for route in routes:
        result = json.load(open(os.path.join(work, f"{side}-{route}.json")))
        cpu = json.load(open(os.path.join(work, f"{side}-{route}.cpu.json")))
        rate = result["requests"] / (result["duration_us"] / 1e6)
        entry[route] = {"requests_per_s": rate, "p50_ms": result["p50_us"] / 1000, "p90_ms": result["p90_us"] / 1000,
                        "p99_ms": result["p99_us"] / 1000, "max_ms": result["max_us"] / 1000,
                        "errors": result["errors"], "non2xx": result["non2xx"],
                        "wrk_cpu": (cpu["user_s"] + cpu["system_s"]) / max(cpu["wall_s"], 1e-9)}
        server = json.load(open(os.path.join(work, f"{side}-{route}.server.json")))
        # The server's own CPU per request (and per donation): what one answer costs, whatever else runs on the machine.
        entry[route]["server_cpu_us_per_request"] = server["ticks"] / server["hz"] * 1e6 / max(result["requests"], 1)
        if route == "donations":
            entry[route]["donations_per_s"] = rate * batch
            entry[route]["server_cpu_us_per_donation"] = entry[route]["server_cpu_us_per_request"] / batch
    report["sides"][side] = entry
json.dump(report, open(path, "w"), indent=1)
for side, entry in report["sides"].items():
    parts = []
    if "healthz" in entry:
        h = entry["healthz"]
        parts.append(f"healthz {h['requests_per_s']:,.0f}/s (server CPU {h['server_cpu_us_per_request']:.0f} us a request)")
    if "suggestions" in entry:
        s = entry["suggestions"]
        parts.append(f"suggestions {s['requests_per_s']:,.0f}/s p50 {s['p50_ms']:.2f} ms p99 {s['p99_ms']:.2f} ms "
                     f"(wrk {s['wrk_cpu']:.0%} of a core, {s['non2xx']} non-2xx, server CPU {s['server_cpu_us_per_request']:.0f} us a request)")
    d = entry["donations"]
    parts.append(f"donations {d['donations_per_s']:,.0f}/s p99 {d['p99_ms']:.1f} ms ({d['non2xx']} non-2xx, server CPU "
                 f"{d['server_cpu_us_per_donation']:.1f} us a donation), {entry['stored']:,} stored")
    print(f"{side}: " + "; ".join(parts)
          + (f"; SIGTERM {entry['sigterm_s']:.1f} s" if "sigterm_s" in entry else "")
          + (f"; RSS {entry['rss_mb']['models_loaded']:,} MB loaded, {entry['rss_mb']['after_load']:,} MB after" if "rss_mb" in entry else ""))
print(f"written to {path}")
EOF
