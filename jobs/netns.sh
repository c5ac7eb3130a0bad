# Two "hosts" on this machine (bash, sourced): network namespaces joined by a veth pair (10.77.0.1
# and 10.77.0.2, device rmbnet0 on both), each process started in its host's namespace with its own
# hostname (unshare --uts) by a wrapper that stands in for ssh. Used by tests/jobs/multihost_test.sh
# and model/validate.sh.
#   netns_up TAG DIR       create them (names from TAG, the ssh wrapper in DIR/rsh); returns 77 with
#                          the reason on stdout where namespaces or veth links are not allowed, 1 when
#                          the network cannot be set up
#   netns_launch MPI PER N fill the array netns_cmd with the launcher of N ranks, PER per host
#                          (MPI: openmpi or mpich), started in hostA's namespace under the name hostA
#                          (a command, not a function: timeout can run it)
#   netns_down             kill what runs in them and remove them (idempotent)
# After netns_up: netns_a, netns_b (namespace names); the environment MPI needs over TCP is part of
# netns_cmd, so that runs on this host are not changed by it.

netns_up() {
    local tag=$1 dir=$2 vA vB
    netns_a=rmb${tag}a netns_b=rmb${tag}b netns_dir=$dir
    vA=rmbva$tag vB=rmbvb$tag
    command -v ip >/dev/null && command -v unshare >/dev/null || { echo "ip (iproute2) or unshare missing"; return 77; }
    if ! ip netns add "$netns_a" 2>"$dir/netns.err"; then
        echo "network namespaces not allowed here: $(cat "$dir/netns.err")"; return 77
    fi
    ip netns add "$netns_b" || { echo "second namespace not allowed"; return 77; }
    if ! ip link add "$vA" netns "$netns_a" type veth peer name "$vB" netns "$netns_b" 2>"$dir/netns.err"; then
        echo "veth links not allowed here: $(cat "$dir/netns.err")"; return 77
    fi
    # the same device name on both hosts, so that UCX_NET_DEVICES and hydra's -iface fit both
    ip -n "$netns_a" link set "$vA" name rmbnet0 && ip -n "$netns_b" link set "$vB" name rmbnet0 &&
        ip -n "$netns_a" addr add 10.77.0.1/24 dev rmbnet0 && ip -n "$netns_b" addr add 10.77.0.2/24 dev rmbnet0 &&
        ip -n "$netns_a" link set lo up && ip -n "$netns_b" link set lo up &&
        ip -n "$netns_a" link set rmbnet0 up && ip -n "$netns_b" link set rmbnet0 up || { echo "network setup failed"; return 1; }
    # a veth reports carrier a moment after both ends are up; UCX ignores it until then
    for _ in $(seq 50); do
        [[ $(ip netns exec "$netns_a" cat /sys/class/net/rmbnet0/operstate) == up &&
           $(ip netns exec "$netns_b" cat /sys/class/net/rmbnet0/operstate) == up ]] && break
        sleep 0.1
    done
    # the ssh stand-in: drop ssh-style options, map the address to its namespace, run the command
    # there as ssh would (joined into one shell command) under the host's own hostname
    cat >"$dir/rsh" <<WRAP
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
host=\$1; shift
case \$host in
10.77.0.1|hostA) ns=$netns_a name=hostA ;;
10.77.0.2|hostB) ns=$netns_b name=hostB ;;
*) echo "rsh wrapper: unknown host \$host" >&2; exit 255 ;;
esac
exec ip netns exec "\$ns" unshare --uts sh -c "hostname \$name; exec \$*"
WRAP
    chmod +x "$dir/rsh"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
}

netns_launch() {
    local mpi=$1 per=$2 n=$3
    # the TCP settings go with the launcher only: runs on this host keep shared memory
    local at_a=(ip netns exec "$netns_a" unshare --uts sh -c 'hostname hostA; exec "$@"' sh
        env OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1 UCX_TLS=tcp,self UCX_NET_DEVICES=rmbnet0)
    if [[ $mpi == mpich ]]; then
        netns_cmd=("${at_a[@]}" mpiexec.hydra -launcher ssh -launcher-exec "$netns_dir/rsh" -hosts "10.77.0.1:$per,10.77.0.2:$per"
            -iface rmbnet0 -n "$n")
    else
        netns_cmd=("${at_a[@]}" mpirun.openmpi -n "$n" --host "10.77.0.1:$per,10.77.0.2:$per" --map-by node --bind-to none
            --mca plm_rsh_agent "$netns_dir/rsh" --mca oob_tcp_if_include 10.77.0.0/24 --mca btl_tcp_if_include 10.77.0.0/24
            --mca btl tcp,vader,self --mca osc rdma,pt2pt)
    fi
}

netns_down() {
    local ns pid
    for ns in ${netns_a:-} ${netns_b:-}; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    return 0
}
