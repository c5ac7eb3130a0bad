#!/bin/bash
# jobs/rdmo.sh: the measurements of composite remote operations (docs/rdmo.md), on this machine
# (one host) and across an emulated network of two hosts (jobs/netem.sh, links shaped to --rate;
# rank 0, the target, alone on host 1, the origins on host 2), every configuration interleaved with
# the others of its table (A, B, C, A, B, C, ...) so that a change of the machine's state falls on
# all of them. Every run verifies (a run that fails stops the script) and appends its CSV rows to
# DIR/*.csv; the figure comes from plots/rdmo_figure.
#
#   jobs/rdmo.sh TABLE [--where local|netem] [--mpi openmpi|mpich] [--origins N] [--iterations N]
#                [--repeat N] [--rate R] [--ops "A B"] [--designs "A B"] [--out DIR] [--dry-run]
#
#   TABLE        ops: rmabench rdmo --sweep (1, 2, 4, ... origins) of every operation and design
#                     (DIR/rdmo.csv)
#                model: rmabench calibrate on a target and one origin, then rmabench rdmo --model of
#                     every operation and design on the same two ranks (DIR/model.csv)
#                lock: rmabench lock --workload tpcc, transports rma, msg and rdmo, one server and
#                     one agent (DIR/lock.csv)
#                aggregate: rmabench aggregate, designs verbs, rdmo and rpc, 4 ranks (DIR/aggregate.csv)
#   --where      local (default) or netem (takes /tmp/rmb-netns.lock for the namespaces' lifetime)
#   --origins N  the largest origin count of the sweep (default 4)
#   --iterations N  timed operations per origin and step (default 2000 local, 300 netem)
#   --repeat N   interleaved rounds (default 3)
#   --rate R     the emulated links (default 1gbit)
#   --out DIR    results directory (default results/rdmo-<timestamp>)
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "rmabench jobs: $*" >&2; exit 2; }
[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }
table=${1:-}
[[ $table == ops || $table == model || $table == lock || $table == aggregate ]] ||
    die "TABLE: '${table}' is not ops, model, lock or aggregate (jobs/rdmo.sh --help)"
shift
where=local mpi=openmpi origins=4 iterations="" repeat=3 rate=1gbit out="" dry=0
ops="slotted-append conditional-gather signaled-read write-and-seal scatter-accumulate" designs="verbs rdmo rpc"
while [[ $# -gt 0 ]]; do
    case $1 in
    --where) where=${2:-}; shift ;;
    --mpi) mpi=${2:-}; shift ;;
    --origins) origins=${2:-}; shift ;;
    --iterations) iterations=${2:-}; shift ;;
    --repeat) repeat=${2:-}; shift ;;
    --rate) rate=${2:-}; shift ;;
    --ops) ops=${2:-}; shift ;;
    --designs) designs=${2:-}; shift ;;
    --out) out=${2:-}; shift ;;
    --dry-run) dry=1 ;;
    *) die "$1: unknown flag (jobs/rdmo.sh --help)" ;;
    esac
    shift || die "a flag lacks its value"
