#!/usr/bin/env bash
# Forgetting, end to end through the CLI, saved models included.
#
#   dev/forgetting.sh [TRAIN_KILLS=10] [SEED=1] [path/to/proactive]
#
# 1. Imports a log, donates values that exist nowhere else, trains saved models,
#    and checks the values are in the store file's bytes (donation rows and the
#    saved models' vocabularies) -- so the later checks can fail.
# 2. delete --identifier: the value is gone from the store file and its -wal,
#    the user's saved live model unlearned it at once (no journal row left),
#    predict answers from the saved state without refitting, and neither the
#    state nor a retrained model holds the value.
# 3. forget --user: nothing of the user is left in any table, nor in the bytes.
# 4. retention: an old donation is erased by `retention apply`, bytes included.
# 5. pause on: donations are refused with a message, nothing is deleted.
# 6. A corrupt and a torn saved model are detected (predict notes it, rebuilds
#    the state from the donations and saves it).
# 7. train killed with SIGKILL at random moments: integrity ok, and a saved model
#    is either absent or readable (never torn).
set -euo pipefail
cd "$(dirname "$0")/.."
train_kills="${1:-10}"
seed="${2:-1}"
source scripts/proactive-binary.sh
P="${3:-$(proactive_binary debug)}"
[ -x "$P" ] || swift build --product proactive >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PROACTIVE_STORE="$work/store.sqlite"
checks=0
fail() { echo "FAILED: $*" >&2; exit 1; }
# says PATTERN COMMAND...: true when the command's output (both streams) matches
# PATTERN, whatever its exit status (captured first: no SIGPIPE under pipefail).
says() { local pattern="$1" output; shift; output="$("$@" 2>&1)" || true; grep -qE -- "$pattern" <<<"$output"; }
ok() { checks=$((checks + 1)); echo "ok: $*"; }

# in_store VALUE: exit 0 when VALUE's bytes are in the store file or its write-ahead log.
in_store() { grep -qaF -- "$1" "$PROACTIVE_STORE" "$PROACTIVE_STORE-wal" 2>/dev/null; }
# sql QUERY: one value from the store (read-only, Python's sqlite3).
sql() { python3 -c 'import sqlite3,sys; c=sqlite3.connect("file:"+sys.argv[1]+"?mode=ro",uri=True); r=c.execute(sys.argv[2]).fetchone(); print(r[0] if r else "")' "$PROACTIVE_STORE" "$1"; }

python3 dev/reliability-log.py --lines 1500 --prefix f --seed "$seed" --now "$(date +%s)" --apps 3 > "$work/log.jsonl"
"$P" import --progress none "$work/log.jsonl" > /dev/null
A=com.example.app0
S1="zebra-quartz-4412"   # u1's, deleted by identifier
S2="ocelot-mirth-9071"   # u2's, forgotten with the user
S3="walrus-ember-5530"   # u0's, too old for the retention window
"$P" donate --user u1 --app $A --intent OrderIntent --param item="$S1" --identifier secret-1 > /dev/null
"$P" donate --user u1 --app $A --intent OrderIntent --param item="$S1" --identifier secret-1b > /dev/null
"$P" donate --user u2 --app $A --intent OrderIntent --param item="$S2" --identifier secret-2 > /dev/null
"$P" train --model profile --quiet > /dev/null
for value in "$S1" "$S2"; do in_store "$value" || fail "$value is not in the store before deleting (the check could not fail)"; done
[ "$(sql "SELECT instr(bytes, CAST('$S1' AS BLOB)) > 0 FROM model_state WHERE user = 'u1'")" = 1 ] || fail "u1's saved model does not hold $S1"
ok "the donated values are in the store file, and $S1 in u1's saved model"

# 2. Deleting donations
says "deleted 2 donations" "$P" delete --app $A --identifier secret-1 --identifier secret-1b || fail "delete"
in_store "$S1" && fail "$S1 is still in the store file or its log after delete"
[ "$(sql "SELECT COUNT(*) FROM model_state WHERE user = 'u1'")" = 1 ] || fail "u1's saved model was dropped instead of unlearning"
[ "$(sql "SELECT COUNT(*) FROM model_erasure")" = 0 ] || fail "the erasure journal still holds the deleted donations"
ok "delete: $S1 is gone from the store file, the log and u1's saved model (unlearned at once, journal empty)"
says "note:" "$P" predict --user u1 --model profile && fail "predict after the deletion refitted (a note) instead of reading the state"
"$P" train --user u1 --model profile --quiet > /dev/null
[ "$(sql "SELECT COUNT(*) FROM model_state WHERE user = 'u1'")" = 1 ] || fail "train --user u1 saved nothing"
in_store "$S1" && fail "$S1 came back with the retrained model"
ok "predict reads the caught-up state without a note; the retrained model does not hold $S1"

