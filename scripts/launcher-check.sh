#!/usr/bin/env bash
# The launcher as a person sees it: rofi 1.7 (Debian's package, with Xvfb, ImageMagick's import
# and xdotool; installed when missing) shows `proactive launcher rofi` on a virtual screen over a
# store with two weeks of app switches; the screenshot is saved as out/desktop/rofi.png; the first
# row must be the engine's first suggestion; Return launches it (a .desktop file of the check's
# own, whose program writes a marker) and the launch is donated. Part of scripts/desktop-checks.sh;
# says SKIPPED and why when the packages cannot be installed.
# Usage: scripts/launcher-check.sh [path/to/proactive]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/proactive-binary.sh
P="$(cd "$(dirname "${1:-$(proactive_binary debug)}")" && pwd)/$(basename "${1:-$(proactive_binary debug)}")"
WORK="$(mktemp -d)"
XVFB=""
ROFI=""
cleanup() {
  if [ -n "$ROFI" ]; then kill "$ROFI" 2>/dev/null || true; fi
  # Waited for: an X server that exits late removes the socket of the next one on its display.
  if [ -n "$XVFB" ]; then kill "$XVFB" 2>/dev/null || true; wait "$XVFB" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAILED: $*" >&2; [ -f "$WORK/rofi.log" ] && sed 's/^/  rofi: /' "$WORK/rofi.log" | tail -20 >&2; exit 1; }
packages=(rofi xvfb imagemagick xdotool x11-utils)  # x11-utils: xdpyinfo, to wait for the screen
missing=()
for package in "${packages[@]}"; do dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"; } >"$WORK/apt.log" 2>&1; then
    echo "SKIPPED: the rofi launcher check: ${missing[*]} could not be installed ($(tail -1 "$WORK/apt.log"))" >&2
    exit 0
  fi
fi
echo "== desktop: rofi shows proactive launcher rofi under Xvfb"

# The desktop's applications: four .desktop files whose programs write a marker when started.
APPS="$WORK/data/applications"
mkdir -p "$APPS" "$WORK/bin"
for app in firefox:Firefox Alacritty:Alacritty code:"Visual Studio Code" thunderbird:Thunderbird; do
  id="${app%%:*}"; name="${app#*:}"
  printf '#!/bin/sh\necho started > "%s/started-%s"\n' "$WORK" "$id" >"$WORK/bin/$id"
  chmod +x "$WORK/bin/$id"
  printf '[Desktop Entry]\nType=Application\nName=%s\nExec=%s %%U\nStartupWMClass=%s\n' "$name" "$WORK/bin/$id" "$id" >"$APPS/$id.desktop"
done
printf '[Desktop Entry]\nType=Application\nName=Hidden helper\nExec=true\nNoDisplay=true\n' >"$APPS/hidden.desktop"

# Two weeks of mornings: Thunderbird at 08:30, Firefox at 09:00, code at 09:20, Alacritty at 09:40.
STORE="$WORK/store.sqlite"
python3 - "$WORK/switches.jsonl" <<'EOF'
import sys
from datetime import datetime, timedelta, timezone
out = open(sys.argv[1], "w")
for day in range(14):
    base = datetime(2026, 11, 16, tzinfo=timezone.utc) + timedelta(days=day)
    for minute, app in [(510, "thunderbird"), (540, "firefox"), (560, "code"), (580, "Alacritty")]:
        date = (base + timedelta(minutes=minute)).strftime("%Y-%m-%dT%H:%M:%SZ")
        out.write('{"user":"me","app":"%s","intent":"open","date":"%s"}\n' % (app, date))
EOF
"$P" import --store "$STORE" "$WORK/switches.jsonl" 2>/dev/null
AT=1796029140  # 2026-11-30T08:59:00Z, in Unix seconds: rofi splits a mode at its colons
first=$(XDG_DATA_HOME="$WORK/data" XDG_DATA_DIRS="$WORK/none" "$P" launcher lines --store "$STORE" --user me --at "$AT" | head -1)
expected=$("$P" suggest --store "$STORE" --user me --at "$AT" --format lines | head -1)
[ "$first" = "Firefox" ] && [ "$expected" = "Open firefox" ] || fail "the launcher's first row is '$first', the engine's first suggestion '$expected'"

# Xvfb picks a free display and writes its number (-displayfd). -noreset: by default an X server
# resets when its last client leaves, and a client connecting during that reset (rofi, just after
# xdpyinfo) is refused with "Failed to open display".
Xvfb -noreset -displayfd 3 -screen 0 1024x600x24 3>"$WORK/display" >"$WORK/xvfb.log" 2>&1 &
XVFB=$!
for _ in $(seq 1 100); do [ -s "$WORK/display" ] && break; sleep 0.1; done
[ -s "$WORK/display" ] || fail "Xvfb did not start: $(tail -1 "$WORK/xvfb.log")"
export DISPLAY=":$(head -1 "$WORK/display")"
for _ in $(seq 1 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
xdpyinfo >/dev/null 2>&1 || fail "Xvfb at $DISPLAY does not answer: $(tail -1 "$WORK/xvfb.log")"
# rofi is started again (three tries) only when it could not reach the screen at all.
for attempt in 1 2 3; do
  XDG_DATA_HOME="$WORK/data" XDG_DATA_DIRS="$WORK/none" HOME="$WORK" \
    rofi -show proactive -modi "proactive:$P launcher rofi --store $STORE --user me --at $AT" -theme-str 'window {width: 600px;}' >"$WORK/rofi.log" 2>&1 &
  ROFI=$!
  for _ in $(seq 1 50); do xdotool search --class rofi >/dev/null 2>&1 && break; kill -0 "$ROFI" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$ROFI" 2>/dev/null && break
  ROFI=""
  grep -q "Failed to open display" "$WORK/rofi.log" && [ "$attempt" -lt 3 ] || fail "rofi exited before showing its window"
  sleep 0.5
done
sleep 1
mkdir -p out/desktop
import -window root out/desktop/rofi.png
echo "screenshot: out/desktop/rofi.png"
xdotool key Return
for _ in $(seq 1 50); do [ -f "$WORK/started-firefox" ] && break; sleep 0.1; done
[ -f "$WORK/started-firefox" ] || fail "Return on the first row did not start Firefox"
wait "$ROFI" 2>/dev/null || true
ROFI=""
donated=$("$P" export --store "$STORE" --user me 2>/dev/null | grep -c '"app":"firefox"')
[ "$donated" = 15 ] || fail "the launch was not donated (firefox donations: $donated, 14 before)"
echo "rofi: first row Firefox (the engine's first suggestion, Open firefox); Return started it and donated the launch"
