#!/bin/bash
# jobs/exchange.sh: the exchange design space of the radix join's network pass on an emulated
# network. Builds --hosts network-namespace hosts with links shaped to --rate
# (jobs/netem.sh), calibrates the model on them (rmabench calibrate: bw_host is the links' rate as
# MPI_Put sees it), then runs every design x schedule x message size, one rank per host, with
# --model, and draws throughput and network-pass time against message size, one line per design
# and schedule, the model's network-bound prediction (eq. 3.3-3.6) beside them
# (plots/exchange_figure: exchange.png, exchange.md). Removes the network at the end.
#
#   jobs/exchange.sh [--hosts N] [--rate R] [--tuples N] [--sizes "4K ... 4M"] [--repeat N]
#                    [--mpi openmpi|mpich] [--out DIR] [--quick] [--dry-run] [--force]
#
#   --hosts N      emulated hosts, one rank each (default 4)
#   --rate R       every host's link, both directions (tc htb; default 50mbit: below what MPI over
#                  TCP moves between namespaces on 2 cores, so the links bound the pass;
#                  docs/measurements.md, "From code comments")
#   --tuples N     R (and S) tuples per rank (default 1M: 2 MiB per owner and relation)
#   --sizes LIST   --buffer-size values: the message size (default 4K 16K 64K 256K 1M 4M)
#   --repeat N     repetitions per point (default 1; the CSV keeps each)
#   --out DIR      results directory (default results/exchange-<timestamp>)
#   --quick        2 hosts, 20K tuples, two sizes, unshaped links: a smoke run of seconds (flags
#                  given as well keep their values)
#   --dry-run      check every value, then print the commands without running them
#   --force        an --out that holds an earlier job's files: replace them
# Exit status: 0 when every run succeeded, 1 when any failed, 2 for bad input.
# Designs: every one the binary lists (rmabench join --list-exchanges), each with the schedules it
# takes (put and alltoallv as-is only: buffers go as they fill, the library orders the all-to-all).
# --radix-bits: one partition per host, so that each owner receives one piece from each rank and
# the message size is the only variable.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hosts="" rate=unset tuples="" sizes="" repeat=1 out="" quick=0 libs=openmpi
while [[ $# -gt 0 ]]; do
    case $1 in
    --hosts) rmb_need "$1" $# "${2-}"; hosts=$2; shift ;;
    --rate) rmb_need "$1" $# "${2-}"; rate=$2; shift ;;
    --tuples) rmb_need "$1" $# "${2-}"; tuples=$2; shift ;;
    --sizes) rmb_need "$1" $# "${2-}"; sizes=$2; shift ;;
    --repeat) rmb_need "$1" $# "${2-}"; repeat=$2; shift ;;
    --mpi) rmb_need "$1" $# "${2-}"; libs=$2; shift ;;
    --out) rmb_need "$1" $# "${2-}"; out=$2; shift ;;
    --quick) quick=1 ;;
    --dry-run) export RMB_DRY_RUN=1 ;;
    --force) export RMB_FORCE=1 ;;
    -h|--help) rmb_help "$0" ;;
    *) rmb_die "$1: unknown flag (jobs/exchange.sh --help)" ;;
    esac
    shift
done
# --quick's sizes where none were given, then every value checked
if [[ $quick == 1 ]]; then
    hosts=${hosts:-2} tuples=${tuples:-20K} sizes=${sizes:-4K 64K}
    [[ $rate == unset ]] && rate=""
    calargs=(--tuples 64K --tuples-per-rank "$tuples" --put-bytes 1M --membw-bytes 4M --repeats 1 --rounds 1)
else
    hosts=${hosts:-4} tuples=${tuples:-1M} sizes=${sizes:-4K 16K 64K 256K 1M 4M}
    [[ $rate == unset ]] && rate=50mbit
    calargs=(--tuples 1M --tuples-per-rank "$tuples" --put-bytes 4M --membw-bytes 16M --repeats 3 --rounds 1)
