#!/usr/bin/env bash
# Reliability and privacy checks (docs/RELIABILITY.md), in one run:
#   1. swift test: hostile-input corpus, privacy (erasure bytes, retention, forget, pause),
#      app isolation, concurrent connections, model files;
#   2. libFuzzer on the donation line parser and the definitions parser (FUZZ_SECONDS each, default 60);
#   3. the SIGKILL loop on the importer (KILLS, default 50);
#   4. several donating processes and one training process on one store (scripts/concurrency.sh);
#   5. app isolation through the CLI (scripts/isolation.sh).
# Usage: scripts/reliability.sh            (about 15 minutes on 2 cores)
#        FUZZ_SECONDS=10 KILLS=10 scripts/reliability.sh   (a quick pass)
# Exits non-zero at the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds="${FUZZ_SECONDS:-60}"
kills="${KILLS:-50}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"

step() { printf '\n=== %s\n' "$*"; }

step "build"
swift build --build-tests
step "swift test: corpus, privacy, isolation, concurrency, model files"
swift test --skip-build --filter 'HostileInputTests|PrivacyTests|IsolationTests|ConcurrencyTests|ModelFileTests' 2>&1 \
    | grep -E '✘|recorded an issue|Test run|error:'
step "fuzzing, ${fuzz_seconds} s per parser"
scripts/fuzz.sh "$fuzz_seconds"
step "SIGKILL loop, $kills kills"
scripts/kill-loop.sh "$kills" 2>&1 | tail -4
step "concurrent processes"
scripts/concurrency.sh
step "isolation through the CLI"
scripts/isolation.sh | tail -1
step "all reliability checks passed"
