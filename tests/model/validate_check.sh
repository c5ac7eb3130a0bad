#!/bin/bash
# model/validate.sh --quick on this build's MPI library: the mechanics of the cross-configuration
# validation on tiny sizes (accuracy is a benchmark, not a test): a calibration, a join configuration
# that is not the calibration's and a lock configuration, run in two rounds (each wants four clean
# runs and gets two an invocation: both rounds run both), the calibration measured again after each
# round and pooled (rmamodel pool), every row with its run delay, model inputs (model_shape: rmamodel
# --shape gives the row's own prediction from the file it used), floor and allocation state; the
# table, the verdict of each configuration, the summary, validate.csv, verdicts.csv, the figure and
# the drift line computed from the first and the last calibration.
#   validate_check.sh SOURCE_ROOT BUILD_DIR
set -u
root=$1 build=$(cd "$2" && pwd)
mpi=$(sed -n 's/^#define RMB_MPI_CHOICE "\(.*\)"/\1/p' "$build/bench/rmb_config.h")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
export "RMB_BUILD_$mpi=$build"
timeout 140 "$root/model/validate.sh" --quick --libs "$mpi" --out "$tmp/v" >"$tmp/out" 2>&1 ||
    { rc=$?; cat "$tmp/out"; echo "FAIL: validate.sh exited $rc"; exit 1; }
cat "$tmp/out"
grep -Eq '^configuration +phase +predicted +measured +error +split$' "$tmp/out" || { echo "FAIL: no table header"; fail=1; }
[ "$(grep -c '^   round [12]: [0-9] configuration(s) need runs$' "$tmp/out")" = 2 ] || { echo "FAIL: not two rounds"; fail=1; }
[ "$(grep -Ec '^  -> (not judged: (every run disturbed|the measurement does not repeat)|total (within|outside), phases (within|outside)|within|outside) \([0-9]+ clean of [0-9]+ runs' "$tmp/out")" = 3 ] ||
    { echo "FAIL: not one verdict line per configuration (radix, sort-merge, lock)"; fail=1; }
grep -Eq '^validate: 3 configurations, [0-3] judged \([0-9]+%\); load .*: (MET|NOT MET)$' "$tmp/out" || { echo "FAIL: no summary line"; fail=1; }
grep -Eq '^[0-9]+ runs repeated \(disturbed: [0-9]+ by steal > 5%, [0-9]+ by run delay > 10%' "$tmp/out" || { echo "FAIL: no count of the runs repeated"; fail=1; }
grep -Eq '^   pooled 3 calibrations' "$tmp/out" || { echo "FAIL: the three calibrations not pooled"; fail=1; }
grep -Eq "^calibrations $mpi: 3 pooled, run delay [0-9]+% to [0-9]+%, steal up to [0-9]+%" "$tmp/out" ||
    { echo "FAIL: no line on the calibrations' interference"; fail=1; }
[ -s "$tmp/v/validate.png" ] || { echo "FAIL: no figure"; fail=1; }
grep -Eq "^drift $mpi: the last of 3 calibrations differs from the first by a median [0-9]+% \(max [0-9]+%\) over [0-9]+ measured parameters" \
    "$tmp/out" || { echo "FAIL: no drift line"; fail=1; }
/usr/bin/python3 - "$tmp/v" "$mpi" "$build/rmamodel" <<'PY' || fail=1
import csv, os, subprocess, sys
d, lib, rmamodel = sys.argv[1:4]
bad = []
rows = list(csv.DictReader(open(os.path.join(d, "validate.csv"), newline="")))
if not rows or list(rows[0])[:6] != ["configuration", "phase", "predicted", "measured", "error", "half_split"]:
    bad.append(f"validate.csv header {list(rows[0]) if rows else None}")
want = {("radix", p) for p in ("histogram", "network_partition", "local_partition", "build_probe", "total_without_alloc")} | \
       {("sortmerge", p) for p in ("partition", "sort", "merge", "match", "total_without_alloc")} | {("lock", "throughput")}
have = {(r["configuration"].split()[1], r["phase"]) for r in rows}
if want - have: bad.append(f"rows missing: {sorted(want - have)}")
for r in rows:
    if r["predicted"] and r["measured"] and float(r["measured"]) > 0:
        e = (float(r["predicted"]) - float(r["measured"])) / float(r["measured"])
        if abs(e - float(r["error"])) > 1e-3 * max(1, abs(e)): bad.append(f"{r}: error is not (pred - meas) / meas")
