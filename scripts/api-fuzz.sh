#!/usr/bin/env bash
# Fuzzes `proactive serve` against openapi.yaml with schemathesis (from PyPI,
# installed into .venv-fuzz/ on first use): no 5xx, and every response's
# status, content type and body conform to the document. The server listens on
# 127.0.0.1 only, over a scratch store holding the bundled sample; the run is
# bounded by --max-time.
# Usage: scripts/api-fuzz.sh [--short] [path/to/proactive]
#   --short: 60 s (CI); default 600 s. PORT=NNNN to choose the port.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_BUDGET=600
if [ "${1:-}" = "--short" ]; then SECONDS_BUDGET=60; shift; fi
source scripts/proactive-binary.sh
P="${1:-$(proactive_binary debug)}"
PORT="${PORT:-18765}"
VENV=.venv-fuzz
if [ ! -x "$VENV/bin/schemathesis" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "schemathesis>=4,<5"
fi
WORK="$(mktemp -d)"
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
STORE="$WORK/store.sqlite"
"$P" retention set --keep-all --store "$STORE" >/dev/null 2>&1
"$P" import datasets/sample/donations.jsonl --store "$STORE" --progress none >/dev/null 2>&1
"$P" serve --store "$STORE" --port "$PORT" --host 127.0.0.1 --log-level error 2>"$WORK/serve.log" &
SERVER=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
OWNER="$(cat "$STORE.owner-credential")"
status=0
"$VENV/bin/schemathesis" run openapi.yaml --url "http://127.0.0.1:$PORT" \
  --header "Authorization: Bearer $OWNER" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-time "$SECONDS_BUDGET" --workers 1 --suppress-health-check all --warnings off \
  || status=$?
kill -TERM "$SERVER"; code=0; wait "$SERVER" || code=$?; SERVER=""
[ "$code" = 0 ] || { echo "FAILED: the server exited $code after SIGTERM" >&2; cat "$WORK/serve.log" >&2; exit 1; }
exit "$status"
