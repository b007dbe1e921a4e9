#!/usr/bin/env bash
# Runs every benchmark and rewrites BENCHMARKS.md from what it measured:
#
#   scripts/benchmarks.sh
#
# 1. the package-benchmark suite (Benchmarks/, ordo-one/benchmark, release) -> OUT/suite/*.samples.tsv
# 2. JSONL ingest of 100,000 and 1,000,000 simulated donations by the release
#    `proactive import` under /usr/bin/time -v (wall time, peak RSS) -> OUT/ingest.json
# 3. the Python peer, same shapes, same run (dev/compare-python.sh) -> OUT/peer/
# 4. `proactive serve` and its Python peer under wrk (dev/load-serve.sh; SERVE_USERS,
#    default 1000) -> OUT/serve/serve.json, then the issue's shape, 1,000 users x 1,000
#    targets (TARGETS=1000 dev/load-serve.sh, about 10 minutes) -> OUT/serve-wide/serve.json
# 5. callgrind profiles of the hot paths (suggest at 1,000 targets, ingest) -> OUT/profile-*.txt
# 6. dev/benchmarks-report.py OUT > BENCHMARKS.md
#
# BLAS runs on one thread everywhere. Environment: BENCH_OUT (default out/bench),
# WIDE_REUSE_WORK (a directory prepared by `KEEP_WORK=DIR TARGETS=1000 dev/load-serve.sh 1000 0 10`:
# step 4's wide shape is restored from it instead of prepared again; see load-serve.sh),
# BENCH_NOTE (a sentence for the report, e.g. why a run is noisy), PEER_ITERATIONS,
# BENCH_SKIP (steps to skip, keeping their earlier output in BENCH_OUT: any of
# "suite ingest peer live serve serve-wide profiles").
# Takes about 25-40 minutes on 2 cores; needs about 14 GB of memory and 25 GB of disk (the wide
# shape's store).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${BENCH_OUT:-out/bench}"
skip=" ${BENCH_SKIP:-} "
runs() { [[ "$skip" != *" $1 "* ]]; }
[ -n "${BENCH_SKIP:-}" ] || rm -rf "$out"
mkdir -p "$out/suite" "$out/peer"
bash scripts/ensure-system-packages.sh
command -v /usr/bin/time >/dev/null || { echo "benchmarks.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
scratch=(--package-path Benchmarks --scratch-path Benchmarks/.build)
# SwiftPM can keep a stale build plan for the path dependency (the main package) after files
# are added to it ("cannot find ... in scope"); dropping the plan makes it re-plan, not rebuild.
rm -f Benchmarks/.build/release.yaml
log() { echo "== $*" >&2; }

# MARK: Machine
load_start="$(cut -d' ' -f1 /proc/loadavg)"
cat > "$out/commands.txt" <<EOF
scripts/benchmarks.sh        # everything below, then BENCHMARKS.md

# 1. suite
swift package ${scratch[*]} --allow-writing-to-directory $out benchmark --format histogramSamples --path $out/suite --no-progress
# 2. ingest (release CLI)
swift build -c release --product proactive
proactive simulate --users 1000 --days 75 --seed 7 -o $out/simulated.jsonl   # first N lines kept
proactive retention set --keep-all --store $out/ingest-N.sqlite   # explicit (a new store's default): the simulated dates are fixed
/usr/bin/time -v proactive import --store $out/ingest-N.sqlite --progress none $out/ingest-N.jsonl
# 3. Python peer
dev/compare-python.sh $out/peer
dev/live-latency.py proactive $out/live     # whole-command latency of the live model path
LOAD_OUT=$out/serve dev/load-serve.sh 1000 60 10 16 500   # proactive serve and its Python peer under wrk
TARGETS=1000 LOAD_OUT=$out/serve-wide dev/load-serve.sh 1000 0 10 16 500   # the issue's shape, no peer
# 4. profiles
valgrind --tool=callgrind --toggle-collect='*SuggestScenarioV7suggest*' engine-peer $out/profile --iterations 200 --targets 1000 --skip-training
valgrind --tool=callgrind engine-peer $out/profile --ingest $out/ingest-20000.jsonl   # in-process importer
EOF

# MARK: 1. Suite
swift build "${scratch[@]}" -c release >&2
if runs suite; then
log "running the benchmark suite"
rm -f "$out/suite/"*
swift package "${scratch[@]}" --allow-writing-to-directory "$out" benchmark \
  --format histogramSamples --path "$out/suite" --no-progress 2>&1 | tee "$out/suite.log" >&2
fi

# MARK: 2. Ingest with the release CLI
source scripts/proactive-binary.sh
cli="$(proactive_binary release --build)"
if runs ingest; then
log "ingest: release proactive import under /usr/bin/time -v"
"$cli" simulate --users 1000 --days 75 --seed 7 -o "$out/simulated.jsonl" >&2
echo "{" > "$out/ingest.json"
separator=""
for count in 100000 1000000 20000; do
  head -n "$count" "$out/simulated.jsonl" > "$out/ingest-$count.jsonl"
  lines="$(wc -l < "$out/ingest-$count.jsonl")"
  [ "$lines" -eq "$count" ] || { echo "benchmarks.sh: simulated only $lines donations" >&2; exit 1; }
  [ "$count" -eq 20000 ] && break   # the profile's input only
  rm -f "$out/ingest-$count.sqlite"*
  # Keep everything (a new store's default, stated explicitly): the simulated log has
  # fixed dates (early 2026), and under a retention window the import would leave out
  # a share of it that depends on the day the benchmark runs.
  "$cli" retention set --keep-all --store "$out/ingest-$count.sqlite" > /dev/null
  /usr/bin/time -v "$cli" import --store "$out/ingest-$count.sqlite" --progress none "$out/ingest-$count.jsonl" \
    2> "$out/ingest-$count.time"
  seconds="$(python3 -c 'import sys
parts = [float(p) for p in sys.argv[1].split(":")]
print(sum(p * 60 ** i for i, p in enumerate(reversed(parts))))' \
    "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/ingest-$count.time")")"
  rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/ingest-$count.time")"
  bytes="$(stat -c %s "$out/ingest-$count.jsonl")"
  echo "$separator\"$count\": {\"donations\": $count, \"bytes\": $bytes, \"seconds\": $seconds, \"max_rss_kb\": $rss}" >> "$out/ingest.json"
  separator=","
  rm -f "$out/ingest-$count.sqlite"*
done
echo "}" >> "$out/ingest.json"
fi

# MARK: 3. Python peer
if runs peer; then
log "Python peer"
bash dev/compare-python.sh "$out/peer" | tee "$out/peer.txt" >&2
fi

# MARK: 4. The service under load, with its Python peer
if runs serve; then
log "proactive serve and its Python peer under wrk"
REUSE_WORK= KEEP_WORK= LOAD_OUT="$out/serve" PROACTIVE_BIN="$cli" bash dev/load-serve.sh "${SERVE_USERS:-1000}" "${SERVE_DAYS:-60}" 10 16 500 \
  | tee "$out/serve.txt" >&2
fi

if runs serve-wide; then
log "proactive serve at the issue's shape: 1,000 users x 1,000 targets"
REUSE_WORK="${WIDE_REUSE_WORK:-}" KEEP_WORK= TARGETS=1000 LOAD_OUT="$out/serve-wide" PROACTIVE_BIN="$cli" bash dev/load-serve.sh 1000 0 10 16 500 \
  | tee "$out/serve-wide.txt" >&2
fi

# MARK: 5. Profiles
if runs live; then
log "live models: whole-command latency (heavy user)"
python3 dev/live-latency.py "$cli" "$out/live" >&2
fi

if runs profiles && command -v valgrind >/dev/null; then
  log "callgrind profiles"
  # valgrind 3.19 gives up on clang's default DWARF 5 (the C targets); the profiled build asks for
  # DWARF 4 on the command line (a flag in Package.swift would be an unsafe flag, which keeps apps
  # from depending on the package by URL), in its own scratch directory.
  profiled=(--package-path Benchmarks --scratch-path Benchmarks/.build-profile -c release -Xcc -gdwarf-4)
  swift build "${profiled[@]}" --product engine-peer >&2
  bin="$(swift build "${profiled[@]}" --show-bin-path)"
  summarize() (  # callgrind output -> engine functions by inclusive, then all by exclusive instructions
    set +o pipefail   # `head` closes the pipes early
    echo "Engine functions, inclusive (share of all instructions collected):"
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | swift demangle --simplified \
      | grep -E '^ *[0-9,]+ \(.*/Sources/(Proactive|LinearAlgebra)' | grep -v -e '<compiler-generated>' -e '=>' | head -16 \
      | sed -E 's| \[/[^]]*\]$||; s|/[^ ]*/Sources/|Sources/|' | cut -c1-170
    echo
    echo "All functions, exclusive:"
    callgrind_annotate --inclusive=no --threshold=95 "$1" 2>/dev/null | sed -n '/file:function/,$p' | sed '1,2d' | head -16 \
      | swift demangle --simplified | sed -E 's| \[/[^]]*\]$||; s|/[^ ]*/Sources/|Sources/|' | cut -c1-170
  )
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.suggest" --toggle-collect='*SuggestScenarioV7suggest*' \
    "$bin/engine-peer" "$out/profile" --iterations 200 --targets 1000 --skip-training >/dev/null 2>"$out/callgrind.suggest.log"
  summarize "$out/callgrind.suggest" > "$out/profile-suggest-1000-targets-200-calls.txt"
  # In-process (the CLI's dispatch main crashes valgrind): the same DonationImporter and SQLite store.
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.ingest" \
    "$bin/engine-peer" "$out/profile" --ingest "$out/ingest-20000.jsonl" >/dev/null 2>"$out/callgrind.ingest.log"
  summarize "$out/callgrind.ingest" > "$out/profile-ingest-20000-donations.txt"
  # 10,000 targets: too slow under valgrind (building the scenario); sampled with perf where it works.
  if perf record -e cpu-clock -o "$out/perf.probe" true >/dev/null 2>&1; then
    perf record -e cpu-clock -F 999 -g -o "$out/perf.suggest" \
      "$bin/engine-peer" "$out/profile" --iterations 3000 --targets 10000 --skip-training >/dev/null 2>&1
    { set +o pipefail
      echo "Samples inclusive of callees (children), share of the whole run (scenario building included):"
      echo "   children     self  symbol"
      perf report -i "$out/perf.suggest" --children --sort symbol -g none --stdio 2>/dev/null | swift demangle --simplified \
        | grep -E '\] (SuggestScenario\.suggest|ProfileModel\.(scores|logScores|distribution)|LogProfileMatrix\.multiply|TargetDistribution\.topIndices|(specialized )?static Softmax\.|(specialized )?SuggestionRanker\.(rank|suggest)|swift_retain$|RawGemv\.run)' \
        | sed -E 's/[ -]+$//' | head -14; } > "$out/profile-suggest-10000-targets-perf.txt"
  fi
fi

# MARK: 6. Report
load_end="$(cut -d' ' -f1 /proc/loadavg)"
# The machine and its load are those of the run that measured the suite.
runs suite || [ ! -f "$out/machine.json" ] && python3 - "$out/machine.json" "$load_start" "$load_end" <<'EOF'
import json, os, platform, subprocess, sys, datetime
path, load_start, load_end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "unknown")
memory = next((line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")), "0")
nproc = os.cpu_count()   # GNU nproc would honour OMP_NUM_THREADS=1
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
json.dump({
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    "cpu": cpu, "nproc": nproc, "memory": f"{int(memory) / 1048576:.0f} GiB",
    "kernel": f"{platform.system()} {platform.release()}", "swift": swift,
    "load_start": load_start, "load_end": load_end,
    "noisy": max(load_start, load_end) > 0.5 * nproc or bool(os.environ.get("BENCH_NOTE")),
    "note": os.environ.get("BENCH_NOTE", ""),
}, open(path, "w"), indent=2)
EOF
# Written beside the old report first: the new one copies the old one's hand-written notes section.
python3 dev/benchmarks-report.py "$out" > "$out/report.new"
cp "$out/report.new" BENCHMARKS.md
log "wrote BENCHMARKS.md"
