# Shared helpers of the rmabench job scripts (bash; sourced by jobs/local.sh and jobs/slurm/*.sbatch).
#
# A job script does:   rmb_init NAME; rmb_plan; ... calls rmb_run for every run ...; rmb_finish
# where the script's own function `plan` calls rmb_run once per run. rmb_plan runs `plan` once
# without launching anything to count the runs (for "run i of n"), then again for real.
#
# Environment (all optional):
#   RMB_ROOT         repository root (default: the directory above jobs/, or $SLURM_SUBMIT_DIR)
#   RMB_BUILD        build directory holding rmabench (default $RMB_ROOT/build, i.e. Open MPI;
#                    $RMB_ROOT/build-mpich for MPICH). The MPI library is read from its bench/rmb_config.h.
#   RMB_LAUNCHER     local (mpirun on this machine) | srun | mpirun (inside a Slurm allocation)
#                    | netem (the emulated hosts of jobs/netem.sh named RMB_NETEM_NAME, default rmb)
#   RMB_SRUN_MPI     srun --mpi plugin (default pmix for Open MPI, pmi2 for MPICH)
#   RMB_SRUN_ARGS    extra srun arguments;   RMB_MPIRUN_ARGS  extra mpirun arguments
#   RMB_RUN_TIMEOUT  seconds before one run is killed and recorded as status=timeout (default 600)
#   RMB_DRY_RUN=1    print the commands instead of running them
#   RMB_PYTHON       Python with matplotlib for the plots (default /usr/bin/python3)
# Every run appends to $RMB_CSV; a run that fails (non-zero exit, timeout, a world size other than
# requested) gets one more row with status=failed|timeout|world-size-mismatch, its exit code and
# verification FAIL (it printed one) or NONE (it ended before verifying), written by `rmabench
# record`. Rows are only ever appended; results.csv and the logs must be regular files or absent.
# A job's whole files in a results directory that exists (its logs, params, report, figures) are
# refused unless RMB_FORCE=1 (the scripts' --force); results.csv is appended to either way.
# Exit status of a job: 0 when every run succeeded, 1 when any failed (rmb_finish), 2 for bad input.

# A file-size limit must not end a script mid-line: its writes fail instead (EFBIG), and are checked.
# Ignored here, the signal stays ignored in every command the script starts (rmabench's writer
# ignores it too, bench/output_path.h).
trap '' XFSZ

rmb_die() { echo "${RMB_PROG:-rmabench jobs}: $*" >&2; exit 2; }

