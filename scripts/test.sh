#!/bin/sh
# Run the test suites; ends with "tests: N passed, N failed, N skipped" (what CI reads).
#   scripts/test.sh          every suite (what CI runs); first builds what the tests need
#                            (scripts/build.sh --tests), then runs these sections, some side by side:
#     build-alone  Open MPI: the suite 'alone' (tests that measure or load the whole machine), first,
#                  with nothing beside it
#     build        Open MPI: every other suite but netns
#     build-netns, build-mpich-netns  the suite 'netns' (network namespaces, a private Slurm) of each
#                  library, one test at a time
#     build-mpich-unit  MPICH: the unit suite (no MPI run), beside the Open MPI tests
#     build-mpich  MPICH: every other suite but netns, scale, plots and readme (once, in build)
#     build-nonuma libnuma disabled: the numa suite (runs work and record "numa: unavailable")
#     build-asan   AddressSanitizer + UBSan: the unit and asan suites (tests/sanitizers/)
#     build-fuzz   libFuzzer: a few seconds of fuzzing per parser (tests/fuzz/), when clang has it
#     mutants, mutants-mpich  the mutation suite (tests/mutants/README.md): every deliberate fault
#                  must be reported by the default run of the command it breaks and by its tests
#   scripts/test.sh --quick  the tier to run after every edit (about 2 minutes): builds build/ and
#                  build-mpich/, then the unit suite (with the layer and lint checks) and the quick
#                  suite (a small verified run of each operator) on Open MPI, the quick suite on MPICH
# At the end: the ten slowest tests, and each section's wall and CPU time beside its budget in
# tests/time_budget.txt, with a warning for a section over it by more than 50% (never a failure).
set -u
quick=0
case ${1:-} in
-h | --help)
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    echo "RMB_TEST_ARGS: meson test arguments for build and build-mpich (e.g. --suite unit)"
    echo "RMB_TIMEOUT_MULTIPLIER: every test's timeout times this (a loaded machine), default 1"
    exit 0 ;;
--quick) quick=1 ;;
?*) echo "test.sh: $1: unknown argument (only --quick; see --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.." || exit 2
times_py="/usr/bin/python3 scripts/test_times.py"
res=$(mktemp -d /tmp/rmabench-test.XXXXXX)
trap 'rm -rf "$res"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# build/ and build-mpich/ first; the test-only builds later, beside the Open MPI tests
$times_py run "$res/build-main.time" -- scripts/build.sh || exit 1

# meson_section NAME DIR ARGS...: meson test in DIR; its summary in $res/NAME.{time,sum,tests,out}.
# Only what is not OK is listed, so that the end of the output (what CI shows) names every failure.
meson_section() {
    name=$1 dir=$2; shift 2
    log="$dir/meson-logs/rmabench-test-$name.log"
    # (scripts/build.sh built everything: two sections side by side must not both run ninja in one directory)
    $times_py run "$res/$name.time" -- meson test -C "$dir" --no-rebuild --print-errorlogs --logbase "testlog-$name" \
        -t "${RMB_TIMEOUT_MULTIPLIER:-1}" "$@" >"$log" 2>&1
    {
        echo "=== meson test -C $dir $* ($(cut -d' ' -f2 "$res/$name.time") s; full log: $log)"
        sed '/^Summary of Failures/,$d' "$log" | grep -E '^ *[0-9]+/[0-9]+ ' | grep -v -E ' (OK|EXPECTEDFAIL|SKIP) +[0-9.]+s' || true
    } >"$res/$name.out"
    bad=$(sed '/^Summary of Failures/,$d' "$log" | grep -E '^ *[0-9]+/[0-9]+ ' | grep -E ' (FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS) ' |
          sed -E 's/^ *[0-9]+\/[0-9]+ +rmabench:[^ ]+ \/ ([^ ]+).*/\1/')
    ok=$(awk '/^Ok:/ {print $2}' "$log")
    fl=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {s += $NF} END {print s+0}' "$log")
    sk=$(awk '/^Skipped:/ {print $2}' "$log")
    if [ -z "$ok" ]; then
        { echo "meson test -C $dir did not finish:"; tail -30 "$log"; } >>"$res/$name.out"; fl=$((fl + 1)); ok=0
    fi
    failures=""
    for t in $bad; do failures="$failures $dir:$t"; done
    echo "$ok $fl ${sk:-0} $failures" >"$res/$name.sum"
    echo "$dir/meson-logs/testlog-$name.json" >"$res/$name.testlog"
    /usr/bin/python3 -c 'import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    print("%.1f\t%s" % (t["duration"], t["name"].split(" / ")[-1]))' "$dir/meson-logs/testlog-$name.json" >"$res/$name.tests" 2>/dev/null
}

