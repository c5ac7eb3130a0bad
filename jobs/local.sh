#!/bin/bash
# jobs/local.sh: the default rmabench run on one machine (the README's main command).
# Calibrates the model on this machine, then sweeps rank counts (1, 2, the cores of this machine;
# with --oversubscribe also 2x and 4x the cores) running both joins and the lock benchmark at small
# sizes with --model, appends every run to results/<timestamp>/results.csv, and renders the figures
# and the report (results/<timestamp>/report.md) at the end.
#
#   jobs/local.sh [--oversubscribe] [--mpi openmpi|mpich|both] [--tuples N] [--repeat N]
#                 [--duration D] [--out DIR] [--quick] [--dry-run] [--force]
#
# Flags (and the environment variable that sets the same default):
#   --oversubscribe   also run 2x and 4x as many ranks as cores        RMB_OVERSUBSCRIBE=1
#   --mpi LIB         build(s) to run: openmpi (build/), mpich (build-mpich/), both   RMB_MPI_LIBS
#   --tuples N        join tuples of R per rank (default 1M)          RMB_TUPLES
#   --repeat N        join repetitions per configuration (default 3)   RMB_REPEAT
#   --duration D      lock benchmark duration per run (default 1s)     RMB_LOCK_DURATION
#   --out DIR         results directory (default results/<timestamp>)  RMB_OUT_DIR
#   --quick           tiny sizes, ranks 1 and 2 only, one repetition, a calibration of about a
#                     second (tests, smoke checks: its rates are not worth a model comparison);
#                     --tuples, --repeat, --duration given as well keep their values
#   --dry-run         check every value, then print the commands without running them
#   --force           an --out that holds an earlier job's files: replace them (results.csv is
#                     appended to either way; without --force such a directory is refused)
# Exit status: 0 when every run succeeded, 1 when any failed (each failed run is also a row with
# status=failed), 2 for bad input (one line naming the flag).
# Also: RMB_RANKS="1 2 4" replaces the rank sweep; RMB_RUN_TIMEOUT (seconds per run, default 600);
# RMB_CALIBRATE_ARGS: extra `rmabench calibrate` flags (as jobs/slurm/calibrate.sbatch).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

oversub=${RMB_OVERSUBSCRIBE:-0} libs=${RMB_MPI_LIBS:-openmpi} tuples=${RMB_TUPLES:-}
repeat=${RMB_REPEAT:-} duration=${RMB_LOCK_DURATION:-} out=${RMB_OUT_DIR:-} quick=0
while [[ $# -gt 0 ]]; do
    case $1 in
    --oversubscribe) oversub=1 ;;
    --mpi) rmb_need "$1" $# "${2-}"; libs=$2; shift ;;
    --tuples) rmb_need "$1" $# "${2-}"; tuples=$2; shift ;;
    --repeat) rmb_need "$1" $# "${2-}"; repeat=$2; shift ;;
    --duration) rmb_need "$1" $# "${2-}"; duration=$2; shift ;;
    --out) rmb_need "$1" $# "${2-}"; out=$2; shift ;;
    --quick) quick=1 ;;
    --dry-run) export RMB_DRY_RUN=1 ;;
    --force) export RMB_FORCE=1 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) rmb_die "$1: unknown flag (jobs/local.sh --help)" ;;
    esac
    shift
done
case $libs in openmpi) libs="openmpi" ;; mpich) libs="mpich" ;; both) libs="openmpi mpich" ;;
*) rmb_die "--mpi: '$libs' is not openmpi, mpich or both" ;; esac
# --quick's sizes where none were given (flags or RMB_* variables), then every value checked
if [[ $quick == 1 ]]; then tuples=${tuples:-20K} repeat=${repeat:-1} duration=${duration:-300ms}
else tuples=${tuples:-1M} repeat=${repeat:-3} duration=${duration:-1s}; fi
rmb_check_count --tuples "$tuples"
rmb_check_int --repeat "$repeat" 1 1000
rmb_check_duration --duration "$duration"
[[ -n ${RMB_RANKS:-} ]] && for r in $RMB_RANKS; do rmb_check_int RMB_RANKS "$r" 1 100000; done

cores=$(nproc)
if [[ $quick == 1 ]]; then
    RMB_CALIBRATE_ARGS=${RMB_CALIBRATE_ARGS:-"--tuples 64K --put-bytes 1M --repeats 1 --rounds 1"}
    ranks=${RMB_RANKS:-"1 2"}
