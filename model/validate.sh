#!/bin/bash
# Cross-configuration validation of the models, with a verdict that a shared machine cannot
# overturn (docs/models-validation.md). Per MPI library: calibrate at one small configuration (2
# ranks on this host, a 4M-tuple sample; for the runs on two namespace hosts the transport's
# primitives between them, for the lock runs that crowd the cores their message times as those runs
# place their ranks), then run a matrix of other configurations (both joins at 1M-32M tuples of R
# per rank, ratios 1:1-1:8, 1-4 ranks on this host and 2 or 4 on two namespace hosts; the lock table
# at 4-30 locks per transaction, 1 server/1 agent on this host and across the hosts, and 1/3, 2/2
# and 2/2 across the hosts, which crowd the cores) in rounds: each round runs every configuration
# that still needs runs once (round-robin, so a slow minute of the machine falls on all of them),
# then measures the calibration's primitives again. A configuration needs runs until the odd and
# the even runs of every quantity it is held to agree (model/validate_stats.py), or until its cap,
# after which it is "not judged: the measurement does not repeat". Runs the machine disturbed (steal
# or run delay over a threshold) are repeated, not used, and counted. At the end the calibrations
# are pooled (rmamodel pool: the fastest of each timed parameter), every run is predicted from the
# pool with the state it measured (rmamodel join|lock --shape: its floor, its allocation state), and
# model/validate_table.py prints per configuration the least disturbed run against its prediction,
# the verdicts, the misses and the summary against the targets; it writes validate.csv,
# verdicts.csv and validate.png under the output folder.
#   model/validate.sh [--quick] [--libs "openmpi mpich"] [--out DIR] [--no-hosts] [--max-rounds N]
#                     [--max-steal F] [--max-run-delay F] [--matrix FILE] [--force]
# An --out that holds an earlier run's files is refused unless --force replaces them.
# --matrix FILE: the configurations to validate instead of the matrix below, one a line, "join HOSTS
# RANKS TUPLES_PER_RANK RATIO" or "lock HOSTS SERVERS AGENTS REMOTE_PROB LOCKS_PER_TXN" (HOSTS 1 or 2).
# --max-steal, --max-run-delay: the shares of a run's time over which it counts as disturbed
# (defaults 0.05 and 0.10; model/validate_stats.py). --quick: a small matrix of tiny sizes on this host only, two rounds (for the tests: mechanics, not
# accuracy). Two validations' verdicts side by side: python3 model/validate_table.py --compare OUT_A OUT_B.
# Build folders: build (Open MPI) and build-mpich (MPICH), or RMB_BUILD_openmpi / RMB_BUILD_mpich
# (rmabench and rmamodel of each); a library whose rmabench is not built is skipped with a note.
# The namespace hosts share this machine's cores: each "host" is given cores_per_host = cores / 2 in
# the parameters the runs on two hosts read. Needs root for the namespaces.
set -u
usage='[--quick] [--libs "openmpi mpich"] [--out DIR] [--no-hosts] [--max-rounds N] [--max-steal F] [--max-run-delay F] [--matrix FILE] [--force]'
quick=0 libs="openmpi mpich" out="" use_hosts=1 max_rounds="" matrix="" force=0
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --quick) quick=1 ;;
    --no-hosts) use_hosts=0 ;;
    --force) force=1 ;;
    --libs) case ${2-} in '' | --*) echo "validate.sh: --libs: needs a value" >&2; exit 2 ;; esac; libs=$2; shift ;;
    --out) case ${2-} in '' | --*) echo "validate.sh: --out: needs a value" >&2; exit 2 ;; esac; out=$2; shift ;;
    --max-rounds)
        [ $# -ge 2 ] || { echo "validate.sh: --max-rounds: needs a value" >&2; exit 2; }
        case $2 in '' | *[!0-9]* | 0) echo "validate.sh: --max-rounds: '$2' is not a positive count" >&2; exit 2 ;; esac
        max_rounds=$2; shift ;;
    --matrix)
        [ $# -ge 2 ] || { echo "validate.sh: --matrix: needs a file" >&2; exit 2; }
        matrix=$2
        [ -f "$matrix" ] && [ -r "$matrix" ] || { echo "validate.sh: --matrix: $matrix is not a readable file" >&2; exit 2; }
        bad=$(grep -vnE '^(join [12] [1-9][0-9]* [0-9]+[KMG]? [1-9][0-9]*|lock [12] [1-9][0-9]* [1-9][0-9]* [01](\.[0-9]+)? [1-9][0-9]*|#.*|)$' "$matrix" | head -1)
        [ -z "$bad" ] || { echo "validate.sh: --matrix: $matrix:${bad%%:*}: expected 'join HOSTS RANKS TUPLES RATIO' or 'lock HOSTS SERVERS AGENTS REMOTE_PROB LOCKS'" >&2; exit 2; }
        shift ;;
    --max-steal | --max-run-delay)
        [ $# -ge 2 ] || { echo "validate.sh: $1: needs a value" >&2; exit 2; }
        case $2 in 0.* | 1 | 1.0) ;; *) echo "validate.sh: $1: '$2' is not a share of the run's time (0 to 1)" >&2; exit 2 ;; esac
        if [ "$1" = --max-steal ]; then export RMB_VALIDATE_MAX_STEAL=$2; else export RMB_VALIDATE_MAX_RUN_DELAY=$2; fi
        shift ;;
    *) echo "validate.sh: $1: unknown argument (usage: model/validate.sh $usage)" >&2; exit 2 ;;
    esac
    shift
