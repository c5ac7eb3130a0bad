#!/bin/sh
# The mutation suite (tests/mutants/mutants.txt): for each deliberate fault, reconfigure a mutant
# build directory with -Dmutant=NAME, rebuild rmabench (only the files that include the previous
# and this mutant's bench/rmb_mutant_NAME.h recompile), and require that
#   1. the default invocation of the command it breaks reports it: `verification: FAIL` and exit 1,
#   2. every test listed for it fails,
# then print "mutants: N caught of N" and fail on any survivor.
#   run_mutants.sh BUILD_DIR [NAME...]     BUILD_DIR: configured with -Dmutant=... (scripts/build.sh)
set -u
cd "$(dirname "$0")/../.."
dir=$1; shift
only="$*"
[ -f "$dir/build.ninja" ] || { echo "run_mutants.sh: $dir is not a build directory"; exit 2; }
lib=$(sed -n 's/^#define RMB_MPI_CHOICE "\(.*\)"/\1/p' "$dir/bench/rmb_config.h")
case $lib in
mpich) mpirun=mpirun.mpich ;;
*) mpirun=mpirun.openmpi ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1
log=$(mktemp)
trap 'rm -f "$log"; meson configure "$dir" -Dmutant=none >/dev/null 2>&1' EXIT
total=0; caught=0; survivors=""
while IFS='|' read -r name libs ranks invocation tests; do
    name=$(echo "$name" | tr -d ' '); libs=$(echo "$libs" | tr -d ' '); ranks=$(echo "$ranks" | tr -d ' ')
    invocation=$(echo "$invocation" | sed 's/^ *//; s/ *$//')
    case $name in ''|\#*) continue ;; esac
    [ "$libs" = both ] || [ "$libs" = "$lib" ] || continue
    if [ -n "$only" ]; then case " $only " in *" $name "*) ;; *) continue ;; esac; fi
    total=$((total + 1))
    # (every command in the loop reads /dev/null: mpirun would eat the table from stdin)
    if ! meson configure "$dir" -Dmutant="$name" </dev/null >"$log" 2>&1 || ! ninja -C "$dir" rmabench </dev/null >>"$log" 2>&1; then
        echo "mutant $name: does not build"; cat "$log"; survivors="$survivors $name"; continue
    fi
    # an object that no dependency ties to the mutant's header would keep its old code (what a
    # header of the same text as another, under GCC's #pragma once, did)
    if ! ninja -C "$dir" -t deps </dev/null | grep -q "bench/rmb_mutant_$name\.h\$"; then
        echo "mutant $name: no object of $dir depends on bench/rmb_mutant_$name.h"; survivors="$survivors $name"; continue
    fi
    # 1. the default invocation
    # shellcheck disable=SC2086
    timeout -k 10 300 "$mpirun" -n "$ranks" "$dir/rmabench" $invocation </dev/null >"$log" 2>&1
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q '^verification: FAIL' "$log"; then
        why=$(grep -v 'warning' "$log" | grep -m1 -E 'rmabench: |invariants: BROKEN|^matches: ')
        [ ${#why} -le 120 ] || why="$(printf '%s' "$why" | cut -c1-117)..." # a cut line says it was cut
        default="reported (exit 1: $why)"; ok=1
    else
        default="NOT REPORTED (exit $rc, $(grep -c '^verification: PASS' "$log") PASS lines)"; ok=0
    fi
    # 2. the tests that cover it: build just the programs they run (meson's introspection names
    # them), not every test program of the directory
    # shellcheck disable=SC2086
    targets=$(meson introspect --tests "$dir" </dev/null | python3 -c '
import json, os, sys
d = os.path.realpath(sys.argv[1]); want = set(sys.argv[2:])
for t in json.load(sys.stdin):
    if t["name"] in want:
        for a in t["cmd"]:
            a = os.path.realpath(a)
            if a.startswith(d + os.sep) and not os.path.isdir(a): print(os.path.relpath(a, d))' "$dir" $tests | sort -u)
    # shellcheck disable=SC2086
    [ -z "$targets" ] || ninja -C "$dir" $targets </dev/null >>"$log" 2>&1
    # one meson run for all of them (its start-up costs a second); each test's result from its log
    nt=0; nfail=0; missed=""
    # shellcheck disable=SC2086
    meson test -C "$dir" --no-rebuild $tests </dev/null >/dev/null 2>&1
    for t in $tests; do
        nt=$((nt + 1))
        res=$(python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["name"].split(" / ")[-1] == sys.argv[2]: print(r["result"])' "$dir/meson-logs/testlog.json" "$t")
        case $res in
        OK | EXPECTEDFAIL | SKIP) missed="$missed $t($res)" ;;
        "") missed="$missed $t(not run)" ;;
        *) nfail=$((nfail + 1)) ;;
        esac
    done
    [ "$nfail" -eq "$nt" ] || ok=0
    echo "mutant $name ($lib, $ranks ranks, rmabench $invocation): default run $default; tests $nfail of $nt failed${missed:+ (passed:$missed)}"
    if [ "$ok" -eq 1 ]; then caught=$((caught + 1)); else survivors="$survivors $name"; fi
done < tests/mutants/mutants.txt
echo "mutants: $caught caught of $total ($lib)${survivors:+; survived:$survivors}"
[ "$total" -gt 0 ] && [ "$caught" -eq "$total" ]
