/* Polling that makes progress on every MPI library and yields the core when ranks outnumber
 * cores. Every blocking loop has a bound: when it is hit, the rank, the peer and what it waited
 * for are reported (and the job aborted unless the caller handles the timeout). */
#ifndef RMB_PROGRESS_H
#define RMB_PROGRESS_H
#include <stdbool.h>

typedef struct {
    double start, deadline;   /* MPI_Wtime seconds; deadline <= 0: no bound */
    const char *what;         /* "lock response", "vote", ... */
    int rank, peer;           /* peer -1: any */
    bool yield;               /* sched_yield() between polls */
    unsigned long polls;
} poll_bound;

/* timeout_s <= 0 means unbounded (avoid). */
void poll_begin(poll_bound *b, const char *what, int rank, int peer, double timeout_s, bool yield);
/* Call once per unsuccessful poll: yields if asked; returns false when the bound is hit. */
bool poll_continue(poll_bound *b);
/* Report a hit bound on stderr: "rmabench: rank R: no <what> from rank P after Xs". */
void poll_report_timeout(const poll_bound *b);

/* Watchdog for blocking MPI calls (MPI_Win_flush, MPI_Fetch_and_op + flush, MPI_Wait) that the
 * polling bounds above cannot cover: under MPICH a flush to a stopped rank never returns, since
 * passive-target completion needs the target to call MPI. A helper thread (never calls MPI) wakes
 * every 100 ms; when one call stayed in progress longer than the bound it writes
 * "rmabench: rank R: <what> to rank P did not complete after X s" and _exit(3)s, and the launcher
 * tears the job down. The hot path is two plain stores (relaxed atomics), no clock, no syscall. */
#include <stdatomic.h>
#include <stdint.h>

typedef struct {
    _Atomic uint64_t call;        /* 0: none; else bit 63 | (sequence << 32) | peer (32 bits) */
    _Atomic(const char *) what;   /* static string of the call in progress */
    uint32_t seq;                 /* written by the calling thread only */
} blocking_state;
extern blocking_state rma_blocking;

/* Start the watchdog once per process, after MPI_Init; bound_s <= 0: none. Later calls only
 * change the bound. */
void blocking_watchdog_start(int rank, double bound_s);

/* Around a blocking MPI call (or a short sequence of them) to peer (-1: several). */
static inline void blocking_begin(const char *what, int peer)
{
    uint32_t s = ++rma_blocking.seq & 0x7fffffffu;
    atomic_store_explicit(&rma_blocking.what, what, memory_order_relaxed);
    atomic_store_explicit(&rma_blocking.call, (1ull << 63) | ((uint64_t)s << 32) | (uint32_t)peer,
                          memory_order_release);
}
static inline void blocking_end(void) { atomic_store_explicit(&rma_blocking.call, 0, memory_order_relaxed); }

#endif
