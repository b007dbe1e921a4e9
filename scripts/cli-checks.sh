#!/usr/bin/env bash
# End-to-end checks of the `proactive` executable (part of the test command).
# Each check prints what it ran; the first mismatch exits non-zero.
# Every check the in-process harness can make lives in Tests/ProactiveCLITests
# (StoreCommandTests, RetentionCommandTests, HardeningCommandTests,
# SampleDayCommandTests, EvaluateCommandTests, ChartCommandTests). These stay
# here because they need the real process:
# - a read-only store read as another user (runuser; the tests run as one user);
# - output that cannot be written (/dev/full as the process's standard output);
# - scripts/check-docs.py (runs the binary's --help for every command);
# - --png without and with rsvg-convert (the process's PATH);
# - the bash completion script, sourced and run in bash;
# - scripts/focus-demo.sh and the README's live example, run as printed.
# Usage: scripts/cli-checks.sh [path/to/proactive]   (default: the debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/proactive-binary.sh
P="${1:-$(proactive_binary debug)}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export PROACTIVE_STORE="$WORK/store.sqlite"
fail() { echo "FAILED: $*" >&2; exit 1; }
# A scratch store (a new store keeps everything: the sample has fixed dates).
fresh() { rm -f "$PROACTIVE_STORE"*; }

echo "== issue 29: OpenBLAS is opened by a command that computes, not by one that does not"
LD_DEBUG=files "$P" --version 2>"$WORK/ld.txt" >/dev/null || fail "--version failed"
if grep -q 'libopenblas' "$WORK/ld.txt"; then fail "--version loads OpenBLAS"; fi
"$P" import datasets/sample/donations.jsonl --store "$WORK/blas.sqlite" --progress none >/dev/null 2>&1
LD_DEBUG=files "$P" train --store "$WORK/blas.sqlite" 2>"$WORK/ld.txt" >/dev/null || fail "train on the sample failed"
grep -q 'libopenblas' "$WORK/ld.txt" || fail "train did not load OpenBLAS (LD_DEBUG=files shows no libopenblas)"

echo "== issue 16: a store file the user may only read can be read (stats, export)"
mkdir "$WORK/ro" && chmod 755 "$WORK" && chmod 777 "$WORK/ro"
"$P" import datasets/sample/donations.jsonl --store "$WORK/ro/store.sqlite" --progress none >/dev/null 2>&1
rm -f "$WORK/ro/store.sqlite-wal" "$WORK/ro/store.sqlite-shm"
chmod 444 "$WORK/ro/store.sqlite"
as_reader=()
if [ "$(id -u)" = 0 ]; then as_reader=(runuser -u nobody --); fi  # root writes whatever the mode
if [ "$(id -u)" != 0 ] || command -v runuser >/dev/null; then
  "${as_reader[@]}" "$P" stats --store "$WORK/ro/store.sqlite" >/dev/null 2>"$WORK/err.txt" || fail "stats on a read-only store: $(cat "$WORK/err.txt")"
  "${as_reader[@]}" "$P" export --store "$WORK/ro/store.sqlite" >/dev/null 2>"$WORK/err.txt" || fail "export of a read-only store: $(cat "$WORK/err.txt")"
else
  echo "   (skipped: running as root without runuser)"
fi

echo "== issue 16: output that cannot be written fails the command"
if [ -w /dev/full ]; then
  status=0
  "$P" stats --store "$WORK/ro/store.sqlite" > /dev/full 2>"$WORK/err.txt" || status=$?
  [ "$status" != 0 ] && grep -q "cannot write to standard output" "$WORK/err.txt" || fail "stats > /dev/full: exit $status, $(cat "$WORK/err.txt")"
  status=0
  "$P" export --store "$WORK/ro/store.sqlite" > /dev/full 2>"$WORK/err.txt" || status=$?
  [ "$status" != 0 ] && grep -q "cannot write to standard output" "$WORK/err.txt" || fail "export > /dev/full: exit $status, $(cat "$WORK/err.txt")"
fi

echo "== docs: every .md a doc, comment or --help names exists; help examples paste (no line wrapped at 80 columns)"
python3 scripts/check-docs.py "$P"

echo "== issue 15: PNG only through rsvg-convert (the process's PATH)"
fresh
"$P" import datasets/sample/donations.jsonl --user-timezone me=America/Los_Angeles --progress none 2>/dev/null
"$P" definitions add datasets/sample/definitions.json >/dev/null
"$P" train --quiet >/dev/null
status=0
PATH=/nonexistent "$P" stack --user me --widgets weather --day 2026-11-20 --png "$WORK/day.png" >/dev/null 2>"$WORK/err.txt" || status=$?
[ "$status" != 0 ] && grep -q "apt-get install librsvg2-bin" "$WORK/err.txt" && [ ! -e "$WORK/day.png" ] \
  || fail "--png without rsvg-convert: exit $status, $(cat "$WORK/err.txt")"
