#!/usr/bin/env bash
# Builds the libFuzzer targets under Fuzz/ (with AddressSanitizer) and runs each for
# FUZZ_SECONDS, two at a time, starting from the committed seeds in Fuzz/Corpus/<name>.
# New inputs go to .build-fuzz/corpus/<name>; a crash, leak or hang stops that target
# and leaves its input in fuzz-results/ (turn it into a regression test, then commit
# it as a seed). Prints executions per second and coverage per target, and writes them
# to fuzz-results/summary.md. Exits non-zero when any target failed. See docs/fuzzing.md.
#
#   FUZZ_SECONDS  seconds per target (default 60)
#   FUZZ_TARGETS  comma-separated subset (default all): RequestDecoder,DocumentAnalysis,
#                 AnswerInspection,ClientProtocols,WebSocketFrames,ConfigLoading,RedisReplies,
#                 Introspection,MultipartParts
#   FUZZ_JOBS     targets run at once (default 2)
#   FUZZ_OPTIMIZE 1 (default): built with -O; 0: with -Onone, built in about a third of the
#                 time and run at about half the speed (CI's short runs, docs/fuzzing.md)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_JOBS=${FUZZ_JOBS:-2}
FUZZ_OPTIMIZE=${FUZZ_OPTIMIZE:-1}
[[ $FUZZ_OPTIMIZE == 0 || $FUZZ_OPTIMIZE == 1 ]] || { echo "fuzz: FUZZ_OPTIMIZE is 0 or 1" >&2; exit 2; }
ALL_TARGETS=RequestDecoder,DocumentAnalysis,AnswerInspection,ClientProtocols,WebSocketFrames,ConfigLoading,RedisReplies,Introspection,MultipartParts
IFS=, read -r -a TARGETS <<<"${FUZZ_TARGETS:-$ALL_TARGETS}"
SCRATCH=.build-fuzz
RESULTS=fuzz-results
mkdir -p "$RESULTS"

# lld: gold fails to link libFuzzer's driver into a Swift executable.
build_args=(-c release --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address -Xswiftc -g -Xswiftc -use-ld=lld)
# Release, not debug, even unoptimised: a debug build renames an executable's entry point
# (for testing), and libFuzzer's own main then comes in and finds no fuzz target.
((FUZZ_OPTIMIZE == 1)) || build_args+=(-Xswiftc -Onone)
for target in "${TARGETS[@]}"; do
    [[ -d Fuzz/$target ]] || { echo "fuzz: no target $target (known: $ALL_TARGETS)" >&2; exit 2; }
    echo "fuzz: building Fuzz$target" >&2
    GQLGATE_FUZZ=1 "$SWIFT" build "${build_args[@]}" --product "Fuzz$target" >&2
done
BIN=$(GQLGATE_FUZZ=1 "$SWIFT" build "${build_args[@]}" --show-bin-path)

run_target() { # name: fuzz it, leave its log in $RESULTS/<name>.log
    local name=$1 corpus=$SCRATCH/corpus/$1
    mkdir -p "$corpus" "Fuzz/Corpus/$name"
    # detect_leaks=0: the loop thread and Swift's runtime keep caches for the process's
    # life, which LeakSanitizer would report at exit whatever the input.
    # SWIFT_BACKTRACE: a failed precondition is reported by libFuzzer and ASan, not Swift's backtracer.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$BIN/Fuzz$name" \
        -max_total_time="$FUZZ_SECONDS" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$RESULTS/$name-" \
        "$corpus" "Fuzz/Corpus/$name" >"$RESULTS/$name.log" 2>&1
}

pids=() names=() failed=0 failures=0
for target in "${TARGETS[@]}"; do
    run_target "$target" &
    pids+=($!) names+=("$target")
    if ((${#pids[@]} >= FUZZ_JOBS)); then
        wait "${pids[0]}" || { echo "fuzz: ${names[0]}'s run failed: see $RESULTS/${names[0]}.log" >&2; tail -n 40 "$RESULTS/${names[0]}.log" >&2; failed=1; failures=$((failures + 1)); }
        pids=("${pids[@]:1}") names=("${names[@]:1}")
    fi
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { echo "fuzz: ${names[$i]}'s run failed: see $RESULTS/${names[$i]}.log" >&2; tail -n 40 "$RESULTS/${names[$i]}.log" >&2; failed=1; failures=$((failures + 1)); }
done

{
    echo "| target | seconds | runs | exec/s | coverage (edges) | features | corpus |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    for target in "${TARGETS[@]}"; do
        log=$RESULTS/$target.log
        done_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true)
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
        cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
        ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
        corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$done_line")
        echo "| $target | $FUZZ_SECONDS | ${runs:-?} | ${speed:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} |"
    done
} | tee "$RESULTS/summary.md"
echo "fuzz: $((${#TARGETS[@]} - failures)) passed, $failures failed"
exit "$failed"