done
for lib in $libs; do
    case $lib in openmpi | mpich) ;; *) echo "validate.sh: --libs: '$lib' is not openmpi or mpich" >&2; exit 2 ;; esac
done
cd "$(dirname "$0")/.." || exit 2
root=$PWD
out=${out:-results/validate-$(date -u +%Y%m%dT%H%M%SZ)}
if [ -d "$out" ] && [ $force = 0 ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
    echo "validate.sh: --out: $out holds an earlier run's files; give --force to replace them" >&2
    exit 2
fi
mkdir -p "$out" || { echo "validate.sh: --out: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cores=$(nproc)

# --- the matrix ------------------------------------------------------------------------------------
# Windows on 4 KiB pages (MPI_Win_create on MPI_Alloc_mem) in the calibration and in every join, not
# --window auto's pick: on a virtual machine that reports free memory to its host, 2 MiB pages cost several
# times more when they come back through the host than when the kernel reuses them at once, and
# which one a run meets is set by the whole machine's frees (docs/models-validation.md); 4 KiB
# pages differ less. The state a run
# met is in its row either way (alloc_regime), and window allocation is held to the model only in a
# state the calibration saw.
window=(--window create)
# Every join allocates its windows (the thesis' lifetime, not --window-life pool's reuse): window
# allocation and the state of fresh memory it met are part of what is validated in every run; the
# lifetimes' steady state has its own command (jobs/window_life.sh, docs/window-lifetimes.md).
life=(--window-life join)
# joins: "HOSTS RANKS TUPLES_PER_RANK RATIO"; locks: "HOSTS SERVERS AGENTS REMOTE_PROB LOCKS_PER_TXN"
if [ $quick = 1 ]; then
    use_hosts=0
    cal_args=(--tuples 64K --tuples-per-rank 100K --repeats 1 --rounds 1 --membw-bytes 16M --put-bytes 1M)
    recal_args=("${cal_args[@]}")
    joins=("1 2 100K 2")
    locks=("1 1 1 0 10")
    join_flags=("${life[@]}") lock_duration=0.3s
    max_rounds=${max_rounds:-2}
else
    # 5 rounds at the start: every primitive's fastest repetition of them (rmabench calibrate); one
    # between the rounds of the matrix, pooled with the others at the end
    cal_args=(--tuples 4M --tuples-per-rank 8M --rounds 5 "${window[@]}")
    recal_args=(--tuples 4M --tuples-per-rank 8M --rounds 1 "${window[@]}")
    joins=("1 1 2M 1" "1 1 8M 4" "1 2 1M 1" "1 2 2M 8" "1 2 8M 1" "1 2 16M 2" "1 2 32M 1" "1 4 1M 4" "1 4 2M 1"
           "2 2 2M 1" "2 2 8M 2" "2 4 1M 1")
    # the first four fit the cores (judged); the others crowd them (reported)
    locks=("1 1 1 0 10" "1 1 1 0 4" "1 1 1 0 30" "2 1 1 1 10" "1 1 3 0 10" "1 2 2 0 10" "2 2 2 0.5 10")
    join_flags=(--warmup 1 "${window[@]}" "${life[@]}") lock_duration=0.5s
    max_rounds=${max_rounds:-8}
fi
if [ -n "$matrix" ]; then
    mapfile -t joins < <(sed -n 's/^join //p' "$matrix")
    mapfile -t locks < <(sed -n 's/^lock //p' "$matrix")
fi

# --- two hosts -------------------------------------------------------------------------------------
netem=$root/jobs/netem.sh
net=(--name "val$$")
export RMB_NETEM_STATE=$out/netem
trap '"$netem" down "${net[@]}" >/dev/null 2>&1' EXIT
trap 'exit 1' INT TERM
if [ $use_hosts = 1 ]; then
    "$netem" up --hosts 2 "${net[@]}" >"$out/netns.txt" 2>&1
    rc=$?
    if [ $rc != 0 ]; then
        echo "note: two hosts not available ($(tail -1 "$out/netns.txt")): this host only"
        "$netem" down "${net[@]}" >/dev/null 2>&1
        use_hosts=0
    fi
fi

# repeats_for TUPLES RATIO: runs of a join configuration per invocation (2 to 6, 1 with --quick:
# two with --quick so that one invocation has an odd and an even run): small runs are short, and
# the adaptive rounds add invocations where they do not yet repeat
repeats_for() {
    [ $quick = 1 ] && { echo 2; return; }
    local n=${1%[KMG]} u=${1: -1}
    case $u in K) n=$((n * 1000)) ;; M) n=$((n * 1000000)) ;; G) n=$((n * 1000000000)) ;; *) n=$1 ;; esac
    local r=$(((32 * 1000000) / (n * (1 + $2))))
    echo $((r < 2 ? 2 : r > 6 ? 6 : r))
}

