#!/bin/sh
# Run an MPI program under the build's launcher and assert on its output.
#   mpi_check.sh MPIRUN NP [--exit N] [--pass N] [--matches N] [--grep RE] [--timeout S] -- PROGRAM ARGS...
#   --exit N     expected exit status (default 0)
#   --pass N     at least N lines "verification: PASS" and none "verification: FAIL"
#   --matches N  every "matches: X (expected Y)" line has X = Y = N
#   --grep RE    output (stdout+stderr) must match the extended regex RE (repeatable)
# Open MPI as root, oversubscription and polling yield are handled here, the way a user's runner would.
set -u
mpirun=$1; np=$2; shift 2
want_exit=0; want_pass=0; want_matches=""; greps=""; timeout_s=300
while [ $# -gt 0 ]; do
    case $1 in
    --exit) want_exit=$2; shift 2 ;;
    --pass) want_pass=$2; shift 2 ;;
    --matches) want_matches=$2; shift 2 ;;
    --grep) greps="$greps
$2"; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "mpi_check.sh: unknown option $1" >&2; exit 99 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1
out=$(mktemp)
trap 'rm -f "$out" "$out.err"' EXIT
echo "+ $mpirun -n $np $*"
# stdout and stderr apart, then stderr after stdout: the launcher forwards the ranks' two streams
# in chunks that need not end at a line, so one file for both can cut a line of one with the other
timeout -k 10 "$timeout_s" "$mpirun" -n "$np" "$@" >"$out" 2>"$out.err"
rc=$?
cat "$out.err" >>"$out"
cat "$out"
fail=0
# Open MPI 4.0/4.1's launcher can see a rank's output end before its exit and then reports it as
# "exited due to process rank N with PID 0 ... exiting improperly", exit 1, after the program did
# everything (a race in ORTE, open-mpi/ompi#7833; not fixed in 4.x). PID 0 is that race's mark: a
# rank that really died is named with its PID. The checks below still judge the output.
if [ "$rc" -eq 1 ] && [ "$want_exit" -eq 0 ] && grep -Eq 'has exited due to process rank [0-9]+ with PID 0 on' "$out" &&
   ! grep -q 'returned a non-zero exit code' "$out"; then
    echo "note: exit 1 from Open MPI's exit race (PID 0, open-mpi/ompi#7833), not from the program: counted as 0"
    rc=0
fi
# A rank that ends the run on purpose (_exit: a wait bound's exit 3) makes MPICH's launcher stop the
# others with a signal, and it reports whichever end it saw first: a peer's signal number (9, 1, 15)
# with its "EXIT STRING: ... (signal N)" is that race's mark. The --grep lines still have to show why
# the run ended.
if [ "$rc" -ne 0 ] && [ "$rc" -ne "$want_exit" ] && [ "$want_exit" -ne 0 ] &&
   case $mpirun in *mpich*) true ;; *) false ;; esac && grep -q "EXIT STRING: .*(signal $rc)" "$out"; then
    echo "note: exit $rc from MPICH's launcher (a peer stopped by signal $rc after a rank exited), not from the program: counted as $want_exit"
    rc=$want_exit
fi
if [ "$rc" -ne "$want_exit" ]; then echo "FAIL: exit status $rc, expected $want_exit"; fail=1; fi
if [ "$want_pass" -gt 0 ]; then
    npass=$(grep -c '^verification: PASS' "$out")
    if [ "$npass" -lt "$want_pass" ]; then echo "FAIL: $npass 'verification: PASS' lines, expected $want_pass"; fail=1; fi
    if grep -q '^verification: FAIL' "$out"; then echo "FAIL: a run failed verification"; fail=1; fi
fi
if [ -n "$want_matches" ]; then
    bad=$(grep '^matches: ' "$out" | awk -v n="$want_matches" '{ g=$2; e=$4; sub(/\)?,$/, "", e); if (g != n || e != n) print }')
    if [ -n "$bad" ] || ! grep -q '^matches: ' "$out"; then echo "FAIL: match count is not $want_matches: $bad"; fail=1; fi
fi
echo "$greps" | while IFS= read -r re; do
    [ -z "$re" ] && continue
    grep -Eq -- "$re" "$out" || { echo "FAIL: output does not match /$re/"; echo x >"$out.fail"; }
done
if [ -e "$out.fail" ]; then rm -f "$out.fail"; fail=1; fi
exit $fail
