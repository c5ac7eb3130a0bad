#!/bin/bash
# An emulated network on one machine: N "hosts", each a network namespace with its own hostname
# (unshare --uts at launch) and one link, rmbnet0 (10.78.0.i/24), to a bridge in a namespace of its
# own, as on a switch. With --rate every host's link is shaped in both directions by the kernel's
# traffic control (htb: netem is not in this kernel, ../shared/PLATFORM-NOTES.md): the host's
# egress on rmbnet0, its ingress on the bridge's port towards it, so inter-host bandwidth, not the
# CPU, bounds what crosses the network, and a receiver's link is shared by all its senders.
#
#   netem.sh up --hosts N [--rate R] [--name NAME]    build it (R: tc rate, e.g. 400mbit; none: unshaped)
#   netem.sh down [--name NAME]                       remove it (kills what still runs in it)
#   netem.sh status [--name NAME]                     hosts, rate, bytes sent per link
#   netem.sh exec [--name NAME] HOST CMD...           run CMD on host HOST (1..N) under its hostname
#   netem.sh launch [--name NAME] [--mpi openmpi|mpich] -n NP [--per-host K] [--map-by node|slot] -- PROG ARGS...
#                    mpirun from host 1 over all hosts (up to K ranks per host, default NP / N; Open
#                    MPI places them round robin over the hosts, or in blocks with --map-by slot),
#                    with the link rate exported to the ranks as RMB_LINK_RATE (rmabench records it)
#   netem.sh launcher [--name NAME] [--mpi M] -n NP [--per-host K] [--map-by M]   print those launch words, one a line
#   netem.sh rsh [--name NAME]                        print the ssh stand-in's path
#
# NAME (default rmb, at most 12 characters) names the namespaces NAMEh1..NAMEhN and NAMEbr and the state directory
# $RMB_NETEM_STATE/NAME (default /run/rmb-netem): several networks may exist at once (tests use
# their own name). The ssh stand-in drops ssh-style options, maps 10.78.0.i or hosti to its
# namespace and runs the command there as ssh would. Launch recipes: PLATFORM-NOTES (Open MPI:
# plm_rsh_agent, --bind-to none, tcp btl, osc rdma/pt2pt and sm for the shared windows within a host;
# MPICH: hydra -launcher ssh, UCX over TCP).
# Bad input: one line naming the flag, exit 2. Exit 77 where namespaces are not allowed.
set -u
die() { echo "netem.sh: $*" >&2; exit 2; }
skip() { echo "netem.sh: SKIP: $*" >&2; exit 77; }

cmd=${1:-}
[[ -n $cmd ]] || die "a command: up, down, status, exec, launch, launcher or rsh"
if [[ $cmd == -h || $cmd == --help ]]; then sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; fi
shift
name=rmb hosts="" rate="" mpi=openmpi np="" per="" map=node
while [[ $# -gt 0 ]]; do
    # a flag's value follows it: not the end of the line, not another flag
    case $1 in --name|--hosts|--rate|--mpi|-n|--per-host|--map-by) [[ $# -ge 2 && -n $2 && $2 != -* ]] || die "$1: needs a value" ;; esac
    case $1 in
    --name) name=${2:-}; shift 2 || die "--name: a value" ;;
    --hosts) hosts=${2:-}; shift 2 || die "--hosts: a value" ;;
    --rate) rate=${2:-}; shift 2 || die "--rate: a value" ;;
    --mpi) mpi=${2:-}; shift 2 || die "--mpi: a value" ;;
    -n) np=${2:-}; shift 2 || die "-n: a value" ;;
    --per-host) per=${2:-}; shift 2 || die "--per-host: a value" ;;
    --map-by) map=${2:-}; shift 2 || die "--map-by: a value" ;;
    --) shift; break ;;
    -*) die "$1: unknown flag" ;;
    *) break ;;
    esac
