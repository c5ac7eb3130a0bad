#!/bin/sh
# The CSV row of `rmabench lock` (cmd/lock/lock_record.c): two runs into one file, the first with
# the per-grant check (checked=yes), the second with --no-check (checked=no); on both rows status,
# exit_code and verification agree with the run's exit status and its printed verdict. The first
# runs with --notify-shm auto: notify_shm_choice says how it chose ("auto: measured between ranks 0
# and 1: rma X us, shm Y us", the mailbox the rule of rma/notify_pick.h takes on those figures, or
# "auto: library default (not measured: ...)"); the second with --notify-shm off: "given", off.
#   lock_csv_check.sh MPI_CHECK MPIRUN RMABENCH
set -u
mpi_check=$1; mpirun=$2; rmabench=$3
tmp=$(mktemp -d /tmp/rmb-lock-csv.XXXXXX); trap 'rm -rf "$tmp"' EXIT
"$mpi_check" "$mpirun" 2 --pass 1 --timeout 60 -- "$rmabench" lock --transactions-per-agent 50 \
    --output "$tmp/lock.csv" || exit 1
"$mpi_check" "$mpirun" 2 --pass 1 --timeout 60 -- "$rmabench" lock --transactions-per-agent 50 --no-check \
    --notify-shm off --output "$tmp/lock.csv" || exit 1
/usr/bin/python3 - "$tmp/lock.csv" <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = []
MARGIN = 0.10  # rma/notify_pick.h NOTIFY_PICK_MARGIN
if len(rows) == 2:
    r = rows[0]
    default = "off" if "Open MPI" in r["mpi_library"] else "on"  # rma/notify.c notify_shm_resolve
    m = re.fullmatch(r"auto: measured between ranks 0 and 1: rma ([0-9.]+) us, shm ([0-9.]+) us", r["notify_shm_choice"])
    if m:
        rma, shm = float(m.group(1)), float(m.group(2))
        if default == "off": want = "on" if shm < (1 - MARGIN) * rma else "off"
        else: want = "off" if rma < (1 - MARGIN) * shm else "on"
        if r["notify_shm"] != want: bad.append(f"auto measured rma {rma}, shm {shm} us, default {default}: ran {r['notify_shm']}, the rule says {want}")
    elif not (r["notify_shm_choice"].startswith("auto: library default (not measured: ") and r["notify_shm"] == default):
        bad.append(f"auto: notify_shm {r['notify_shm']!r}, notify_shm_choice {r['notify_shm_choice']!r}")
    if (rows[1]["notify_shm"], rows[1]["notify_shm_choice"]) != ("off", "given"):
        bad.append(f"--notify-shm off: notify_shm {rows[1]['notify_shm']!r}, notify_shm_choice {rows[1]['notify_shm_choice']!r}")
if [r["checked"] for r in rows] != ["yes", "no"]: bad.append(f"checked = {[r['checked'] for r in rows]}, expected yes, no")
for i, r in enumerate(rows):
    got = (r["bench"], r["status"], r["exit_code"], r["verification"])
    if got != ("lock", "ok", "0", "PASS"): bad.append(f"row {i + 1}: bench, status, exit_code, verification = {got}")
if bad: sys.exit("FAIL: " + "; ".join(bad))
print("lock_csv_check: all passed")
PY
