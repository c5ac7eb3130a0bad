#!/bin/sh
# `rmabench join --plan` agrees with the run it plans: for each case, the plan at the launch's rank
# count and the run's CSV rows give the same resolved values for each algorithm (radix bits,
# local passes and bits, send buffer size as --buffer-memory left it, tuple format; run size,
# merge fan-in and merge depth) and the same memory bound per rank (mem_plan_rank); and the worst
# rank's peak resident memory (mem_peak_rank) stays within that bound.
#   plan_agrees.sh MPIRUN RMABENCH
set -u
mpirun=$1; bin=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# NAME NP ARGS...
check() {
    name=$1; np=$2; shift 2
    echo "+ $bin join --plan --ranks $np $*"
    "$bin" join --plan --ranks "$np" "$@" >"$work/$name.plan" 2>&1 || { cat "$work/$name.plan"; echo "FAIL: $name: --plan failed"; fail=1; return; }
    echo "+ $mpirun -n $np $bin join $*"
    timeout -k 10 120 "$mpirun" -n "$np" "$bin" join --output "$work/$name.csv" "$@" >"$work/$name.out" 2>&1 ||
        { cat "$work/$name.out"; echo "FAIL: $name: the run failed"; fail=1; return; }
    /usr/bin/python3 - "$name" "$work/$name.plan" "$work/$name.csv" <<'PY' || fail=1
import csv, re, sys
name, plan_path, csv_path = sys.argv[1:4]
plans = {}
for line in open(plan_path):
    m = re.match(r"^(\w+) resolved: (.*)$", line)
    if m:
        plans[m.group(1)] = dict(kv.split("=") for kv in m.group(2).split())
rows = list(csv.DictReader(open(csv_path, newline="")))
bad = []
if sorted(plans) != sorted({r["algo"] for r in rows}):
    bad.append(f"algorithms: plan {sorted(plans)}, rows {sorted({r['algo'] for r in rows})}")
for r in rows:
    p = plans.get(r["algo"])
    if p is None:
        continue
    pairs = [("compress", str(int(p["tuple_bytes"] == "8"))), ("mem_plan_rank", p["mem_rank"])]
    if r["algo"] == "radix":
        pairs += [("radix_bits", p["radix_bits"]), ("passes", p["passes"]), ("local_fanout_bits", p["local_bits"]),
                  ("buffer_size", p["buffer_size"])]
    else:
        pairs += [("run_size", p["run_size"]), ("merge_fanin", p["merge_fanin"]), ("passes", p["merge_passes"])]
    for col, want in pairs:
        if r[col] != want:
            bad.append(f"{r['algo']} {col}: run {r[col]}, plan {want}")
    if int(r["mem_peak_rank"]) > int(r["mem_plan_rank"]):
        bad.append(f"{r['algo']}: peak resident {r['mem_peak_rank']} above the planned {r['mem_plan_rank']}")
    if r["verification"] != "PASS":
        bad.append(f"{r['algo']}: verification {r['verification']}")
for b in bad:
    print(f"FAIL: {name}: {b}")
if not bad:
    print(f"{name}: plan and run agree for {', '.join(sorted(plans))} ({len(rows)} rows)")
sys.exit(1 if bad else 0)
PY
}

check even2 2 --algo both --tuples-per-rank 20K
check uneven3 3 --algo both --r-tuples 50K --uneven --ratio 2
# a budget that shrinks the send buffers (62 buffers in 16 KiB: 256 bytes each)
check budget4 4 --algo radix --tuples-per-rank 10K --buffer-memory 16K
# the formats' limit with 24-bit words: radix packs, sort-merge does not
check wide4 4 --algo both --r-tuples 16385 --pack-bits 24
[ $fail -eq 0 ] && echo "plan agrees: every case"
exit $fail