if command -v rsvg-convert >/dev/null; then
  "$P" stack --user me --widgets weather --day 2026-11-20 --png "$WORK/day.png" >/dev/null 2>&1
  [ "$(head -c 8 "$WORK/day.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "--png did not write a PNG"
fi

echo "== issue 43: with both streams on one pipe, 'wrote FILE' follows the day's text, never inside a line"
"$P" stack --user me --widgets weather,reminders --day 2026-11-20 --svg "$WORK/day.svg" > "$WORK/both.txt" 2>&1
[ "$(tail -1 "$WORK/both.txt")" = "wrote $WORK/day.svg" ] && [ "$(grep -c 'wrote ' "$WORK/both.txt")" = 1 ] \
  || fail "stack --svg 2>&1: 'wrote' is not the last line on its own: $(cat "$WORK/both.txt")"

echo "== issue 43: an unknown command is named, with the nearest one, and exits 64"
status=0
"$P" sugest --help > "$WORK/out.txt" 2>"$WORK/err.txt" || status=$?
[ "$status" = 64 ] && [ ! -s "$WORK/out.txt" ] && grep -q "unknown command 'sugest' (did you mean 'suggest'?)" "$WORK/err.txt" \
  || fail "proactive sugest --help: exit $status, $(cat "$WORK/out.txt" "$WORK/err.txt")"

echo "== issue 43: the README's socket lines find serve's default socket, with XDG_RUNTIME_DIR unset and set"
grep '^SOCK=' README.md > "$WORK/sock.sh"
[ "$(wc -l < "$WORK/sock.sh")" = 2 ] || fail "README: the service snippet's SOCK lines: $(cat "$WORK/sock.sh")"
mkdir -m 700 "$WORK/xdg"
for xdg in "" "$WORK/xdg"; do
  if [ -n "$xdg" ]; then runtime=(env XDG_RUNTIME_DIR="$xdg"); else runtime=(env -u XDG_RUNTIME_DIR); fi
  "${runtime[@]}" "$P" serve --store "$WORK/serve.sqlite" 2>"$WORK/serve.log" &
  server=$!
  for _ in $(seq 1 100); do grep -q 'listening' "$WORK/serve.log" && break; sleep 0.1; done
  sock="$("${runtime[@]}" bash -c 'source "$1"; echo "$SOCK"' _ "$WORK/sock.sh")"
  status=0
  curl -sf --max-time 5 --unix-socket "$sock" http://localhost/healthz >/dev/null || status=$?
  grep -q "try=curl --unix-socket $sock http://localhost/healthz" "$WORK/serve.log" || status=log
  kill "$server"; wait "$server" || true
  [ "$status" = 0 ] || fail "README's SOCK (XDG_RUNTIME_DIR='$xdg') is $sock: curl or the log line failed ($status): $(cat "$WORK/serve.log")"
done

echo "== issue 15: the bash completion script completes the commands' options"
"$P" --generate-completion-script bash > "$WORK/completion.bash"
bash -c 'source "$1"; COMP_WORDS=(proactive stack --sv); COMP_CWORD=2; COMP_LINE="proactive stack --sv"; COMP_POINT=${#COMP_LINE}
  _proactive proactive --sv stack; [ "${COMPREPLY[*]}" = "--svg" ]' _ "$WORK/completion.bash" || fail "bash completion of 'proactive stack --sv'"

echo "== Focus filters, people and migration (scripts/focus-demo.sh)"
bash scripts/focus-demo.sh "$P" >/dev/null

echo "== the README's live-model example runs as printed and shows what its comments say"
mkdir -p "$WORK/readme" && ln -s "$PWD/datasets" "$WORK/readme/datasets"
# The block after the live-example marker, continuation lines joined, one command a line.
awk '/<!-- live-example/ { found = 1; next } found && /^```sh/ { inside = 1; next } inside && /^```/ { exit } inside' README.md \
  | sed -e ':a' -e '/\\$/N; s/\\\n *//; ta' > "$WORK/readme/commands.txt"
[ "$(grep -c '^proactive ' "$WORK/readme/commands.txt")" = 7 ] || fail "README live example: $(cat "$WORK/readme/commands.txt")"
(
  cd "$WORK/readme"
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    case "$line" in
      export\ *) eval "$line" ;;
      proactive\ *) eval "\"\$P\" ${line#proactive }" > "out.$n.txt" 2>/dev/null || fail "README live example: $line" ;;
    esac
  done < commands.txt
  # suggest before the donation, suggest after it, predict after it.
  head -1 out.5.txt | grep -q "^1\. Weather in Cupertino" || fail "README: weather is not first before the donation: $(cat out.5.txt)"
  sed -n 2p out.5.txt | grep -q "^2\. Order a large iced latte" || fail "README: the iced latte is not second: $(cat out.5.txt)"
  head -1 out.7.txt | grep -q "^1\. Order a large iced latte" || fail "README: the donation was not learned: $(cat out.7.txt)"
  sed -n 2p out.8.txt | grep -q "Order a large iced latte  0\.99[0-9] -- .*after Weather in Cupertino" \
    || fail "README: predict does not give the same probability and reason: $(cat out.8.txt)"
  [ "$(sed -n 's/^1\. Order a large iced latte *\(0\.[0-9]*\).*/\1/p' out.7.txt)" = "$(sed -n 's/^ 1\. Order a large iced latte *\(0\.[0-9]*\).*/\1/p' out.8.txt)" ] \
    || fail "README: suggest and predict differ: $(cat out.7.txt out.8.txt)"
)

echo "cli checks: all passed"
