#!/bin/bash
# Cross-configuration validation of the models: per MPI library, calibrate ONCE at one small
# configuration (2 ranks on this host, a 4M-tuple sample), then predict and measure a matrix of other configurations with `rmabench join --model` (both
# joins; sizes 1M-32M tuples of R per rank, ratios 1:1-1:8, 1-4 ranks on this host, 2 and 4 ranks
# on two namespace hosts) and `rmabench lock --model` (1 server/1 agent, 1/3, 2/2 on this host,
# 2/2 across the two hosts with remote locks), three times over (rounds; each entry is the median
# of all its runs). None of the matrix is the calibration's
# configuration (its sample size is not in the matrix). After the matrix the same calibration runs
# once more (params-end.txt, not used for any prediction): the change of each measured parameter
# between the two is the machine's drift while the matrix ran, printed beside the summary, so that
# a miss within that drift can be told from a model's. The runs on two hosts add the transport's
# primitives measured between the namespace hosts (one rank on each: bw_host, the put curve, the
# round trips): there Open MPI's one-sided layer is pt2pt over TCP, also within a host, not the
# shared-memory osc rdma of the one-host runs, so one host's round trips do not carry over. The lock
# runs with more ranks than cores (Open MPI yields in its own progress there) take their message
# times from a second calibration with as many ranks on this host (lock-crowded.txt), Open MPI's
# lock runs on the two hosts from a third with 2 ranks on each host (lock-2hosts.txt; both record
# comm_ranks_per_core, so the model does not stretch them again). Prints one table (configuration, phase,
# predicted, measured, error; each miss with its rounds spread) and a summary line, and writes validate.csv and validate.png
# (measured against predicted, log-log, the 1:1 line and a +-15% band) under the output folder.
#   model/validate.sh [--quick] [--libs "openmpi mpich"] [--out DIR] [--no-hosts] [--force]
# An --out that holds an earlier run's files is refused unless --force replaces them.
# --quick: a small matrix of tiny sizes on this host only (for the tests: mechanics, not accuracy).
# Build folders: build (Open MPI) and build-mpich (MPICH), or RMB_BUILD_openmpi / RMB_BUILD_mpich;
# a library whose rmabench is not built is skipped with a note. The namespace hosts share this
# machine's cores: each "host" is given cores_per_host = cores / 2 in the parameters the runs on two
# hosts read (the calibration's file is kept as written). Needs root for the namespaces.
set -u
usage='[--quick] [--libs "openmpi mpich"] [--out DIR] [--no-hosts] [--force]'
quick=0 libs="openmpi mpich" out="" use_hosts=1 force=0
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --quick) quick=1 ;;
    --no-hosts) use_hosts=0 ;;
    --force) force=1 ;;
    --libs) case ${2-} in '' | --*) echo "validate.sh: --libs: needs a value" >&2; exit 2 ;; esac; libs=$2; shift ;;
    --out) case ${2-} in '' | --*) echo "validate.sh: --out: needs a value" >&2; exit 2 ;; esac; out=$2; shift ;;
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
# --window auto's pick: on a virtual machine that reports free memory to its host ("Free page
# reporting enabled") 2 MiB pages freed a second or more ago come back through the host at several
# times the cost of pages reused at once, while 4 KiB pages cost the same either way. Whether a
# join's windows find reused pages is then the timing of the host's reporting, not the
# configuration, and the model cannot predict it (docs/measurements.md, "From code comments").
window=(--window create)
# joins: "HOSTS RANKS TUPLES_PER_RANK RATIO"; lock: "HOSTS SERVERS AGENTS REMOTE_PROB"
if [ $quick = 1 ]; then
    use_hosts=0
    cal_args=(--tuples 64K --tuples-per-rank 100K --repeats 1 --rounds 1 --membw-bytes 16M --put-bytes 1M)
    joins=("1 2 100K 2")
    locks=("1 1 1 0")
    join_flags=() lock_duration=0.3s
else
    # 5 rounds: with 3 the compute rates' medians move too much between rounds on a shared virtual
    # machine (docs/measurements.md, "From code comments")
    cal_args=(--tuples 4M --tuples-per-rank 8M --rounds 5 "${window[@]}")
    joins=("1 1 2M 1" "1 1 8M 4" "1 2 1M 1" "1 2 2M 8" "1 2 8M 1" "1 2 16M 2" "1 2 32M 1" "1 4 1M 4" "1 4 2M 1"
           "2 2 2M 1" "2 2 8M 2" "2 4 1M 1")
    locks=("1 1 1 0" "1 1 3 0" "1 2 2 0" "2 2 2 0.5")
    # repeats per configuration: repeats_for below (a 1M-tuple run is short, and a median of two
    # such runs is noisy; docs/measurements.md, "From code comments")
    join_flags=(--warmup 1 "${window[@]}") lock_duration=2s