fi
rmb_check_int --hosts "$hosts" 2 64
rmb_check_int --repeat "$repeat" 1 1000
rmb_check_count --tuples "$tuples"
for s in $sizes; do [[ $s =~ ^[0-9]+[KkMmGg]?$ ]] || rmb_die "--sizes: '$s' is not a byte size (e.g. 64K)"; done
[[ -z $rate || $rate =~ ^[0-9]+(\.[0-9]+)?([kmg]?bit|[kmg]?bps)$ ]] || rmb_die "--rate: '$rate' is not a tc rate (e.g. 50mbit)"
[[ $libs == openmpi || $libs == mpich ]] || rmb_die "--mpi: '$libs' is not openmpi or mpich"
# one partition per host (at least one per rank: the join refuses fewer)
bits=0
while (( (1 << bits) < hosts )); do bits=$((bits + 1)); done

out=${out:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/results/exchange-$(date +%Y%m%d-%H%M%S)}
export RMB_LAUNCHER=netem RMB_NETEM_NAME=${RMB_NETEM_NAME:-exch$$}
# one rank per emulated host, but all of them on this machine's cores: Open MPI's polling yields
export OMPI_MCA_mpi_yield_when_idle=1

plan() {
    local params=$RMB_OUT/params.txt model=()
    rmb_run "calibrate on ${rate:-unshaped} links" "$hosts" "$hosts" -- calibrate --output "$params" "${RMB_FORCE_ARGS[@]}" "${calargs[@]}"
    [[ $RMB_COUNTING == 1 || $RMB_DRY_RUN == 1 || -s $params ]] && model=(--model "$params")
    local ex sc size line designs=()
    mapfile -t designs < <("$RMB_BIN" join --list-exchanges)
    [[ ${#designs[@]} -gt 0 ]] || rmb_die "$RMB_BIN join --list-exchanges: no designs"
    for size in $sizes; do
        for line in "${designs[@]}"; do # NAME SCHEDULE...
            ex=${line%% *}
            for sc in ${line#* }; do
                rmb_run "join $ex $sc buffer $size" "$hosts" "$hosts" -- join --algo radix --tuples-per-rank "$tuples" \
                    --radix-bits "$bits" --exchange "$ex" --schedule "$sc" --buffer-size "$size" --repeat "$repeat" \
                    --output "$RMB_CSV" "${model[@]}"
            done
        done
    done
}

rmb_init exchange
RMB_BUILD=$([[ $libs == mpich ]] && echo "$RMB_ROOT/build-mpich" || echo "$RMB_ROOT/build") RMB_MPI=$libs
RMB_BIN=$RMB_BUILD/rmabench
rmb_results_dir "$out"
netem=("$RMB_ROOT/jobs/netem.sh")
if [[ $RMB_DRY_RUN != 1 ]]; then
    "${netem[@]}" up --name "$RMB_NETEM_NAME" --hosts "$hosts" ${rate:+--rate "$rate"} || exit $?
    trap '"${netem[@]}" down --name "$RMB_NETEM_NAME"' EXIT
    echo "rmabench jobs: exchange sweep: $hosts hosts, links ${rate:-unshaped}, $tuples tuples/rank, sizes: $sizes; results in $RMB_OUT"
fi
rmb_plan
if [[ $RMB_DRY_RUN == 1 ]]; then
    rmb_quote "$RMB_PYTHON" "$RMB_ROOT/plots/exchange_figure" "$RMB_CSV" --out "$RMB_OUT" "${RMB_FORCE_ARGS[@]}"
else
    "${netem[@]}" status --name "$RMB_NETEM_NAME" | tee "$RMB_OUT/netem-status.txt"
    echo "[$(rmb_elapsed) elapsed] drawing the figure into $RMB_OUT"
    "$RMB_PYTHON" "$RMB_ROOT/plots/exchange_figure" "$RMB_CSV" --out "$RMB_OUT" "${RMB_FORCE_ARGS[@]}" ||
        { echo "rmabench jobs: the exchange figure failed" >&2; RMB_FAILED=$((RMB_FAILED + 1)); }
fi
rmb_finish