done
[[ $name =~ ^[a-z][a-z0-9]{0,11}$ ]] || die "--name: '$name' is not 1-12 lowercase letters and digits, starting with a letter"
state=${RMB_NETEM_STATE:-/run/rmb-netem}/$name
br=${name}br

# The state of a network that is up: HOSTS, RATE.
load() {
    [[ -f $state/env ]] || die "--name $name: no emulated network is up (netem.sh up --name $name --hosts N)"
    # shellcheck disable=SC1091
    source "$state/env"
}

down() {
    local ns pid i
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
        [[ $ns == "$br" || $ns =~ ^${name}h[0-9]+$ ]] || continue
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
        for i in $(seq 20); do [[ -z $(ip netns pids "$ns" 2>/dev/null) ]] && break; sleep 0.05; done
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$state"
}

# htb on DEV in namespace NS: one class at RATE that every packet goes to
shape() { # NS DEV RATE
    tc -n "$1" qdisc replace dev "$2" root handle 1: htb default 10 &&
        tc -n "$1" class add dev "$2" parent 1: classid 1:10 htb rate "$3" ceil "$3" quantum 60000 burst 128k cburst 128k
}

up() {
    [[ $hosts =~ ^[0-9]+$ && $hosts -ge 2 && $hosts -le 64 ]] || die "--hosts: '$hosts' is not a host count from 2 to 64"
    [[ -z $rate || $rate =~ ^[0-9]+(\.[0-9]+)?([kmgt]?bit|[kmgt]?bps)$ ]] ||
        die "--rate: '$rate' is not a tc rate such as 400mbit or 1gbit"
    command -v ip >/dev/null && command -v tc >/dev/null && command -v unshare >/dev/null ||
        skip "ip, tc (iproute2) or unshare missing"
    [[ -f $state/env ]] && die "--name $name: already up: netem.sh down --name $name first"
    mkdir -p "$state" || die "$state: cannot create the state directory"
    ip netns add "$br" 2>"$state/err" || { local e; e=$(cat "$state/err"); rm -rf "$state"; skip "network namespaces not allowed here: $e"; }
    ip -n "$br" link add br0 type bridge forward_delay 0 && ip -n "$br" link set br0 up || { down; skip "no bridge device"; }
    local i ns
    for i in $(seq 1 "$hosts"); do
        ns=${name}h$i
        ip netns add "$ns" &&
            ip link add "p$i" netns "$br" type veth peer name rmbnet0 netns "$ns" &&
            ip -n "$br" link set "p$i" master br0 && ip -n "$br" link set "p$i" up &&
            ip -n "$ns" addr add "10.78.0.$i/24" dev rmbnet0 && ip -n "$ns" link set lo up &&
            ip -n "$ns" link set rmbnet0 up || { down; die "network setup of host $i failed"; }
        if [[ -n $rate ]]; then
            shape "$ns" rmbnet0 "$rate" && shape "$br" "p$i" "$rate" || { down; die "--rate: tc htb refused $rate on host $i"; }
        fi
    done
    # a veth has carrier a moment after both ends are up (UCX ignores a link until then)
    for _ in $(seq 50); do
        local down=0
        for i in $(seq 1 "$hosts"); do
            [[ $(ip netns exec "${name}h$i" cat /sys/class/net/rmbnet0/operstate 2>/dev/null) == up ]] || down=1
        done
        [[ $down == 0 ]] && break
        sleep 0.1
    done
    cat >"$state/rsh" <<WRAP
#!/bin/sh
# ssh stand-in for the emulated network '$name' (jobs/netem.sh)
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
host=\$1; shift
case \$host in
10.78.0.*) i=\${host##*.} ;;
host*) i=\${host#host} ;;
*) echo "rsh wrapper: unknown host \$host" >&2; exit 255 ;;
esac
exec ip netns exec ${name}h\$i unshare --uts sh -c "hostname host\$i; exec \$*"
WRAP
    chmod +x "$state/rsh"
    printf 'HOSTS=%d\nRATE=%q\n' "$hosts" "$rate" >"$state/env"
    echo "netem.sh: $hosts hosts (10.78.0.1-$hosts on a bridge), links ${rate:-unshaped}; name $name"
}

