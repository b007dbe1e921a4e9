#!/usr/bin/env bash
# Generates a Python client from openapi.yaml with openapi-python-client (pinned,
# from PyPI, into .venv-client/ on first use), fails on any generator warning,
# installs it, and runs a scripted session through it (scripts/client_session.py:
# donate a batch, predict, suggest with `developer`, timelines, feedback, delete,
# stats) against `proactive serve` on 127.0.0.1 over a scratch store. Part of the
# test command; skipped, saying why, only when PyPI cannot be reached.
# --swift: the same session through the Swift client of Examples/GeneratedClient instead
# (swift-openapi-generator 1.14.3 at build time, packages from GitHub; not in the test
# command: its first build takes about 6 minutes, docs/API.md).
# Usage: scripts/client-check.sh [--swift] [path/to/proactive]   (PORT=NNNN to choose the port)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=""
if [ "${1:-}" = "--swift" ]; then SWIFT=1; shift; fi
source scripts/proactive-binary.sh
P="${1:-$(proactive_binary debug)}"
PORT="${PORT:-18766}"
GENERATOR=openapi-python-client==0.29.1
VENV=.venv-client
WORK="$(mktemp -d)"
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
fail() { echo "FAILED: $*" >&2; [ -f "$WORK/serve.log" ] && sed 's/^/  serve: /' "$WORK/serve.log" >&2; exit 1; }

EXAMPLE=Examples/GeneratedClient
build_swift_client() {
  echo "== client: swift-openapi-generator generates and builds $EXAMPLE"
  timeout 1800 swift build --package-path "$EXAMPLE" --scratch-path "$EXAMPLE/.build" >"$WORK/build.log" 2>&1 \
    || { tail -n 40 "$WORK/build.log" >&2; fail "building $EXAMPLE"; }
  if grep -i "warning:" "$WORK/build.log" >&2; then fail "warnings building $EXAMPLE"; fi
  SESSION="$(swift build --package-path "$EXAMPLE" --scratch-path "$EXAMPLE/.build" --show-bin-path)/ProactiveClientSession"
}

build_python_client() {
  echo "== client: $GENERATOR generates a client from openapi.yaml without a warning"
  if ! "$VENV/bin/python" -c 'import importlib.metadata as m; assert m.version("openapi-python-client") == "0.29.1"' 2>/dev/null; then
    if ! curl -fsS --max-time 10 -o /dev/null https://pypi.org/simple/openapi-python-client/; then
      echo "SKIPPED: the client check: PyPI (https://pypi.org) cannot be reached to install $GENERATOR"
      exit 0
    fi
    python3 -m venv "$VENV"
    timeout 600 "$VENV/bin/pip" install -q "$GENERATOR" || fail "pip install $GENERATOR"
  fi
  ( cd "$WORK" && timeout 120 "$OLDPWD/$VENV/bin/openapi-python-client" generate --path "$OLDPWD/openapi.yaml" \
      --config "$OLDPWD/scripts/openapi-python-client.yaml" --meta setup --output-path "$WORK/client" ) >"$WORK/generate.log" 2>&1 \
    || { cat "$WORK/generate.log" >&2; fail "the generator failed"; }
  # The generator's one line of success; anything else it prints is a warning.
  if grep -qv "^Generating $WORK/client\$" "$WORK/generate.log"; then
    cat "$WORK/generate.log" >&2; fail "the generator printed warnings"
  fi
  timeout 300 "$VENV/bin/pip" install -q --no-deps --force-reinstall "$WORK/client" >"$WORK/install.log" 2>&1 \
    || { cat "$WORK/install.log" >&2; fail "installing the generated client"; }
}

if [ -n "$SWIFT" ]; then build_swift_client; else build_python_client; fi

echo "== client: a session through the generated client against proactive serve"
STORE="$WORK/store.sqlite"
"$P" retention set --keep-all --store "$STORE" >/dev/null 2>&1
"$P" serve --store "$STORE" --port "$PORT" --host 127.0.0.1 --log-level error 2>"$WORK/serve.log" &
SERVER=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 || fail "the server did not answer on 127.0.0.1:$PORT"
export PROACTIVE_CREDENTIAL="$(cat "$STORE.owner-credential")"
if [ -n "$SWIFT" ]; then
  timeout 300 "$SESSION" "$PORT" datasets/sample/donations.jsonl || fail "the swift client session"
else
  timeout 300 "$VENV/bin/python" scripts/client_session.py "http://127.0.0.1:$PORT" datasets/sample/donations.jsonl \
    || fail "the client session"
fi
kill -TERM "$SERVER"; code=0; wait "$SERVER" || code=$?; SERVER=""
[ "$code" = 0 ] || fail "the server exited $code after SIGTERM"
echo "client check passed"
