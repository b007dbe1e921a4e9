#!/usr/bin/env bash
# End-to-end checks of `proactive serve` on a scratch store and a socket in a
# scratch directory (part of the test command): the socket's mode, the owner's
# credential file, 401 without a credential, donate and suggest with curl, an
# app credential's 403, SIGTERM (drains, saves the model, exits 0), and
# SIGKILL under streaming clients (dev/kill-serve.py); with PROACTIVE_TEST_DATABASE_URL, two
# instances on one PostgreSQL database sharing the owner's and the apps' credentials.
# Usage: scripts/serve-checks.sh [path/to/proactive]   (default: the debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/proactive-binary.sh
P="${1:-$(proactive_binary debug)}"
WORK="$(mktemp -d)"
SERVER=""
OTHERS=""    # instances on PostgreSQL
DATABASE=""  # the database they share, dropped at exit
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
  for pid in $OTHERS; do kill "$pid" 2>/dev/null; done
  [ -n "$DATABASE" ] && psql "$PROACTIVE_TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $DATABASE WITH (FORCE)" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAILED: $*" >&2; [ -f "$WORK/serve.log" ] && sed 's/^/  serve: /' "$WORK/serve.log" >&2; exit 1; }
STORE="$WORK/store.sqlite"
SOCK="$WORK/run/proactive.sock"
mkdir -m 700 "$WORK/run"
"$P" retention set --keep-all --store "$STORE" >/dev/null 2>&1

start() {
  "$P" serve --store "$STORE" --socket "$SOCK" --log-level info 2>"$WORK/serve.log" &
  SERVER=$!
  # Ready once it says so: the socket exists from its bind, and takes mode 0600 just before "listening".
  for _ in $(seq 1 100); do [ -S "$SOCK" ] && grep -q '\[ProactiveService\] listening' "$WORK/serve.log" && return 0; sleep 0.1; done
  fail "the server did not say it is listening on $SOCK"
}
# call METHOD PATH CREDENTIAL [BODY [CONTENT-TYPE]]: prints the body, then the status on its own line.
call() {
  local auth=()
  [ -n "$3" ] && auth=(-H "Authorization: Bearer $3")
  curl -sS --unix-socket "$SOCK" -X "$1" "${auth[@]}" -H "Content-Type: ${5:-application/json}" \
    ${4:+--data-binary "$4"} -w '\n%{http_code}\n' "http://localhost$2"
}
status() { call "$@" | tail -n 1; }

echo "== serve: socket 0600, owner credential 0600, healthz without a credential"
start
[ "$(stat -c %a "$SOCK")" = 600 ] || fail "socket mode $(stat -c %a "$SOCK")"
[ "$(stat -c %a "$STORE.owner-credential")" = 600 ] || fail "owner credential mode"
OWNER="$(cat "$STORE.owner-credential")"
[ "$(status GET /healthz "")" = 200 ] || fail "healthz"
[ "$(status GET /v1/stats "")" = 401 ] || fail "stats without a credential"
call GET /v1/stats "" > "$WORK/401.json"
grep -q '"code":"unauthorized"' "$WORK/401.json" || fail "401 without a JSON body"

echo "== serve: an app credential minted while it runs works at once, and only for its app"
COFFEE="$("$P" apps add com.example.coffee --store "$STORE")"
"$P" apps list --store "$STORE" > "$WORK/apps.txt"
grep -q '^com.example.coffee ' "$WORK/apps.txt" || fail "apps list"
grep -q "$COFFEE" "$STORE.credentials" && fail "the credential itself was stored"
[ "$(status POST /v1/donations "$COFFEE" '{"app":"com.example.weather","intent":"CheckWeatherIntent","date":"2026-11-20T07:00:00Z"}')" = 403 ] \
  || fail "an app donated for another app"
[ "$(status POST /v1/predict "$COFFEE" '{"user":"me"}')" = 403 ] || fail "an app asked for predictions"

echo "== serve: donate the sample as JSON Lines, then suggest"
call POST /v1/donations "$OWNER" "$(cat datasets/sample/donations.jsonl)" application/x-ndjson > "$WORK/batch.json"
grep -q '"stored":283' "$WORK/batch.json" || fail "batch: $(head -c 200 "$WORK/batch.json")"
[ "$(status POST /v1/donations "$COFFEE" '{"user":"me","app":"com.example.coffee","intent":"OrderCoffeeIntent","parameters":{"item":"latte"},"date":"2026-11-20T07:15:00-08:00","identifier":"serve-1"}')" = 201 ] \
  || fail "single donation"
