#!/usr/bin/env bash
# The main job on the bundled data, from a fresh machine:
#   installs missing system packages, builds the CLI (debug: the build the test command makes
#   too, and about half the release build's time on 2 cores; the demo's work takes seconds in it), then
#   1. imports the four-week sample log, its intent definitions and the person's Focus schedules,
#   2. lints the donations and trains each user's model,
#   3. predicts the targets for a weekday morning and evening, with reasons,
#   4. plays the talks' Smart Stack day (out/stack.svg; out/stack.png too when rsvg-convert is installed),
#   5. suggests people for each Focus,
#   6. evaluates every model on the real Android log (out/android-report.json, chart out/android-report.svg).
# Everything it writes goes under out/ (a fresh store each run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system-packages.sh
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
source scripts/proactive-binary.sh
P="$(proactive_binary debug --build)"
OUT=out
mkdir -p "$OUT"
rm -f "$OUT"/demo.sqlite "$OUT"/demo.sqlite-wal "$OUT"/demo.sqlite-shm
export PROACTIVE_STORE="$OUT/demo.sqlite"
SAMPLE=datasets/sample
step() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }
# Charts are SVG; a PNG copy only where a real converter (rsvg-convert, Debian's librsvg2-bin) is installed.
STACK_PNG=()
if command -v rsvg-convert >/dev/null; then STACK_PNG=(--png "$OUT/stack.png"); fi

step "A new store keeps every donation until you set a window (retention set --days 28)" \
  "$P" retention show
step "Import the sample log (one person, four weeks, Los Angeles)" \
  "$P" import "$SAMPLE/donations.jsonl" --user-timezone me=America/Los_Angeles --progress none
step "Store the apps' intent definitions" "$P" definitions add "$SAMPLE/definitions.json"
# The schedules that set the sample's Focus: the store then knows which Focus is on at a question.
while read -r schedule; do
  # shellcheck disable=SC2086 # each line is the arguments of one `focus schedule add`
  step "The person's Focus schedule ($schedule)" "$P" focus schedule add $schedule --timezone America/Los_Angeles
done < "$SAMPLE/focus-schedules.txt"
step "What is stored" "$P" stats
step "Lint: parameters that behave like timestamps" "$P" lint
step "Train every user's default model" "$P" train --quiet
step "Monday 07:30: what does the user want?" "$P" predict --user me --at 2026-11-23T07:30 -k 4
step "Monday 21:00: and in the evening?" "$P" predict --user me --at 2026-11-23T21:00 -k 4
step "Declare the calendar event" "$P" shortcuts set --user me "$SAMPLE/declarations/calendar.json" --at 2026-11-20T00:00:00-08:00
step "Declare the 09:41 purchase (1800 s window)" "$P" shortcuts set --user me "$SAMPLE/declarations/bank.json" --at 2026-11-20T09:41:00-08:00
step "Declare widget timelines (15:00 reminder, evening rain)" "$P" timeline set --user me "$SAMPLE/declarations/timelines.json"
step "The talks' day in a weather + reminders stack" \
  "$P" stack --user me --widgets weather,reminders --day 2026-11-20 --timezone America/Los_Angeles --svg "$OUT/stack.svg" "${STACK_PNG[@]}"
step "Suggestions at 07:00 on the day" "$P" suggest --user me --at 2026-11-20T07:00:00-08:00 -k 4
step "People to allow in the Work Focus" "$P" focus people --focus work
step "People to allow in the Personal Focus" "$P" focus people --focus personal

step "Convert the real Android usage log" \
  "$P" convert --format android-usage datasets/device-logs/app_usage --timezone America/New_York -o "$OUT/android.jsonl"
step "Split it by time (train share 0.25)" \
  "$P" split "$OUT/android.jsonl" --by time --train-share 0.25 --train "$OUT/android-train.jsonl" --test "$OUT/android-test.jsonl"
step "Evaluate every model online (ranks recorded before learning)" \
  "$P" evaluate --train "$OUT/android-train.jsonl" --test "$OUT/android-test.jsonl" --online --compare \
    --timezone America/New_York --report "$OUT/android-report.json" --ranks-out "$OUT/android-ranks.txt" \
    --svg "$OUT/android-report.svg"
step "The same online evaluation walked through the engine (rank with the live model, donate, learn): same ranks" \
  "$P" evaluate --train "$OUT/android-train.jsonl" --test "$OUT/android-test.jsonl" --online --through-engine \
    --timezone America/New_York --quiet --ranks-out "$OUT/android-ranks-engine.txt"
cmp "$OUT/android-ranks.txt" "$OUT/android-ranks-engine.txt" && echo "the engine's ranks equal the harness's ($OUT/android-ranks-engine.txt)"
printf '\nDone: results in %s/ (stack.svg, android-report.json, android-report.svg, android-ranks.txt).\n' "$OUT"