# crowded HOSTS RANKS: true when RANKS ranks on one host outnumber its cores (they share them)
crowded() { [ "$1" = 1 ] && [ "$2" -gt "$cores" ]; }

# launch LIB HOSTS RANKS: the launcher of RANKS ranks on one host or on the two namespace hosts
launch() {
    if [ "$2" = 2 ]; then
        # jobs/netem.sh: mpirun from host 1, half the ranks on each host; oversubscribed ranks yield
        cmd=(env OMPI_MCA_mpi_yield_when_idle=1 "$netem" launch "${net[@]}" --mpi "$1" -n "$3" --per-host $(($3 / 2)) --)
    elif [ "$1" = mpich ]; then
        cmd=(mpirun.mpich -n "$3")
    elif crowded "$2" "$3"; then
        # ranks beyond the cores share them: Open MPI's own polling yields too, as in jobs/lib.sh
        cmd=(env OMPI_MCA_mpi_yield_when_idle=1 mpirun.openmpi -n "$3")
    else
        cmd=(mpirun.openmpi -n "$3")
    fi
}

# a run with a time limit; MPICH over TCP may not leave MPI_Finalize (tests/jobs/multihost_test.sh):
# the rows it wrote before count
run() {
    local limit=$1 log=$2; shift 2
    echo "+ $*" >>"$log"
    timeout -k 5 "$limit" "$@" >>"$log" 2>&1 || echo "  (exit $? — see $log)"
}

# derive DIR: DIR's params.txt with the primitives measured where the runs on two hosts and the
# crowded lock runs run, replaced (model/params_merge.py): DIR/params-2hosts.txt, params-2hosts-lock.txt,
# params-crowded.txt, from $d's transport-2hosts.txt, lock-2hosts.txt, lock-crowded.txt. Between the
# namespace hosts Open MPI's one-sided layer is pt2pt over TCP, not the shared-memory osc rdma of one
# host, so one host's round trips do not carry over; the local answer's time and the cores' sharing
# of one host's calibration do not hold there either (dropped).
derive() {
    local to=$1 merge=$root/model/params_merge.py
    if [ -s "$d/transport-2hosts.txt" ]; then
        /usr/bin/python3 "$merge" --require bw_host --drop 't_clean_up_local|comm_ranks_per_core' "$to/params.txt" "$d/transport-2hosts.txt" \
            'bw_host|net_overlap|bw_put_\w+|t_local_comm|t_remote_comm|t_shared_remote_comm|t_vote|t_clean_up|t_ack|t_server|t_fao_\w+' \
            >"$to/params-2hosts.txt" || { echo "  no transport parameters between the hosts: see $d/calibrate-2hosts.txt"; rm -f "$to/params-2hosts.txt"; }
    fi
    if [ -s "$d/lock-2hosts.txt" ] && [ -s "$to/params-2hosts.txt" ]; then
        /usr/bin/python3 "$merge" --require t_clean_up_local "$to/params-2hosts.txt" "$d/lock-2hosts.txt" \
            't_local_comm|t_remote_comm|t_shared_comm|t_shared_remote_comm|t_vote|t_clean_up|t_clean_up_local|t_server|t_ack|t_fao_\w+|comm_ranks_per_core' \
            >"$to/params-2hosts-lock.txt" || { echo "  no lock parameters on the hosts: see $d/calibrate-2hosts-lock.txt"; rm -f "$to/params-2hosts-lock.txt"; }
    fi
    if [ -s "$d/lock-crowded.txt" ]; then
        /usr/bin/python3 "$merge" --require comm_ranks_per_core "$to/params.txt" "$d/lock-crowded.txt" \
            't_local_comm|t_shared_comm|t_vote|t_clean_up|t_server|t_ack|t_fao_\w+|comm_ranks_per_core' \
            >"$to/params-crowded.txt" || { echo "  no lock parameters with ranks sharing cores: see $d/calibrate-crowded.txt"; rm -f "$to/params-crowded.txt"; }
    fi
}

