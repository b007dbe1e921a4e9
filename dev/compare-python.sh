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
# 2000; fewer above, see engine-peer).
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

swift build --package-path Benchmarks --scratch-path Benchmarks/.build -c release --product engine-peer >&2
bin="$(swift build --package-path Benchmarks --scratch-path Benchmarks/.build -c release --show-bin-path)"
"$bin/engine-peer" "$out" --iterations "$iterations" >/dev/null
"$venv/bin/python" dev/compare-python.py "$out"