fi
# The matrix is run `rounds` times over, each configuration's repeats split between the rounds,
# and every table entry is the median over all of its runs: a machine's slow spell (a virtual
# machine's lasts seconds to minutes; docs/measurements.md, "From code comments") then falls on
# all configurations alike instead of on one.
rounds=3
[ $quick = 1 ] && rounds=1

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

# repeats_for TUPLES RATIO: runs per join configuration and round, so that each configuration takes
# about as many tuples as 64M per rank over all rounds (3 to 15, split between the rounds; 1 with
# --quick): small runs are short, and a shared machine's hiccup is a large part of them
repeats_for() {
    [ $quick = 1 ] && { echo 1; return; }
    local n=${1%[KMG]} u=${1: -1}
    case $u in K) n=$((n << 10)) ;; M) n=$((n << 20)) ;; G) n=$((n << 30)) ;; *) n=$1 ;; esac
    local r=$(((64 << 20) / (n * (1 + $2))))
    r=$((r < 3 ? 3 : r > 15 ? 15 : r))
    echo $(((r + rounds - 1) / rounds)) # per round
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
        # (the model's oversubscription term is time sharing, not ranks spinning through their slices)
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

# params_for HOSTS: p = the parameter file of runs on HOSTS hosts; false when two are not available
params_for() {
    [ "$1" = 2 ] && [ $use_hosts = 0 ] && return 1
    p=$d/params.txt
    [ "$1" = 2 ] && p=$d/params-2hosts.txt
    return 0
}

