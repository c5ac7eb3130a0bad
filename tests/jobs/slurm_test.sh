#!/bin/bash
# A private single-node Slurm (munge, slurmctld, slurmd; all state under a temporary directory, the
# node declared with more CPUs than the machine has), the scale-out campaign at tiny sizes plus its
# plot job through jobs/submit.sh, then checks on results and figures. With MPICH it also runs the
# scale-out job under `srun --mpi=pmix`, which starts singletons, and expects a world-size-mismatch row.
# Stops exactly the daemons it started (their PIDs), on any exit. Exit 77 (skip) without Slurm.
#   slurm_test.sh SOURCE_ROOT BUILD_DIR
set -u
root=$1 build=$2
for p in munged mungekey slurmctld slurmd sbatch squeue; do
    command -v "$p" >/dev/null || PATH=$PATH:/usr/sbin command -v "$p" >/dev/null ||
        { echo "SKIP: $p not installed (scripts/install-deps.sh installs slurm-wlm and munge)"; exit 77; }
done
export PATH=$PATH:/usr/sbin
D=$(mktemp -d /tmp/rmb-slurm.XXXXXX)
fail=0
stop() {
    local f pid
    for f in slurmd slurmctld munged; do
        pid=$(cat "$D/$f.pid" 2>/dev/null) || continue
        kill "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    if [[ $fail != 0 ]]; then
        echo "--- logs"; tail -n 20 "$D"/*.log "$D"/campaign*/slurm-*.out 2>/dev/null
    fi
    rm -rf "$D"
}
trap stop EXIT
trap 'exit 1' INT TERM
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; fi; }

mkdir -p "$D/state" "$D/spool" "$D/tmp"
mungekey --create --keyfile="$D/munge.key" --force 2>/dev/null || { echo "FAIL: mungekey"; exit 1; }
munged --key-file="$D/munge.key" --socket="$D/munge.socket" --pid-file="$D/munged.pid" \
    --log-file="$D/munged.log" --seed-file="$D/munged.seed" --force || { fail=1; echo "FAIL: munged did not start"; exit 1; }
# A private port pair that nothing holds: other runs of this test may be live, and the MPI tests
# beside it open connections from the kernel's ephemeral range (a random pair inside it once met
# "slurmd: Address already in use"), so below that range, and tried before use.
low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
[ "$low" -gt 12000 ] 2>/dev/null || low=32768
port=
for _ in $(seq 20); do
    p=$((10000 + RANDOM % (low - 10002)))
    if python3 -c 'import socket, sys
for q in (int(sys.argv[1]), int(sys.argv[1]) + 1):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("", q)); s.close()' "$p" 2>/dev/null
    then port=$p; break; fi
done
[ -n "$port" ] || { echo "FAIL: no free port pair below $low"; exit 1; }
cat >"$D/slurm.conf" <<CONF
ClusterName=rmbtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge.socket
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
TmpFS=$D/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
NodeName=localhost CPUs=8 RealMemory=16000
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld -f "$SLURM_CONF" || { fail=1; echo "FAIL: slurmctld did not start"; exit 1; }
slurmd -f "$SLURM_CONF" -N localhost || { fail=1; echo "FAIL: slurmd did not start"; exit 1; }
for _ in $(seq 100); do sinfo -h -o %T 2>/dev/null | grep -qE '^idle' && break; sleep 0.2; done
sinfo -h -o '%N %T %c' 2>&1 | sed 's/^/slurm: /'
sinfo -h -o %T | grep -q idle || { fail=1; echo "FAIL: the node did not come up"; exit 1; }

mpi=$(sed -n 's/^#define RMB_MPI_CHOICE "\(.*\)"/\1/p' "$build/bench/rmb_config.h")
wait_jobs() { # IDS... : until none is pending or running, at most 150 s
    local t
    for t in $(seq 300); do
        [[ -z $(squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null) ]] && return 0
        sleep 0.5
    done
    echo "FAIL: jobs $* still queued after 150 s"; squeue; fail=1
}

