#!/bin/bash
# jobs/submit.sh: submit an rmabench campaign to Slurm and print the job ids.
#
#   jobs/submit.sh [--campaign all|scaleout|joins|lock|thesis | --figure ID] [--results DIR]
#                  [--mpi openmpi|mpich] [--dry-run] [-- SBATCH_ARGS...]
#
# Order: calibrate, then the benchmark jobs (--dependency=afterany on calibration: they run without
# --model if it failed), then the plot job (--dependency=afterany on all benchmark jobs: a job whose
# runs failed exits 1, and its failed runs are rows the report counts).
#   scaleout  calibrate, join-scaleout, plot
#   joins     calibrate, join-scaleout, join-scaleup, join-sizes, plot
#   lock      calibrate, lock, plot
#   all       (default) every job above
#   thesis    the thesis' scale (chapter 4, Fig 4.2): calibrate, join-scaleout at 40M tuples of R per
#             rank, 1:1, both joins, on the node counts that give 128, 256, ..., 4096 ranks
#             (RMB_CORE_COUNTS) within the allocation, then the lock sweeps, plot. Its --dry-run
#             prints under every step its plan (`rmabench join --plan`, `rmabench lock --plan` where
#             the build has it): formats, buffers, windows, memory per rank and per node; with
#             RMB_HOST_MEMORY=32G (a node's memory) it also says whether each step fits a node.
# --figure ID     one entry of the thesis catalogue (jobs/figure.sh list) at the thesis' size:
#                 calibrate, figure (jobs/slurm/figure.sbatch: the entry's sweep, on as many nodes as
#                 its largest run needs at RMB_PPN ranks per node, default 32), plot (that entry alone:
#                 DIR/report/ID.md and its figure). SBATCH_ARGS may shrink the allocation: runs that
#                 do not fit it are skipped and said so.
# --results DIR   campaign directory (default results/campaign-<timestamp>); each job writes its
#                 rows to DIR/job-<jobid>-<name>/results.csv, the plot job DIR/report/report.md
# --mpi LIB       run the Open MPI build (build/, srun --mpi=pmix) or the MPICH build
#                 (build-mpich/, srun --mpi=pmi2)
# --dry-run       print the sbatch commands and, for every job, the commands it would run
#                 (for an allocation of RMB_NODES nodes, default: the script's #SBATCH --nodes)
# SBATCH_ARGS go to every benchmark sbatch (e.g. -- --partition=batch --account=proj --nodes=8);
# they override the scripts' #SBATCH defaults. The RMB_* variables of each script pass through
# the environment (sbatch --export=ALL).
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/jobs/lib.sh"
campaign=all figure="" results="" dry=0 mpi=${RMB_MPI_LIB:-openmpi}
sbatch_args=()
while [[ $# -gt 0 ]]; do
    case $1 in
    --campaign) rmb_need "$1" $# "${2-}"; campaign=$2; shift ;;
    --figure) rmb_need "$1" $# "${2-}"; campaign=figure figure=$2; shift ;;
    --results) rmb_need "$1" $# "${2-}"; results=$2; shift ;;
    --mpi) rmb_need "$1" $# "${2-}"; mpi=$2; shift ;;
    --dry-run) dry=1 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; sbatch_args=("$@"); break ;;
    *) echo "rmabench jobs: $1: unknown flag (jobs/submit.sh --help)" >&2; exit 2 ;;
    esac
    shift
done
case $campaign in
scaleout) jobs=(join-scaleout) ;;
joins) jobs=(join-scaleout join-scaleup join-sizes) ;;
lock) jobs=(lock) ;;
all) jobs=(join-scaleout join-scaleup join-sizes lock) ;;
thesis)
    jobs=(join-scaleout lock)
    # Fig 4.2's weak scaling: 40M tuples per relation and core, every S tuple with one partner
    export RMB_TUPLES=${RMB_TUPLES:-40M} RMB_ALGO=${RMB_ALGO:-both} RMB_DRY_PLAN=1
    export RMB_CORE_COUNTS=${RMB_CORE_COUNTS:-128 256 512 1024 2048 4096}
    ;;
