/* The floor under every notified put within a host: one cache line written by one core and read by
 * another, there and back. Two ranks ping-pong a counter through a shared-memory window (plain C11
 * release stores and acquire loads, no MPI call between them), so the figure is what the hardware
 * (and, on a virtual machine, the host's placement of the two virtual CPUs) charges, not what MPI
 * adds. It can change several-fold from minute to minute, and the lock request round trip follows
 * it (docs/measurements.md, "From code comments"): a lock figure means little without it. */
#ifndef RMB_FLOOR_H
#define RMB_FLOOR_H
#include <mpi.h>
#include <stdbool.h>

/* Collective over comm. The round trip in microseconds between ranks a and b, the mean of the
 * fastest of a few rounds of a few thousand round trips, the same value on every rank; -1 when they
 * do not share a node, the library makes no shared window, a == b, a round outlasts ROUND_LIMIT_S
 * in rma/floor.c (the pair is not running at once: its cores are shared with ranks or jobs nobody
 * counted), or !spin_ok (ranks that share a core would spin against each other; it must be the same
 * on every rank, as a, b and comm are). */
double rma_floor_round_trip_us(MPI_Comm comm, int a, int b, bool spin_ok);

#endif
