#!/bin/bash
# Window lifetimes and flavours: the acceptance series of docs/window-lifetimes.md (a benchmark,
# not a test). Runs alternate (A, B, C, A, B, C, ...) so that the machine's state falls on every
# configuration alike; every run is verified and appended to one CSV; the tables come from it.
#   jobs/window_life.sh flavours|lifetimes|puts|all [--rounds N] [--tuples T] [--queries Q] [--ranks P]
#                       [--mpi openmpi|mpich|both] [--out DIR]
# flavours   the default (--window auto, --window-life pool) against each forced --window (allocate,
#            create, create-huge), one query each: total, window_alloc, and how far the default is
#            from the best forced flavour (the target: at most 20% slower)
# lifetimes  --window-life join, pool and dynamic with --queries Q (default 10), radix and sort-merge
#            in invocations of their own: the first query and the steady state (queries 2..Q) apart,
#            their spread, window_alloc and its page faults, the put time, the steady state against
#            the same runs without window_alloc (the target under pool: within 1.2x, spread <= 10%),
#            and the share of window_alloc beside the thesis' (Table 4.2: 0.21 of 4.34 s)
# puts       what a put costs through a dynamic window against an allocated one: --window allocate
#            (MPI_Win_allocate windows; under dynamic an MPI_Alloc_mem arena) with --window-life
#            pool and dynamic, --queries Q, both joins: the steady state's put and flush times and
#            the pass that puts (radix network_partition, sort-merge sort)
# Defaults: 3 rounds, 16M tuples per rank, 2 ranks, both MPI libraries (build/ and build-mpich/),
# DIR = a new directory under /tmp. The load of the machine is printed before and after: on a
# machine others use, take the figures as noisy and compare only within one series.
set -u
what=${1:-}
[[ $what == -h || $what == --help ]] && { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }
case $what in flavours | lifetimes | puts | all) shift ;; *) echo "window_life.sh: the first argument is flavours, lifetimes, puts or all" >&2; exit 2 ;; esac
rounds=3 tuples=16M queries=10 ranks=2 libs="openmpi mpich" out=""
root=$(cd "$(dirname "$0")/.." && pwd)
while [[ $# -gt 0 ]]; do
    case $1 in
    --rounds) rounds=${2:?--rounds needs a number}; shift ;;
    --tuples) tuples=${2:?--tuples needs a count}; shift ;;
    --queries) queries=${2:?--queries needs a number}; shift ;;
    --ranks) ranks=${2:?--ranks needs a number}; shift ;;
    --mpi) case ${2:-} in openmpi | mpich) libs=$2 ;; both) libs="openmpi mpich" ;;
           *) echo "window_life.sh: --mpi: '${2:-}' is not openmpi, mpich or both" >&2; exit 2 ;; esac; shift ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    *) echo "window_life.sh: $1: unknown flag (--help)" >&2; exit 2 ;;
    esac
    shift
done
[[ $rounds =~ ^[1-9][0-9]*$ && $queries =~ ^[1-9][0-9]*$ && $ranks =~ ^[1-9][0-9]*$ ]] ||
    { echo "window_life.sh: --rounds, --queries and --ranks take positive numbers" >&2; exit 2; }
out=${out:-$(mktemp -d /tmp/rmb-window-life.XXXXXX)}
mkdir -p "$out" || exit 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 HWLOC_HIDE_ERRORS=1
fails=0

run() { # LIB CSV ARGS...: one verified run into CSV, its output kept
    local lib=$1 csv=$2; shift 2
    local build=$root/build mpirun=mpirun.openmpi
    [[ $lib == mpich ]] && build=$root/build-mpich mpirun=mpirun.mpich
    local log="$out/$(basename "$csv" .csv)-$(date +%s%N).log"
    echo "+ $mpirun -n $ranks $build/rmabench join $* (load $(cut -d' ' -f1-3 /proc/loadavg))"
    if ! "$mpirun" -n "$ranks" "$build/rmabench" join --tuples-per-rank "$tuples" --output "$csv" "$@" >"$log" 2>&1; then
        echo "  FAILED (exit status $?): $log"; fails=$((fails + 1))
    fi
    grep -E '^# window auto:' "$log" | sed 's/^/  /'
}

echo "# window_life.sh $what: $rounds round(s), $tuples tuples per rank, $ranks ranks, $libs; results in $out"
echo "# load before: $(cat /proc/loadavg)"
for r in $(seq "$rounds"); do
    for lib in $libs; do
        if [[ $what == flavours || $what == all ]]; then
            for w in auto allocate create create-huge; do run "$lib" "$out/flavours-$lib.csv" --window "$w"; done
        fi
        if [[ $what == lifetimes || $what == all ]]; then
            for algo in radix sortmerge; do
                for life in join pool dynamic; do
                    run "$lib" "$out/lifetimes-$lib.csv" --algo "$algo" --window-life "$life" --queries "$queries"
                done
            done
        fi
        if [[ $what == puts || $what == all ]]; then
            for algo in radix sortmerge; do
                for life in pool dynamic; do
                    run "$lib" "$out/puts-$lib.csv" --algo "$algo" --window allocate --window-life "$life" --queries "$queries"
                done
            done
        fi
    done
done
echo "# load after: $(cat /proc/loadavg)"
for lib in $libs; do
    for t in flavours lifetimes puts; do
        [[ -f $out/$t-$lib.csv ]] && /usr/bin/python3 "$root/jobs/window_life_table.py" "$t" "$out/$t-$lib.csv" "$lib"
    done
done
[[ $fails == 0 ]] || { echo "window_life.sh: $fails run(s) failed"; exit 1; }