for lib in $libs; do
    var=RMB_BUILD_$lib
    build=${!var:-$([ $lib = mpich ] && echo build-mpich || echo build)}
    case $build in /*) bin=$build/rmabench ;; *) bin=$root/$build/rmabench ;; esac
    if [ ! -x "$bin" ]; then
        echo "note: $lib: $bin is not built: skipped"
        continue
    fi
    d=$out/$lib
    mkdir -p "$d"
    rm -f "$d/joins.csv" "$d/lock.csv"
    rm -f "$d"/*.txt  # params-end.txt too: a drift is only of this run's two calibrations
    echo "== $lib: calibrate once: 2 ranks on this host, ${cal_args[*]}"
    launch "$lib" 1 2
    run 600 "$d/calibrate.txt" "${cmd[@]}" "$bin" calibrate "${cal_args[@]}" --output "$d/params.txt"
    [ -s "$d/params.txt" ] || { echo "  calibration failed: see $d/calibrate.txt"; continue; }
    echo "1 2 ${cal_args[1]}" >"$d/calibrated.txt"
    if [ $use_hosts = 1 ]; then
        echo "   the transport between the namespace hosts: 1 rank on each"
        launch "$lib" 2 2
        run 600 "$d/calibrate-2hosts.txt" "${cmd[@]}" "$bin" calibrate --tuples 64K --rounds 1 --repeats 3 --membw-bytes 16M "${window[@]}" \
            --output "$d/transport-2hosts.txt"
        # one host's parameters with the transport's replaced (and the local answer's time and the
        # cores' sharing of one host's lock calibration left out: they do not hold between these
        # hosts); that the namespace hosts share this machine's cores and memory the runs see
        # themselves (bench_ctx.ranks_per_machine: the models' oversubscription and P_*_alone count
        # all of the machine's ranks)
        /usr/bin/python3 "$root/model/params_merge.py" --require bw_host --drop 't_clean_up_local|comm_ranks_per_core' \
            "$d/params.txt" "$d/transport-2hosts.txt" \
            'bw_host|net_overlap|bw_put_\w+|t_local_comm|t_remote_comm|t_shared_remote_comm|t_vote|t_clean_up|t_ack|t_server|t_fao_\w+' \
            >"$d/params-2hosts.txt" || echo "  no transport parameters between the hosts: see $d/calibrate-2hosts.txt"
        # Open MPI yields in its progress on these crowded hosts, and its one-sided layer between
        # them is pt2pt, within a host too: the lock's message times, measured as its runs place
        # their ranks (2 per host, on the machine's cores), hold as measured (comm_ranks_per_core),
        # and an answer on the host (t_clean_up_local) costs a quarter of one to the other host.
        # (MPICH: its idle ranks spin in the calibration's waits, long votes and acknowledgements
        # that its lock runs do not see; it keeps the pair of one rank per host.)
        if [ $lib = openmpi ] && [ -s "$d/params-2hosts.txt" ]; then
            echo "   the lock's messages on the namespace hosts: 2 ranks on each"
            launch "$lib" 2 4
            run 600 "$d/calibrate-2hosts-lock.txt" "${cmd[@]}" "$bin" calibrate --tuples 64K --rounds 1 --repeats 3 --membw-bytes 16M "${window[@]}" \
                --output "$d/lock-2hosts.txt"
            /usr/bin/python3 "$root/model/params_merge.py" --require t_clean_up_local "$d/params-2hosts.txt" "$d/lock-2hosts.txt" \
                't_local_comm|t_remote_comm|t_shared_comm|t_shared_remote_comm|t_vote|t_clean_up|t_clean_up_local|t_server|t_ack|t_fao_\w+|comm_ranks_per_core' \
                >"$d/params-2hosts-lock.txt" || { echo "  no lock parameters on the hosts: see $d/calibrate-2hosts-lock.txt"; rm -f "$d/params-2hosts-lock.txt"; }
        fi
    fi
    # Open MPI yields in its own progress when ranks outnumber cores (launch): every flush gives the
    # core up. The lock runs that share this host's cores take their message times from a
    # calibration with as many ranks, placed as they are (unbound, every pair ping-ponging at once,
    # Open MPI yielding: comm_ranks_per_core), as the 2-host lock runs do: a pair pinned to one core
    # (t_shared_comm) reads shorter message times than 4 ranks on 2 cores, which the crowded lock
    # runs match (docs/measurements.md, "From code comments"; docs/models.md, cross-configuration
    # validation)
    crowded_ranks=0
    for c in "${locks[@]}"; do
        set -- $c
        crowded "$1" $(($2 + $3)) && [ $(($2 + $3)) -gt $crowded_ranks ] && crowded_ranks=$(($2 + $3))
    done
    if [ $lib = openmpi ] && [ $crowded_ranks -gt 0 ]; then
        echo "   the lock's messages with $crowded_ranks ranks on this host's $cores cores"
        launch "$lib" 1 $crowded_ranks
        run 300 "$d/calibrate-crowded.txt" "${cmd[@]}" "$bin" calibrate --tuples 64K --rounds 1 --repeats 3 --membw-bytes 16M "${window[@]}" \
            --output "$d/lock-crowded.txt"
        /usr/bin/python3 "$root/model/params_merge.py" --require comm_ranks_per_core "$d/params.txt" "$d/lock-crowded.txt" \
            't_local_comm|t_shared_comm|t_vote|t_clean_up|t_server|t_ack|t_fao_\w+|comm_ranks_per_core' \
            >"$d/params-crowded.txt" || { echo "  no lock parameters with ranks sharing cores: see $d/calibrate-crowded.txt"; rm -f "$d/params-crowded.txt"; }
    fi
    for round in $(seq "$rounds"); do
        [ "$rounds" = 1 ] || echo "   round $round of $rounds"
        for c in "${joins[@]}"; do
            set -- $c
            params_for "$1" || continue
            echo "   join: $1 host(s), $2 ranks, $3 tuples of R per rank, 1:$4"
            launch "$lib" "$1" "$2"
            # 300 s: the largest invocation takes about a minute; MPICH 4.0.2 over TCP now and then
            # hangs in MPI_Finalize after its rows are written (docs/platform.md)
            run 300 "$d/joins.txt" "${cmd[@]}" "$bin" join --algo both --tuples-per-rank "$3" --ratio "$4" "${join_flags[@]}" \
                --repeat "$(repeats_for "$3" "$4")" \
                --model "$p" --output "$d/joins.csv"
        done
        for c in "${locks[@]}"; do
            set -- $c
            params_for "$1" || continue
            [ "$1" = 2 ] && [ -s "$d/params-2hosts-lock.txt" ] && p=$d/params-2hosts-lock.txt
            echo "   lock: $1 host(s), $2 server(s), $3 agent(s), remote probability $4"
            launch "$lib" "$1" $(($2 + $3))
            crowded "$1" $(($2 + $3)) && [ -s "$d/params-crowded.txt" ] && p=$d/params-crowded.txt
            run 120 "$d/lock.txt" "${cmd[@]}" "$bin" lock --workload synthetic --servers "$2" --remote-prob "$4" \
                --duration "$lock_duration" --model "$p" --output "$d/lock.csv"
        done
    done
    echo "   calibrate again after the matrix: the machine's drift (no prediction uses it)"
    launch "$lib" 1 2
    run 600 "$d/calibrate-end.txt" "${cmd[@]}" "$bin" calibrate "${cal_args[@]}" --output "$d/params-end.txt"
done
/usr/bin/python3 "$root/model/validate_table.py" "$out" | tee "$out/validate.txt"
status=${PIPESTATUS[0]}
echo "results in $out"
exit "$status"
