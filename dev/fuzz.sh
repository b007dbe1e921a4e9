#!/usr/bin/env bash
# Fuzzes the donation line parser, the intent definition parser and the
# declaration codecs (relevant shortcuts, widget timelines, feedback) with libFuzzer.
#
#   dev/fuzz.sh [SECONDS] [TARGET...]     (default: 60 seconds, targets: donation definitions declarations)
#
# Each target is compiled with `swiftc -sanitize=fuzzer,address` from the
# ProactiveCore sources (for `declarations`, also ProactiveRanking's
# Declarations/ and feedback codec, their `import ProactiveCore` removed) plus
# its entry point in Fuzz/, then run for SECONDS
# starting from the committed seed corpus Fuzz/corpus/TARGET (new inputs go to
# .build/fuzz/work/TARGET, never into the committed corpus). Exits non-zero
# when a target crashes or breaks an invariant; the input is saved as
# .build/fuzz/artifacts/TARGET-crash-* (replay: .build/fuzz/TARGET FILE).
# Prints one summary line per target: runs, seconds, executions per second.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(donation definitions declarations)

out=.build/fuzz
mkdir -p "$out/work" "$out/artifacts" "$out/logs"
# Crash reports must go to libFuzzer, not to Swift's interactive backtracer.
export SWIFT_BACKTRACE=enable=no

entry_point() {
    case "$1" in
        donation) echo Fuzz/DonationLineFuzzer.swift ;;
        definitions) echo Fuzz/DefinitionFuzzer.swift ;;
        declarations) echo Fuzz/DeclarationFuzzer.swift ;;
        *) echo "fuzz.sh: unknown target $1 (donation, definitions, declarations)" >&2; exit 2 ;;
    esac
}

max_len() {
    case "$1" in
        donation) echo 4096 ;;      # longer lines only repeat structure; the 1 MiB cap is a corpus test
        definitions|declarations) echo 16384 ;;
    esac
}

status=0
summary=()
for target in "${targets[@]}"; do
    source_file=$(entry_point "$target")
    binary="$out/$target"
    echo "== building $binary"
    # ProactiveRanking sources join the core's module: copies without their `import ProactiveCore`.
    extra=()
    if [ "$target" = declarations ]; then
        rm -rf "$out/src/$target" && mkdir -p "$out/src/$target"
        for file in Sources/ProactiveRanking/Declarations/*.swift Sources/ProactiveRanking/Feedback/FeedbackCodec.swift \
                    Sources/ProactiveRanking/Feedback/FeedbackEvent.swift; do
            sed '/^import ProactiveCore$/d' "$file" > "$out/src/$target/$(basename "$file")"
        done
        extra=("$out/src/$target"/*.swift)
    fi
    swiftc -O -g -sanitize=fuzzer,address -parse-as-library -module-name "Fuzz_$target" \
        Sources/ProactiveCore/*.swift "${extra[@]}" Fuzz/FuzzSupport.swift "$source_file" -o "$binary" 2> "$out/logs/$target-build.log" \
        || { cat "$out/logs/$target-build.log" >&2; exit 1; }
    mkdir -p "$out/work/$target"
    log="$out/logs/$target.log"
    echo "== fuzzing $target for ${seconds}s (log: $log)"
    set +e
    "$binary" "$out/work/$target" "Fuzz/corpus/$target" \
        -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 \
        -dict=Fuzz/json.dict -artifact_prefix="$out/artifacts/$target-" -print_final_stats=1 > "$log" 2>&1
    code=$?
    set -e
    execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
    rate=$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
    units=$(ls "$out/work/$target" | wc -l)
    if [ "$code" -ne 0 ]; then
        status=1
        echo "!! $target failed (exit $code):" >&2
        grep -E 'INVARIANT BROKEN|ERROR: |Fatal error|deadly signal|Test unit written' -A3 "$log" | head -40 >&2
    fi
    summary+=("$target: exit $code, ${execs:-?} executions (${rate:-?}/s), coverage ${cov:-?} edges, ${units} units in the working corpus")
done
echo "== fuzz summary"
printf '%s\n' "${summary[@]}"
exit $status