figure)
    jobs=(figure)
    ids=$("${RMB_PYTHON:-/usr/bin/python3}" "$root/plots/rmaplot" catalogue ids) || exit 2
    [[ " $ids " == *" $figure "* ]] || { echo "rmabench jobs: --figure: '$figure' is not a catalogue id (jobs/figure.sh list)" >&2; exit 2; }
    export RMB_FIGURE=$figure RMB_PPN=${RMB_PPN:-32}
    # the allocation the entry's largest run needs: nodes at its ranks per node (RMB_PPN where it names none)
    read -r fig_nodes fig_ppn < <("${RMB_PYTHON:-/usr/bin/python3}" "$root/plots/rmaplot" catalogue runs "$figure" slurm |
        awk -F'\t' -v d="$RMB_PPN" '!/^#/ && $1 != "calibrate" { p = $3 == "-" ? d : $3; n = int(($2 + p - 1) / p);
            if (n > N) N = n; if (p > P) P = p } END { print N + 0, P + 0 }')
    figure_args=(--nodes="$fig_nodes" --ntasks-per-node="$fig_ppn")
    ;;
*) echo "rmabench jobs: --campaign: '$campaign' is not all, scaleout, joins, lock, thesis or figure" >&2; exit 2 ;;
esac
case $mpi in
openmpi) export RMB_BUILD=${RMB_BUILD:-$root/build} ;;
mpich) export RMB_BUILD=${RMB_BUILD:-$root/build-mpich} ;;
*) echo "rmabench jobs: --mpi: '$mpi' is not openmpi or mpich" >&2; exit 2 ;;
esac
if [[ $dry == 0 ]]; then
    command -v sbatch >/dev/null || { echo "rmabench jobs: sbatch not found (is Slurm installed?)" >&2; exit 2; }
    [[ -x $RMB_BUILD/rmabench ]] || { echo "rmabench jobs: $RMB_BUILD/rmabench: not built (scripts/build.sh)" >&2; exit 2; }
fi
results=${results:-$root/results/campaign-$(date +%Y%m%d-%H%M%S)}
[[ $results == /* ]] || results=$PWD/$results
export RMB_ROOT=$root RMB_CAMPAIGN_DIR=$results
[[ $dry == 1 ]] || mkdir -p "$results" || exit 2

# what a dry run assumes for an sbatch option (nodes, ntasks-per-node): the sbatch arguments (those of
# the job, then the campaign's), else the script's
sbatch_opt() { # SCRIPT LONG SHORT
    local a prev="" n=""
    for a in "${job_args[@]}"; do
        [[ $prev == "$3" || $prev == "--$2" ]] && n=$a
        [[ $a == --$2=* ]] && n=${a#*=}
        prev=$a
    done
    [[ -n $n ]] || n=$(sed -n "s/^#SBATCH --$2=\\([0-9]*\\).*/\\1/p" "$1" | head -1)
    echo "${n:-1}"
}

# submit SCRIPT [SBATCH ARGS...]: prints the command in dry runs, else the job id
submit() {
    local script=$root/jobs/slurm/$1.sbatch; shift
    local -a job_args=("$@")
    local -a cmd=(sbatch --parsable --output="$results/slurm-%x-%j.out" "$@" "$script")
    if [[ $dry == 1 ]]; then
        printf '%s\n' "$(printf '%q ' "${cmd[@]}" | sed 's/ $//')" >&2
        RMB_DRY_RUN=1 SLURM_JOB_NUM_NODES=${RMB_NODES:-$(sbatch_opt "$script" nodes -N)} SLURM_JOB_ID=DRY \
            SLURM_NTASKS_PER_NODE=$(sbatch_opt "$script" ntasks-per-node --XX) bash "$script" | sed 's/^/    /' >&2
        echo "DRY-$(basename "$script" .sbatch)"
        return 0
    fi
    local id
    id=$("${cmd[@]}") || { echo "rmabench jobs: sbatch $script failed" >&2; return 1; }
    echo "${id%%;*}"
}

echo "rmabench jobs: campaign '$campaign' ($mpi) -> $results" >&2
cal=$(submit calibrate "${sbatch_args[@]}") || exit 1
echo "calibrate $cal"
ids=()
for j in "${jobs[@]}"; do
    extra=()
    [[ $j == figure ]] && extra=("${figure_args[@]}")
    id=$(submit "$j" --dependency=afterany:"$cal" "${extra[@]}" "${sbatch_args[@]}") || exit 1
    echo "$j $id"
    ids+=("$id")
done
dep=$(IFS=:; echo "${ids[*]}")
plot=$(submit plot --dependency=afterany:"$dep") || exit 1
echo "plot $plot"
echo "rmabench jobs: report will be at $results/report/$([[ -n $figure ]] && echo "$figure.md" || echo report.md)" >&2
