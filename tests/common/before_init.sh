#!/bin/sh
# mpirun's stand-in for input that must be refused before MPI_Init: starts PROGRAM NP times, one
# after the other, each with its rank where a launcher puts it (bench_env_rank reads it, so that only
# rank 0 prints), and with MPI_Init and MPI_Init_thread taken by no_mpi_init.c (exit 99 and a line
# naming it), so that input refused only after MPI starts fails the test. Exit status: the first
# non-zero one, as mpirun's. Without a launcher there is no start-up and no abort to wait for.
#   before_init.sh -n NP PROGRAM ARGS...    RMB_NO_MPI_INIT: the library (tests/meson.build)
set -u
if [ $# -lt 3 ] || [ "$1" != -n ]; then echo "before_init.sh: usage: -n NP PROGRAM ARGS..." >&2; exit 99; fi
[ -f "${RMB_NO_MPI_INIT:-}" ] || { echo "before_init.sh: RMB_NO_MPI_INIT: no library '${RMB_NO_MPI_INIT:-}'" >&2; exit 99; }
np=$2; shift 2
rc=0 rank=0
while [ "$rank" -lt "$np" ]; do
    OMPI_COMM_WORLD_RANK=$rank PMI_RANK=$rank LD_PRELOAD=$RMB_NO_MPI_INIT "$@"
    r=$?
    [ "$rc" -ne 0 ] || rc=$r
    rank=$((rank + 1))
done
exit "$rc"
