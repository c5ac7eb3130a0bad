#!/bin/bash
# A rank killed (SIGKILL) in the middle of a join campaign.
#   kill_rank.sh ROOT BUILD MPIRUN
# 1. Directly under the launcher: `rmabench join --repeat 500 --output CSV` at 2 ranks, rank 1
#    killed after a few rows: the launcher exits non-zero (not by our timeout), the rows written
#    before stay byte for byte, the CSV holds only whole rows.
# 2. Under the job scripts (jobs/lib.sh, Open MPI): a plan of two runs, the first one's rank 1
#    killed: the job records the failed run (status=failed, its exit code) and goes on to the
#    second run, whose rows follow.
set -u
root=$1 build=$2 mpirun=$3
source "$(dirname "$0")/faultlib.sh"
work=$(mktemp -d /tmp/rmb-fault-kill.XXXXXX)
killer=""
trap 'rm -rf "$work"; [[ -n $killer ]] && kill "$killer" 2>/dev/null' EXIT
csv=$work/results.csv
bin=$build/rmabench

# rows already there before the campaign
"$bin" record --output "$csv" --set bench=join --set status=ok --set exit_code=0 --set verification=PASS --set command="earlier run, with a comma" || fail "rmabench record"
"$bin" record --output "$csv" --set bench=lock --set status=failed --set exit_code=1 || fail "rmabench record"
cp "$csv" "$work/before.csv"
before=$(stat -c %s "$csv")

mark="--seed 7000001"
timeout -k 5 60 "$mpirun" -n 2 "$bin" join --tuples-per-rank 2K --repeat 500 $mark --output "$csv" >"$work/out" 2>&1 &
launcher=$!
if wait_rows "$csv" 4 30; then
    pid=$(rank_pid "$mark" 1)
    if [[ -n $pid ]]; then kill -KILL "$pid"; t_kill=$SECONDS; ok "killed rank 1 (pid $pid) after $(csv_rows "$csv") rows"
    else fail "rank 1 not found"; fi
else
    fail "the join wrote no rows in 30 s"; cat "$work/out" | tail -5
fi
t_kill=${t_kill:-$SECONDS}
wait "$launcher"
rc=$?
# Open MPI exits 128+signal (137) for a rank killed by SIGKILL, as timeout does: tell them apart by time
if [[ $rc == 0 ]]; then fail "launcher exit status 0 after a rank was killed"
elif (( SECONDS - t_kill >= 50 )); then fail "the launcher hung until the test's timeout"
else ok "launcher exit status $rc, $((SECONDS - t_kill)) s after the kill"; fi
rows=$(csv_rows "$csv")
(( rows < 2 + 500 )) || fail "all $rows rows written: the kill came too late to test anything"
cmp -n "$before" "$csv" "$work/before.csv" >/dev/null && ok "the $before bytes written before are unchanged" || fail "earlier rows changed"
check_whole_rows "$csv" || fail "partial rows"

# 2. the job scripts go on after the failed run
if [[ $(basename "$(readlink -f "$mpirun")") == *openmpi* || $(basename "$mpirun") == mpirun.openmpi && -f $root/jobs/lib.sh ]]; then
    cat >"$work/job.sh" <<JOB
source "$root/jobs/lib.sh"
rmb_init fault-test
rmb_results_dir "$work/job"
plan() {
    rmb_run killed 1 2 -- join --tuples-per-rank 2K --repeat 1000 --seed 7000002 --output "\$RMB_CSV"
    rmb_run after 1 2 -- join --tuples-per-rank 2K --repeat 3 --seed 7000003 --output "\$RMB_CSV"
}
rmb_plan
rmb_finish
JOB
    ( for _ in $(seq 600); do
        p=$(rank_pid "--seed 7000002" 1)
        if [[ -n $p ]] && [[ -f $work/job/results.csv ]]; then kill -KILL "$p"; exit 0; fi
        sleep 0.05
      done ) &
    killer=$!
    RMB_BUILD=$build RMB_RUN_TIMEOUT=60 timeout -k 5 120 bash "$work/job.sh" >"$work/job.out" 2>&1
    jrc=$?
    cat "$work/job.out" | grep -v '^    |' | head -20
    [[ $jrc == 124 ]] && fail "the job script hung"
    grep -q 'fault-test: 2 runs' "$work/job.out" && ok "the job went on to its second run" || fail "no 'fault-test: 2 runs' summary"
    jcsv=$work/job/results.csv
    /usr/bin/python3 - "$jcsv" <<'PY' || fail "the job's CSV does not hold the failed row and the second run's rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
failed = [r for r in rows if r["status"] == "failed" and "7000002" in r["command"] and r["exit_code"] not in ("", "0")]
after = [r for r in rows if r["seed"] == "7000003" or ("7000003" in r["command"] and r["status"] != "ok")]
print(f"job CSV: {len(rows)} rows; failed-run rows of the killed run: {len(failed)}; rows of the next run: {len(after)}")
sys.exit(0 if len(failed) == 1 and after else 1)
PY
    check_whole_rows "$jcsv" || fail "partial rows in the job's CSV"
fi
[[ $fails == 0 ]] && echo "kill_rank: all checks passed"
exit $((fails > 0))