else
    ranks=${RMB_RANKS:-"$(printf '%s\n' 1 2 "$cores" $([[ $oversub == 1 ]] && echo $((2 * cores)) $((4 * cores))) | sort -n -u | tr '\n' ' ')"}
fi
maxr=$(printf '%s\n' $ranks | sort -n | tail -1)
remote_probs=${RMB_REMOTE_PROBS:-"0 0.1 0.25 0.5"}
[[ $quick == 1 ]] && remote_probs=${RMB_REMOTE_PROBS:-"0 0.5"}

out=${out:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/results/$(date +%Y%m%d-%H%M%S)}
export RMB_OUT_PARENT=$out

plan() {
    for lib in $libs; do
        RMB_BUILD=$([[ $lib == mpich ]] && echo "$RMB_ROOT/build-mpich" || echo "$RMB_ROOT/build")
        RMB_BIN=$RMB_BUILD/rmabench RMB_MPI=$lib
        local model=() params=$RMB_OUT/params-$lib.txt
        # calibration on the largest rank count that does not oversubscribe
        local calr=$(( cores < maxr ? cores : maxr )); (( calr < 2 )) && calr=2
        if rmb_has_command calibrate; then
            # shellcheck disable=SC2086
            rmb_run "calibrate $lib np=$calr" 1 "$calr" -- calibrate --output "$params" "${RMB_FORCE_ARGS[@]}" ${RMB_CALIBRATE_ARGS:-}
            [[ $RMB_COUNTING == 1 || $RMB_DRY_RUN == 1 || -s $params ]] && model=(--model "$params")
        elif [[ $RMB_COUNTING == 0 ]]; then
            echo "[skip] calibrate: 'rmabench calibrate' is not built yet in $RMB_BUILD; joins run without --model"
        fi
        for np in $ranks; do
            rmb_run "join both $lib np=$np" 1 "$np" -- join --algo both --tuples-per-rank "$tuples" \
                --repeat "$repeat" --output "$RMB_CSV" "${model[@]}"
        done
        if ! rmb_has_command lock; then
            [[ $RMB_COUNTING == 0 ]] && echo "[skip] lock: 'rmabench lock' is not built yet in $RMB_BUILD"
            continue
        fi
        # lock throughput against ranks (half the ranks serve the table): the synthetic workload, and
        # TPC-C at both isolation levels (only TPC-C has an isolation level)
        for np in $ranks; do
            (( np < 2 )) && continue
            rmb_run "lock synthetic $lib np=$np" 1 "$np" -- lock --workload synthetic --servers $((np / 2)) \
                --remote-prob 0.1 --duration "$duration" --output "$RMB_CSV" "${model[@]}"
            for iso in serializable read-committed; do
                rmb_run "lock tpcc $iso $lib np=$np" 1 "$np" -- lock --workload tpcc --servers $((np / 2)) \
                    --isolation "$iso" --duration "$duration" --output "$RMB_CSV" "${model[@]}"
            done
        done
        # remote lock probability sweep on the largest rank count
        (( maxr >= 2 )) && for p in $remote_probs; do
            rmb_run "lock remote-prob $p $lib np=$maxr" 1 "$maxr" -- lock --workload synthetic --servers $((maxr / 2)) \
                --remote-prob "$p" --duration "$duration" --output "$RMB_CSV" "${model[@]}"
        done
    done
}

rmb_init local
rmb_results_dir "$out"
if [[ $RMB_DRY_RUN != 1 ]]; then
    echo "rmabench jobs: local run on $(hostname) ($cores cores), ranks: $ranks, MPI: $libs, tuples/rank: $tuples," \
         "repeat: $repeat, lock duration: $duration"
    echo "rmabench jobs: results in $RMB_OUT"
fi
rmb_plan
rmb_render "$RMB_OUT" "$RMB_CSV" || { echo "rmabench jobs: rendering the report failed" >&2; RMB_FAILED=$((RMB_FAILED + 1)); }
[[ $RMB_DRY_RUN == 1 ]] || echo "rmabench jobs: report: $RMB_OUT/report.md"
# 1 when any run (or the report) failed: each failed run is also a row with status=failed
rmb_finish
