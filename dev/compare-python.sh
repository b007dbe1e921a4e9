#!/usr/bin/env bash
# The Python peer, same shapes, same run:
#   dev/compare-python.sh [OUTDIR]        (default out/bench/peer)
#
# 1. builds Benchmarks' `engine-peer` (release) and runs it: suggest and raw sgemv
#    latency at 1,000 and 10,000 targets, logistic training on 100,000 x 200,
#    exporting that problem (X.f32, y.i32, W.f64) and OUTDIR/engine.json;
# 2. sets up numpy and scikit-learn in a virtual environment (.venv-bench) and runs
#    dev/compare-python.py on the same shapes and data, printing one table of
#    ratios engine/peer and writing OUTDIR/python.json.
# Every BLAS (OpenBLAS under the engine, numpy's own) is pinned to one thread.
# Environment: PEER_ITERATIONS (timed calls per latency figure up to 1,000 targets, default
# 2000; fewer above, see engine-peer); PEER_RUNS (default 1): runs engine and peer that many
# times, interleaved (engine, peer, engine, peer, ...), into OUTDIR/run1..N, then prints the
# medians of the scoring figures over the runs (compare-python.py --medians);
# PEER_SCORING_ONLY=1 leaves out the training comparison (scoring figures only); PEER_ENGINE:
# an engine-peer binary to run instead of building one (e.g. an older commit's, to compare).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-out/bench/peer}"
iterations="${PEER_ITERATIONS:-2000}"
mkdir -p "$out"
bash scripts/ensure-system-packages.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

venv=.venv-bench
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check numpy scikit-learn

if [ -n "${PEER_ENGINE:-}" ]; then
  engine_peer="$PEER_ENGINE"
else
  swift build --package-path Benchmarks --scratch-path Benchmarks/.build -c release --product engine-peer >&2
  engine_peer="$(swift build --package-path Benchmarks --scratch-path Benchmarks/.build -c release --show-bin-path)/engine-peer"
fi
runs="${PEER_RUNS:-1}"
engine_flags=()
peer_flags=()
if [ "${PEER_SCORING_ONLY:-0}" = 1 ]; then
  engine_flags=(--skip-training)
  peer_flags=(--scoring-only)
fi
if [ "$runs" -le 1 ]; then
  "$engine_peer" "$out" --iterations "$iterations" "${engine_flags[@]}" >/dev/null
  "$venv/bin/python" dev/compare-python.py "$out" "${peer_flags[@]}"
  exit 0
fi
dirs=()
for run in $(seq 1 "$runs"); do
  dirs+=("$out/run$run")
  echo "== run $run of $runs" >&2
  "$engine_peer" "$out/run$run" --iterations "$iterations" "${engine_flags[@]}" >/dev/null
  "$venv/bin/python" dev/compare-python.py "$out/run$run" "${peer_flags[@]}" >&2
done
"$venv/bin/python" dev/compare-python.py --medians "${dirs[@]}"
