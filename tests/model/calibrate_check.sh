#!/bin/sh
# `rmabench calibrate` at 2 ranks writes a parameter file that rmamodel reads back.
#   calibrate_check.sh MPI_CHECK MPIRUN RMABENCH RMAMODEL
set -u
mpi_check=$1; mpirun=$2; rmabench=$3; rmamodel=$4
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
"$mpi_check" "$mpirun" 2 --timeout 150 --grep '^wrote ' -- "$rmabench" calibrate --output "$tmp/params.txt" || exit 1
cat "$tmp/params.txt"
for key in mpi_library hosts ranks_per_host P_scan P_partition P_build P_probe P_sort_run P_merge P_match bw_put_intra \
           t_win_alloc_per_byte t_local_comm t_vote t_clean_up; do
    grep -Eq "^$key = " "$tmp/params.txt" || { echo "FAIL: $key missing"; fail=1; }
done
grep -q '^ranks = 2$' "$tmp/params.txt" || { echo "FAIL: ranks = 2 missing"; fail=1; }
# every rate positive
awk -F'[=#]' '/^P_/ { if ($2 + 0 <= 0) { print "FAIL: " $0; bad = 1 } } END { exit bad }' "$tmp/params.txt" || fail=1
for algo in radix sortmerge; do
    "$rmamodel" join --algo $algo --params "$tmp/params.txt" --ranks 2 --ranks-per-host 2 --tuples-per-rank 1M >"$tmp/out" 2>&1 ||
        { echo "FAIL: rmamodel join --algo $algo"; fail=1; }
    cat "$tmp/out"
    grep -Eq '^total_with_alloc +[0-9]' "$tmp/out" || { echo "FAIL: no total_with_alloc ($algo)"; fail=1; }
done
"$rmamodel" lock --params "$tmp/params.txt" --agents 2 --locks-per-txn 4 --remote-prob 0 | tee "$tmp/out" | grep -q '^t_tx: ' ||
    { echo "FAIL: rmamodel lock"; fail=1; }
[ $fail -eq 0 ] && echo "calibrate_check: all passed"
exit $fail