# --- the scripts' arguments: one rule for every script that sources this file ------------------
# A flag that takes a value and has none (the end of the line, or another flag next) ends the script
# with one line naming it, exit 2; every value is checked the way rmabench would, before anything is
# run or a --dry-run prints a command:   --tuples) rmb_need "$1" $# "${2-}"; tuples=$2; shift ;;
rmb_need() { # FLAG ARGS_LEFT NEXT
    [[ $2 -ge 2 && -n $3 && $3 != --* ]] || rmb_die "$1: needs a value"
}
# a count as rmabench takes it (16M, 1500K, 7; K/M/G/T = 10^3..10^12), at least 1
rmb_check_count() { # FLAG VALUE
    [[ $2 =~ ^[0-9]+[KkMmGgTt]?$ && ! $2 =~ ^0+[KkMmGgTt]?$ ]] || rmb_die "$1: '$2' is not a count (e.g. 16M, 1500K, 7)"
}
# a whole number in [MIN, MAX]
rmb_check_int() { # FLAG VALUE MIN MAX
    [[ $2 =~ ^[0-9]+$ && ${#2} -le 9 ]] && (( $2 >= $3 && $2 <= $4 )) || rmb_die "$1: '$2' is not a whole number in [$3, $4]"
}
# a duration as rmabench accepts it (500ms, 2s, 1.5m, 1h; a plain number is seconds), above 0
rmb_check_duration() { # FLAG VALUE
    [[ $2 =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)(us|ms|s|m|min|h)?$ && ! $2 =~ ^[0.]+[a-z]*$ ]] ||
        rmb_die "$1: '$2' is not a duration above 0 (e.g. 500ms, 2s, 1m)"
}
# --help of a job script: its header comment, up to `set -u`
rmb_help() { sed -n '2,/^set -u/p' "$1" | sed '$d; s/^# \{0,1\}//'; exit 0; }

rmb_init() { # NAME
    RMB_NAME=$1
    if [[ -z ${RMB_ROOT:-} ]]; then
        if [[ -n ${SLURM_SUBMIT_DIR:-} && -f $SLURM_SUBMIT_DIR/jobs/lib.sh ]]; then RMB_ROOT=$SLURM_SUBMIT_DIR
        else RMB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd); fi
    fi
    RMB_BUILD=${RMB_BUILD:-$RMB_ROOT/build}
    RMB_BIN=$RMB_BUILD/rmabench
    RMB_PYTHON=${RMB_PYTHON:-/usr/bin/python3}
    [[ -x $RMB_PYTHON ]] || RMB_PYTHON=python3
    RMB_RUN_TIMEOUT=${RMB_RUN_TIMEOUT:-600}
    RMB_DRY_RUN=${RMB_DRY_RUN:-0}
    RMB_LAUNCHER=${RMB_LAUNCHER:-local}
    case $RMB_LAUNCHER in local|srun|mpirun|netem) ;; *) rmb_die "RMB_LAUNCHER: '$RMB_LAUNCHER' is not one of local, srun, mpirun, netem" ;; esac
    if [[ -f $RMB_BUILD/bench/rmb_config.h ]]; then
        RMB_MPI=$(sed -n 's/^#define RMB_MPI_CHOICE "\(.*\)"/\1/p' "$RMB_BUILD/bench/rmb_config.h")
    fi
    RMB_MPI=${RMB_MPI:-openmpi}
    if [[ $RMB_DRY_RUN != 1 && ! -x $RMB_BIN ]]; then
        rmb_die "$RMB_BIN: not built (run scripts/build.sh, or set RMB_BUILD)"
    fi
    if [[ $RMB_MPI == mpich ]]; then RMB_SRUN_MPI=${RMB_SRUN_MPI:-pmi2}; else RMB_SRUN_MPI=${RMB_SRUN_MPI:-pmix}; fi
    RMB_RUN_I=0 RMB_RUN_N=0 RMB_FAILED=0 RMB_COUNTING=0
    RMB_FORCE_ARGS=()
    [[ ${RMB_FORCE:-0} == 1 ]] && RMB_FORCE_ARGS=(--force)
    RMB_T0=$(date +%s)
    RMB_CORES=$(nproc)
    # Open MPI as root (containers, CI) and polling ranks that share cores
    if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
    export HWLOC_HIDE_ERRORS=${HWLOC_HIDE_ERRORS:-1}
}

# An output path of the job scripts follows the rule of every rmabench --output (bench/output_path.h):
# absent, or a regular file (a symbolic link to one counts as one); anything else (a directory, a
# device node, a FIFO, a socket, a dangling link) stops the job with exit 2 before it is written.
rmb_check_output() { # PATH
    if [[ -e $1 || -L $1 ]] && [[ ! -f $1 ]]; then
        local kind=other
        if [[ -L $1 && ! -e $1 ]]; then kind="a symbolic link that does not resolve to a file"
        elif [[ -d $1 ]]; then kind="a directory"; elif [[ -c $1 ]]; then kind="a character device"
        elif [[ -b $1 ]]; then kind="a block device"; elif [[ -p $1 ]]; then kind="a FIFO"
        elif [[ -S $1 ]]; then kind="a socket"; fi
        rmb_die "$1: not a regular file ($kind)"
    fi
}

