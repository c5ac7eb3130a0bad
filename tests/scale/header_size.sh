#!/bin/sh
# Run headers are O(1) in the rank count (issue 13 item 6): the header lines ("# ..." on stdout,
# "rmabench: warning" on stderr) of join and lock at 16 oversubscribed ranks are no longer than at 4
# but for the digits of the larger numbers, and --verbose adds the per-rank binding lines.
#   header_size.sh MPIRUN RMABENCH
set -u
mpirun=$1 bin=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1
D=$(mktemp -d /tmp/rmb-header.XXXXXX)
trap 'rm -rf "$D"' EXIT
fail=0
# header NAME NP ARGS...: prints the header's byte count, keeps the output in $D/NAME
header() {
    name=$1 np=$2; shift 2
    timeout -k 5 60 "$mpirun" -n "$np" "$bin" "$@" >"$D/$name" 2>&1 || { echo "FAIL: $name: exit $?" >&2; cat "$D/$name" >&2; echo 0; return; }
    grep -E '^(# |rmabench: warning)' "$D/$name" | wc -c
}
join="join --algo radix --tuples-per-rank 1K"
lock="lock --workload bank --transactions-per-agent 5"
for cmd in join lock; do
    eval "args=\$$cmd"
    # shellcheck disable=SC2086
    small=$(header "$cmd-4" 4 $args)
    # shellcheck disable=SC2086
    large=$(header "$cmd-16" 16 $args)
    echo "$cmd header bytes: 4 ranks $small, 16 ranks $large"
    # a few digits more ("ranks 0-15", "16 per host", "1-15/2"), never a line per rank
    if [ "$small" -eq 0 ] || [ "$large" -gt $((small + 24)) ]; then echo "FAIL: $cmd: the header grew from $small to $large bytes"; fail=1; fi
    grep -q '^# binding: ranks 0-15: ' "$D/$cmd-16" || { echo "FAIL: $cmd: no binding summary for ranks 0-15"; fail=1; }
    if grep -q '^# binding [^:]*: rank 0 ' "$D/$cmd-16"; then echo "FAIL: $cmd: per-rank binding without --verbose"; fail=1; fi
done
# --verbose (one command: both print the same report) lists every rank
# shellcheck disable=SC2086
verbose=$(header join-16v 16 $join --verbose)
echo "join header bytes: 16 ranks --verbose $verbose"
for r in 0 15; do
    grep -Eq "^# binding [^:]+:.* rank $r core [0-9]+ node" "$D/join-16v" || { echo "FAIL: join --verbose: no binding of rank $r"; fail=1; }
done
grep -q '^# lock servers at ranks 1-15/2;' "$D/lock-16" || { echo "FAIL: lock: servers not listed as a range"; grep '^# lock servers' "$D/lock-16"; fail=1; }
[ $fail -eq 0 ] && echo "header size: ok"
exit $fail
