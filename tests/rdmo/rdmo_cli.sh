#!/bin/sh
# `rmabench rdmo`: bad input gets one line naming the flag and exit 2, before MPI where the flags
# alone decide it, after MPI_Init but before any window where the rank count does; --plan prints
# O(ranks) slots at the target and a constant at an origin; a --sweep run prints one step and one
# verification line per origin count and appends one CSV row each with the counted figures.
#   rdmo_cli.sh MPI_CHECK MPIRUN RMABENCH
set -u
check=$1 mpirun=$2 rmabench=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 HWLOC_HIDE_ERRORS=1
tmp=$(mktemp -d /tmp/rmb-rdmo-cli.XXXXXX); trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # WANT_LINE ARGS...
    want=$1; shift
    out=$("$rmabench" rdmo "$@" 2>&1); rc=$?
    if [ "$rc" -ne 2 ] || [ "$out" != "$want" ]; then echo "FAIL: rdmo $*: exit $rc, '$out', expected 2, '$want'"; fail=1;
    else echo "ok: rdmo $*: $out"; fi
}
expect "rmabench: --op: 'nosuch' is not one of: slotted-append, conditional-gather, signaled-read, write-and-seal, scatter-accumulate" --op nosuch
expect "rmabench: --design: 'x' is not one of: verbs, rdmo, rpc" --design x
expect "rmabench: --payload-bytes: 2000 needs 2000 bytes of payload, more than a slot of --slot-bytes 1024 holds (888)" --payload-bytes 2000
expect "rmabench: --matches: 50 needs 1000 bytes of payload, more than a slot of --slot-bytes 1024 holds (888)" --op conditional-gather --matches 50
expect "rmabench: --batch: 30 needs 360 bytes of payload, more than a slot of --slot-bytes 256 holds (216)" --op scatter-accumulate --slot-bytes 256
expect "rmabench: --handler: --design verbs has no handler (the target only drives MPI's progress)" --design verbs --handler thread
expect "rmabench: --slot-bytes: 1000 is not a multiple of 64" --slot-bytes 1000
expect "rmabench: --matches: --op slotted-append ignores it (conditional-gather only)" --matches 4
expect "rmabench: --ranks: required with --plan" --plan
out=$("$rmabench" aggregate --batch 100 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "rmabench: --batch: 100 pairs need 1200 bytes of payload, more than a slot of --slot-bytes 1024 holds (888)" ] ||
    { echo "FAIL: aggregate --batch 100: exit $rc, $out"; fail=1; }
out=$("$rmabench" aggregate --plan --ranks 4 --group-size 1000000 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "rmabench: --group-size: 1000000 tuples per group is more than the 400000 tuples of the run" ] ||
    { echo "FAIL: aggregate --group-size: exit $rc, $out"; fail=1; }
# the rank count: after MPI_Init, before the endpoint
out=$("$mpirun" -n 1 "$rmabench" rdmo 2>&1); rc=$?
echo "$out" | grep -q '^rmabench: rdmo: needs 2 ranks or more' && [ "$rc" -ne 0 ] || { echo "FAIL: one rank: exit $rc, $out"; fail=1; }
# --plan: the target's request slots grow with the ranks, an origin's window does not
for n in 1024 4096; do
    "$rmabench" rdmo --plan --ranks $n --ranks-per-host 32 --iterations 100 >"$tmp/plan$n" 2>&1 || { echo "FAIL: --plan --ranks $n"; cat "$tmp/plan$n"; fail=1; }
done
/usr/bin/python3 - "$tmp" <<'PY' || fail=1
import re, sys
d = sys.argv[1]
def val(n, name, who):
    m = re.search(rf"^{name}: .*?{who} (\d+) B", open(f"{d}/plan{n}").read(), re.M)
    return int(m.group(1))
a, b = val(1024, "window per rank", "origin"), val(4096, "window per rank", "origin")
ta, tb = val(1024, "window per rank", "target"), val(4096, "window per rank", "target")
slots = re.search(r"^request queue: (\d+) slots of (\d+) B", open(f"{d}/plan4096").read(), re.M)
ok = a == b and slots and int(slots.group(1)) == 4096
print(f"{'ok' if ok else 'FAIL'}: --plan: origin window {a} and {b} B at 1024 and 4096 ranks; target {ta} and {tb} B; request slots {slots.groups() if slots else None}")
sys.exit(0 if ok else 1)
PY
# a sweep: one step, verification and CSV row per origin count, the counts as the design says
sh "$check" "$mpirun" 3 --pass 2 --timeout 60 --grep '^verification: PASS \(slotted-append, 2 origin' -- \
    "$rmabench" rdmo --sweep --iterations 100 --warmup 10 --output "$tmp/r.csv" >"$tmp/run" 2>&1 || { cat "$tmp/run"; fail=1; }
/usr/bin/python3 - "$tmp/r.csv" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = [r["origins"] for r in rows] == ["1", "2"] and all(
    r["bench"] == "rdmo" and r["rdmo_op"] == "slotted-append" and r["rdmo_design"] == "rdmo" and r["verification"] == "PASS"
    and float(r["msgs_per_op"]) == 1 and float(r["rts_per_op"]) == 1 and float(r["lat_op_median_us"]) > 0 for r in rows)
print(f"{'ok' if ok else 'FAIL'}: CSV rows {[(r['origins'], r['msgs_per_op'], r['rts_per_op'], r['verification']) for r in rows]}")
sys.exit(0 if ok else 1)
PY
[ "$fail" -eq 0 ] && echo "rdmo cli: ok"
exit $fail
