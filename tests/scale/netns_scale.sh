#!/bin/bash
# 64 ranks on 4 "hosts" (issue 13 item 7): network namespaces rmbN{1..4} joined by a bridge in a
# fifth namespace, 16 ranks each, launched from host 1 by Open MPI through an ssh stand-in (the
# recipe of tests/jobs/multihost_test.sh and ../shared/PLATFORM-NOTES.md, for 4 hosts). One launch
# (tests/scale/scale_run) runs both joins, verified to the exact match count and checksum, then the
# lock table's bank workload (sum of balances and every grant checked). Exit 77 (skip) where
# namespaces are not allowed. Open MPI only: scripts/test.sh runs the scale suite in build.
#   netns_scale.sh SCALE_RUN
set -u
run=$1
command -v ip >/dev/null && command -v unshare >/dev/null || { echo "SKIP: ip (iproute2) or unshare missing"; exit 77; }
tag=$$ hosts=4 per=16
br=rmbs${tag}br
D=$(mktemp -d /tmp/rmb-netns-scale.XXXXXX)
fail=0
cleanup() {
    local ns pid
    for ns in $(seq -f "rmbs${tag}h%g" 1 $hosts) "$br"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    if [[ $fail != 0 ]]; then echo "--- logs kept in $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM
if ! ip netns add "$br" 2>"$D/err"; then echo "SKIP: network namespaces not allowed here: $(cat "$D/err")"; exit 77; fi
ip -n "$br" link add br0 type bridge && ip -n "$br" link set br0 up || { echo "SKIP: no bridge device"; exit 77; }
hostlist=""
for i in $(seq 1 $hosts); do
    ns=rmbs${tag}h$i
    ip netns add "$ns" &&
        ip link add "rmbs${tag}p$i" netns "$br" type veth peer name rmbnet0 netns "$ns" &&
        ip -n "$br" link set "rmbs${tag}p$i" master br0 && ip -n "$br" link set "rmbs${tag}p$i" up &&
        ip -n "$ns" addr add "10.78.0.$i/24" dev rmbnet0 && ip -n "$ns" link set lo up && ip -n "$ns" link set rmbnet0 up ||
        { echo "FAIL: network setup of host $i"; fail=1; exit 1; }
    hostlist="$hostlist${hostlist:+,}10.78.0.$i:$per"
done
for _ in $(seq 50); do # a veth has carrier a moment after both ends are up
    ip netns exec "rmbs${tag}h$hosts" ping -c1 -W1 10.78.0.1 >/dev/null 2>&1 && break
    sleep 0.1
done

# the ssh stand-in: drop ssh-style options, map the address to its namespace, run there under the
# host's own name
cat >"$D/rsh" <<WRAP
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
host=\$1; shift
case \$host in
10.78.0.[1-9]) i=\${host##*.} ;;
host[1-9]) i=\${host#host} ;;
*) echo "rsh wrapper: unknown host \$host" >&2; exit 255 ;;
esac
exec ip netns exec rmbs${tag}h\$i unshare --uts sh -c "hostname host\$i; exec \$*"
WRAP
chmod +x "$D/rsh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1
np=$((hosts * per))
# --bind-to none: otherwise every "host" binds its ranks from core 0 (PLATFORM-NOTES); RMA between
# hosts goes through osc pt2pt over the tcp btl, within a host through vader
launch=(mpirun.openmpi -n $np --host "$hostlist" --map-by slot --bind-to none
    --mca plm_rsh_agent "$D/rsh" --mca oob_tcp_if_include 10.78.0.0/24 --mca btl_tcp_if_include 10.78.0.0/24
    --mca btl tcp,vader,self --mca osc rdma,pt2pt)
csv=$D/results.csv
# small data, default buffers (the --buffer-memory budget sizes them)
args=(join --algo both --tuples-per-rank 2K --output "$csv"
      --next lock --workload bank --transactions-per-agent 5 --output "$csv")
echo "+ [host1] ${launch[*]} $run ${args[*]}"
start=$(date +%s)
timeout -k 5 "${RMB_SCALE_TIMEOUT:-150}" ip netns exec rmbs${tag}h1 unshare --uts sh -c 'hostname host1; exec "$@"' sh \
    "${launch[@]}" "$run" "${args[@]}" >"$D/out.log" 2>&1
rc=$?
echo "($(( $(date +%s) - start )) s)"
grep -E '^(# ranks|# binding|# lock servers|verification|matches|invariants|bank|scale_run|rmabench)' "$D/out.log"
[[ $rc == 0 ]] || { echo "FAIL: exit $rc"; tail -30 "$D/out.log"; fail=1; }
grep -q "^# ranks $np on $hosts host(s), $per per host (host1;host2;host3;host4), ranks in blocks by host" "$D/out.log" ||
    { echo "FAIL: not $np ranks on $hosts hosts, $per each"; fail=1; }
[[ $(grep -c '^verification: PASS' "$D/out.log") == 3 ]] || { echo "FAIL: expected 3 verification PASS lines (radix, sortmerge, lock)"; fail=1; }
want=$((np * 2000))
[[ $(grep -c "^matches: $want (expected $want)" "$D/out.log") == 2 ]] || { echo "FAIL: both joins must find exactly $want matches"; fail=1; }
grep -q '^bank: sum of balances \([0-9]*\) (expected \1)' "$D/out.log" || { echo "FAIL: bank invariant"; fail=1; }
/usr/bin/python3 - "$csv" "$np" "$hosts" <<'PY' || fail=1
import csv, os, sys
rows = list(csv.DictReader(open(sys.argv[1], newline=""))) if os.path.exists(sys.argv[1]) else []
bad = [f"{r['bench']} {r['algo']}: hosts {r['hosts']} ranks {r['ranks']} status {r['status']} verification {r['verification']}"
       for r in rows if (r["hosts"], r["ranks"], r["status"], r["verification"]) != (sys.argv[3], sys.argv[2], "ok", "PASS")]
if sorted(r["bench"] for r in rows) != ["join", "join", "lock"]: bad.append(f"rows: {[r['bench'] for r in rows]}")
for b in bad: print("FAIL: csv:", b)
sys.exit(1 if bad else 0)
PY
[[ $fail == 0 ]] && echo "netns scale test: $np ranks on $hosts hosts ok"
exit $fail
