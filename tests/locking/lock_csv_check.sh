#!/bin/sh
# The CSV row of `rmabench lock` (cmd/lock/lock_record.c): two runs into one file, the first with
# the per-grant check (checked=yes), the second with --no-check (checked=no); on both rows status,
# exit_code and verification agree with the run's exit status and its printed verdict.
#   lock_csv_check.sh MPI_CHECK MPIRUN RMABENCH
set -u
mpi_check=$1; mpirun=$2; rmabench=$3
tmp=$(mktemp -d /tmp/rmb-lock-csv.XXXXXX); trap 'rm -rf "$tmp"' EXIT
"$mpi_check" "$mpirun" 2 --pass 1 --timeout 60 -- "$rmabench" lock --transactions-per-agent 50 \
    --output "$tmp/lock.csv" || exit 1
"$mpi_check" "$mpirun" 2 --pass 1 --timeout 60 -- "$rmabench" lock --transactions-per-agent 50 --no-check \
    --output "$tmp/lock.csv" || exit 1
/usr/bin/python3 - "$tmp/lock.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = []
if [r["checked"] for r in rows] != ["yes", "no"]: bad.append(f"checked = {[r['checked'] for r in rows]}, expected yes, no")
for i, r in enumerate(rows):
    got = (r["bench"], r["status"], r["exit_code"], r["verification"])
    if got != ("lock", "ok", "0", "PASS"): bad.append(f"row {i + 1}: bench, status, exit_code, verification = {got}")
if bad: sys.exit("FAIL: " + "; ".join(bad))
print("lock_csv_check: all passed")
PY
