#!/bin/sh
# `rmabench lock --workload trace` end to end: replay a trace written by `rmabench lock-trace tpcc`
# at 3 ranks (1 server, 2 agents splitting the file) and check that every transaction of the file
# ran and, when none aborted, that exactly the file's lock requests were made; then a malformed
# trace (bad mode on line 10, a file ending inside a transaction) exits 2 with one line
# "rmabench: FILE:LINE: reason" before any transaction runs and writes no CSV row.
#   lock_trace_check.sh MPI_CHECK MPIRUN RMABENCH
set -u
mpi_check=$1; mpirun=$2; rmabench=$3
tmp=$(mktemp -d /tmp/rmb-lock-trace.XXXXXX); trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }
txns=240

timeout 60 "$rmabench" lock-trace tpcc --warehouses 4 --transactions $txns --home-warehouse -1 --isolation read-committed \
    --seed 11 --output "$tmp/t.trace" || { echo "FAIL: lock-trace"; exit 1; }
locks=$(grep -c '^L ' "$tmp/t.trace")
"$mpi_check" "$mpirun" 3 --pass 1 --timeout 90 --grep '^invariants: ok' \
    -- "$rmabench" lock --workload trace --trace "$tmp/t.trace" --duration 60s --wait-bound 60 \
    --lock-timeout 20ms --output "$tmp/t.csv" >"$tmp/out" 2>&1 || fail=1
cat "$tmp/out"
committed=$(sed -n 's/^committed: \([0-9]*\) .*/\1/p' "$tmp/out")
aborted=$(sed -n 's/^aborted: \([0-9]*\) .*/\1/p' "$tmp/out")
requests=$(sed -n 's/^lock requests: \([0-9]*\) .*/\1/p' "$tmp/out")
echo "trace: $txns transactions, $locks locks; replayed: $committed committed, $aborted aborted, $requests lock requests"
[ "$((committed + aborted))" -eq $txns ] || err "$committed + $aborted transactions replayed, the trace has $txns"
[ "$aborted" -ne 0 ] || [ "$requests" -eq "$locks" ] || err "$requests lock requests without aborts, the trace has $locks locks"
[ "$(grep -c ',trace,' "$tmp/t.csv")" -eq 1 ] || err "no CSV row of the trace workload"

# malformed traces: FILE:LINE, exit 2, nothing written
sed '10s/ [A-Z]*$/ ZZ/' "$tmp/t.trace" >"$tmp/mode.trace"
head -n 20 "$tmp/t.trace" | grep -v '^C' >"$tmp/open.trace"
for bad in "mode.trace:10: unknown lock mode 'ZZ'" "open.trace:[0-9]+: .*(end of file|inside a transaction|B inside)"; do
    f=${bad%%:*}
    "$mpi_check" "$mpirun" 3 --exit 2 --timeout 30 --grep "^rmabench: $tmp/$bad" \
        -- "$rmabench" lock --workload trace --trace "$tmp/$f" --output "$tmp/bad.csv" >"$tmp/out" 2>&1 ||
        { cat "$tmp/out"; fail=1; }
    n=$(grep '^rmabench: ' "$tmp/out" | grep -vc '^rmabench: warning: ')
    [ "$n" -eq 1 ] || { cat "$tmp/out"; err "$n 'rmabench:' lines for $f, expected 1"; }
    grep -q '^committed: ' "$tmp/out" && err "$f: transactions ran"
done
[ ! -e "$tmp/bad.csv" ] || err "a malformed trace left a CSV"
[ $fail -eq 0 ] && echo "lock_trace_check: all passed"
exit $fail
