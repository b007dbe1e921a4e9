# The wrk scripts and the CPU reading the load scripts share (dev/load-serve.sh,
# dev/load-instances.sh). Source it after setting: work (a folder holding users.txt, one
# user a line), owner (the owner's credential) and batch (donations a request); prefix, when
# several wrk processes donate at once, sets their identifiers apart.
#
#   source dev/wrk-routes.sh
#   write_lua suggestions "$work/result.json" > "$work/suggestions.lua"
#   wrk -t 1 -c 16 -d 10s --latency -s "$work/suggestions.lua" http://127.0.0.1:PORT
#   cpu_ticks PID   # user + system clock ticks of PID and its children so far

# write_lua ROUTE RESULT: a wrk script for healthz, suggestions or donations, the same for every server (the
# Python peer ignores the credential). Each writes its summary as JSON to RESULT.
write_lua() {  # $1 route name, $2 result file
  cat <<LUA
local users = {}
for line in io.lines("$work/users.txt") do users[#users + 1] = line end
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer $owner"
LUA
  if [ "$1" = healthz ]; then
    cat <<LUA
-- The transport's ceiling: GET /healthz answers without credentials, model or store. What a side
-- serves here bounds what it can serve on any route with the same connections.
wrk.method = "GET"
request = function() return wrk.format(nil, "/healthz") end
LUA
  elif [ "$1" = suggestions ]; then
    cat <<LUA
wrk.headers["Content-Type"] = "application/json"
-- Every question names its own moment: the load's minute plus a millisecond count that grows with
-- each request (08:30:00.000, 08:30:00.001, ...), so no two questions are the same and the server
-- computes every answer (features, scores, ranking) as it would for "now".
local asked = 0
request = function()
  local user = users[math.random(#users)]
  local ms = asked % 3600000
  asked = asked + 1
  local at = string.format("2026-11-20T%02d:%02d:%02d.%03d-08:00", 8 + math.floor((30 * 60000 + ms) / 3600000),
                           math.floor((30 * 60000 + ms) / 60000) % 60, math.floor(ms / 1000) % 60, ms % 1000)
  return wrk.format(nil, "/v1/suggestions", nil, '{"user":"' .. user .. '","at":"' .. at .. '","k":4}')
end
LUA
  else
    cat <<LUA
wrk.headers["Content-Type"] = "application/x-ndjson"
local sequence = 0
-- \$prefix (unset: empty) tells apart the identifiers of several wrk processes run at once.
local prefix = "${prefix:-}" .. tostring(math.random(1, 1000000000))
request = function()
  local lines = {}
  for i = 1, $batch do
    sequence = sequence + 1
    lines[i] = '{"user":"' .. users[(sequence % #users) + 1] .. '","app":"com.example.load","intent":"PingIntent",'
      .. '"parameters":{"n":' .. (sequence % 50) .. '},"date":' .. (1790000000 + sequence) .. ',"identifier":"' .. prefix .. '-' .. sequence .. '"}'
  end
  return wrk.format(nil, "/v1/donations", nil, table.concat(lines, "\n"))
end
LUA
  fi
  cat <<LUA
done = function(summary, latency, requests)
  local file = io.open("$2", "w")
  local errors = summary.errors
  file:write(string.format('{"requests": %d, "duration_us": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d, "errors": %d, "non2xx": %d}',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    errors.connect + errors.read + errors.write + errors.timeout, errors.status))
  file:close()
end
LUA
}

cpu_ticks() {  # CPU time (user + system, clock ticks) of a process and its children so far (the peer's workers)
  local total=0 pid
  for pid in $1 $(pgrep -P "$1" || true); do
    [ -r "/proc/$pid/stat" ] && total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}


# start_kept_server KEPT PORT [FLAGS...]: copies KEPT/prepared.sqlite and KEPT/users.txt (a store kept by
# `KEEP_WORK=KEPT dev/load-serve.sh`) into $work, starts $P serve on it over loopback TCP at PORT with FLAGS,
# waits for /healthz, asks each user once (every model into memory) and sets server (its pid) and owner
# (the owner's credential). The server's log is $work/serve.log.
start_kept_server() {  # $1 kept folder, $2 port, then serve's extra flags
  local kept="$1" port="$2" name
  shift 2
  cp "$kept/prepared.sqlite" "$work/store.sqlite"
  cp "$kept/users.txt" "$work/users.txt"
  "$P" serve --store "$work/store.sqlite" --port "$port" --host 127.0.0.1 --log-level notice --memory-budget 4G "$@" 2>"$work/serve.log" &
  server=$!
  for _ in $(seq 1 200); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  owner="$(cat "$work/store.sqlite.owner-credential")"
  while read -r name; do
    curl -fsS -o /dev/null -H "Authorization: Bearer $owner" -d "{\"user\":\"$name\",\"k\":4}" "http://127.0.0.1:$port/v1/suggestions"
  done < "$work/users.txt"
}

# begin_kept_run SCRIPT: the start of a script that serves a kept store (dev/profile-serve.sh,
# dev/serve-floor.sh): BLAS on one thread, the release binary as P (SCRIPT names itself in the error
# when there is none), a temporary folder as work, and on exit the server stopped and work removed.
begin_kept_run() {  # $1 the script's name
  export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
  source scripts/proactive-binary.sh
  P="$(proactive_binary release)"
  [ -x "$P" ] || { echo "$1: no release binary at $P (swift build -c release --product proactive)" >&2; exit 2; }
  work="$(mktemp -d)"
  server=""
  trap end_kept_run EXIT
}

end_kept_run() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
