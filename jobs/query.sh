#!/bin/bash
# jobs/query.sh: the star query's measurements (rmabench query, docs/query.md), on this machine or
# on emulated hosts with shaped links (jobs/netem.sh; the namespaces are built under
# flock /tmp/rmb-netns.lock, so that jobs of several users of one machine do not collide).
#
#   jobs/query.sh star|prefetch|readers [--hosts N] [--rate R] [--ranks N] [--memory-ranks "1 2"]
#                 [--fact-rows N] [--block-size B] [--rounds N] [--mpi openmpi|mpich] [--out DIR]
#                 [--quick] [--dry-run]
#
#   star      per round, for 2, 3 and 4 tables: the pull design with each --memory-ranks count, then
#             the shuffle, one run each after one warm-up (interleaved: a load that comes and goes
#             touches every design alike); then a calibration on the same ranks (rmabench calibrate)
#             and the block reads of --micro prefetch and readers and the shuffle's transfer of
#             --micro alltoallv give the model's parameters
#             (jobs/query_params.py), and rmamodel query its prediction and crossovers; the figure
#             query7a and a table of medians and ratios
#   prefetch  one compute rank reads memory rank 0's blocks, prefetch 1..16, blocks of 512 B, 2 KiB,
#             8 KiB (figure query7b); 2 ranks
#   readers   1..N-1 compute ranks read one memory rank's blocks at once, by reads and by broadcast
#             (figure query7c)
#   --hosts N      emulated hosts (default 1: this machine, no emulation); ranks go round robin over them
#   --rate R       every host's link, both directions (tc htb, e.g. 1gbit; default unshaped)
#   --ranks N      ranks (star: default 4; readers: default 5; prefetch: always 2)
#   --memory-ranks LIST  the pull design's memory-rank counts (star; default "1 2")
#   --fact-rows N  lineorder rows (star; default 4M)
#   --block-size B the pull design's blocks (star; default 2K, the seed's; between emulated hosts, where a
#                  read is a TCP message, larger blocks pay: see the prefetch measurement there)
#   --rounds N     rounds (star) or scans per point (prefetch, readers); default 5
#   --out DIR      results directory (default results/query-<what>-<timestamp>)
#   --quick        small sizes, 2 rounds: a smoke run of seconds
#   --dry-run      print the commands without running them
# Environment: RMB_BUILD (a build directory of --mpi's library; default build/ or build-mpich/), and
# those of jobs/lib.sh.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

what=${1:-}
[[ $what == -h || $what == --help ]] && rmb_help "$0"
[[ $what == star || $what == prefetch || $what == readers ]] || rmb_die "a measurement: star, prefetch or readers (jobs/query.sh --help)"
shift
hosts=1 rate="" ranks="" mems="1 2" rows=4M block=2K rounds=5 out="" quick=0 libs=openmpi
while [[ $# -gt 0 ]]; do
    case $1 in
    --hosts) hosts=${2:?--hosts needs a count}; shift ;;
    --rate) rate=${2:?--rate needs a tc rate such as 1gbit}; shift ;;
    --ranks) ranks=${2:?--ranks needs a count}; shift ;;
    --memory-ranks) mems=${2:?--memory-ranks needs a list}; shift ;;
    --fact-rows) rows=${2:?--fact-rows needs a count}; shift ;;
    --block-size) block=${2:?--block-size needs a size}; shift ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift ;;
    --mpi) libs=${2:?--mpi needs openmpi or mpich}; shift ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --quick) quick=1 ;;
    --dry-run) export RMB_DRY_RUN=1 ;;
    -h|--help) rmb_help "$0" ;;
    *) rmb_die "$1: unknown flag (jobs/query.sh --help)" ;;
    esac
    shift
done
[[ $hosts =~ ^[1-9][0-9]*$ ]] || rmb_die "--hosts: '$hosts' is not a host count"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || rmb_die "--rounds: '$rounds' is not a positive number"
[[ $libs == openmpi || $libs == mpich ]] || rmb_die "--mpi: '$libs' is not openmpi or mpich"
[[ -z $rate || $hosts -gt 1 ]] || rmb_die "--rate: shapes the links between emulated hosts: give --hosts 2 or more"
case $what in
star) ranks=${ranks:-4} ;;
prefetch) ranks=2 ;;
readers) ranks=${ranks:-5} ;;
esac
[[ $ranks =~ ^[0-9]+$ && $ranks -ge 2 ]] || rmb_die "--ranks: '$ranks' is not a count of 2 or more"
[[ $quick == 1 ]] && rows=40K rounds=2
micro_blocks=$([[ $quick == 1 ]] && echo 512 || echo 16K)

out=${out:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/results/query-$what-$(date +%Y%m%d-%H%M%S)}
if [[ $hosts -gt 1 ]]; then
    export RMB_LAUNCHER=netem RMB_NETEM_NAME=${RMB_NETEM_NAME:-qry$$}
    export OMPI_MCA_mpi_yield_when_idle=1 # the emulated hosts share this machine's cores
fi

