#!/usr/bin/env bash
# Reliability and privacy checks (docs/RELIABILITY.md), in one run:
#   1. swift test: hostile-input corpus, privacy (erasure bytes, retention, forget, pause),
#      app isolation, concurrent connections, saved models;
#   2. libFuzzer on the donation line parser, the definitions parser and the declaration
#      codecs (FUZZ_SECONDS each, default 60);
#   3. the SIGKILL loop on the importer (dev/kill-import.sh, KILLS kills, default 50;
#      every other round also kills the resuming import);
#   4. the SIGKILL loop on live models (dev/kill-live.sh, LIVE_KILLS kills, default 30): imports,
#      donates, deletes and catching-up queries killed at random; saved models must agree with the donations;
#   5. several donating processes and one training process on one store (dev/concurrency.sh);
#   6. forgetting end to end: deleted values absent from the store bytes and saved models,
#      forget, retention, pause, corrupt and torn models, SIGKILL during train (dev/forgetting.sh);
#   7. app isolation through the CLI (dev/isolation.sh);
#   8. the CLI checks, issue 16's regressions among them (scripts/cli-checks.sh).
# Usage: dev/reliability.sh            (19 minutes on 2 cores, plus a first release build)
# Exits non-zero at the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds="${FUZZ_SECONDS:-60}"
kills="${KILLS:-50}"
live_kills="${LIVE_KILLS:-30}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"

step() { printf '\n=== %s\n' "$*"; }

step "build"
swift build --build-tests
swift build --product proactive
source scripts/proactive-binary.sh
step "swift test: corpus, privacy, isolation, concurrency, saved models"
swift test --skip-build --filter 'HostileInputTests|HostileImportTests|PrivacyTests|IsolationTests|ConcurrencyTests|ModelStoreTests|IdentifyingFieldTests|FeedbackScrubbingTests|DonationExporterTests|DeclarationCodecTests|TimestampAndClockTests|ProactiveDatabaseTests' 2>&1 \
    | grep -E '✘|recorded an issue|Test run|error:'
step "fuzzing, ${fuzz_seconds} s per target"
dev/fuzz.sh "$fuzz_seconds"
step "SIGKILL loop on the importer, $kills kills"
dev/kill-import.sh "$kills" 2>&1
step "SIGKILL loop on live models, $live_kills kills"
dev/kill-live.sh "$live_kills" 7 "$(proactive_binary debug)" 2>&1
step "concurrent processes"
dev/concurrency.sh
step "forgetting through the CLI"
dev/forgetting.sh | tail -1
step "isolation through the CLI"
dev/isolation.sh | tail -1
step "CLI checks (issue 16 regressions included)"
bash scripts/cli-checks.sh | tail -1
step "all reliability checks passed"