done
[[ $where == local || $where == netem ]] || die "--where: '$where' is not local or netem"
[[ $mpi == openmpi || $mpi == mpich ]] || die "--mpi: '$mpi' is not openmpi or mpich"
[[ $origins =~ ^[1-9][0-9]*$ ]] || die "--origins: '$origins' is not a positive count"
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat: '$repeat' is not a positive count"
iterations=${iterations:-$([[ $where == netem ]] && echo 300 || echo 2000)}
build=$root/build$([[ $mpi == mpich ]] && echo -mpich)
bin=$build/rmabench
[[ -x $bin ]] || die "$bin: not built (meson setup $(basename "$build") -Dmpi=$mpi && ninja -C $(basename "$build"))"
out=${out:-$root/results/rdmo-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || die "--out: cannot create $out"
out=$(cd "$out" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 HWLOC_HIDE_ERRORS=1
export OMPI_MCA_mpi_yield_when_idle=1 # ranks outnumber the cores: waits inside MPI give the core up
name=rdmo$$

# launch NP_HOST1 NP_HOST2 ARGS...: rmabench with NP_HOST1 ranks on host 1 (local: all on this host)
launch() {
    local h1=$1 h2=$2; shift 2
    local cmd
    if [[ $where == local ]]; then
        if [[ $mpi == openmpi ]]; then cmd=(mpirun.openmpi -n $((h1 + h2)) "$bin" "$@"); else cmd=(mpirun.mpich -n $((h1 + h2)) "$bin" "$@"); fi
    else
        local rsh list="10.78.0.1:$h1,10.78.0.2:$h2"
        rsh=$("$root/jobs/netem.sh" rsh --name "$name")
        if [[ $mpi == openmpi ]]; then
            cmd=(ip netns exec "${name}h1" unshare --uts sh -c 'hostname host1; exec "$@"' sh mpirun.openmpi -n $((h1 + h2))
                 --host "$list" --map-by slot --bind-to none -x "RMB_LINK_RATE=$rate" -x OMPI_MCA_mpi_yield_when_idle=1
                 --mca plm_rsh_agent "$rsh" --mca oob_tcp_if_include 10.78.0.0/24 --mca btl_tcp_if_include 10.78.0.0/24
                 --mca btl tcp,vader,self --mca osc sm,rdma,pt2pt "$bin" "$@")
        else
            cmd=(env UCX_TLS=tcp,self UCX_NET_DEVICES=rmbnet0 ip netns exec "${name}h1" unshare --uts sh -c 'hostname host1; exec "$@"' sh
                 mpiexec.hydra -launcher ssh -launcher-exec "$rsh" -hosts "$list" -iface rmbnet0 -genv RMB_LINK_RATE "$rate"
                 -n $((h1 + h2)) "$bin" "$@")
        fi
    fi
    echo "+ ${cmd[*]}"
    [[ $dry == 1 ]] && return 0
    timeout -k 10 900 "${cmd[@]}" </dev/null >"$out/last.log" 2>&1
    local rc=$?
    grep -E '^(origins|[0-9]+ |model:|aggregate:|probe:|committed:|lock request round trip|verification:)' "$out/last.log"
    cat "$out/last.log" >>"$out/runs.log"
    [[ $rc == 0 ]] || { echo "rmabench jobs: the run above failed (exit $rc; $out/runs.log)" >&2; exit 1; }
}

run_tables() {
    case $table in
    ops)
        for r in $(seq "$repeat"); do
            for op in $ops; do
                for d in $designs; do
                    launch 1 "$origins" rdmo --op "$op" --design "$d" --sweep --origins "$origins" --iterations "$iterations" \
                        --warmup $((iterations / 10)) --output "$out/rdmo.csv"
                done
            done
        done ;;
    model)
        # the parameters on the placement they predict: a target and one origin (calibrate's pair)
        for r in $(seq "$repeat"); do
            launch 1 1 calibrate --output "$out/params-$where-$r.txt" --tuples 64K --put-bytes 1M --membw-bytes 8M --repeats 1 --rounds 1
            for op in $ops; do
                for d in $designs; do
                    launch 1 1 rdmo --op "$op" --design "$d" --iterations "$iterations" --warmup $((iterations / 10)) \
                        --model "$out/params-$where-$r.txt" --output "$out/model.csv"
                done
            done
        done ;;
    lock)
        for r in $(seq "$repeat"); do
            for t in rma msg rdmo; do
                launch 1 1 lock --workload tpcc --transport "$t" --servers 1 --duration 2s --output "$out/lock.csv"
            done
        done ;;
    aggregate)
        for r in $(seq "$repeat"); do
            for d in $designs; do
                launch 2 2 aggregate --design "$d" --tuples-per-rank 20000 --probes-per-rank 2000 --output "$out/aggregate.csv"
            done
        done ;;
    esac
}

if [[ $where == netem && $dry == 0 ]]; then
    # namespace names are global to the machine: one emulated network at a time
    exec 9>/tmp/rmb-netns.lock
    flock 9
    "$root/jobs/netem.sh" up --hosts 2 --rate "$rate" --name "$name" || die "jobs/netem.sh up failed"
    trap '"$root/jobs/netem.sh" down --name "$name" >/dev/null 2>&1' EXIT
fi
echo "# jobs/rdmo.sh $table --where $where --mpi $mpi: $(uptime)"
run_tables
echo "# done: $out ($(uptime))"
