#!/usr/bin/env bash
# The desktop sources against the real tools (issue 46), part of the test command:
# 1. `follow activitywatch` against a real aw-server (0.12.0 and aw-client from PyPI, into
#    .venv-aw/, memory storage on a private loopback port): started before the server (it waits
#    and says so), history read at once, switches posted with aw-client while `follow` is killed
#    with SIGKILL 5 times and restarted; at the end the store holds exactly the switches the rules
#    keep from the server's events (none lost, none twice), and a switch made now is in the
#    next `suggest --developer` answer.
# 2. zsh, fish and bash write their own history files (Debian's zsh and fish, installed when
#    missing); `import --format zsh|fish|bash` reads every command with its time.
# 3. rofi under Xvfb lists `proactive launcher rofi`, the engine's first suggestion on top; the
#    screenshot is out/desktop/rofi.png; Return launches it and the launch is donated (scripts/launcher-check.sh).
# Each part says SKIPPED and why when its tool cannot be installed here.
# Usage: scripts/desktop-checks.sh [path/to/proactive]   (AW_PORT=NNNN to choose the port)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/proactive-binary.sh
P="$(cd "$(dirname "${1:-$(proactive_binary debug)}")" && pwd)/$(basename "${1:-$(proactive_binary debug)}")"
AW_PORT="${AW_PORT:-15781}"
VENV=.venv-aw
WORK="$(mktemp -d)"
SERVER=""
FOLLOW=""
cleanup() {
  if [ -n "$FOLLOW" ]; then kill "$FOLLOW" 2>/dev/null || true; fi
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAILED: $*" >&2
  for log in "$WORK"/*.log; do [ -f "$log" ] && sed "s|^|  $(basename "$log"): |" "$log" | tail -20 >&2; done
  exit 1
}
install_packages() {
  local missing=()
  for package in "$@"; do dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"; } >"$WORK/apt.log" 2>&1
}
count() { "$P" export --store "$1" 2>/dev/null | grep -c '"identifier":"activitywatch/' || true; }

# --- 1. ActivityWatch ---------------------------------------------------------------------------
if [ ! -x "$VENV/bin/aw-server" ]; then
  { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "aw-server==0.12.0" aw-client; } >"$WORK/pip.log" 2>&1 || true
fi
if [ ! -x "$VENV/bin/aw-server" ]; then
  echo "SKIPPED: the ActivityWatch checks: aw-server 0.12.0 could not be installed from PyPI ($(tail -1 "$WORK/pip.log"))" >&2
else
  echo "== desktop: follow activitywatch against aw-server 0.12.0 on 127.0.0.1:$AW_PORT"
  STORE="$WORK/aw.sqlite"
  FEED=("$VENV/bin/python" scripts/aw_feed.py "$AW_PORT")
  start_follow() {
    "$P" follow activitywatch --store "$STORE" --url "http://127.0.0.1:$AW_PORT" --interval 0.3 --timezone UTC >>"$WORK/follow.log" 2>&1 &
    FOLLOW=$!
  }
  # Started before the server: it waits, and says so once.
  start_follow
  sleep 1.5
  grep -q "ActivityWatch does not answer" "$WORK/follow.log" || fail "follow did not say the server is away"
  "$VENV/bin/aw-server" --testing --storage memory --port "$AW_PORT" >"$WORK/aw-server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$AW_PORT/api/0/info" >/dev/null && break; sleep 0.2; done
  curl -sf "http://127.0.0.1:$AW_PORT/api/0/info" >/dev/null || fail "aw-server did not start"
  "${FEED[@]}" setup
  "${FEED[@]}" switches 60 1
  expected=$("${FEED[@]}" expected | wc -l)
  for _ in $(seq 1 100); do [ "$(count "$STORE")" -ge "$expected" ] && break; sleep 0.2; done
  grep -q "answers again" "$WORK/follow.log" || fail "follow did not say the server answers again"
  [ "$(count "$STORE")" = "$expected" ] || fail "the history: $(count "$STORE") switches stored, the server's events give $expected"
  echo "history: $expected switches stored from 60 events"
  # Switches posted while follow is killed with SIGKILL at random moments and started again.
  for round in 1 2 3 4 5; do
    "${FEED[@]}" switches 25 $((round + 1)) &
    feeder=$!
    sleep "0.$((RANDOM % 9 + 1))"
    kill -9 "$FOLLOW"
    wait "$FOLLOW" 2>/dev/null || true
    wait "$feeder"
    start_follow
  done
  "${FEED[@]}" expected >"$WORK/expected.txt"
  for _ in $(seq 1 150); do [ "$(count "$STORE")" -ge "$(wc -l <"$WORK/expected.txt")" ] && break; sleep 0.2; done
  "$P" export --store "$STORE" 2>/dev/null | sed -n 's/.*"identifier":"\(activitywatch[^"]*\)".*/\1/p' | sort >"$WORK/stored.txt"
  sort -o "$WORK/expected.txt" "$WORK/expected.txt"
  if ! diff -q "$WORK/expected.txt" "$WORK/stored.txt" >/dev/null; then
    diff "$WORK/expected.txt" "$WORK/stored.txt" | head -20 >&2
    fail "after 5 SIGKILLs the stored switches differ from the server's (< lost, > not the server's)"
  fi
  [ "$(sort -u "$WORK/stored.txt" | wc -l)" = "$(wc -l <"$WORK/stored.txt")" ] || fail "a switch is stored twice"
  echo "after 5 SIGKILLs and restarts: $(wc -l <"$WORK/stored.txt") switches stored, the same as the server's events give; none twice"
  # A switch made now is in the next answer.
  "${FEED[@]}" open org.example.NewApp
  for _ in $(seq 1 50); do grep -q '"app":"org.example.NewApp"' <("$P" export --store "$STORE" 2>/dev/null) && break; sleep 0.2; done
  answer=$("$P" suggest --store "$STORE" --developer -k 50 --timezone UTC --at 2026-12-01T12:00:00Z 2>/dev/null)
  grep -q "org.example.NewApp" <<<"$answer" || fail "the switch just made is not in the next answer: $answer"
  echo "a switch made now: stored and in the next suggest answer"
  # The server's export, imported into a second store, gives the same switches.
  curl -sf "http://127.0.0.1:$AW_PORT/api/0/export" >"$WORK/export.json"
  "$P" import --store "$WORK/imported.sqlite" --format activitywatch --timezone UTC "$WORK/export.json" 2>"$WORK/import.log" || fail "import of the export"
  "$P" export --store "$WORK/imported.sqlite" 2>/dev/null | sed -n 's/.*"identifier":"\(activitywatch[^"]*\)".*/\1/p' | sort >"$WORK/imported.txt"
  "$P" export --store "$STORE" 2>/dev/null | sed -n 's/.*"identifier":"\(activitywatch[^"]*\)".*/\1/p' | sort >"$WORK/stored.txt"
  diff -q "$WORK/imported.txt" "$WORK/stored.txt" >/dev/null || fail "import --format activitywatch of the export differs from what follow stored"
  echo "import --format activitywatch of the server's export: the same $(wc -l <"$WORK/imported.txt") switches"
  kill "$FOLLOW"; wait "$FOLLOW" 2>/dev/null || true; FOLLOW=""
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
fi

# --- 2. Shells writing their own history --------------------------------------------------------
if install_packages zsh fish && command -v zsh >/dev/null && command -v fish >/dev/null; then
  echo "== desktop: zsh, fish and bash write their history, import reads it"
  printf 'git status\ncd /tmp\nssh -V\ngit log -1\nexit\n' |
    HISTFILE="$WORK/zsh_history" SAVEHIST=100 HISTSIZE=100 HOME="$WORK" zsh -f -i -o EXTENDED_HISTORY -o INC_APPEND_HISTORY >/dev/null 2>&1 || true
  "$P" import --store "$WORK/shell.sqlite" --format zsh "$WORK/zsh_history" 2>"$WORK/zsh.log" || fail "import --format zsh"
  grep -q "zsh: read 5 rows, kept 5 donations" "$WORK/zsh.log" || fail "zsh: $(head -1 "$WORK/zsh.log")"
  # fish saves history only at an interactive prompt: typed through a pseudo-terminal (script(1)).
  mkdir -p "$WORK/fish-data/fish/generated_completions"
  (sleep 2; for line in 'git status' 'cd /tmp' 'ls'; do printf '%s\r' "$line"; sleep 0.7; done; printf 'exit\r'; sleep 3) |
    XDG_DATA_HOME="$WORK/fish-data" XDG_CONFIG_HOME="$WORK/fish-config" HOME="$WORK" script -qec "fish -i" /dev/null >/dev/null 2>&1 || true
  "$P" import --store "$WORK/shell.sqlite" --format fish "$WORK/fish-data/fish/fish_history" 2>"$WORK/fish.log" || fail "import --format fish"
  grep -q "fish: read 4 rows, kept 4 donations" "$WORK/fish.log" || fail "fish: $(head -1 "$WORK/fish.log")"
  # bash writes #EPOCH lines when HISTTIMEFORMAT is set.
  printf 'git status\ncd /tmp\nls -d /\n' |
    HISTFILE="$WORK/bash_history" HISTTIMEFORMAT='%F %T ' HOME="$WORK" bash --norc -i >/dev/null 2>&1 || true
  "$P" import --store "$WORK/shell.sqlite" --format bash "$WORK/bash_history" 2>"$WORK/bash.log" || fail "import --format bash"
  grep -q "bash: read 3 rows, kept 3 donations" "$WORK/bash.log" || fail "bash: $(head -1 "$WORK/bash.log")"
  echo "zsh: 5 commands written by zsh, 5 stored; fish: 4 written by fish, 4 stored; bash: 3 written by bash, 3 stored"
else
  echo "SKIPPED: the real-shell checks: zsh and fish could not be installed ($(tail -1 "$WORK/apt.log" 2>/dev/null))" >&2
fi

# --- 3. The launcher in rofi --------------------------------------------------------------------
bash scripts/launcher-check.sh "$P"
