#!/usr/bin/env bash
# The README's library section as a newcomer uses it (issue 43): its Package.swift block, as printed,
# in a new package beside a checkout of this repository (a path dependency, the folder reached as
# ../proactive whatever the checkout is called); its library example (Tests/ProactiveTests/
# ReadmeExample.swift, which a test keeps equal to the README's block) with the main.swift the README
# names; built, then run twice in a row on one store (the first run creates it). Checks:
# - both runs exit 0 and print the same answers, the latte first (a second run must not trap on the
#   donations already stored);
# - the package resolves only what the library compiles: GRDB, and swift-crypto (with its swift-asn1)
#   for the credential hashes in ProactiveStore (issue 42), not the 27 the CLI's and service's
#   dependencies bring (the `traits: []` of the block; Package.swift's traits).
# The build has its own scratch folder (.build-readme, kept between runs, so a second run rebuilds
# only what changed): the library compiled without the default traits differs from the root's build,
# and sharing .build would drop the root's other checkouts. The package and the ../proactive link live
# there too, at paths that stay the same from run to run; the two runs use a new folder, so the first
# creates the store. Prints each step's time.
# Usage: scripts/readme-library-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }

# The ```swift block after `marker` in README.md.
block() { awk -v marker="$1" '$0 == marker { found = 1; next } found && /^```swift/ { inside = 1; next } inside && /^```/ { exit } inside' README.md; }

SCRATCH="$ROOT/.build-readme"
APP="$SCRATCH/tour/app"
mkdir -p "$APP/Sources/App"
ln -sfn "$ROOT" "$SCRATCH/tour/proactive"
# Each file written only when it changed, so that an unchanged package is not rebuilt.
put() { if ! cmp -s "$WORK/new" "$1"; then mv "$WORK/new" "$1"; fi; }
block '<!-- library-package -->' > "$WORK/new"
grep -q '\.product(name: "Proactive", package: "proactive")' "$WORK/new" \
  || fail "README: no Package.swift block after <!-- library-package -->: $(cat "$WORK/new")"
put "$APP/Package.swift"
block '<!-- library-example -->' > "$WORK/new"
cmp -s "$WORK/new" Tests/ProactiveTests/ReadmeExample.swift \
  || fail "README's library example differs from Tests/ProactiveTests/ReadmeExample.swift"
put "$APP/Sources/App/ReadmeExample.swift"
echo 'print(try morningRoutine(store: "me.sqlite"))' > "$WORK/new"
put "$APP/Sources/App/main.swift"
rm -f "$APP/Package.resolved"  # resolved anew: what a newcomer's first resolve gets

start=$SECONDS
swift package --package-path "$APP" --scratch-path "$SCRATCH" resolve >"$WORK/resolve.log" 2>&1 \
  || fail "the README's Package.swift does not resolve: $(cat "$WORK/resolve.log")"
remote="$(grep -c '"identity"' "$APP/Package.resolved" || true)"
echo "== readme-library-check: resolved $remote remote package(s): $(grep '"identity"' "$APP/Package.resolved" | tr -d ' ",' | sed 's/identity://' | tr '\n' ' ')($((SECONDS - start)) s)"
names="$(grep '"identity"' "$APP/Package.resolved" | tr -d ' ",' | sed 's/identity://' | sort | tr '\n' ' ')"
[ "$names" = "grdb.swift swift-asn1 swift-crypto " ] \
  || fail "a library-only package resolves $remote remote packages ($names), not GRDB and swift-crypto with swift-asn1"

start=$SECONDS
swift build --package-path "$APP" --scratch-path "$SCRATCH" >"$WORK/build.log" 2>&1 \
  || fail "the README's package does not build: $(tail -30 "$WORK/build.log")"
if grep -q 'warning:' "$WORK/build.log"; then grep 'warning:' "$WORK/build.log" >&2; fail "the README's package builds with warnings"; fi
echo "== readme-library-check: built in $((SECONDS - start)) s"

app="$(swift build --package-path "$APP" --scratch-path "$SCRATCH" --show-bin-path)/App"
mkdir "$WORK/runs"
cd "$WORK/runs"
for run in 1 2; do
  status=0
  "$app" > "run.$run.txt" 2>&1 || status=$?
  [ "$status" = 0 ] || fail "run $run of the README's library example: exit $status: $(cat "run.$run.txt")"
done
grep -q '^(top: "Order a latte", suggestions: \["Order a latte"' run.1.txt || fail "the README's example answered: $(cat run.1.txt)"
cmp -s run.1.txt run.2.txt || fail "a second run answered differently: $(cat run.1.txt run.2.txt)"
echo "== readme-library-check: two runs on one store: $(cat run.2.txt)"
echo "readme library check: all passed"