# Results directory: RMB_OUT (created), RMB_CSV = RMB_OUT/results.csv, logs under RMB_OUT/logs.
# An existing directory is taken for its results.csv (appended to) only: what else an earlier job
# wrote there (logs, params, the report) is refused unless RMB_FORCE=1 replaces it, as every
# rmabench --output (bench/output_path.h). With RMB_FORCE=1 the job passes --force on (RMB_FORCE_ARGS).
rmb_results_dir() { # DIR
    RMB_OUT=$1
    RMB_CSV=$RMB_OUT/results.csv
    RMB_LOG_DIR=$RMB_OUT/logs
    RMB_FORCE_ARGS=()
    [[ ${RMB_FORCE:-0} == 1 ]] && RMB_FORCE_ARGS=(--force)
    [[ $RMB_DRY_RUN == 1 ]] || rmb_check_output "$RMB_CSV" # what results.csv is comes first
    # RMB_RESULTS_REUSE=1: the caller reads what an earlier job left there and writes nothing
    if [[ -d $RMB_OUT && ${RMB_FORCE:-0} != 1 && ${RMB_RESULTS_REUSE:-0} != 1 ]]; then
        local f
        for f in "$RMB_OUT"/*; do
            [[ -e $f || -L $f ]] || continue
            [[ $f == "$RMB_CSV" ]] && continue
            rmb_die "$RMB_OUT: holds an earlier job's files ($(basename "$f"), ...); give --force (RMB_FORCE=1) to replace them (results.csv is appended to either way)"
        done
    fi
    if [[ $RMB_DRY_RUN != 1 ]]; then
        rmb_check_output "$RMB_CSV"
        mkdir -p "$RMB_LOG_DIR" || rmb_die "$RMB_OUT: cannot create the results directory"
    fi
}

rmb_quote() { # no subshell per word: dry runs of a campaign quote thousands
    local out="" a q
    for a in "$@"; do printf -v q '%q' "$a"; out+="${out:+ }$q"; done
    printf '%s\n' "$out"
}

rmb_elapsed() { local s=$(( $(date +%s) - RMB_T0 )); printf '%d:%02d' $((s / 60)) $((s % 60)); }

# The launcher words for NP ranks on NODES nodes, in the array RMB_LAUNCH.
rmb_launch_words() { # NODES NP
    local nodes=$1 np=$2 ppn=$(( ($2 + $1 - 1) / $1 ))
    case $RMB_LAUNCHER in
    netem) # ranks spread over the emulated hosts, launched from host 1 (jobs/netem.sh)
        RMB_LAUNCH=("$RMB_ROOT/jobs/netem.sh" launch --name "${RMB_NETEM_NAME:-rmb}" --mpi "$RMB_MPI" -n "$np" --) ;;
    srun)
        # shellcheck disable=SC2206
        RMB_LAUNCH=(srun --mpi="$RMB_SRUN_MPI" -N "$nodes" -n "$np" --ntasks-per-node="$ppn" --kill-on-bad-exit=1 ${RMB_SRUN_ARGS:-}) ;;
    mpirun|local)
        if [[ $RMB_MPI == mpich ]]; then
            RMB_LAUNCH=("${RMB_MPIRUN:-mpirun.mpich}" -n "$np")
            [[ $RMB_LAUNCHER == mpirun ]] && RMB_LAUNCH+=(-ppn "$ppn")
        else
            RMB_LAUNCH=("${RMB_MPIRUN:-mpirun.openmpi}" -n "$np" --bind-to none)
            [[ $RMB_LAUNCHER == mpirun ]] && RMB_LAUNCH+=(--map-by "ppr:$ppn:node")
            [[ $RMB_LAUNCHER == local ]] && RMB_LAUNCH+=(--oversubscribe)
            # ranks beyond this machine's cores share them: Open MPI's own polling yields too. Only
            # for those runs (it slows a lock run with a core per rank several-fold,
            # docs/measurements.md, "From code comments"); rows record it in mpi_env
            [[ $RMB_LAUNCHER == local ]] && (( np > RMB_CORES )) && RMB_LAUNCH+=(-x OMPI_MCA_mpi_yield_when_idle=1)
        fi
        # shellcheck disable=SC2206
        RMB_LAUNCH+=(${RMB_MPIRUN_ARGS:-}) ;;
    esac
}

# Number of data rows in a CSV (0 when absent), and the `ranks` column of the rows after the first SKIP.
rmb_rows() { "$RMB_PYTHON" "$RMB_ROOT/jobs/csvrows.py" count "$1"; }
rmb_new_ranks() { "$RMB_PYTHON" "$RMB_ROOT/jobs/csvrows.py" ranks "$1" "$2"; }

# The world sizes a run's output reports: "# ranks N ..." (join, lock) or "# rmabench CMD: N ranks ..."
# (calibrate), one line per world.
rmb_log_ranks() { # LOG
    sed -n -e 's/^# ranks \([0-9][0-9]*\) .*/\1/p' -e 's/^# rmabench [a-z-]*: \([0-9][0-9]*\) ranks .*/\1/p' "$1"
}

