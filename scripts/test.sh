#!/bin/sh
# Run every test suite of every build; prints "N passed, N failed" at the end (what CI reads).
#   build, build-mpich   all suites, Open MPI and MPICH (the scale, plots and readme suites only in build)
#   build-nonuma         libnuma disabled: the numa suite (runs work and record "numa: unavailable")
#   build-asan           AddressSanitizer + UBSan: unit tests and small MPI runs (tests/sanitizers/)
#   build-fuzz           libFuzzer: a few seconds of fuzzing per parser (tests/fuzz/), when clang has it
#   mutants              the mutation suite (tests/mutants/README.md), on copies of build and build-mpich: every
#                        deliberate fault must be reported by the default run of the command it breaks and by
#                        its tests ("mutants: N caught of N")
set -u
case ${1:-} in
-h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; echo "RMB_TEST_ARGS: meson test arguments for build and build-mpich (e.g. --suite unit)"; exit 0 ;;
?*) echo "test.sh: $1: unknown argument (no arguments; see --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
passed=0; failed=0; skipped=0; failures=""
dirs="build build-mpich build-nonuma build-asan"
[ -f build-fuzz/build.ninja ] && dirs="$dirs build-fuzz"
for dir in $dirs; do
    suites=${RMB_TEST_ARGS:-}
    case $dir in
    # once, in build: the rank-count tests (tests/scale), the plots (Python on the fixture: no MPI) and
    # the README commands (they name build/ and mpirun: Open MPI)
    build-mpich) suites="${suites:+$suites }--no-suite scale --no-suite plots --no-suite readme" ;;
    build-nonuma) suites="--suite numa" ;;
    build-asan) suites="--suite unit --suite asan" ;;
    build-fuzz) suites="--suite fuzz" ;;
    esac
    log="$dir/meson-logs/rmabench-test.log"
    start=$(date +%s)
    # shellcheck disable=SC2086
    meson test -C "$dir" --print-errorlogs $suites >"$log" 2>&1
    # Only what is not OK is listed, so that the end of the output (what CI shows) names every failure.
    echo "=== meson test -C $dir $suites ($(( $(date +%s) - start )) s; full log: $log)"
    sed '/^Summary of Failures/,$d' "$log" | grep -E '^ *[0-9]+/[0-9]+ ' | grep -v -E ' (OK|EXPECTEDFAIL) +[0-9.]+s' || true
    bad=$(sed '/^Summary of Failures/,$d' "$log" | grep -E '^ *[0-9]+/[0-9]+ ' | grep -E ' (FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS) ' | sed -E 's/^ *[0-9]+\/[0-9]+ +rmabench:[^ ]+ \/ ([^ ]+).*/\1/')
    for t in $bad; do failures="$failures $dir:$t"; done
    ok=$(awk '/^Ok:/ {print $2}' "$log")
    fl=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {s += $NF} END {print s+0}' "$log")
    sk=$(awk '/^Skipped:/ {print $2}' "$log")
    if [ -z "$ok" ]; then
        echo "meson test -C $dir did not finish:"; tail -30 "$log"; fl=$((fl + 1)); ok=0
    fi
    passed=$((passed + ok)); failed=$((failed + fl)); skipped=$((skipped + ${sk:-0}))
done
for dir in build build-mpich; do
    mkdir -p build-mutants
    log="build-mutants/mutants-$dir.log"
    echo "=== tests/mutants/run_mutants.py $dir"
    start=$(date +%s)
    tests/mutants/run_mutants.py "$dir" >"$log" 2>&1
    rc=$?
    grep -E '^(mutant|mutants:)' "$log" || tail -20 "$log"
    echo "($(( $(date +%s) - start )) s)"
    if [ "$rc" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failures="$failures $dir:mutants"; fi
done
if [ -n "$failures" ]; then
    # The error logs of the failed tests last, where a truncated CI log still shows them.
    for dir in $dirs; do
        python3 -c 'import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
        out = (t.get("stdout") or "").splitlines()
        print("--- " + sys.argv[2] + ": " + t["name"] + " " + t["result"] + " (last lines of its output)")
        print("\n".join(out[-40:]))' "$dir/meson-logs/testlog.json" "$dir" 2>/dev/null
    done
    echo "failed:$failures"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
