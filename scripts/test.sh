#!/bin/sh
# Run every test suite of every build; prints "N passed, N failed" at the end (what CI reads).
#   build, build-mpich   all suites, Open MPI and MPICH
#   build-nonuma         libnuma disabled: the numa suite (runs work and record "numa: unavailable")
#   build-asan           AddressSanitizer + UBSan: unit tests and small MPI runs (tests/sanitizers/)
#   build-fuzz           libFuzzer: a few seconds of fuzzing per parser (tests/fuzz/), when clang has it
#   build-mutants*       the mutation suite (tests/mutants/): every deliberate fault must be reported by
#                        the default run of the command it breaks and by its tests ("mutants: N caught of N")
set -u
cd "$(dirname "$0")/.."
passed=0; failed=0; skipped=0
dirs="build build-mpich build-nonuma build-asan"
[ -f build-fuzz/build.ninja ] && dirs="$dirs build-fuzz"
for dir in $dirs; do
    suites=${RMB_TEST_ARGS:-}
    case $dir in
    build-nonuma) suites="--suite numa" ;;
    build-asan) suites="--suite unit --suite asan" ;;
    build-fuzz) suites="--suite fuzz" ;;
    esac
    log="$dir/meson-logs/rmabench-test.log"
    echo "=== meson test -C $dir $suites"
    # shellcheck disable=SC2086
    meson test -C "$dir" --print-errorlogs $suites >"$log" 2>&1
    grep -E '^ *[0-9]+/[0-9]+ ' "$log"
    sed -n '/^Summary of Failures/,$p' "$log" | head -200
    ok=$(awk '/^Ok:/ {print $2}' "$log")
    fl=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {s += $NF} END {print s+0}' "$log")
    sk=$(awk '/^Skipped:/ {print $2}' "$log")
    if [ -z "$ok" ]; then
        echo "meson test -C $dir did not finish:"; tail -30 "$log"; fl=$((fl + 1)); ok=0
    fi
    passed=$((passed + ok)); failed=$((failed + fl)); skipped=$((skipped + ${sk:-0}))
done
for dir in build-mutants build-mutants-mpich; do
    log="$dir/meson-logs/rmabench-mutants.log"
    echo "=== tests/mutants/run_mutants.sh $dir"
    tests/mutants/run_mutants.sh "$dir" >"$log" 2>&1
    rc=$?
    grep -E '^(mutant|mutants:)' "$log" || tail -20 "$log"
    if [ "$rc" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
