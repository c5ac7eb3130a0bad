#include "rma/progress.h"

#include <mpi.h>
#include <sched.h>
#include <stdio.h>

void poll_begin(poll_bound *b, const char *what, int rank, int peer, double timeout_s, bool yield)
{
    b->start = MPI_Wtime();
    b->deadline = timeout_s > 0 ? b->start + timeout_s : 0;
    b->what = what;
    b->rank = rank;
    b->peer = peer;
    b->yield = yield;
    b->polls = 0;
}

bool poll_continue(poll_bound *b)
{
    b->polls++;
    if (b->yield) sched_yield();
    /* Reading the clock costs more than a poll; checking every 64 polls keeps the loop tight. */
    if (b->deadline > 0 && (b->polls & 63) == 0 && MPI_Wtime() > b->deadline) return false;
    return true;
}

void poll_report_timeout(const poll_bound *b)
{
    double waited = MPI_Wtime() - b->start;
    if (b->peer >= 0)
        fprintf(stderr, "rmabench: rank %d: no %s from rank %d after %.1f s\n", b->rank, b->what, b->peer, waited);
    else
        fprintf(stderr, "rmabench: rank %d: no %s after %.1f s\n", b->rank, b->what, waited);
    fflush(stderr);
}
