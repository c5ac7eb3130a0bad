/* The floor under every notified put within a host: one cache line written by one core and read by
 * another, there and back. Two ranks ping-pong a counter through a shared-memory window (plain C11
 * release stores and acquire loads, no MPI call between them), so the figure is what the hardware
 * (and, on a VM, the host's placement of the two virtual CPUs) charges, not what MPI adds. On the
 * project's VM it read 0.15-0.18 us in some minutes and 0.56-0.65 us in others, with the lock
 * request round trip 0.07-0.27 us above it either way: a lock figure means little without it. */
#ifndef RMB_FLOOR_H
#define RMB_FLOOR_H
#include <mpi.h>
#include <stdbool.h>

/* Collective over comm. The round trip in microseconds between ranks a and b, the mean of the fastest
 * of a few rounds of a few thousand round trips, the same value on every rank; -1 when they do not share a node, the library
 * makes no shared window, a == b, a round takes longer than 0.25 s (the pair is not running at
 * once: its cores are shared with ranks or jobs nobody counted), or !spin_ok (ranks that share a core would spin against each other;
 * it must be the same on every rank, as a, b and comm are). */
double rma_floor_round_trip_us(MPI_Comm comm, int a, int b, bool spin_ok);

#endif
