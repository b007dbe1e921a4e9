#!/usr/bin/env bash
# The `Proactive` module's documentation: its DocC catalog (Sources/Proactive/Proactive.docc, whose
# Topics page is embed, donate, ask, delete, serve) with the symbols the module re-exports (the
# Engine, its values and errors), as a DocC archive.
#
# `swift package generate-documentation --target Proactive` (swift-docc-plugin) runs as well, but
# SwiftPM extracts only a module's own symbols, and every symbol of `Proactive` is re-exported from
# another module, so that archive has the articles and none of the symbols they link. Here the
# symbols are extracted with the re-exported modules allowed, then `docc convert` builds the archive.
# Fails on any DocC warning (a link to a symbol the module does not give an app, a broken article link).
#
# Usage: scripts/docs.sh [OUTPUT]     OUTPUT: the archive to write (default .build/Proactive.doccarchive)
# Open OUTPUT/index.html through a web server, or `docc preview Sources/Proactive/Proactive.docc
# --additional-symbol-graph-dir .build/symbol-graphs/Proactive` to browse it.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT="${1:-.build/Proactive.doccarchive}"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
swift build --target Proactive >"$LOG" 2>&1 || { cat "$LOG" >&2; echo "FAILED: swift build --target Proactive" >&2; exit 1; }
BIN="$(swift build --show-bin-path 2>/dev/null)"
GRAPHS=.build/symbol-graphs/Proactive
rm -rf "$GRAPHS"
mkdir -p "$GRAPHS"
# The C modules the library's Swift modules import: this package's own and GRDB's SQLite; swift-crypto's headers.
flags=()
for map in "$BIN"/CBLAS.build/module.modulemap "$BIN"/CDynamicLibrary.build/module.modulemap "$BIN"/CKernels.build/module.modulemap \
           .build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap; do
  flags+=(-Xcc "-fmodule-map-file=$(realpath "$map")")
done
while IFS= read -r include; do flags+=(-Xcc "-I$PWD/$include"); done \
  < <(find .build/checkouts/swift-crypto/Sources -maxdepth 2 -name include -type d)
swift symbolgraph-extract -module-name Proactive -target "$(uname -m)-unknown-linux-gnu" -I "$BIN/Modules" "${flags[@]}" \
  -minimum-access-level public -output-dir "$GRAPHS" \
  -experimental-allowed-reexported-modules=ProactiveEngine,ProactiveCore,ProactiveRanking,ProactiveStore
rm -rf "$OUTPUT"
docc convert Sources/Proactive/Proactive.docc --additional-symbol-graph-dir "$GRAPHS" --output-path "$OUTPUT" \
  --fallback-display-name Proactive --fallback-bundle-identifier Proactive >"$LOG" 2>&1 \
  || { cat "$LOG" >&2; echo "FAILED: docc convert" >&2; exit 1; }
if grep -q 'warning:' "$LOG"; then
  grep -A4 'warning:' "$LOG" >&2
  echo "FAILED: the DocC catalog has warnings (above)" >&2
  exit 1
fi
pages="$(find "$OUTPUT/data/documentation" -name '*.json' | wc -l)"
echo "docs: $OUTPUT ($pages pages)"
