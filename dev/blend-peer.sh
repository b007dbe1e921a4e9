#!/usr/bin/env bash
# The default model (the blend) in process beside the profile path and its numpy peer, same run:
#   dev/blend-peer.sh [OUTDIR]        (default out/bench/blend-peer)
#
# 1. builds Benchmarks' `engine-peer` (release) and runs `engine-peer OUTDIR --blend`: at 20, 1,000
#    and 10,000 targets, the default model's `suggest` (top 4) and the profile path's on the same
#    user and moment, p50/p99, and the model's state at that moment (OUTDIR/blend-N/);
# 2. runs dev/blend-peer.py on that state right after: the same signals, weights, softmax and
#    top 4 in numpy, checked against the engine's log-scores, timed over as many calls, printing
#    one table (default/profile, numpy/default).
# Every BLAS is pinned to one thread. Environment: PEER_ITERATIONS (timed calls up to 1,000
# targets, default 2000; fewer above, as engine-peer); PEER_TARGETS (default 20,1000,10000);
# PEER_ENGINE: an engine-peer binary to run instead of building one. Each user is fitted first:
# the 10,000-target one (20,000 donations) took 319 s on the idle 2-core machine, 23 min at load 10.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-out/bench/blend-peer}"
iterations="${PEER_ITERATIONS:-2000}"
targets="${PEER_TARGETS:-20,1000,10000}"
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
python3 -c 'import numpy, scipy' 2>/dev/null || { echo "blend-peer: needs numpy and scipy (python3 -m pip install numpy scipy)" >&2; exit 1; }

if [ -n "${PEER_ENGINE:-}" ]; then
  engine_peer="$PEER_ENGINE"
else
  swift build --package-path Benchmarks --scratch-path Benchmarks/.build -c release --product engine-peer >&2
  engine_peer="$(swift build --package-path Benchmarks --scratch-path Benchmarks/.build -c release --show-bin-path)/engine-peer"
fi
date -u +"== engine %H:%M:%S" >&2
"$engine_peer" "$out" --blend --iterations "$iterations" --targets "$targets" >/dev/null
date -u +"== numpy peer %H:%M:%S" >&2
python3 dev/blend-peer.py "$out"
date -u +"== done %H:%M:%S" >&2
