#!/bin/sh
# Model accuracy on this machine: CALIBRATIONS times (default 5) calibrate, run both joins with
# --model and the lock benchmark, then print per phase the model's error against the measured median
# (median, min and max over the calibrations) and how many calibrations missed the target (every
# modelled phase within 20%, the totals within 15% with window allocation modelled). One calibration
# on a busy machine does not pin a rate down; the spread over several says how far to trust one.
# The total is compared twice: the slowest rank's (t_total_max, imbalance included) and the mean
# over ranks (t_total_avg), since the model predicts no imbalance. The lock model's throughput is
# printed beside the lock benchmark's (reported, no target).
#   model/accuracy.sh [BUILD_DIR] [RANKS] [TUPLES_PER_RANK] [REPEATS] [CALIBRATIONS]
# BUILD_DIR build (Open MPI, default) or build-mpich. Results go to results/accuracy-<timestamp>/
# (one cal-N/ folder per calibration, the summary in accuracy.txt). RMB_CALIBRATE_ARGS adds flags to
# rmabench calibrate and RMB_DURATION sets the lock run's duration (default 2s), as in jobs/.
set -eu
usage='[BUILD_DIR] [RANKS] [TUPLES_PER_RANK] [REPEATS] [CALIBRATIONS]'
case ${1:-} in
-h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "accuracy.sh: $1: unknown flag (arguments: $usage)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
build=${1:-build}; np=${2:-2}; tuples=${3:-16M}; repeats=${4:-5}; ncal=${5:-5}
case $ncal in '' | *[!0-9]* | 0) echo "accuracy.sh: CALIBRATIONS: '$ncal' is not a positive count" >&2; exit 2 ;; esac
case $np in '' | *[!0-9]* | 0) echo "accuracy.sh: RANKS: '$np' is not a positive count" >&2; exit 2 ;; esac
case $repeats in '' | *[!0-9]* | 0) echo "accuracy.sh: REPEATS: '$repeats' is not a positive count" >&2; exit 2 ;; esac
echo "$tuples" | grep -Eqx '[1-9][0-9]*[KMGT]?|[0-9]*[1-9][0-9]*[KMGT]?' ||
    { echo "accuracy.sh: TUPLES_PER_RANK: '$tuples' is not a count (e.g. 16M)" >&2; exit 2; }
[ -x "$build/rmabench" ] || { echo "accuracy.sh: BUILD_DIR: $build/rmabench is not built" >&2; exit 2; }
case $build in *mpich*) mpirun=mpirun.mpich ;; *) mpirun=mpirun.openmpi ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=results/accuracy-$(date -u +%Y%m%dT%H%M%SZ)-$(basename "$build")
mkdir -p "$out"
i=1
while [ "$i" -le "$ncal" ]; do
    d=$out/cal-$i
    mkdir -p "$d"
    echo "calibration $i of $ncal"
    timeout 120 $mpirun -n "$np" "$build/rmabench" calibrate --tuples-per-rank "$tuples" ${RMB_CALIBRATE_ARGS:-} --output "$d/params.txt" \
        >"$d/calibrate.txt" 2>&1 || echo "rmabench calibrate exited with status $? (see $d/calibrate.txt)"
    # one warm-up run per join: a process's first run pays for fresh memory and cold caches, which
    # the steady-state medians should not mix in
    timeout 1800 $mpirun -n "$np" "$build/rmabench" join --algo both --tuples-per-rank "$tuples" --repeat "$repeats" \
        --warmup 1 --model "$d/params.txt" --output "$d/results.csv" >"$d/join.txt" 2>&1 ||
        echo "rmabench join exited with status $? (verification failed or error: see $d/join.txt)"
    # the lock model beside it: 1 server + 1 agent, 10 locks per transaction
    timeout 120 $mpirun -n 2 "$build/rmabench" lock --workload synthetic --locks-per-txn 10 --duration "${RMB_DURATION:-2s}" \
        --model "$d/params.txt" --output "$d/lock.csv" >"$d/lock.txt" 2>&1 ||
        echo "rmabench lock exited with status $? (see $d/lock.txt)"
    i=$((i + 1))
done
/usr/bin/python3 "$(dirname "$0")/accuracy_table.py" "$out"/cal-* | tee "$out/accuracy.txt"
echo "results in $out"
