#!/bin/sh
# --algo both runs each algorithm whose plan accepts the run and refuses only the other: one line
# "rmabench: --algo: NAME refused: --flag: reason", a CSV row refused/2/NONE for it beside the
# verified row of the one that ran, exit status 4; both refused: exit 2, no join. `rmabench record`
# holds refused rows to the same agreement (exit_code 2, verification NONE).
#   algo_both.sh MPIRUN RMABENCH
set -u
mpirun=$1; bin=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# CASE EXPECTED_EXIT ARGS...: run 2 ranks, stdout in $work/CASE.out and stderr (the refusal lines) in
# $work/CASE.err, kept apart: the launcher forwards the two streams separately, and merged into one
# file a refusal line once landed inside a header line (MPICH's hydra); rows in $work/CASE.csv
run() {
    name=$1; want=$2; shift 2
    echo "+ $mpirun -n 2 $bin join --algo both $*"
    timeout -k 10 120 "$mpirun" -n 2 "$bin" join --algo both --output "$work/$name.csv" "$@" >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    cat "$work/$name.out" "$work/$name.err"
    [ "$rc" -eq "$want" ] || bad "$name: exit status $rc, expected $want"
}
# FILE ALGO STATUS EXIT VERIFICATION: the row of ALGO says so
row() {
    /usr/bin/python3 - "$@" <<'PY' || fail=1
import csv, sys
path, algo, status, code, verification = sys.argv[1:6]
rows = [r for r in csv.DictReader(open(path, newline="")) if r["algo"] == algo]
got = [(r["status"], r["exit_code"], r["verification"]) for r in rows]
if got != [(status, code, verification)]:
    sys.exit(f"FAIL: {path}: {algo} rows {got}, expected one {(status, code, verification)}")
PY
}

# radix refused: an explicit --compress that a 16-bit word cannot hold; sortmerge falls back to 16 B
run radix_refused 4 --tuples-per-rank 10K --pack-bits 16 --compress
[ "$(grep -c '^rmabench: --algo: ' "$work/radix_refused.err")" -eq 1 ] || bad "radix_refused: not one refusal line"
grep -Eq '^rmabench: --algo: radix refused: --compress: .*; running sortmerge$' "$work/radix_refused.err" ||
    bad "radix_refused: the line does not name radix, --compress and what runs"
grep -q '^# sortmerge tuples: 16 B' "$work/radix_refused.out" || bad "radix_refused: sortmerge not in 16 B"
[ "$(grep -c '^verification: PASS' "$work/radix_refused.out")" -eq 1 ] || bad "radix_refused: not one PASS"
grep -q '^radix run' "$work/radix_refused.out" && bad "radix_refused: radix ran"
row "$work/radix_refused.csv" radix refused 2 NONE
row "$work/radix_refused.csv" sortmerge ok 0 PASS

# sortmerge refused: --run-size below 64
run sortmerge_refused 4 --tuples-per-rank 10K --run-size 10
grep -Eq '^rmabench: --algo: sortmerge refused: --run-size: .*; running radix$' "$work/sortmerge_refused.err" ||
    bad "sortmerge_refused: no refusal line naming sortmerge and --run-size"
[ "$(grep -c '^verification: PASS' "$work/sortmerge_refused.out")" -eq 1 ] || bad "sortmerge_refused: not one PASS"
row "$work/sortmerge_refused.csv" sortmerge refused 2 NONE
row "$work/sortmerge_refused.csv" radix ok 0 PASS

# both refused: nothing runs, exit 2, one line each
run both_refused 2 --tuples-per-rank 10K --pack-bits 16 --compress --run-size 10
[ "$(grep -c '^rmabench: --algo: .* refused: ' "$work/both_refused.err")" -eq 2 ] || bad "both_refused: not two refusal lines"
grep -q '^verification:' "$work/both_refused.out" && bad "both_refused: a join ran"

# rmabench record: refused rows agree like the others
"$bin" record --output "$work/record.csv" --set bench=join --set status=refused --set exit_code=2 --set algo=radix ||
    bad "record refused/2 was not accepted"
row "$work/record.csv" radix refused 2 NONE
"$bin" record --output "$work/record.csv" --set bench=join --set status=refused --set exit_code=1 2>"$work/record.err" &&
    bad "record accepted refused with exit_code 1"
grep -q '^rmabench: --set: status refused needs exit_code 2' "$work/record.err" || bad "record: no reason for refused/1"
[ $fail -eq 0 ] && echo "algo both: refusals recorded and exit statuses as documented"
exit $fail