# Did the launcher start one world of NP ranks? Checks the rows the run appended (their `ranks`
# column), or else the world sizes its output reports (rmb_log_ranks). A launcher that starts NP
# singletons (Debian's srun --mpi=pmix with MPICH) gives rows or lines with ranks 1.
rmb_check_world() { # CSV ROWS_BEFORE NP LOG
    local got
    got=$(rmb_new_ranks "$1" "$2" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
    if [[ -z $got ]]; then
        got=$(rmb_log_ranks "$4" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
    fi
    [[ -z $got ]] && return 0
    local bad
    bad=$(rmb_new_ranks "$1" "$2"; rmb_log_ranks "$4")
    bad=$(printf '%s\n' "$bad" | grep -v -x -e "$3" -e '' | head -1)
    if [[ -n $bad ]]; then
        echo "rmabench jobs: WORLD SIZE MISMATCH: asked for $3 ranks, the run reports (count ranks): $got" >&2
        echo "rmabench jobs: the launcher started separate worlds (with MPICH use srun --mpi=pmi2, with Open MPI --mpi=pmix)" >&2
        return 1
    fi
    return 0
}

# Value of --FLAG in an argument list (empty if absent).
rmb_flag() { local f=$1 a prev=""; shift; for a in "$@"; do [[ $prev == "--$f" ]] && { echo "$a"; return; }; [[ $a == --$f=* ]] && { echo "${a#*=}"; return; }; prev=$a; done; }

# rmb_run LABEL NODES NP -- SUBCOMMAND ARGS...   run rmabench under the launcher, record failures.
rmb_run() {
    local label=$1 nodes=$2 np=$3
    shift 4
    RMB_RUN_I=$((RMB_RUN_I + 1))
    # the counting pass checks every run's arguments: a bad value ends the job before anything runs
    # or a dry run prints anything
    if [[ $RMB_COUNTING == 1 ]]; then rmb_args_check "$@"; return 0; fi
    rmb_launch_words "$nodes" "$np"
    local -a cmd=("${RMB_LAUNCH[@]}" "$RMB_BIN" "$@")
    if [[ $RMB_DRY_RUN == 1 ]]; then
        rmb_quote "${cmd[@]}"
        [[ ${RMB_DRY_PLAN:-0} == 1 ]] && rmb_dry_plan "$nodes" "$np" "$@"
        return 0
    fi
    local log
    log=$RMB_LOG_DIR/$(printf '%03d' "$RMB_RUN_I")-${label//[^A-Za-z0-9_.=-]/_}.log
    printf '[run %d of %d, %s elapsed] %s\n' "$RMB_RUN_I" "$RMB_RUN_N" "$(rmb_elapsed)" "$label"
    local before t0 rc status=ok
    rmb_check_output "$log"
    before=$(rmb_rows "$RMB_CSV") || rmb_die "$RMB_CSV: not a results CSV"
    t0=$EPOCHREALTIME
    local s0=$SECONDS
    rmb_quote "${cmd[@]}" >"$log"
    timeout -k 10 "$RMB_RUN_TIMEOUT" "${cmd[@]}" >>"$log" 2>&1 </dev/null
    rc=$?
    # 137 is also a rank killed by SIGKILL (the launcher passes 128 + 9 on): a timeout only when the
    # run took its whole time
    if [[ $rc == 124 ]] || { [[ $rc == 137 ]] && (( SECONDS - s0 >= RMB_RUN_TIMEOUT )); }; then status=timeout
    elif [[ $rc != 0 ]]; then status=failed; fi
    if ! rmb_check_world "$RMB_CSV" "$before" "$np" "$log" 2>>"$log"; then
        status=world-size-mismatch
        [[ $rc == 0 ]] && rc=3
        tail -2 "$log" >&2
    fi
    local dt
    dt=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    if [[ $status == ok ]]; then
        printf '    ok (%s s)%s\n' "$dt" "$(grep -m1 '^verification: FAIL' "$log" >/dev/null && echo ', verification FAIL')"
        return 0
    fi
    RMB_FAILED=$((RMB_FAILED + 1))
    printf '    %s (exit %d, %s s): see %s\n' "${status^^}" "$rc" "$dt" "$log"
    grep -m3 -E '^rmabench|verification: FAIL|rror' "$log" | sed 's/^/    | /'
    local bench=$1 algo verification=NONE
    algo=$(rmb_flag algo "$@")
    # the row agrees with itself: a run that printed a failed verification says FAIL, one that
    # ended before verifying (crash, timeout, wrong world) NONE
    grep -q '^verification: FAIL' "$log" && verification=FAIL
    "$RMB_BIN" record --output "$RMB_CSV" --set bench="$bench" --set status="$status" --set exit_code="$rc" \
        --set verification="$verification" \
        --set ranks="$np" --set hosts="$nodes" --set ranks_per_host=$(( (np + nodes - 1) / nodes )) \
        --set mpi_library="$([[ $RMB_MPI == mpich ]] && echo MPICH || echo "Open MPI")" --set algo="$algo" --set command="$(rmb_quote "${cmd[@]}")" ||
        echo "rmabench jobs: could not record the failed run in $RMB_CSV" >&2
    return 1
}

# Runs, and the commands a dry run prints, take only values rmabench's own parser takes: the arguments
# are parsed (`rmabench SUBCOMMAND ARGS... --help` parses every flag before the --help, and exits 2
# with the flag's line on a bad one) by the build's rmabench where there is one, in rmb_plan's
# counting pass; a bad one ends the job, exit 2, before anything runs or is printed.
rmb_args_check() { # SUBCOMMAND ARGS...
    [[ -x $RMB_BIN ]] || return 0
    [[ ${RMB_DRY_CHECKED:-} == *$'\n'"$*"$'\n'* ]] && return 0 # a campaign repeats commands
    local err
    err=$("$RMB_BIN" "$@" --help 2>&1 >/dev/null) || rmb_die "${err#rmabench: } (in: rmabench $(rmb_quote "$@"))"
    RMB_DRY_CHECKED+=$'\n'"$*"$'\n'
}

# RMB_DRY_PLAN=1 (jobs/submit.sh --campaign thesis): under each dry-run step, what the step would do
# and the memory it needs per rank and per node, from `rmabench SUBCOMMAND --plan` (the planning code
# of the run itself; no ranks launched). --output and --model are a run's, not a plan's: left out.
# RMB_HOST_MEMORY (e.g. 32G, a node's memory) makes the plan judge whether a node holds the step.
rmb_dry_plan() { # NODES NP SUBCOMMAND ARGS...
    local nodes=$1 np=$2 sub=$3 a skip=0
    shift 3
    local -a args=()
    for a in "$@"; do
        if [[ $skip == 1 ]]; then skip=0; continue; fi
        case $a in --output|--model) skip=1 ;; --output=*|--model=*) ;; *) args+=("$a") ;; esac
    done
    [[ $sub == join || $sub == lock ]] || return 0
    if [[ ! -x $RMB_BIN ]]; then echo "    (no plan: $RMB_BIN is not built)"; return 0; fi
    if ! "$RMB_BIN" "$sub" --plan --help >/dev/null 2>&1; then
        # said once per job: every step of it would say the same
        [[ ${RMB_NO_PLAN_SAID:-} == *" $sub "* ]] ||
            echo "    (no plan for the $sub steps: this build has no 'rmabench $sub --plan')"
        RMB_NO_PLAN_SAID="${RMB_NO_PLAN_SAID:- } $sub "
        return 0
    fi
    local -a mem=()
    # only the join plan judges a host of a given size (the lock plan uses this machine's memory)
    [[ -n ${RMB_HOST_MEMORY:-} && $sub == join ]] && mem=(--host-memory "$RMB_HOST_MEMORY")
    "$RMB_BIN" "$sub" --plan --ranks "$np" --ranks-per-host $(( (np + nodes - 1) / nodes )) "${mem[@]}" "${args[@]}" 2>&1 |
        sed 's/^/    | /'
    return 0
}

