#!/bin/sh
# valgrind.sh [--pass] PROGRAM ARGS...: one rank (singleton, no launcher) under valgrind memcheck.
# Passes when valgrind reports 0 errors AND the program itself exited 0; with --pass, its output
# must also say "verification: PASS" and never "verification: FAIL" (a wrong join that valgrind
# finds clean must still fail here). valgrind's own error status is 99, apart from the program's.
# Leaks are LeakSanitizer's job (build-asan); valgrind looks for invalid reads/writes and
# uninitialised values, which ASan does not. MPI's own reports go to valgrind-mpi.supp.
set -u
want_pass=0
[ "${1:-}" = --pass ] && { want_pass=1; shift; }
supp=$(dirname "$0")/valgrind-mpi.supp
d=$(mktemp -d /tmp/rmb-valgrind.XXXXXX); trap 'rm -rf "$d"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_HIDE_ERRORS=1
timeout -k 10 240 valgrind --error-exitcode=99 --leak-check=no --track-origins=yes --suppressions="$supp" \
    --log-file="$d/valgrind.log" "$@" >"$d/out" 2>&1
rc=$?
cat "$d/out"
grep -E 'ERROR SUMMARY|Invalid|uninitialised|Syscall param' "$d/valgrind.log" | head -20
fail=0
grep -q 'ERROR SUMMARY: 0 errors' "$d/valgrind.log" || { sed -n '1,80p' "$d/valgrind.log"; echo "FAIL: valgrind found errors"; fail=1; }
case $rc in
0) ;;
99) ;; # valgrind's errors, reported above
124|137) echo "FAIL: the run did not finish (exit status $rc)"; fail=1 ;;
*) echo "FAIL: the program exited $rc"; fail=1 ;;
esac
if [ $want_pass -eq 1 ]; then
    grep -q '^verification: PASS' "$d/out" || { echo "FAIL: no 'verification: PASS'"; fail=1; }
    grep -q '^verification: FAIL' "$d/out" && { echo "FAIL: a run failed verification"; fail=1; }
fi
[ $fail -eq 0 ] && echo "valgrind: 0 errors, program exit status 0$([ $want_pass -eq 1 ] && echo ', verification PASS')"
exit $fail
