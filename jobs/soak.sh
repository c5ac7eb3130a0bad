#!/bin/bash
# Soak: long runs that a campaign's batch jobs depend on surviving (a benchmark, not a test).
#   jobs/soak.sh [--minutes M] [--repeats N] [--tuples T] [--ranks P] [--lock-ranks Q] [--build DIR]
# 1. the joins (--algo both) repeated N times (default 50) in one launch (--repeats 0: skipped);
# 2. the lock benchmark with a hot set of contended locks for M minutes (default 10) at Q ranks
#    (default 4: 2 servers, 2 agents): bank transfers on 16 accounts, half of them remote (2PC),
#    5% no votes, 10 ms lock timeout, every grant checked (by the lock oracle, always on), balances
#    checked at the end. RMB_SOAK_LOCK_ARGS replaces that workload.
# Prints verification results, aborts and timeouts, and each rank's resident memory (VmRSS)
# sampled at the start and at the end of every phase: growth means a leak.
# Exit status: 0 when both phases ended well, 1 when either failed, 2 for bad input.
set -u
minutes=10 repeats=50 tuples=200K ranks=2 lock_ranks=4 root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
source "$root/jobs/lib.sh"
RMB_PROG=soak.sh
while [[ $# -gt 0 ]]; do
    case $1 in
    --minutes|--repeats|--tuples|--ranks|--lock-ranks|--build) rmb_need "$1" $# "${2-}" ;;&
    --minutes) minutes=$2; shift ;; --repeats) repeats=$2; shift ;; --tuples) tuples=$2; shift ;;
    --ranks) ranks=$2; shift ;; --lock-ranks) lock_ranks=$2; shift ;; --build) build=$2; shift ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) rmb_die "$1: unknown flag" ;;
    esac
    shift
done
rmb_check_int --minutes "$minutes" 1 10000
rmb_check_int --repeats "$repeats" 0 1000
rmb_check_count --tuples "$tuples"
rmb_check_int --ranks "$ranks" 1 4096
rmb_check_int --lock-ranks "$lock_ranks" 2 4096
[[ -x $build/rmabench ]] || rmb_die "--build: $build/rmabench is not built"
failed=0
bin=$build/rmabench
mpirun=mpirun.openmpi
grep -q 'RMB_MPI_CHOICE "mpich"' "$build/bench/rmb_config.h" 2>/dev/null && mpirun=mpirun.mpich
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 HWLOC_HIDE_ERRORS=1
work=$(mktemp -d /tmp/rmb-soak.XXXXXX)
trap 'rm -rf "$work"' EXIT

rss_of() { # MARK: "rank:VmRSS kB" of the rank processes whose command line holds MARK
    local p out=""
    for p in $(pgrep -f -- "$1"); do
        [[ $(readlink "/proc/$p/exe" 2>/dev/null) == */rmabench ]] || continue
        local r; r=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^\(OMPI_COMM_WORLD_RANK\|PMI_RANK\)=//p' | head -1)
        out+="$r:$(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null) "
    done
    echo "$out" | tr ' ' '\n' | sort -n | tr '\n' ' '
}

# watch MARK's ranks while the launcher PID runs: RSS at the first sample and at the last one
watch_rss() { # PID MARK
    local first="" last="" cur
    while kill -0 "$1" 2>/dev/null; do
        cur=$(rss_of "$2")
        if [[ -n ${cur// /} ]]; then [[ -z $first ]] && first=$cur; last=$cur; fi
        sleep 0.5
    done
    echo "resident memory (rank:kB) at start: $first"
    echo "resident memory (rank:kB) at end:   $last"
}

if [[ $repeats -gt 0 ]]; then
echo "== joins: --algo both --repeat $repeats --tuples-per-rank $tuples at $ranks ranks ($mpirun)"
t0=$SECONDS
mark="--seed 8100001"
"$mpirun" -n "$ranks" "$bin" join --algo both --repeat "$repeats" --tuples-per-rank "$tuples" $mark \
    --output "$work/join.csv" >"$work/join.out" 2>&1 &
pid=$!
watch_rss "$pid" "$mark"
wait "$pid"; rc=$?
((rc == 0)) || failed=$((failed + 1))
echo "exit status $rc after $((SECONDS - t0)) s; verification PASS: $(grep -c '^verification: PASS' "$work/join.out"), FAIL: $(grep -c '^verification: FAIL' "$work/join.out"); CSV rows: $(($(wc -l <"$work/join.csv") - 1))"
grep '^summary' "$work/join.out"
fi

if "$bin" lock --help 2>&1 | grep -q 'not built yet'; then
    echo "== lock: skipped (rmabench lock is not built in $build)"
else
    lock_args=${RMB_SOAK_LOCK_ARGS:---workload bank --accounts 16 --remote-prob 0.5 --vote-no-prob 0.05 --lock-timeout 10ms}
    echo "== lock: hot set of contended locks for $minutes min at $lock_ranks ranks: $lock_args"
    mark="--seed 8100002"
    t0=$SECONDS
    # shellcheck disable=SC2086
    timeout -k 10 $((minutes * 60 + 120)) "$mpirun" -n "$lock_ranks" "$bin" lock --duration "${minutes}m" $mark \
        --wait-bound 60 --output "$work/lock.csv" $lock_args >"$work/lock.out" 2>&1 &
    pid=$!
    watch_rss "$pid" "$mark"
    wait "$pid"; rc=$?
    ((rc == 0)) || failed=$((failed + 1))
    echo "exit status $rc after $((SECONDS - t0)) s; CSV rows: $(($(wc -l <"$work/lock.csv" 2>/dev/null || echo 1) - 1))"
    grep -E '^(committed|aborted|lock requests|servers|invariants|bank|verification):|^rmabench: ' "$work/lock.out" | head -20
fi
echo "soak: $failed phase(s) failed"
((failed == 0))