# Count the runs of the script's `plan` function, then run it.
rmb_plan() {
    RMB_COUNTING=1 RMB_RUN_I=0
    plan
    RMB_RUN_N=$RMB_RUN_I RMB_COUNTING=0 RMB_RUN_I=0
    plan
}

# Does this rmabench build have SUBCOMMAND? (The placeholders say "not built yet".)
rmb_has_command() { # SUBCOMMAND
    [[ $RMB_DRY_RUN == 1 ]] && return 0
    ! "$RMB_BIN" "$1" --help 2>&1 | grep -q 'not built yet'
}

# Figures and report for the given CSVs into DIR (skipped in dry runs).
rmb_render() { # DIR CSV...
    local dir=$1; shift
    local -a cmd=("$RMB_PYTHON" "$RMB_ROOT/plots/rmaplot" report "$@" --out "$dir" "${RMB_FORCE_ARGS[@]}")
    if [[ $RMB_DRY_RUN == 1 ]]; then
        rmb_quote "${cmd[@]}"
        [[ ${RMB_DRY_PLAN:-0} == 1 ]] && rmb_dry_plan "$nodes" "$np" "$@"
        return 0
    fi
    echo "[$(rmb_elapsed) elapsed] rendering figures and report into $dir"
    "${cmd[@]}"
}