status() {
    load
    echo "netem.sh: $name: $HOSTS hosts, links ${RATE:-unshaped}"
    local i
    for i in $(seq 1 "$HOSTS"); do
        local out in
        out=$(tc -n "${name}h$i" -s class show dev rmbnet0 2>/dev/null | sed -n 's/^ *Sent \([0-9]*\) bytes.*/\1/p' | head -1)
        in=$(tc -n "$br" -s class show dev "p$i" 2>/dev/null | sed -n 's/^ *Sent \([0-9]*\) bytes.*/\1/p' | head -1)
        echo "host$i 10.78.0.$i: sent ${out:-?} B, received ${in:-?} B (through the shaped classes)"
    done
}

# The launch words for NP ranks over the hosts, in the array launch.
launch_words() {
    load
    [[ $np =~ ^[1-9][0-9]*$ ]] || die "-n: '$np' is not a rank count"
    [[ -z $per || $per =~ ^[1-9][0-9]*$ ]] || die "--per-host: '$per' is not a rank count"
    [[ $map == node || $map == slot ]] || die "--map-by: '$map' is not node (round robin over hosts) or slot (blocks by host)"
    local k=${per:-$(( (np + HOSTS - 1) / HOSTS ))} i list=""
    for i in $(seq 1 "$HOSTS"); do list+="${list:+,}10.78.0.$i:$k"; done
    case $mpi in
    openmpi)
        # --bind-to none: otherwise every "host" binds its ranks from core 0 (PLATFORM-NOTES)
        launch=(mpirun.openmpi -n "$np" --host "$list" --map-by "$map" --bind-to none -x "RMB_LINK_RATE=${RATE:-unshaped}"
            --mca plm_rsh_agent "$state/rsh" --mca oob_tcp_if_include 10.78.0.0/24
            --mca btl_tcp_if_include 10.78.0.0/24 --mca btl tcp,vader,self --mca osc sm,rdma,pt2pt) ;;
    mpich)
        launch=(mpiexec.hydra -launcher ssh -launcher-exec "$state/rsh" -hosts "$list" -iface rmbnet0
            -genv RMB_LINK_RATE "${RATE:-unshaped}" -n "$np") ;;
    *) die "--mpi: '$mpi' is not openmpi or mpich" ;;
    esac
}

case $cmd in
up) up ;;
down) down ;;
status) status ;;
rsh) load; echo "$state/rsh" ;;
exec)
    load
    host=${1:-}
    [[ $host =~ ^[0-9]+$ && $host -ge 1 && $host -le $HOSTS ]] || die "exec: host '$host' is not 1..$HOSTS"
    shift
    [[ $# -gt 0 ]] || die "exec: a command"
    exec ip netns exec "${name}h$host" unshare --uts sh -c 'hostname "$0"; exec "$@"' "host$host" "$@" ;;
launcher) launch_words; printf '%s\n' "${launch[@]}" ;;
launch)
    launch_words
    [[ $# -gt 0 ]] || die "launch: a program after --"
    export RMB_LINK_RATE=${RATE:-unshaped}
    if [[ $mpi == mpich ]]; then export UCX_TLS=tcp,self UCX_NET_DEVICES=rmbnet0; fi
    export OMPI_MCA_rmaps_base_oversubscribe=1 HWLOC_HIDE_ERRORS=1
    [[ $(id -u) == 0 ]] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    exec ip netns exec "${name}h1" unshare --uts sh -c 'hostname host1; exec "$@"' sh "${launch[@]}" "$@" ;;
*) die "$cmd: not one of up, down, status, exec, launch, launcher, rsh" ;;
esac
