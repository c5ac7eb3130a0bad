#!/bin/sh
# valgrind_mpi.sh MPIRUN NP PROGRAM ARGS...: NP ranks under the launcher, every rank under valgrind
# memcheck (--error-exitcode=99, apart from the program's own statuses), for benchmarks that cannot
# run on one rank (`rmabench lock` needs a lock server and an agent). Passes when the run exits 0
# with "verification: PASS" and no "verification: FAIL", and each of the NP ranks' logs says 0
# errors. Two ranks under valgrind take ~13 s here (most of it MPI_Init);
# --track-origins would double that, so it is off (rerun by hand with it to locate a report).
# MPI's own reports go to valgrind-mpi.supp.
set -u
mpirun=$1; np=$2; shift 2
supp=$(dirname "$0")/valgrind-mpi.supp
d=$(mktemp -d /tmp/rmb-valgrind.XXXXXX); trap 'rm -rf "$d"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1
timeout -k 10 240 "$mpirun" -n "$np" valgrind --error-exitcode=99 --leak-check=no --suppressions="$supp" \
    --log-file="$d/rank.%p.log" "$@" >"$d/out" 2>&1
rc=$?
cat "$d/out"
fail=0
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; fail=1; }
grep -q '^verification: PASS' "$d/out" || { echo "FAIL: no 'verification: PASS'"; fail=1; }
grep -q '^verification: FAIL' "$d/out" && { echo "FAIL: a run failed verification"; fail=1; }
logs=$(ls "$d"/rank.*.log 2>/dev/null | wc -l)
[ "$logs" -eq "$np" ] || { echo "FAIL: $logs valgrind logs, expected $np"; fail=1; }
for f in "$d"/rank.*.log; do
    [ -f "$f" ] || continue
    grep -h 'ERROR SUMMARY' "$f"
    grep -q 'ERROR SUMMARY: 0 errors' "$f" || { sed -n '1,80p' "$f"; echo "FAIL: valgrind errors in $(basename "$f")"; fail=1; }
done
[ $fail -eq 0 ] && echo "valgrind: 0 errors on each of $np ranks"
exit $fail
