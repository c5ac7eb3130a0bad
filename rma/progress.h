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

/* Blocking MPI calls (MPI_Win_flush, MPI_Fetch_and_op + flush, MPI_Wait) are bounded by the wait
 * bound's watchdog (bench/wait_bound.h): blocking_begin/blocking_end name a call or a sequence of
 * them more precisely than the MPI function's own name. */
#include "bench/wait_bound.h"

#endif