call POST /v1/suggestions "$OWNER" '{"user":"me","at":"2026-11-20T07:30:00-08:00","k":4,"developer":true}' > "$WORK/suggest.json"
[ "$(tail -n 1 "$WORK/suggest.json")" = 200 ] || fail "suggestions: $(cat "$WORK/suggest.json")"
grep -q '"target"' "$WORK/suggest.json" || fail "no suggestion"
call GET /metrics "$OWNER" > "$WORK/metrics.txt"   # (grep -q on a pipe would cut curl off mid-body)
grep -q 'proactive_http_requests_total{route="/v1/donations",method="POST",status="201"} 1' "$WORK/metrics.txt" || fail "metrics"

echo "== serve: SIGTERM saves the held model (with a donation it has not been asked about) and exits 0"
[ "$(status POST /v1/donations "$COFFEE" '{"user":"me","app":"com.example.coffee","intent":"OrderCoffeeIntent","parameters":{"item":"mocha"},"date":"2026-11-20T09:15:00-08:00","identifier":"serve-2"}')" = 201 ] \
  || fail "second donation"
kill -TERM "$SERVER"
code=0; wait "$SERVER" || code=$?
SERVER=""
[ "$code" = 0 ] || fail "exit status $code after SIGTERM"
[ -S "$SOCK" ] && fail "the socket was left behind"
saved="$(sqlite3 "$STORE" "select donation_count from model_state where user = 'me'")"
[ "$saved" = 285 ] || fail "the saved model has $saved donations, expected 285"
grep -q -e "$OWNER" -e "$COFFEE" "$WORK/serve.log" && fail "a credential appears in the log"

echo "== serve: refuses a non-loopback --host without --listen-any"
"$P" serve --store "$STORE" --port 8799 --host 0.0.0.0 2>/dev/null && fail "served on 0.0.0.0"
echo "== serve: SIGKILL 20 times while two clients stream donations; every acknowledged one stored exactly once"
python3 dev/kill-serve.py "$P" 20 7 || fail "kill-serve"
if [ -n "${PROACTIVE_TEST_DATABASE_URL:-}" ]; then
  echo "== serve on PostgreSQL: the first start writes the owner's credential to the file named; a second instance shares it; apps revoke reaches both"
  DATABASE="serve_checks_$$"
  psql "$PROACTIVE_TEST_DATABASE_URL" -qc "CREATE DATABASE $DATABASE" >/dev/null
  URL="$(echo "$PROACTIVE_TEST_DATABASE_URL" | sed -E "s|^(postgres(ql)?://[^/]*)/[^?]*|\1/$DATABASE|")"
  "$P" serve --database "$URL" --socket "$WORK/run/a.sock" 2>"$WORK/refused.log" && fail "served a database without an owner credential file"
  grep -q -- "--owner-credential-file" "$WORK/refused.log" || fail "the refusal does not name --owner-credential-file: $(cat "$WORK/refused.log")"
  for name in a b; do
    "$P" serve --database "$URL" --socket "$WORK/run/$name.sock" --owner-credential-file "$WORK/owner-$name" 2>>"$WORK/serve.log" &
    OTHERS="$OTHERS $!"
    for _ in $(seq 1 100); do [ -S "$WORK/run/$name.sock" ] && break; sleep 0.1; done
    [ -S "$WORK/run/$name.sock" ] || fail "instance $name did not create its socket"
  done
  [ "$(stat -c %a "$WORK/owner-a")" = 600 ] || fail "owner credential file mode"
  [ -e "$WORK/owner-b" ] && fail "the second instance wrote an owner credential of its own"
  OWNER="$(cat "$WORK/owner-a")"
  COFFEE="$("$P" apps add com.example.coffee --database "$URL")"
  for name in a b; do
    SOCK="$WORK/run/$name.sock"
    [ "$(status GET /v1/stats "$OWNER")" = 200 ] || fail "the owner's credential on instance $name"
    [ "$(status GET /v1/stats "$COFFEE")" = 200 ] || fail "the app's credential on instance $name"
  done
  "$P" apps revoke com.example.coffee --database "$URL" >/dev/null
  for name in a b; do
    SOCK="$WORK/run/$name.sock"
    [ "$(status GET /v1/stats "$COFFEE")" = 401 ] || fail "instance $name still accepts a revoked credential"
  done
  psql "$URL" -Atc "SELECT sha256 FROM owner_credential UNION ALL SELECT sha256 FROM app_credential" > "$WORK/hashes.txt"
  grep -q -e "$OWNER" -e "$COFFEE" "$WORK/hashes.txt" && fail "a credential itself is in the database"
  for pid in $OTHERS; do kill -TERM "$pid"; wait "$pid" || fail "an instance on PostgreSQL did not exit 0 after SIGTERM"; done
  OTHERS=""
fi
echo "serve checks passed"
