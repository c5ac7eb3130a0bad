/* The wait bound: no MPI call waits on a peer for ever. Every MPI command takes --wait-bound (on by
 * default); every blocking MPI call of the process is timed (bench/mpi_bound.c wraps them through
 * the MPI profiling interface, so a new phase or command is covered without doing anything), and
 * polling loops built from MPI_Test and the like mark themselves with blocking_begin/blocking_end.
 * When one call stays in progress longer than the bound, a helper thread (it never calls MPI)
 * writes one line naming the rank, the call, the peer where the call has one, and what became of
 * the ranks on this machine that it may be waiting for (stopped by a signal or a debugger, ended,
 * in uninterruptible sleep), then _exit(3)s and the launcher tears the job down. Under MPICH a flush
 * to a stopped rank never returns (passive-target completion needs the target to call MPI), and a
 * collective with a stopped member never returns under any library: the bound is what ends them.
 * The hot path is a counter and two plain stores (relaxed atomics), no clock, no syscall. */
#ifndef RMB_WAIT_BOUND_H
#define RMB_WAIT_BOUND_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/context.h"

typedef struct {
    _Atomic uint64_t call;        /* 0: none; else bit 63 | (sequence << 32) | peer (32 bits) */
    _Atomic(const char *) what;   /* static string of the call in progress */
    uint32_t seq;                 /* written by the calling thread only */
    int depth;                    /* nesting: only the outermost call is timed and named */
} blocking_state;
extern blocking_state rmb_blocking;
/* The state above belongs to the thread that runs the command. A helper thread that also calls MPI
 * (a progress thread serving requests: rdmo/ep.c) calls blocking_exempt_thread first, so that its
 * calls neither time nor overwrite the command's wait; its own waits end when the command's do. */
extern _Thread_local bool rmb_blocking_exempt;
static inline void blocking_exempt_thread(void) { rmb_blocking_exempt = true; }

/* Around a blocking MPI call, or a loop of MPI calls that waits for something, to peer (-1: several
 * or unknown). Nested: a call inside a marked one (the MPI call inside a marked flush, the MPI_Test
 * inside a marked loop) keeps the outer name. Only the thread that calls MPI uses them. what NULL:
 * a wait that is not timed, because it may last as long as other ranks' work and another bound
 * covers a peer that stopped (the lock agents' closing barrier: the servers' idle bound). */
static inline void blocking_begin(const char *what, int peer)
{
    if (rmb_blocking_exempt) return;
    if (rmb_blocking.depth++ > 0) return;
    uint32_t s = ++rmb_blocking.seq & 0x7fffffffu;
    atomic_store_explicit(&rmb_blocking.what, what, memory_order_relaxed);
    atomic_store_explicit(&rmb_blocking.call, (1ull << 63) | ((uint64_t)s << 32) | (uint32_t)(peer < 0 ? -1 : peer),
                          memory_order_release);
}
static inline void blocking_end(void)
{
    if (rmb_blocking_exempt) return;
    if (--rmb_blocking.depth == 0) atomic_store_explicit(&rmb_blocking.call, 0, memory_order_relaxed);
}

/* Collective over ctx->comm, after bench_ctx_init: learns which ranks share this machine (and their
 * process ids, to tell what became of them) and starts the watchdog with bound_s seconds (<= 0: no
 * bound). Every MPI command calls it with its --wait-bound; later calls only change the bound. */
void wait_bound_start(const bench_ctx *ctx, double bound_s);
/* The watchdog alone (not collective; its message then names no stopped rank): for a process that
 * has no context. Later calls only change the bound. */
void blocking_watchdog_start(int rank, double bound_s);

/* The bound of every command, in seconds: long enough for the slowest rank's longest phase of a
 * large run to end while the others wait for it, short against a batch job's allocation. */
#define WAIT_BOUND_DEFAULT_S 300
/* The one --wait-bound flag of every MPI command (dest: int64_t* seconds, 0 = none). */
#define OPT_WAIT_BOUND(dest)                                                                              \
    {"wait-bound", OPT_INT, (dest),                                                                       \
     "seconds one MPI call may wait on a peer before the run ends, naming the rank it waited for (0: "  \
     "no bound)",                                                                                         \
     0, 86400, NULL, NULL}

#endif
