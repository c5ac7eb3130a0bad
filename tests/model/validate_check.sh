#!/bin/bash
# model/validate.sh --quick on this build's MPI library: the mechanics of the cross-configuration
# validation on tiny sizes (accuracy is a benchmark, not a test): one calibration, a join
# configuration that is not the calibration's, a lock configuration; the table, the summary line,
# validate.csv with error = (predicted - measured) / measured, the figure, and in the joins' CSV
# the per-phase errors and the total compared like with like (window allocation on both sides); the
# calibration again after the matrix and the drift line computed from the two files.
#   validate_check.sh SOURCE_ROOT BUILD_DIR
set -u
root=$1 build=$(cd "$2" && pwd)
mpi=$(sed -n 's/^#define RMB_MPI_CHOICE "\(.*\)"/\1/p' "$build/bench/rmb_config.h")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
export "RMB_BUILD_$mpi=$build"
timeout 120 "$root/model/validate.sh" --quick --libs "$mpi" --out "$tmp/v" >"$tmp/out" 2>&1 ||
    { rc=$?; cat "$tmp/out"; echo "FAIL: validate.sh exited $rc"; exit 1; }
cat "$tmp/out"
grep -Eq '^configuration +phase +predicted +measured +error$' "$tmp/out" || { echo "FAIL: no table header"; fail=1; }
grep -Eq '^validate: 2 join configurations: totals within 15% in [0-2], phases within 20% in [0-2], both in [0-2] \([0-9]+%; target >= 90% of >= 24\); lock within 15% in [01] of 1; load .*: (MET|NOT MET)$' \
    "$tmp/out" || { echo "FAIL: no summary line"; fail=1; }
grep -Eq "^calibrated once per library \($mpi: 1 host\(s\), 2 ranks, sample 64K\)" "$tmp/out" || { echo "FAIL: calibration not named"; fail=1; }
grep -q "^the measurement against itself: one round per configuration, no rounds spread" "$tmp/out" ||
    { echo "FAIL: no line on the measurement against itself (--quick runs one round)"; fail=1; }
[ -s "$tmp/v/validate.png" ] || { echo "FAIL: no figure"; fail=1; }
grep -Eq "^drift $mpi: the calibration after the matrix differs from the one the predictions used by a median [0-9]+% \(max [0-9]+%\) over [0-9]+ measured parameters; [0-9]+ moved more than 15%" \
    "$tmp/out" || { echo "FAIL: no drift line"; fail=1; }
/usr/bin/python3 - "$tmp/v" "$mpi" <<'PY' || fail=1
import csv, os, sys
d, lib = sys.argv[1], sys.argv[2]
bad = []
rows = list(csv.DictReader(open(os.path.join(d, "validate.csv"), newline="")))
if not rows or list(rows[0]) != ["configuration", "phase", "predicted", "measured", "error", "rounds_spread"]:
    bad.append(f"validate.csv header {list(rows[0]) if rows else None}")
want = {("radix", p) for p in ("histogram", "network_partition", "local_partition", "build_probe", "total")} | \
       {("sortmerge", p) for p in ("partition", "sort", "merge", "match", "total")} | {("lock", "throughput")}
have = {(r["configuration"].split()[1], r["phase"]) for r in rows}
if want - have: bad.append(f"rows missing: {sorted(want - have)}")
for r in rows:
    if r["predicted"] and r["measured"] and float(r["measured"]) > 0:
        e = (float(r["predicted"]) - float(r["measured"])) / float(r["measured"])
        if abs(e - float(r["error"])) > 1e-3 * max(1, abs(e)): bad.append(f"{r}: error is not (pred - meas) / meas")
    if r["configuration"].startswith(f"{lib} radix") and " 1h x 2 0.1M 1:2" not in r["configuration"]:
        bad.append(f"unexpected configuration {r['configuration']}")
joins = list(csv.DictReader(open(os.path.join(d, lib, "joins.csv"), newline="")))
if sorted(r["algo"] for r in joins) != ["radix", "sortmerge"]: bad.append(f"join rows {[r['algo'] for r in joins]}")
for r in joins:
    if r["verification"] != "PASS": bad.append(f"{r['algo']}: verification {r['verification']}")
    t, m = float(r["t_total_max"]), float(r["model_total_with_alloc"])  # like with like
    if abs(float(r["model_err_total"]) - (m - t) / t) > 1e-3: bad.append(f"{r['algo']}: model_err_total not of the totals with alloc")
    t0 = t - float(r["t_window_alloc_avg"])
    if abs(float(r["model_err_total_without_alloc"]) - (float(r["model_total"]) - t0) / t0) > 1e-3:
        bad.append(f"{r['algo']}: model_err_total_without_alloc not of the totals without alloc")
    for p in ("window_alloc", "sort") if r["algo"] == "sortmerge" else ("window_alloc", "network_partition"):
        if r[f"model_err_{p}"] == "": bad.append(f"{r['algo']}: no model_err_{p}")
# the drift line: every parameter with a spread in both calibrations, the median of |end / start - 1|
def measured(f):
    return {l.split("=")[0].strip(): float(l.split("=")[1].split()[0]) for l in open(os.path.join(d, lib, f))
            if "=" in l and not l.startswith("#") and " spread " in l.split("=", 1)[1]}
a, b = measured("params.txt"), measured("params-end.txt")
ch = sorted(abs(b[k] / a[k] - 1) for k in a.keys() & b.keys() if a[k] > 0 and b[k] > 0)
line = next((l for l in open(os.path.join(d, "..", "out")) if l.startswith(f"drift {lib}:")), "")
if not ch or f"median {ch[len(ch) // 2]:.0%} (max {ch[-1]:.0%}) over {len(ch)} measured" not in line:
    bad.append(f"drift line {line.strip()!r} is not of params.txt and params-end.txt ({len(ch)} parameters)")
lock = list(csv.DictReader(open(os.path.join(d, lib, "lock.csv"), newline="")))
if len(lock) != 1 or lock[0]["model_err_throughput"] == "": bad.append("lock row without model_err_throughput")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $fail = 0 ] && echo "validate_check: all passed"
exit $fail
