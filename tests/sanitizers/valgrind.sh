#!/bin/sh
# valgrind.sh PROGRAM ARGS...: one rank (singleton, no launcher) under valgrind memcheck with
# --error-exitcode=1. Passes when valgrind reports 0 errors and the program was not killed.
# Leaks are LeakSanitizer's job (build-asan); valgrind looks for invalid reads/writes and
# uninitialised values, which ASan does not. MPI's own reports go to valgrind-mpi.supp.
set -u
supp=$(dirname "$0")/valgrind-mpi.supp
log=$(mktemp); trap 'rm -f "$log"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_HIDE_ERRORS=1
timeout -k 10 240 valgrind --error-exitcode=1 --leak-check=no --track-origins=yes --suppressions="$supp" \
    --log-file="$log" "$@"
rc=$?
grep -E 'ERROR SUMMARY|Invalid|uninitialised|Syscall param' "$log" | head -20
if grep -q 'ERROR SUMMARY: 0 errors' "$log" && [ $rc -lt 124 ]; then
    echo "valgrind: 0 errors (program exit status $rc)"; exit 0
fi
sed -n '1,80p' "$log"; echo "FAIL: valgrind found errors or the run did not finish (exit status $rc)"; exit 1
