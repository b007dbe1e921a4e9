#!/usr/bin/env bash
# The Python peers (issue 41, item 2) in their own virtual environment:
#   dev/peers.sh worlds DIR [DIR ...] [--markdown FILE]
#   dev/peers.sh logs [--proactive BIN] [--out DIR] [--markdown FILE]
# Creates .venv-peers/ with pinned numpy, scikit-learn, lightgbm and the CPU build of
# torch, then runs dev/peers.py with the same arguments (see `dev/peers.sh --help`).
# torch: `pip install torch==2.13.0+cpu` is tried first; when PyPI does not resolve the
# local version it falls back to --index-url https://download.pytorch.org/whl/cpu.
# Every BLAS and torch itself is pinned to one thread per process.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-peers
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
if ! "$venv/bin/python" -c 'import numpy, sklearn, lightgbm, torch' 2>/dev/null; then
  "${pip[@]}" numpy==2.4.6 scikit-learn==1.9.1 lightgbm==4.7.0 >&2
  if ! "${pip[@]}" "torch==2.13.0+cpu" >&2; then
    echo "peers.sh: torch==2.13.0+cpu not on the default index; trying download.pytorch.org" >&2
    "${pip[@]}" "torch==2.13.0+cpu" --index-url https://download.pytorch.org/whl/cpu >&2
  fi
fi
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
exec "$venv/bin/python" dev/peers.py "$@"
