#!/usr/bin/env bash
# The test command: installs missing system packages, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system-packages.sh
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
# Each step says how long it took (standard error), so a slow run shows where its time went.
timed() { local start=$SECONDS; "$@"; echo "== test.sh: '$*' took $((SECONDS - start)) s" >&2; }
# The front ends reach the domain only through the Engine and the Runtime: Package.swift's dependencies
# of ProactiveCLI and ProactiveService and their files' imports (scripts/layering-check.py).
timed python3 scripts/layering-check.py
timed swift build --build-tests
# Every script below runs this build's binary; it is found now, before the benchmark package's
# build (in the background, below) holds the scratch directory's lock.
PROACTIVE_BIN="$(swift build --show-bin-path)/proactive"
export PROACTIVE_BIN
# Stopped at exit: the private PostgreSQL cluster and the background builds, when started.
PG_CLUSTER=""
BENCH=""
README_CHECK=""
cleanup() {
  if [ -n "$BENCH" ]; then kill "$BENCH" 2>/dev/null || true; fi
  if [ -n "$README_CHECK" ]; then kill "$README_CHECK" 2>/dev/null || true; fi
  if [ -n "$PG_CLUSTER" ]; then bash scripts/postgres-cluster.sh stop "$PG_CLUSTER"; fi
}
trap cleanup EXIT
# A private PostgreSQL cluster (scripts/postgres-cluster.sh) for the suites that run against PostgreSQL;
# without one (it cannot be installed here) those tests are skipped and say why.
if reason="$(bash scripts/postgres-cluster.sh available)"; then
  PG_CLUSTER="$(mktemp -d)"
  PROACTIVE_TEST_DATABASE_URL="$(bash scripts/postgres-cluster.sh start "$PG_CLUSTER")"
  export PROACTIVE_TEST_DATABASE_URL
else
  echo "PostgreSQL tests will be skipped: $reason" >&2
fi
timed swift test --skip-build
# The benchmark package (Benchmarks/) must keep compiling against the library: scripts/benchmarks.sh
# is the only other place that builds it (release, in Benchmarks/.build). Debug, no run, in this
# build's scratch directory, so the library and its dependencies compiled above are reused and only
# package-benchmark's own modules are compiled. SwiftPM would take the plan it last wrote
# (.build/debug.yaml) for either package's, so the plan is dropped before and after. It compiles in
# the background while the script checks below run: they wait on a server or Python most of the
# time and leave a core to it. It never rebuilds the binary they run (not one of its products).
rm -f .build/debug.yaml
BENCH_LOG="$(mktemp)"
(
  start=$SECONDS
  code=0
  swift build --package-path Benchmarks --scratch-path .build >"$BENCH_LOG" 2>&1 || code=$?
  echo "== test.sh: 'swift build --package-path Benchmarks --scratch-path .build' (in the background) took $((SECONDS - start)) s" >&2
  exit "$code"
) &
BENCH=$!
# The README's library section as a newcomer uses it (scripts/readme-library-check.sh): its Package.swift
# beside a checkout (a path dependency, `traits: []`: GRDB is the one remote package resolved), its
# example with the main.swift it names, built in .build-readme (its own scratch folder, kept: a second
# local run rebuilds nothing) and run twice on one store. In the background too, beside the checks below.
README_LOG="$(mktemp)"
(
  start=$SECONDS
  code=0
  bash scripts/readme-library-check.sh >"$README_LOG" 2>&1 || code=$?
  echo "== test.sh: 'bash scripts/readme-library-check.sh' (in the background) took $((SECONDS - start)) s" >>"$README_LOG"
  exit "$code"
) &
README_CHECK=$!
# End-to-end checks of the CLI (import/export round trip, bad lines, strict,
# app-scoped deletes, predict on the sample, Focus filters and migration).
timed bash scripts/cli-checks.sh
# The habits scripts/make-sample.py planted in the bundled sample, asked a few minutes before each
# (docs/WORLDS.md): at least 8 of 10 first.
timed python3 scripts/sample-habits.py "$PROACTIVE_BIN" --require 10
# End-to-end checks of `proactive serve` (socket, credentials, donate, suggest, SIGTERM, SIGKILL),
# and a short schemathesis run against openapi.yaml (installs schemathesis from PyPI into .venv-fuzz/).
timed bash scripts/serve-checks.sh
# Two `serve` instances on one PostgreSQL database (a cluster of the script's own): one truth, `forget`
# unlearned by both and no byte left, SIGKILL under a donation flood 20 times, the database paused 5 s.
if [ -n "$PG_CLUSTER" ]; then
  timed python3 scripts/multi-instance-checks.py "$PROACTIVE_BIN" 20
else
  echo "SKIPPED: the multi-instance checks: $reason" >&2
fi
# A Python client generated from openapi.yaml (openapi-python-client from PyPI, into .venv-client/):
# no generator warning, and a scripted session through it against a live server (docs/API.md).
timed bash scripts/client-check.sh
timed bash scripts/api-fuzz.sh --short
# The desktop sources against the real tools: `follow activitywatch` on a real aw-server (PyPI, into
# .venv-aw/) through 5 SIGKILLs, zsh and fish writing their own history (docs/DESKTOP.md).
timed bash scripts/desktop-checks.sh
code=0
wait "$BENCH" || code=$?
BENCH=""
rm -f .build/debug.yaml
if [ "$code" != 0 ]; then
  cat "$BENCH_LOG" >&2
  echo "FAILED: the benchmark package (Benchmarks/) does not compile against the library" >&2
  exit 1
fi
rm -f "$BENCH_LOG"
code=0
wait "$README_CHECK" || code=$?
README_CHECK=""
cat "$README_LOG" >&2
rm -f "$README_LOG"
if [ "$code" != 0 ]; then
  echo "FAILED: the README's library section (scripts/readme-library-check.sh)" >&2
  exit 1
fi
# The Proactive module's reference (scripts/docs.sh): its DocC catalog with the symbols it re-exports,
# every link resolved (no DocC warning). Last: the benchmark build above held the scratch directory.
timed bash scripts/docs.sh