verdicts = list(csv.DictReader(open(os.path.join(d, "verdicts.csv"), newline="")))
if len(verdicts) != 3: bad.append(f"verdicts.csv: {len(verdicts)} configurations")
runs = open(os.path.join(d, lib, "runs.txt")).read().splitlines()
if sorted(runs) != sorted(["join 1 2 100K 2"] * 2 + ["lock 1 1 1 0 10"] * 2): bad.append(f"runs.txt: {runs}")
for f in ("params.txt", "cal/cal-1.txt", "cal/cal-2.txt", "pooled/params.txt"):
    if not os.path.getsize(os.path.join(d, lib, f)): bad.append(f"{f} empty")
joins = list(csv.DictReader(open(os.path.join(d, lib, "joins.csv"), newline="")))
if sorted(r["algo"] for r in joins) != ["radix"] * 4 + ["sortmerge"] * 4: bad.append(f"join rows {[r['algo'] for r in joins]}")
for r in joins:
    if r["verification"] != "PASS": bad.append(f"{r['algo']}: verification {r['verification']}")
    for c in ("run_delay", "model_shape", "alloc_regime", "alloc_s_per_gb"):
        if r[c] == "": bad.append(f"{r['algo']}: no {c}")
    # the floor where it was measured (two ranks running at once: a busy machine may deny it), and
    # beside it the calibration's, where that one measured it
    cal = [l.split("=")[1].split()[0] for l in open(r["model_params"].split(" + ")[0]) if l.startswith("t_floor_rtt ")]
    if (r["model_floor_rtt_us"] != "") != bool(cal) or (cal and abs(float(r["model_floor_rtt_us"]) - float(cal[0])) > 1e-3):
        bad.append(f"{r['algo']}: model_floor_rtt_us {r['model_floor_rtt_us']!r}, the calibration's t_floor_rtt {cal}")
    if r["floor_rtt_us"] != "" and float(r["floor_rtt_us"]) <= 0: bad.append(f"{r['algo']}: floor_rtt_us {r['floor_rtt_us']}")
    t, m = float(r["t_total_max"]), float(r["model_total_without_alloc"])
    # the row's model inputs give its own prediction from the file it used
    p = subprocess.run([rmamodel, "join", "--algo", r["algo"], "--params", r["model_params"].split(" + ")[0], "--shape",
                        r["model_shape"], "--csv"], capture_output=True, text=True)
    pred = dict(l.split(",") for l in p.stdout.splitlines()[1:])
    if abs(float(pred.get("total", -1)) - m) > 1e-6 * max(1, m): bad.append(f"{r['algo']}: rmamodel --shape total {pred.get('total')} != {m}")
lock = list(csv.DictReader(open(os.path.join(d, lib, "lock.csv"), newline="")))
if len(lock) != 2 or any(r["model_err_throughput"] == "" or r["model_shape"] == "" or r["run_delay"] == "" for r in lock):
    bad.append("lock rows without model_err_throughput, model_shape or run_delay")
for r in lock:
    p = subprocess.run([rmamodel, "lock", "--params", r["model_params"].split(" + ")[0], "--shape", r["model_shape"], "--csv"],
                       capture_output=True, text=True)
    pred = dict(l.split(",") for l in p.stdout.splitlines()[1:])
    if abs(float(pred.get("throughput", -1)) / float(r["model_throughput"]) - 1) > 1e-4:
        bad.append(f"lock: rmamodel --shape throughput {pred.get('throughput')} != {r['model_throughput']}")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
# bad input: one line naming the flag, exit 2, before anything runs
printf 'join 1 2 100K 2\nlock 1 1 1\n' >"$tmp/matrix.txt"
"$root/model/validate.sh" --matrix "$tmp/matrix.txt" --out "$tmp/bad" >"$tmp/bad.out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/bad.out")" = 1 ] && grep -q "^validate.sh: --matrix: .*matrix.txt:2: expected" "$tmp/bad.out" ||
    { echo "FAIL: a bad --matrix line: exit $rc, $(cat "$tmp/bad.out")"; fail=1; }
"$root/model/validate.sh" --max-run-delay 2 >"$tmp/bad.out" 2>&1
[ $? = 2 ] && grep -q "^validate.sh: --max-run-delay: '2' is not a share" "$tmp/bad.out" || { echo "FAIL: --max-run-delay 2 accepted"; fail=1; }
[ $fail = 0 ] && echo "validate_check: all passed"
exit $fail
