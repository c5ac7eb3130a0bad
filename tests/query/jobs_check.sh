#!/bin/bash
# jobs/query.sh without running anything (--dry-run): the star sweep interleaves pull (each memory-rank
# count) and shuffle per tables and round, then calibrates and reads blocks for the model, and draws
# query7a; emulated hosts launch through jobs/netem.sh; bad input exits 2 with one line.
#   jobs_check.sh SOURCE_ROOT BUILD_DIR
set -u
root=$1 build=$2
fail=0
D=$(mktemp -d /tmp/rmb-query-jobs.XXXXXX)
trap 'rm -rf "$D"' EXIT
export RMB_BUILD=$build
out=$("$root/jobs/query.sh" star --dry-run --rounds 2 --out "$D/a" 2>&1) || { echo "FAIL: star --dry-run exited $?"; fail=1; }
echo "$out"
n() { grep -c -- "$1" <<<"$out"; }
[[ $(n "query --design pull --tables 3 --memory-ranks 2 ") == 2 && $(n "query --design shuffle --tables 4 ") == 2 ]] ||
    { echo "FAIL: not 2 rounds of every design and tables"; fail=1; }
# interleaved: within a round, tables 2's three runs come before any tables 3 run
first3=$(grep -n -m1 -- "--tables 3" <<<"$out" | cut -d: -f1) last2=$(grep -n -- "--tables 2" <<<"$out" | head -3 | tail -1 | cut -d: -f1)
[[ $last2 -lt $first3 ]] || { echo "FAIL: the first round is not interleaved ($last2, $first3)"; fail=1; }
[[ $(n "rmabench calibrate --output $D/a/params.txt") == 1 && $(n "query --micro prefetch --micro-prefetch 1") == 1 &&
   $(n "query --micro alltoallv") == 1 ]] ||
    { echo "FAIL: no calibration and block reads for the model"; fail=1; }
grep -q "rmaplot figure query7a $D/a/results.csv" <<<"$out" || { echo "FAIL: no query7a figure"; fail=1; }
[[ ! -e $D/a ]] || { echo "FAIL: a dry run created its results directory"; fail=1; }
out=$("$root/jobs/query.sh" readers --hosts 4 --rate 1gbit --ranks 4 --dry-run --out "$D/b" 2>&1)
echo "$out"
grep -q "jobs/netem.sh launch --name .* -n 4 -- .*rmabench query --micro readers" <<<"$out" || { echo "FAIL: no netem launch"; fail=1; }
# the Slurm job at the seed's scale: 8 nodes x 2 ranks, half of them memory ranks, then both micro-benchmarks
out=$(RMB_ROOT=$root RMB_DRY_RUN=1 RMB_BUILD=$build SLURM_JOB_NUM_NODES=8 SLURM_NTASKS_PER_NODE=2 RMB_CAMPAIGN_DIR=$D/s \
      "$root/jobs/slurm/query.sbatch" 2>&1)
echo "$out"
[[ $(grep -c -- "-N 8 -n 16 .*rmabench query --design pull --tables [234] --memory-ranks 8 --fact-rows 600M" <<<"$out") == 9 ]] ||
    { echo "FAIL: query.sbatch: not 3 rounds of pull at 2-4 tables"; fail=1; }
grep -q -- "-N 2 -n 2 .*query --micro prefetch" <<<"$out" && grep -q -- "-N 8 -n 8 .*query --micro readers" <<<"$out" ||
    { echo "FAIL: query.sbatch: no micro-benchmarks"; fail=1; }
for bad in "nothing" "star --rate 1gbit" "star --rounds 0"; do
    # shellcheck disable=SC2086
    msg=$("$root/jobs/query.sh" $bad --dry-run 2>&1)
    rc=$?
    [[ $rc == 2 && $(wc -l <<<"$msg") == 1 ]] || { echo "FAIL: jobs/query.sh $bad: exit $rc, '$msg'"; fail=1; }
done
exit $fail
