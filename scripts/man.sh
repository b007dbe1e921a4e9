#!/usr/bin/env bash
# Writes the manual page of `proactive` with swift-argument-parser's
# `generate-manual` package plugin (it builds the package in debug mode, then
# asks the binary for its commands and options). Offline: the plugin comes
# from the local copy of swift-argument-parser the package already uses.
# Usage: scripts/man.sh [OUTPUT_DIR]   (default: out/; writes OUTPUT_DIR/proactive.1)
# Read it with `man -l out/proactive.1`.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-out}"
mkdir -p "$OUT"
# No page from an earlier run may stand in for this one's.
find .build/plugins/GenerateManual -name proactive.1 -delete 2>/dev/null || true
swift package generate-manual --configuration debug >&2
page="$(find .build/plugins/GenerateManual -name proactive.1 -print -quit 2>/dev/null || true)"
[ -n "$page" ] || { echo "man.sh: the plugin wrote no proactive.1 under .build/plugins/GenerateManual" >&2; exit 1; }
# A blank line inside mdoc makes groff warn ("Empty input line"); a paragraph break reads the same.
sed 's/^$/.Pp/' "$page" > "$OUT/proactive.1"
echo "wrote $OUT/proactive.1 (read it with: man -l $OUT/proactive.1)"