# calibrate_places LIB: the calibrations of the places the matrix runs beside the one host (below)
calibrate_places() {
    local lib=$1 small=(--tuples 64K --rounds 1 --repeats 3 --membw-bytes 16M "${window[@]}")
    if [ $use_hosts = 1 ]; then
        echo "   the transport between the namespace hosts: 1 rank on each"
        launch "$lib" 2 2
        run 600 "$d/calibrate-2hosts.txt" "${cmd[@]}" "$bin" calibrate "${small[@]}" --output "$d/transport-2hosts.txt"
        # Open MPI yields in its progress on these crowded hosts: the message times of the lock runs
        # that place 2 ranks on each host, measured as they place them (comm_ranks_per_core). (MPICH:
        # its idle ranks spin in the calibration's waits, votes and acknowledgements milliseconds long that
        # its lock runs do not see; it keeps the pair of one rank per host.)
        if [ "$lib" = openmpi ]; then
            echo "   the lock's messages on the namespace hosts: 2 ranks on each"
            launch "$lib" 2 4
            run 600 "$d/calibrate-2hosts-lock.txt" "${cmd[@]}" "$bin" calibrate "${small[@]}" --output "$d/lock-2hosts.txt"
        fi
    fi
    # Open MPI yields in its own progress when ranks outnumber cores (launch): the lock runs that
    # share this host's cores take their message times from a calibration with as many ranks placed
    # as they are (unbound, every pair ping-ponging at once, Open MPI yielding: comm_ranks_per_core)
    local most=0 c
    for c in "${locks[@]}"; do
        set -- $c
        crowded "$1" $(($2 + $3)) && [ $(($2 + $3)) -gt $most ] && most=$(($2 + $3))
    done
    if [ "$lib" = openmpi ] && [ $most -gt 0 ]; then
        echo "   the lock's messages with $most ranks on this host's $cores cores"
        launch "$lib" 1 $most
        run 300 "$d/calibrate-crowded.txt" "${cmd[@]}" "$bin" calibrate "${small[@]}" --output "$d/lock-crowded.txt"
    fi
}

# run_config LINE: one invocation of a matrix line ("join ..." or "lock ..."), appended to runs.txt
run_config() {
    set -- $1
    local kind=$1 p=$d/params.txt
    shift
    [ "$1" = 2 ] && { [ $use_hosts = 1 ] && [ -s "$d/params-2hosts.txt" ] || return 0; p=$d/params-2hosts.txt; }
    if [ "$kind" = join ]; then
        echo "   join: $1 host(s), $2 ranks, $3 tuples of R per rank, 1:$4"
        launch "$lib" "$1" "$2"
        # 300 s: the largest invocation takes about a minute; MPICH 4.0.2 over TCP now and then hangs
        # in MPI_Finalize after its rows are written (docs/platform.md): the runs on two hosts,
        # all small, are cut at 150 s, and the rows they wrote count
        run $([ "$1" = 2 ] && echo 150 || echo 300) "$d/joins.txt" "${cmd[@]}" "$bin" join --algo both --tuples-per-rank "$3" --ratio "$4" "${join_flags[@]}" \
            --repeat "$(repeats_for "$3" "$4")" --model "$p" --output "$d/joins.csv"
    else
        local ranks=$(($2 + $3))
        [ "$1" = 2 ] && [ $ranks -gt 2 ] && [ -s "$d/params-2hosts-lock.txt" ] && p=$d/params-2hosts-lock.txt
        crowded "$1" $ranks && [ -s "$d/params-crowded.txt" ] && p=$d/params-crowded.txt
        echo "   lock: $1 host(s), $2 server(s), $3 agent(s), remote probability $4, $5 locks per transaction"
        launch "$lib" "$1" $ranks
        run 45 "$d/lock.txt" "${cmd[@]}" "$bin" lock --workload synthetic --servers "$2" --remote-prob "$4" --locks-per-txn "$5" \
            --duration "$lock_duration" --model "$p" --output "$d/lock.csv"
    fi
    echo "$kind $*" >>"$d/runs.txt"
}