# the campaign: calibrate, scale-out of both joins at tiny sizes, plot (afterany)
export RMB_TUPLES=20K RMB_REPEAT=2 RMB_RUN_TIMEOUT=60 RMB_BUILD=$build
# a calibration of about a second (the default one takes ~25 s here; tests/model checks it)
export RMB_CALIBRATE_ARGS="--tuples 64K --put-bytes 1M --repeats 1 --rounds 1"
out=$(cd "$root" && jobs/submit.sh --campaign scaleout --mpi "$mpi" --results "$D/campaign" -- --nodes=1 --ntasks-per-node=2 --time=5)
echo "$out"
ids=$(awk '{print $2}' <<<"$out" | tr '\n' ' ')
join_id=$(awk '$1 == "join-scaleout" {print $2}' <<<"$out")
plot_id=$(awk '$1 == "plot" {print $2}' <<<"$out")
check '[[ $join_id =~ ^[0-9]+$ && $plot_id =~ ^[0-9]+$ ]]' "submit.sh printed no job ids"
# shellcheck disable=SC2086
wait_jobs $ids
csv=$D/campaign/job-$join_id-join-scaleout/results.csv
check '[[ -s $csv ]]' "no results at $csv"
if [[ -s $csv ]]; then
    /usr/bin/python3 - "$csv" "$join_id" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = []
joins = [r for r in rows if r["bench"] == "join"]
if sorted({r["algo"] for r in joins}) != ["radix", "sortmerge"]: bad.append(f"algos {sorted({r['algo'] for r in joins})}")
for r in joins:
    if r["status"] != "ok" or r["verification"] != "PASS": bad.append(f"row {r['algo']}: status {r['status']} exit {r['exit_code']} verification {r['verification']}")
    if r["job_id"] != sys.argv[2]: bad.append(f"job_id {r['job_id']} != {sys.argv[2]}")
    if r["ranks"] != "2" or r["hosts"] != "1": bad.append(f"ranks {r['ranks']} hosts {r['hosts']}")
if len(joins) != 4: bad.append(f"{len(joins)} join rows, expected 2 algos x 2 repetitions")
for b in bad: print("FAIL:", b)
print(f"results: {len(rows)} rows, {len(bad)} problems")
sys.exit(1 if bad else 0)
PY
fi
check '[[ -s $D/campaign/report/report.md ]]' "plot job wrote no report"
check 'head -c 8 "$D/campaign/report/join_throughput.png" 2>/dev/null | od -c | grep -q "P   N   G"' "no join_throughput.png figure"
check 'head -c 5 "$D/campaign/report/join_throughput.pdf" 2>/dev/null | grep -q "%PDF-"' "no join_throughput.pdf figure"
# algo | ranks | hosts | ranks/host | configuration | runs
check 'grep -Eq "^\| radix \| 2 \| 1 \| 2 \| [^|]+ \| 2 \|" "$D/campaign/report/report.md" 2>/dev/null' "report lacks the radix row at 2 ranks"
check 'scontrol show job "$plot_id" 2>/dev/null | grep -q "JobState=COMPLETED"' "plot job did not complete"

if [[ $mpi == mpich ]]; then
    # srun --mpi=pmix with MPICH starts two singletons: the job must notice and record it
    id=$(cd "$root" && RMB_SRUN_MPI=pmix RMB_CAMPAIGN_DIR=$D/pmix RMB_ROOT=$root sbatch --parsable --nodes=1 \
        --ntasks-per-node=2 --output="$D/pmix-%j.out" jobs/slurm/join-scaleout.sbatch)
    wait_jobs "$id"
    check 'grep -q "WORLD SIZE MISMATCH" "$D/pmix-$id.out"' "no loud world-size message under srun --mpi=pmix + MPICH"
    check 'grep -q ",join,world-size-mismatch," "$D/pmix/job-$id-join-scaleout/results.csv"' "no world-size-mismatch row"
fi
[[ $fail == 0 ]] && echo "slurm test: ok"
exit $fail
