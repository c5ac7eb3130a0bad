#!/bin/sh
# Bad input must end with exit status 2 and exactly one "rmabench: --flag: reason" line.
#   bad_input.sh MPIRUN NP REGEX -- PROGRAM ARGS...   (REGEX: extended regex the line must match)
set -u
mpirun=$1; np=$2; re=$3; shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 HWLOC_HIDE_ERRORS=1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "+ $mpirun -n $np $*"
timeout -k 10 120 "$mpirun" -n "$np" "$@" >"$out" 2>&1
rc=$?
cat "$out"
fail=0
[ "$rc" -eq 2 ] || { echo "FAIL: exit status $rc, expected 2"; fail=1; }
n=$(grep -c '^rmabench: ' "$out")
[ "$n" -eq 1 ] || { echo "FAIL: $n 'rmabench:' lines, expected 1"; fail=1; }
grep '^rmabench: ' "$out" | grep -Eq -- "$re" || { echo "FAIL: the line does not match /$re/"; fail=1; }
if grep -q '^verification:' "$out"; then echo "FAIL: a join ran"; fail=1; fi
exit $fail
