#!/bin/bash
# Two "hosts" on this machine: the emulated network of jobs/netem.sh (network namespaces on a
# bridge, 10.78.0.1 and 10.78.0.2, links unshaped), each process started in its host's namespace
# with its own hostname (unshare --uts) by netem.sh's ssh stand-in. Both joins and the lock benchmark run across them over TCP (Open MPI:
# plm_rsh_agent, --bind-to none, tcp btl, osc rdma/pt2pt; MPICH: hydra -launcher ssh
# -launcher-exec, UCX_TLS=tcp,self); every run must verify and its CSV rows must say hosts=2, and
# that the 4 ranks share this machine's cores (oversubscribed and polling yields: a lock run that
# spun there took minutes in its shared-memory floor measurement, MPICH's old "hang"); the lock
# run mixes shared-memory notified puts within a host with RMA ones across (notify_shm=on).
# Namespaces are removed on exit. Exit 77 (skip) where namespaces are not allowed.
#
# MPICH 4.0.2 (Debian, ch4:ucx) with UCX 1.13 over TCP can deadlock inside MPI_Finalize, after the
# program has done all its work. Its finalize closes every endpoint with ucp_disconnect_nb (a flush):
# on UCX's TCP transport that flush sends a PUT request and waits for the peer's ACK. Each rank
# progresses UCX only until its own closes complete, then blocks in a PMI barrier without progress;
# a peer whose flush request arrives after that never gets the ACK and spins in
# uct_tcp_iface_progress (the 25-byte request sits unread in the barrier rank's socket, `ss -tn`).
# Not rmabench's doing: MPI_Init + MPI_Barrier + MPI_Finalize, 2 ranks on one host with
# UCX_TLS=tcp,self UCX_NET_DEVICES=lo, hangs in 10-50% of runs (a program without communication
# never does). No UCX or MPICH knob changes it (tried: UCX_TCP_PUT_ENABLE=n, UCX_TCP_CONN_NB=y,
# UCX_ADAPTIVE_PROGRESS=n, UCX_ASYNC_MODE=signal, UCX_PROTO_ENABLE=y, UCX_MAX_RNDV_LANES=1,
# UCX_TLS=tcp, shared memory inside each host with one IPC namespace per host; no MPIR_CVAR covers
# finalize), nor do barriers, window flushes or freeing communicators before MPI_Finalize. MPICH
# removed that PMI barrier (pmodels/mpich#6596, in 4.2). So with MPICH a run that printed and wrote
# everything and then hit the time limit counts as a skip (77) naming this bug, never as a pass;
# every check on its output and CSV rows still applies (a wrong result is still a FAIL).
#   multihost_test.sh SOURCE_ROOT BUILD_DIR
set -u
root=$1 build=$2
bin=$build/rmabench
mpi=$(sed -n 's/^#define RMB_MPI_CHOICE "\(.*\)"/\1/p' "$build/bench/rmb_config.h")
netem=$root/jobs/netem.sh
D=$(mktemp -d /tmp/rmb-multihost.XXXXXX)
# the emulated network of jobs/netem.sh, unshaped, under a name and state directory of this test's own
export RMB_NETEM_STATE=$D/netem
net=(--name "mh$$")
fail=0
cleanup() {
    "$netem" down "${net[@]}"
    if [[ $fail != 0 ]]; then echo "--- logs kept in $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM
"$netem" up --hosts 2 "${net[@]}" >"$D/netem.log" 2>&1
case $? in
0) ;;
77) echo "SKIP: $(tail -1 "$D/netem.log")"; exit 77 ;;
*) echo "FAIL: network setup: $(tail -1 "$D/netem.log")"; fail=1; exit 1 ;;
esac

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1 UCX_TLS=tcp,self UCX_NET_DEVICES=rmbnet0
csv=$D/results.csv
mapfile -t launch < <("$netem" launcher "${net[@]}" --mpi "$mpi" -n 4 --per-host 2)
# run NAME WANT ARGS...: rmabench across both hosts, launched from host1; WANT = verification lines a
# finished run prints (the CSV checks below catch a run that stopped before writing its rows)
finalize_hangs=0
run() {
    local name=$1 want=$2; shift 2
    echo "+ [host1] ${launch[*]} $bin $*"
    timeout -k 5 "${RMB_MULTIHOST_TIMEOUT:-45}" "$netem" exec "${net[@]}" 1 "${launch[@]}" "$bin" "$@" >"$D/$name.log" 2>&1 &
    local pid=$! t=0 done_at=-1
    # MPICH: once the run has printed all its verification lines, 10 s more to leave MPI_Finalize;
    # after that it is the finalize deadlock below (stopped now rather than at the time limit)
    while kill -0 "$pid" 2>/dev/null; do
        sleep 0.5; t=$((t + 1))
        if [[ $mpi == mpich && $done_at -lt 0 && $(grep -c '^verification: ' "$D/$name.log") == "$want" ]]; then done_at=$t; fi
        if [[ $done_at -ge 0 && $((t - done_at)) -ge 20 ]]; then
            pkill -KILL -P "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
            for p in $(ip netns pids "mh$$h1" 2>/dev/null) $(ip netns pids "mh$$h2" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
        fi
    done
    wait "$pid"
    local rc=$?
    [[ $done_at -ge 0 && $((t - done_at)) -ge 20 ]] && rc=124
    grep -E '^(# ranks|verification|matches|rmabench)' "$D/$name.log"
    if [[ $rc == 124 && $mpi == mpich && $(grep -c '^verification: ' "$D/$name.log") == "$want" ]] &&
        ! grep -q '^rmabench: ' "$D/$name.log"; then
        echo "note: $name: finished its work, then MPICH did not leave MPI_Finalize within 10 s (MPICH 4.0.2 finalize deadlock over UCX TCP, see the top of this file)"
        finalize_hangs=$((finalize_hangs + 1))
        return
    fi
    [[ $rc == 0 ]] || { echo "FAIL: $name: exit $rc"; tail -20 "$D/$name.log"; fail=1; }
}
run join 2 join --algo both --tuples-per-rank 10K --output "$csv"
grep -q '^# ranks 4 on 2 host(s), 2 per host (host1' "$D/join.log" || { echo "FAIL: join did not see 4 ranks on 2 hosts"; fail=1; }
# both namespace hosts run on this machine's cores: 4 ranks on them, so the ranks' polling yields
grep -q '^# environment: [0-9]* cores/host, hosts share a machine: up to 4 ranks on its cores' "$D/join.log" ||
    { echo "FAIL: join did not see its 2 hosts share one machine"; fail=1; }
[[ $(grep -c '^verification: PASS' "$D/join.log") == 2 ]] || { echo "FAIL: join: expected 2 verification PASS lines"; fail=1; }
# calibration across the hosts: the transport's bandwidth and how much of it hides behind work
# (net_overlap, in [-1, 1]: below 0 they slow each other down); Open MPI only: MPICH's finalize deadlock (above) would cut it short
if [[ $mpi == openmpi ]]; then
    # (the calibration's many primitives on 4 ranks of 2 namespace hosts sharing the cores: its own time limit)
    RMB_MULTIHOST_TIMEOUT=${RMB_MULTIHOST_TIMEOUT:-150} run calibrate 0 calibrate --tuples 64K --rounds 1 --repeats 1 --membw-bytes 16M --put-bytes 1M --output "$D/params.txt"
    grep -Eq '^bw_host = [0-9.e+-]+ ' "$D/params.txt" || { echo "FAIL: calibrate across 2 hosts: no bw_host"; fail=1; }
    grep -Eq '^net_overlap = -?(0|1|0\.[0-9]+|[0-9.]+e-[0-9]+) .*bench: .*transfer [0-9.]+ ms, work [0-9.]+ ms, both [0-9.]+ ms' "$D/params.txt" ||
        { echo "FAIL: calibrate across 2 hosts: net_overlap missing, outside [-1, 1], or without its measurements"; grep net_overlap "$D/params.txt"; fail=1; }
    # the remote ping-pong again with the pair pinned to one CPU (the namespace hosts share it)
    grep -Eq '^t_shared_remote_comm = [0-9.e+-]+ .*bench: .*\(another host\) pinned to CPU [0-9]+' "$D/params.txt" ||
        { echo "FAIL: calibrate across 2 hosts: t_shared_remote_comm missing"; grep t_shared_remote_comm "$D/params.txt"; fail=1; }
fi
if "$bin" lock --help 2>&1 | grep -q 'not built yet'; then
    echo "note: 'rmabench lock' not built yet: lock part skipped"
    want_lock=0
else
    run lock 1 lock --workload synthetic --servers 2 --remote-prob 0.5 --duration 1s --notify-shm on --output "$csv"
    grep -q '^verification: PASS' "$D/lock.log" || { echo "FAIL: lock: no verification PASS across 2 hosts"; fail=1; }
    want_lock=1
fi
/usr/bin/python3 - "$csv" "$want_lock" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline=""))) if __import__("os").path.exists(sys.argv[1]) else []
bad = []
joins = [r for r in rows if r["bench"] == "join"]
locks = [r for r in rows if r["bench"] == "lock"]
if sorted(r["algo"] for r in joins) != ["radix", "sortmerge"]: bad.append(f"join rows: {[r['algo'] for r in joins]}")
if sys.argv[2] == "1" and len(locks) != 1: bad.append(f"{len(locks)} lock rows")
for r in joins + locks:
    where = f"{r['bench']} {r['algo']}"
    if r["hosts"] != "2" or r["ranks"] != "4" or r["ranks_per_host"] != "2": bad.append(f"{where}: hosts {r['hosts']} ranks {r['ranks']} per host {r['ranks_per_host']}")
    if sorted(r["hostnames"].replace(";", ",").replace(" ", ",").split(",")) != ["host1", "host2"]: bad.append(f"{where}: hostnames {r['hostnames']!r}")
    if r["status"] != "ok": bad.append(f"{where}: status {r['status']}")
    # 4 ranks on this machine's cores (bench/context.c counts the namespace hosts' ranks together)
    if int(r["host_cores"]) < 4 and (r["oversubscribed"], r["poll_yield"]) != ("yes", "yes"):
        bad.append(f"{where}: oversubscribed {r['oversubscribed']} poll_yield {r['poll_yield']} with 4 ranks on {r['host_cores']} cores")
for r in joins:
    if r["verification"] != "PASS": bad.append(f"join {r['algo']}: verification {r['verification']}")
# 2 ranks per host: notified puts within a host through the shared-memory mailbox, across hosts by RMA
for r in locks:
    if r["notify_shm"] != "on": bad.append(f"lock: notify_shm {r['notify_shm']!r}, expected on")
for b in bad: print("FAIL:", b)
print(f"csv: {len(joins)} join rows, {len(locks)} lock rows, {len(bad)} problems")
sys.exit(1 if bad else 0)
PY
if [[ $fail == 0 && $finalize_hangs != 0 ]]; then
    echo "SKIP: results verified on 2 hosts, but $finalize_hangs run(s) hung in MPICH's MPI_Finalize (MPICH 4.0.2 + UCX TCP, pmodels/mpich#6596)"
    exit 77
fi
[[ $fail == 0 ]] && echo "multihost test ($mpi): ok"
exit $fail