# The job's last line; its status is the job's: 1 when any run failed (a failed run is a row with
# status=failed too), else 0.
rmb_finish() {
    [[ $RMB_DRY_RUN == 1 ]] && return 0
    echo "rmabench jobs: $RMB_NAME: $RMB_RUN_N runs, $RMB_FAILED failed, $(rmb_elapsed) elapsed; results in $RMB_OUT"
    (( RMB_FAILED == 0 ))
}

# --- Slurm job scripts -------------------------------------------------------------------------
# rmb_slurm_init NAME: launcher srun by default; RMB_NODES (nodes of the allocation), RMB_PPN (ranks
# per node), RMB_NODE_COUNTS (1 2 4 ... up to the allocation), results in
# $RMB_CAMPAIGN_DIR/job-<jobid>-NAME/, RMB_MODEL_ARGS (--model FILE when calibration left one).
rmb_slurm_init() {
    export RMB_LAUNCHER=${RMB_LAUNCHER:-srun}
    rmb_init "$1"
    RMB_NODES=${SLURM_JOB_NUM_NODES:-${RMB_NODES:-1}}
    local tpn=${SLURM_NTASKS_PER_NODE:-}
    RMB_PPN=${RMB_PPN:-${tpn%%(*}}
    RMB_PPN=${RMB_PPN:-2}
    if [[ -z ${RMB_NODE_COUNTS:-} && -n ${RMB_CORE_COUNTS:-} ]]; then
        # core (rank) counts, as the thesis' figures give them: the node counts that give them
        # at RMB_PPN ranks per node, those within the allocation
        local c
        RMB_NODE_COUNTS=""
        for c in $RMB_CORE_COUNTS; do
            (( c % RMB_PPN == 0 && c / RMB_PPN <= RMB_NODES )) && RMB_NODE_COUNTS+="$((c / RMB_PPN)) "
        done
        RMB_NODE_COUNTS=${RMB_NODE_COUNTS% }
        [[ -n $RMB_NODE_COUNTS ]] || echo "rmabench jobs: RMB_CORE_COUNTS: none of $RMB_CORE_COUNTS fits $RMB_NODES nodes x $RMB_PPN ranks: powers of two up to the allocation instead" >&2
    fi
    if [[ -z ${RMB_NODE_COUNTS:-} ]]; then
        local k=1
        RMB_NODE_COUNTS=""
        while (( k < RMB_NODES )); do RMB_NODE_COUNTS+="$k "; k=$((k * 2)); done
        RMB_NODE_COUNTS+=$RMB_NODES
    fi
    local n
    for n in $RMB_NODE_COUNTS; do
        (( n >= 1 && n <= RMB_NODES )) || rmb_die "RMB_NODE_COUNTS: $n is outside the allocation (1..$RMB_NODES nodes)"
    done
    RMB_CAMPAIGN_DIR=${RMB_CAMPAIGN_DIR:-$RMB_ROOT/results/slurm}
    rmb_results_dir "$RMB_CAMPAIGN_DIR/job-${SLURM_JOB_ID:-dryrun}-$1"
    RMB_MODEL=${RMB_MODEL:-$RMB_CAMPAIGN_DIR/params.txt}
    RMB_MODEL_ARGS=()
    if [[ -s $RMB_MODEL || $RMB_DRY_RUN == 1 ]]; then RMB_MODEL_ARGS=(--model "$RMB_MODEL")
    elif [[ $1 != calibrate ]]; then echo "rmabench jobs: no model parameters at $RMB_MODEL (calibration not run or failed): runs without --model"; fi
    if [[ $RMB_DRY_RUN != 1 ]]; then
        echo "rmabench jobs: $1: job ${SLURM_JOB_ID:-?} on ${SLURM_JOB_NODELIST:-?} ($RMB_NODES nodes, $RMB_PPN ranks/node)," \
             "MPI $RMB_MPI via $RMB_LAUNCHER$([[ $RMB_LAUNCHER == srun ]] && echo " --mpi=$RMB_SRUN_MPI")"
        echo "rmabench jobs: results in $RMB_OUT"
    fi
}

# --- the thesis catalogue (jobs/figure.sh, jobs/slurm/figure.sbatch) ------------------------------
# rmb_catalogue_plan ID SCALE PARAMS [more]: rmb_run every run of the sweep of catalogue entry ID at SCALE
# (local: this machine, one host; slurm: inside the allocation, RMB_PPN ranks per node where the run
# names none, runs beyond the allocation skipped). In a run's arguments @csv becomes --output
# $RMB_CSV, @params PARAMS, @model --model PARAMS once PARAMS exists (dry and counting runs: always).
# At Slurm scale the campaign's calibrate job wrote PARAMS: the sweep's own calibrate runs are skipped.
rmb_catalogue_plan() { # ID SCALE PARAMS [more]
    local id=$1 scale=$2 params=$3 label np ppn args a nodes
    local -a words cmd list=(runs "$id" "$scale")
    # more: the runs `rmaplot catalogue more` asks for after the sweep (jobs/figure.sh)
    [[ ${4:-} == more ]] && list=(more "$id" "$RMB_CSV")
    while IFS=$'\t' read -r -u 3 label np ppn args; do
        [[ $label == "#"* || -z $label ]] && continue
        [[ $scale == slurm && $label == calibrate ]] && continue
        nodes=1
        if [[ $scale == slurm ]]; then
            [[ $ppn == - ]] && ppn=$RMB_PPN
            nodes=$(( (np + ppn - 1) / ppn ))
            if (( nodes > RMB_NODES )); then
                [[ $RMB_COUNTING == 1 ]] || echo "[skip] $label: needs $nodes nodes of $ppn ranks, the allocation has $RMB_NODES"
                continue
            fi
        fi
        read -r -a words <<<"$args"
        cmd=()
        for a in "${words[@]}"; do
            case $a in
            @csv) cmd+=(--output "$RMB_CSV") ;;
            @params) cmd+=("$params") ;;
            @model) [[ -s $params || $RMB_COUNTING == 1 || $RMB_DRY_RUN == 1 ]] && cmd+=(--model "$params") ;;
            *) cmd+=("$a") ;;
            esac
        done
        rmb_run "$label" "$nodes" "$np" -- "${cmd[@]}"
    done 3< <("$RMB_PYTHON" "$RMB_ROOT/plots/rmaplot" catalogue "${list[@]}")
}
