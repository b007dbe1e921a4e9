#!/usr/bin/env bash
# What PostgreSQL's write-ahead log keeps of an erased user, and for how long: stores donations
# holding a unique secret through `proactive import`, erases the user (`proactive forget`), then
# counts the pg_wal segment files holding the secret's bytes after the erasure and after each of
# ROUNDS rounds of `CHECKPOINT; SELECT pg_switch_wal()` (what a superuser can run after an
# erasure). A private cluster (scripts/postgres-cluster.sh) in a fresh folder; loopback only.
#
#   bash dev/pg-wal-erasure.sh [ROUNDS] [FILLER_MB]
#
# FILLER_MB: megabytes of other donations written between rounds (WAL traffic of other users),
# default 0: the bound with no other traffic is the worst case for recycling.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-4}"
filler_mb="${2:-0}"
bin="${PROACTIVE_BIN:-$(swift build --show-bin-path)/proactive}"
cluster="$(mktemp -d)"
trap 'bash scripts/postgres-cluster.sh stop "$cluster"' EXIT
url="$(bash scripts/postgres-cluster.sh start "$cluster")"
data="$cluster/data"
psql() { command psql -h "$cluster" -U proactive proactive -Atqc "$1"; }
secret="WALSECRET_$(date +%s%N)"
work="$(mktemp -d)"
python3 - "$secret" "$work/secret.jsonl" <<'PY'
import sys
secret, path = sys.argv[1], sys.argv[2]
with open(path, "w") as f:
    for i in range(200):
        f.write('{"user":"victim","app":"com.example.coffee","intent":"OrderCoffeeIntent","parameters":{"item":"%s-%d"},"date":%d}\n'
                % (secret, i, 1790000000 + i * 600))
PY
filler() {
  python3 - "$1" "$2" <<'PY'
import sys
path, mb = sys.argv[1], int(sys.argv[2])
n = mb * 1024 * 1024 // 400
with open(path, "w") as f:
    for i in range(n):
        f.write('{"user":"other","app":"com.example.tea","intent":"OrderTeaIntent","parameters":{"item":"%s"},"date":%d}\n'
                % ("t" * 200 + str(i), 1700000000 + i))
PY
}
holding() { grep -l -a -F "$secret" "$data"/pg_wal/0* 2>/dev/null | wc -l; }
"$bin" import "$work/secret.jsonl" --store "$url" --progress none >/dev/null
echo "segments: $(ls "$data"/pg_wal | grep -c '^0') (wal_segment_size $(psql 'SHOW wal_segment_size'), min_wal_size $(psql 'SHOW min_wal_size'), wal_recycle $(psql 'SHOW wal_recycle'))"
echo "after import: $(holding) segment(s) hold the secret"
"$bin" forget --user victim --store "$url" >/dev/null
echo "after forget: $(holding) segment(s) hold the secret"
for round in $(seq 1 "$rounds"); do
  if [ "$filler_mb" -gt 0 ]; then filler "$work/filler.jsonl" "$filler_mb"; "$bin" import "$work/filler.jsonl" --store "$url" --progress none >/dev/null; fi
  psql "CHECKPOINT" >/dev/null; psql "SELECT pg_switch_wal()" >/dev/null; psql "CHECKPOINT" >/dev/null
  echo "after round $round (${filler_mb} MB of other donations, CHECKPOINT, pg_switch_wal, CHECKPOINT): $(holding) segment(s) hold the secret; $(ls "$data"/pg_wal | grep -c '^0') segments"
done
rm -rf "$work"
