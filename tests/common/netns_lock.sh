#!/bin/sh
# One network-namespace or private-Slurm test at a time on the machine (their names and addresses
# are global): waits for the lock /tmp/rmb-netns.lock, which another run may hold for minutes, then
# runs the test under its own time limit, so that the meson timeout only bounds the wait.
#   netns_lock.sh SECONDS PROGRAM ARGS...     (RMB_TIMEOUT_MULTIPLIER, if set, scales SECONDS)
set -u
secs=$(awk -v s="$1" -v m="${RMB_TIMEOUT_MULTIPLIER:-1}" 'BEGIN { printf "%d", s * m }')
shift
exec flock /tmp/rmb-netns.lock timeout -k 10 "$secs" "$@"
