# Where the `proactive` binary is: the one way every script finds it. Source it from the
# repository root (scripts `cd` there first), then:
#
#   source scripts/proactive-binary.sh
#   P="${1:-$(proactive_binary debug)}"          # the debug build, as built
#   P="$(proactive_binary release --build)"      # builds the release binary first
#
# $PROACTIVE_BIN, when set, wins over both (e.g. a debug build to try a release script;
# its figures are not the release's). The path printed may not exist when not built.
proactive_binary() {
  local mode="${1:-debug}" build="${2:-}"
  if [ -n "${PROACTIVE_BIN:-}" ]; then
    printf '%s\n' "$PROACTIVE_BIN"
    return
  fi
  case "$mode" in debug|release) ;; *) echo "proactive_binary: mode is debug or release, not '$mode'" >&2; return 2 ;; esac
  if [ "$build" = --build ]; then
    swift build -c "$mode" --product proactive >&2
  fi
  printf '%s/proactive\n' "$(swift build -c "$mode" --show-bin-path)"
}