# 3. Forgetting a user
says "forgot u2" "$P" forget --user u2 || fail "forget"
for table in donation feedback relevant_shortcut_set widget_timeline user_setting model_state model_erasure; do
    [ "$(sql "SELECT COUNT(*) FROM $table WHERE user = 'u2'")" = 0 ] || fail "u2 still has rows in $table"
done
in_store "$S2" && fail "$S2 is still in the store after forget"
ok "forget --user u2: no row in any per-user table, $S2 gone from the bytes"

# 4. Retention (a new store keeps everything until a window is set)
"$P" donate --user u0 --app $A --intent OrderIntent --param item="$S3" --date "$(date -u -d '-40 days' +%Y-%m-%dT%H:%M:%SZ)" > /dev/null
in_store "$S3" || fail "$S3 was not stored"
"$P" retention set --days 28 > /dev/null
says "$A: erased 1 donations" "$P" retention apply || fail "retention apply did not erase the old donation"
in_store "$S3" && fail "$S3 is still in the store after retention"
ok "retention: the 40-day-old donation is erased, bytes included"
says "write-ahead log .* -> 0 bytes" "$P" compact || fail "compact"
ok "compact: the write-ahead log is truncated to 0 bytes"

# 5. Pause
rows=$(sql "SELECT COUNT(*) FROM donation")
"$P" pause on > /dev/null
if "$P" donate --user u1 --app $A --intent OpenIntent > "$work/out" 2>&1; then fail "a donation was accepted while paused"; fi
grep -q "recording is paused" "$work/out" || fail "the refusal does not say recording is paused: $(cat "$work/out")"
if "$P" import --progress none "$work/log.jsonl" > "$work/out" 2>&1; then fail "an import was accepted while paused"; fi
[ "$(sql "SELECT COUNT(*) FROM donation")" = "$rows" ] || fail "pausing changed the stored donations"
"$P" pause off > /dev/null
"$P" donate --user u1 --app $A --intent OpenIntent > /dev/null || fail "donating after pause off"
ok "pause: donate and import refused with a message, nothing deleted; off resumes"

# 6. Corrupt and torn saved models (retention dropped u0's: train everyone first)
"$P" train --model profile --quiet > /dev/null
python3 - "$PROACTIVE_STORE" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(blob,) = db.execute("SELECT bytes FROM model_state WHERE user = 'u0' AND name = 'profile'").fetchone()
flipped = bytearray(blob); flipped[len(blob) // 2] ^= 0xFF
db.execute("UPDATE model_state SET bytes = ? WHERE user = 'u0' AND name = 'profile'", (bytes(flipped),))
(blob,) = db.execute("SELECT bytes FROM model_state WHERE user = 'u1' AND name = 'profile'").fetchone()
db.execute("UPDATE model_state SET bytes = ? WHERE user = 'u1' AND name = 'profile'", (blob[: len(blob) // 2],))
db.commit()
PY
says "profile state was unreadable \(model file corrupt: checksum" "$P" predict --user u0 --model profile || fail "predict did not notice the corrupt model"
says "profile state was unreadable \(model file truncated" "$P" predict --user u1 --model profile || fail "predict did not notice the torn model"
for user in u0 u1; do
    says "note:" "$P" predict --user $user --model profile && fail "$user's model was not rebuilt and saved"
done
ok "a corrupt and a torn saved model are detected by predict, rebuilt from the donations and saved"

# 7. SIGKILL during train
start=$(date +%s%N)
"$P" train --model profile --quiet > /dev/null
full_ms=$(( ($(date +%s%N) - start) / 1000000 ))
RANDOM=$seed
killed=0
for round in $(seq "$train_kills"); do
    [ $((round % 2)) = 0 ] && "$P" delete --app $A --identifier "f-$round" > /dev/null  # models dropped: train writes new rows
    delay_ms=$(( RANDOM % (full_ms + 1) ))
    "$P" train --model profile --quiet > /dev/null 2>&1 &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -KILL "$pid" 2>/dev/null && killed=$((killed + 1))
    wait "$pid" 2>/dev/null || true
    "$P" stats --check > /dev/null || fail "integrity after killing train (round $round)"
    for user in u0 u1; do
        if says "unreadable" "$P" predict --user $user --model profile; then fail "a torn model after killing train (round $round)"; fi
    done
done
ok "train killed $killed times at random moments: integrity ok, every saved model absent or readable"
echo "forgetting: $checks checks passed"
