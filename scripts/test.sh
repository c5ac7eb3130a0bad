#!/bin/sh
# Run every test suite of both builds; prints "N passed, N failed" at the end.
set -u
cd "$(dirname "$0")/.."
passed=0; failed=0; skipped=0
dirs="build build-mpich build-asan"
[ -f build-fuzz/build.ninja ] && dirs="$dirs build-fuzz"
for dir in $dirs; do
    # the sanitizer build runs the unit tests and its own small MPI runs (tests/sanitizers/);
    # the libFuzzer build a few seconds of fuzzing per target (tests/fuzz/)
    suites=""
    [ "$dir" = build-asan ] && suites="--suite unit --suite asan"
    [ "$dir" = build-fuzz ] && suites="--suite fuzz"
    echo "=== meson test -C $dir $suites"
    meson test -C "$dir" --print-errorlogs $suites ${RMB_TEST_ARGS:-} >"/tmp/rmabench-test-$dir.log" 2>&1
    grep -E '^ *[0-9]+/[0-9]+ ' "/tmp/rmabench-test-$dir.log"
    sed -n '/^Summary of Failures/,$p' "/tmp/rmabench-test-$dir.log" | head -200
    ok=$(awk '/^Ok:/ {print $2}' "/tmp/rmabench-test-$dir.log")
    fl=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {s += $NF} END {print s+0}' "/tmp/rmabench-test-$dir.log")
    sk=$(awk '/^Skipped:/ {print $2}' "/tmp/rmabench-test-$dir.log")
    if [ -z "$ok" ]; then
        echo "meson test -C $dir did not finish:"; tail -30 "/tmp/rmabench-test-$dir.log"; fl=$((fl + 1)); ok=0
    fi
    passed=$((passed + ok)); failed=$((failed + fl)); skipped=$((skipped + ${sk:-0}))
done
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
