#!/bin/bash
# 64 ranks on 4 "hosts" (issue 13 item 7): the emulated network of jobs/netem.sh (network
# namespaces on a bridge, links unshaped), 16 ranks each, launched from host 1 by Open MPI through
# netem.sh's ssh stand-in (../shared/PLATFORM-NOTES.md). One launch
# (tests/scale/scale_run) runs both joins, verified to the exact match count and checksum, then the
# lock table's bank workload (sum of balances and every grant checked). Exit 77 (skip) where
# namespaces are not allowed. Open MPI only: scripts/test.sh runs the scale suite in build.
#   netns_scale.sh SCALE_RUN
set -u
run=$1
tag=$$ hosts=4 per=16
netem=$(cd "$(dirname "$0")/../.." && pwd)/jobs/netem.sh
D=$(mktemp -d /tmp/rmb-netns-scale.XXXXXX)
# the emulated network of jobs/netem.sh, unshaped, under a name and state directory of this test's own
export RMB_NETEM_STATE=$D/netem
net=(--name "sc$tag")
fail=0
cleanup() {
    "$netem" down "${net[@]}"
    if [[ $fail != 0 ]]; then echo "--- logs kept in $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM
"$netem" up --hosts $hosts "${net[@]}" >"$D/netem.log" 2>&1
case $? in
0) ;;
77) echo "SKIP: $(tail -1 "$D/netem.log")"; exit 77 ;;
*) echo "FAIL: network setup: $(tail -1 "$D/netem.log")"; fail=1; exit 1 ;;
esac

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1
np=$((hosts * per))
# ranks in blocks by host; RMA between hosts goes through osc pt2pt over the tcp btl, within a host
# through vader
mapfile -t launch < <("$netem" launcher "${net[@]}" --mpi openmpi -n $np --per-host $per --map-by slot)
csv=$D/results.csv
# small data, default buffers (the --buffer-memory budget sizes them)
args=(join --algo both --tuples-per-rank 2K --output "$csv"
      --next lock --workload bank --transactions-per-agent 5 --output "$csv")
echo "+ [host1] ${launch[*]} $run ${args[*]}"
start=$(date +%s)
timeout -k 5 "${RMB_SCALE_TIMEOUT:-150}" "$netem" exec "${net[@]}" 1 "${launch[@]}" "$run" "${args[@]}" >"$D/out.log" 2>&1
rc=$?
echo "($(( $(date +%s) - start )) s)"
grep -E '^(# ranks|# binding|# lock servers|verification|matches|invariants|bank|scale_run|rmabench)' "$D/out.log"
[[ $rc == 0 ]] || { echo "FAIL: exit $rc"; tail -30 "$D/out.log"; fail=1; }
grep -q "^# ranks $np on $hosts host(s), $per per host (host1;host2;host3;host4), ranks in blocks by host" "$D/out.log" ||
    { echo "FAIL: not $np ranks on $hosts hosts, $per each"; fail=1; }
[[ $(grep -c '^verification: PASS' "$D/out.log") == 3 ]] || { echo "FAIL: expected 3 verification PASS lines (radix, sortmerge, lock)"; fail=1; }
want=$((np * 2000))
[[ $(grep -c "^matches: $want (expected $want)" "$D/out.log") == 2 ]] || { echo "FAIL: both joins must find exactly $want matches"; fail=1; }
grep -q '^bank: sum of balances \([0-9]*\) (expected \1)' "$D/out.log" || { echo "FAIL: bank invariant"; fail=1; }
/usr/bin/python3 - "$csv" "$np" "$hosts" <<'PY' || fail=1
import csv, os, sys
rows = list(csv.DictReader(open(sys.argv[1], newline=""))) if os.path.exists(sys.argv[1]) else []
bad = [f"{r['bench']} {r['algo']}: hosts {r['hosts']} ranks {r['ranks']} status {r['status']} verification {r['verification']}"
       for r in rows if (r["hosts"], r["ranks"], r["status"], r["verification"]) != (sys.argv[3], sys.argv[2], "ok", "PASS")]
if sorted(r["bench"] for r in rows) != ["join", "join", "lock"]: bad.append(f"rows: {[r['bench'] for r in rows]}")
for b in bad: print("FAIL: csv:", b)
sys.exit(1 if bad else 0)
PY
[[ $fail == 0 ]] && echo "netns scale test: $np ranks on $hosts hosts ok"
exit $fail