# pool_calibrations: every calibration of the one host pooled (rmamodel pool) into $d/pooled/, the
# files derived from it, and one pool per state of the floor the calibrations met (the lock runs
# take the one of their state: validate_table.py)
pool_calibrations() {
    local all=("$d/params.txt") state f n
    shopt -s nullglob
    all+=("$d"/cal/cal-*.txt)
    shopt -u nullglob
    mkdir -p "$d/pooled"
    "$model" pool --output "$d/pooled/params.txt" "${all[@]}" >/dev/null || { echo "  the calibrations did not pool"; return 1; }
    local counts=""
    for state in fast slow; do
        mapfile -t f < <(/usr/bin/python3 "$root/model/validate_table.py" --floor-state "$state" "${all[@]}")
        n=${#f[@]}
        [ "$n" -gt 0 ] && "$model" pool --output "$d/pooled/params-floor-$state.txt" "${f[@]}" >/dev/null
        counts+="${counts:+, }$n $state"
    done
    derive "$d/pooled"
    echo "   pooled ${#all[@]} calibrations (floor states: $counts)"
}

for lib in $libs; do
    var=RMB_BUILD_$lib
    build=${!var:-$([ $lib = mpich ] && echo build-mpich || echo build)}
    case $build in /*) ;; *) build=$root/$build ;; esac
    bin=$build/rmabench model=$build/rmamodel
    if [ ! -x "$bin" ] || [ ! -x "$model" ]; then
        echo "note: $lib: $bin or $model is not built: skipped"
        continue
    fi
    d=$out/$lib
    mkdir -p "$d"
    rm -rf "$d/joins.csv" "$d/lock.csv" "$d"/*.txt "$d/cal" "$d/pooled" # one validation's files only
    mkdir -p "$d/cal"
    echo "== $lib: calibrate: 2 ranks on this host, ${cal_args[*]}"
    launch "$lib" 1 2
    run 600 "$d/calibrate.txt" "${cmd[@]}" "$bin" calibrate "${cal_args[@]}" --output "$d/params.txt"
    [ -s "$d/params.txt" ] || { echo "  calibration failed: see $d/calibrate.txt"; continue; }
    echo "1 2 ${cal_args[1]}" >"$d/calibrated.txt"
    calibrate_places "$lib"
    derive "$d"
    for c in "${joins[@]}"; do echo "join $c"; done >"$d/matrix.txt"
    for c in "${locks[@]}"; do echo "lock $c"; done >>"$d/matrix.txt"
    [ $use_hosts = 1 ] || sed -i '/^[a-z]* 2 /d' "$d/matrix.txt"
    for round in $(seq "$max_rounds"); do
        mapfile -t todo < <(/usr/bin/python3 "$root/model/validate_table.py" --pending "$out" "$lib")
        [ ${#todo[@]} -gt 0 ] || break
        echo "   round $round: ${#todo[@]} configuration(s) need runs"
        for c in "${todo[@]}"; do run_config "$c"; done
        # the calibration's primitives again: pooled with the others, it meets the states this
        # round's runs met
        launch "$lib" 1 2
        run 600 "$d/calibrate-rounds.txt" "${cmd[@]}" "$bin" calibrate "${recal_args[@]}" --output "$d/cal/cal-$round.txt"
    done
    pool_calibrations
done
/usr/bin/python3 "$root/model/validate_table.py" "$out" "${model:-}" | tee "$out/validate.txt"
status=${PIPESTATUS[0]}
echo "results in $out"
exit "$status"