star_plan() {
    local r t m
    for r in $(seq "$rounds"); do
        for t in 2 3 4; do
            for m in $mems; do
                rmb_run "pull tables=$t mem=$m round $r" "$hosts" "$ranks" -- query --design pull --tables "$t" \
                    --memory-ranks "$m" --fact-rows "$rows" --block-size "$block" --warmup 1 --output "$RMB_CSV"
            done
            rmb_run "shuffle tables=$t round $r" "$hosts" "$ranks" -- query --design shuffle --tables "$t" \
                --fact-rows "$rows" --warmup 1 --output "$RMB_CSV"
        done
    done
    # the model's parameters on the same ranks: the primitives, then the block reads
    local cal=(--tuples 256K --put-bytes 4M --membw-bytes 32M --repeats 2 --rounds 1)
    [[ $quick == 1 ]] && cal=(--tuples 64K --put-bytes 1M --membw-bytes 4M --repeats 1 --rounds 1)
    rmb_run "calibrate" "$hosts" "$ranks" -- calibrate --output "$RMB_OUT/params.txt" "${cal[@]}"
    # 32 MiB of blocks (1 MiB --quick), at least 64
    local n=$(( ($([[ $quick == 1 ]] && echo 1 || echo 32) << 20) / $(bytes "$block") ))
    rmb_run "block reads" "$hosts" 2 -- query --micro prefetch --micro-prefetch 1,16 --micro-block-size "$block" \
        --micro-blocks "$(( n > 64 ? n : 64 ))" --repeat 3 --output "$RMB_OUT/reads.csv"
    rmb_run "readers" "$hosts" "$ranks" -- query --micro readers --block-size "$block" --micro-blocks "$(( n > 64 ? n : 64 ))" \
        --repeat 3 --output "$RMB_OUT/reads.csv"
    rmb_run "alltoallv" "$hosts" "$ranks" -- query --micro alltoallv --micro-blocks "$(( n > 64 ? n : 64 ))" \
        --block-size "$block" --repeat 3 --output "$RMB_OUT/reads.csv"
}

plan() {
    case $what in
    star) star_plan ;;
    prefetch)
        rmb_run "micro prefetch" "$hosts" 2 -- query --micro prefetch --micro-prefetch 1,2,4,6,8,10,16 \
            --micro-block-size 512,2K,8K --micro-blocks "$micro_blocks" --repeat "$rounds" --warmup 1 --output "$RMB_CSV" ;;
    readers)
        rmb_run "micro readers" "$hosts" "$ranks" -- query --micro readers --micro-blocks "$micro_blocks" \
            --repeat "$rounds" --warmup 1 --output "$RMB_CSV" ;;
    esac
}

# star: the model at this shape (rmamodel query) from the calibration and the block reads
model() {
    local params=$RMB_OUT/params.txt
    [[ -s $params && -s $RMB_OUT/reads.csv ]] || { echo "rmabench jobs: no parameters for the model" >&2; return 1; }
    "$RMB_PYTHON" "$RMB_ROOT/jobs/query_params.py" "$RMB_OUT/reads.csv" "$(bytes "$block")" >>"$params" || return 1
    local m
    for m in $mems; do
        "$RMB_BUILD/rmamodel" query --params "$params" --ranks "$ranks" --ranks-per-host $(( (ranks + hosts - 1) / hosts )) \
            --memory-ranks "$m" --fact-rows "$rows" --block-size "$block" ${rate:+--link-rate "$(rate_gbit "$rate")"} \
            $([[ $hosts -gt 1 ]] && echo --one-machine) |
            tee "$RMB_OUT/model-mem$m.txt"
    done
}

# a size (2K, 64K, 1M) in bytes
bytes() { awk -v s="$1" 'BEGIN { n = s + 0; u = s; sub(/^[0-9]+/, "", u); printf "%d", n * (u == "K" ? 1024 : u == "M" ? 1048576 : 1) }'; }

# a tc rate (400mbit, 1gbit, 2.5gbit) in Gbit/s
rate_gbit() { awk -v r="$1" 'BEGIN { n = r + 0; u = r; sub(/^[0-9.]+/, "", u);
    printf "%g", n * (u ~ /^g/ ? 1 : u ~ /^m/ ? 1e-3 : u ~ /^k/ ? 1e-6 : 1e-9) * (u ~ /bps$/ ? 8 : 1) }'; }

build=${RMB_BUILD:-}
rmb_init "query-$what"
RMB_BUILD=${build:-$([[ $libs == mpich ]] && echo "$RMB_ROOT/build-mpich" || echo "$RMB_ROOT/build")} RMB_MPI=$libs
RMB_BIN=$RMB_BUILD/rmabench
rmb_results_dir "$out"
netem=("$RMB_ROOT/jobs/netem.sh")
if [[ $RMB_DRY_RUN != 1 && $hosts -gt 1 ]]; then
    # namespace names are global to the machine: one network at a time
    exec 9>/tmp/rmb-netns.lock
    flock 9
    "${netem[@]}" up --name "$RMB_NETEM_NAME" --hosts "$hosts" ${rate:+--rate "$rate"} || exit $?
    trap '"${netem[@]}" down --name "$RMB_NETEM_NAME"' EXIT
fi
[[ $RMB_DRY_RUN == 1 ]] || echo "rmabench jobs: query $what: $ranks ranks on $hosts host(s), links ${rate:-unshaped}; results in $RMB_OUT"
rmb_plan
case $what in star) fig=query7a ;; prefetch) fig=query7b ;; *) fig=query7c ;; esac
if [[ $RMB_DRY_RUN == 1 ]]; then
    rmb_quote "$RMB_PYTHON" "$RMB_ROOT/plots/rmaplot" figure "$fig" "$RMB_CSV" --out "$RMB_OUT"
else
    [[ $hosts -gt 1 ]] && "${netem[@]}" status --name "$RMB_NETEM_NAME" >"$RMB_OUT/netem-status.txt"
    [[ $what == star ]] && { model || RMB_FAILED=$((RMB_FAILED + 1)); }
    "$RMB_PYTHON" "$RMB_ROOT/plots/rmaplot" figure "$fig" "$RMB_CSV" --out "$RMB_OUT" >/dev/null &&
        cat "$RMB_OUT/$fig.md" || { echo "rmabench jobs: the $fig figure failed" >&2; RMB_FAILED=$((RMB_FAILED + 1)); }
fi
rmb_finish
exit 0