# mutant_section NAME BUILD_DIR: the mutation suite for BUILD_DIR's library; one passed or failed test
mutant_section() {
    name=$1 dir=$2
    mkdir -p build-mutants
    log="build-mutants/$name.log"
    $times_py run "$res/$name.time" -- tests/mutants/run_mutants.py --no-rebuild \
        --timeout-multiplier "${RMB_TIMEOUT_MULTIPLIER:-1}" "$dir" >"$log" 2>&1
    rc=$(cut -d' ' -f1 "$res/$name.time")
    {
        echo "=== tests/mutants/run_mutants.py $dir ($(cut -d' ' -f2 "$res/$name.time") s; full log: $log)"
        grep -E '^(mutant|mutants:)' "$log" | sed 's/ \[[0-9.]* s\]$//' || tail -20 "$log"
        [ "$rc" -eq 0 ] || tail -20 "$log"
    } >"$res/$name.out"
    if [ "$rc" -eq 0 ]; then echo "1 0 0" >"$res/$name.sum"; else echo "0 1 0 $name" >"$res/$name.sum"; fi
    sed -n 's/^mutant \([^ ]*\) .*\[\([0-9.]*\) s\]$/\2\tmutant \1/p' "$log" >"$res/$name.tests"
}

if [ "$quick" -eq 1 ]; then
    sections="quick quick-mpich"
    meson_section quick build --suite unit --suite quick
    meson_section quick-mpich build-mpich --suite quick
else
    # Side by side where they share the cores well: Open MPI's tests (many wait on the launcher or a
    # timeout), both libraries' netns tests (they mostly wait for daemons), the test-only builds and
    # their tests, and Open MPI's mutants (they compute). MPICH's ranks busy-poll, so its other tests
    # and its mutants run with nothing beside them.
    sections="build-alone build build-netns build-mpich-netns build-mpich-unit build-asan build-fuzz build-nonuma mutants build-mpich mutants-mpich"
    mpich_args="--no-suite netns --no-suite unit"
    if [ -n "${RMB_TEST_ARGS:-}" ]; then
        sections="build ${sections#build-alone build build-netns build-mpich-netns build-mpich-unit }"
        mpich_args=$RMB_TEST_ARGS
        # shellcheck disable=SC2086
        meson_section build build --num-processes 4 $RMB_TEST_ARGS &
    else
        meson_section build-alone build --suite alone
        meson_section build build --num-processes 4 --no-suite alone --no-suite netns &
        # one netns test at a time on the machine: Open MPI's, then MPICH's
        { meson_section build-netns build --suite netns; meson_section build-mpich-netns build-mpich --suite netns; } &
        # MPICH's unit suite starts no MPI run: it need not wait for the busy-polling MPICH tests' turn
        meson_section build-mpich-unit build-mpich --suite unit &
    fi
    (
        $times_py run "$res/build-tests.time" -- scripts/build.sh build-nonuma build-asan build-fuzz >"$res/build-tests.log" 2>&1 || exit 1
        meson_section build-asan build-asan --suite unit --suite asan
        if [ -f build-fuzz/build.ninja ]; then
            meson_section build-fuzz build-fuzz --suite fuzz
        else
            echo "=== build-fuzz skipped (no clang with libFuzzer)" >"$res/build-fuzz.out"; echo "0 0 0" >"$res/build-fuzz.sum"
        fi
        meson_section build-nonuma build-nonuma --suite numa
    ) &
    mutant_section mutants build &
    wait
    if [ "$(cut -d' ' -f1 "$res/build-tests.time")" -ne 0 ]; then
        echo "scripts/build.sh build-nonuma build-asan build-fuzz failed:"; cat "$res/build-tests.log"; exit 1
    fi
    # shellcheck disable=SC2086
    meson_section build-mpich build-mpich $mpich_args --no-suite scale --no-suite plots --no-suite readme
    mutant_section mutants-mpich build-mpich
fi

passed=0; failed=0; skipped=0; failures=""
for s in $sections; do
    cat "$res/$s.out"
    read -r ok fl sk fs <"$res/$s.sum"
    passed=$((passed + ok)); failed=$((failed + fl)); skipped=$((skipped + sk)); failures="$failures${fs:+ $fs}"
done
if [ -n "$failures" ]; then
    # The error logs of the failed tests last, where a truncated CI log still shows them.
    for s in $sections; do
        [ -f "$res/$s.testlog" ] || continue
        /usr/bin/python3 -c 'import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
        out = (t.get("stdout") or "").splitlines()
        print("--- " + sys.argv[2] + ": " + t["name"] + " " + t["result"] + " (last lines of its output)")
        print("\n".join(out[-40:]))' "$(cat "$res/$s.testlog")" "$s" 2>/dev/null
    done
fi
$times_py report "$res" tests/time_budget.txt
[ -z "$failures" ] || echo "failed:$failures"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
