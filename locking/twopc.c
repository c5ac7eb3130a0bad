#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locking/lock.h"
#include "locking/twopc.h"

void twopc_reset(lock_run *run)
{
    /* Nobody votes now (the previous vote completed), but the word is written by atomics, so it is
     * reset by one too rather than by a store that some libraries would not order with them. */
    uint64_t zero = 0, old = 0;
    int me = run->ctx->rank;
    MPI_CHECK(me, MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, me, VOTE_WORD_DISP, MPI_REPLACE, run->vote_win));
    MPI_CHECK(me, MPI_Win_flush(me, run->vote_win));
}

/* Which servers an agent waited for and what had arrived, after the bound's own line. */
static void report_peers(const lock_run *run, const char *what, uint64_t w, uint64_t arg, const int *ranks, int n)
{
    char list[256] = "";
    for (int i = 0, used = 0; i < n && used < (int)sizeof list - 12; i++)
        used += snprintf(list + used, sizeof list - (size_t)used, "%s%d", i ? "," : "", ranks[i]);
    if (strcmp(what, "2PC vote") == 0)
        fprintf(stderr, "rmabench: rank %d: waited for the votes of %d server(s) at ranks %s: %" PRIu32 " yes and %" PRIu32
                        " no arrived\n", run->ctx->rank, n, list, vote_yes_count(w), vote_no_count(w));
    else
        fprintf(stderr, "rmabench: rank %d: waited for %s from %d server(s) at ranks %s: %" PRIu64 " of %d arrived\n",
                run->ctx->rank, what, n, list, n - (arg - w), n);
    fflush(stderr);
}

static uint64_t wait_word(lock_run *run, MPI_Aint disp, const char *what, bool (*done)(uint64_t, uint64_t),
                          uint64_t arg, const int *ranks, int n)
{
    poll_bound b;
    int me = run->ctx->rank;
    poll_begin(&b, what, me, n == 1 ? ranks[0] : -1, (double)run->o->wait_bound_s, false);
    unsigned idle = 0, spin = notify_spin_polls(run->poll, run->ctx->poll_yield);
    for (;;) {
        uint64_t w = notify_read_own_word(run->vote_win, run->ctx->comm, me, run->vote_base + disp / 8, disp, run->poll);
        if (done(w, arg)) return w;
        if (!poll_continue(&b)) {
            poll_report_timeout(&b);
            if (n > 1) report_peers(run, what, w, arg, ranks, n);
            MPI_Abort(run->ctx->comm, 3);
            exit(3);
        }
        notify_idle(&idle, spin);
    }
}

static bool votes_done(uint64_t w, uint64_t n) { return vote_complete(w, (uint32_t)n); }
static bool acks_done(uint64_t w, uint64_t target) { return w >= target; }

uint64_t twopc_collect(lock_run *run, uint32_t participants, const int *ranks)
{
    return wait_word(run, VOTE_WORD_DISP, "2PC vote", votes_done, participants, ranks, (int)participants);
}

void twopc_wait_acks(lock_run *run, uint64_t target, const int *ranks, int n)
{
    if (n > 0) wait_word(run, ACK_WORD_DISP, "end-of-transaction acknowledgement", acks_done, target, ranks, n);
}

void twopc_vote(lock_run *run, int agent_rank, bool yes)
{
    uint64_t v = yes ? VOTE_YES : VOTE_NO, old = 0;
    int me = run->ctx->rank;
    blocking_begin("MPI_Fetch_and_op + MPI_Win_flush of a 2PC vote", agent_rank);
    MPI_CHECK(me, MPI_Fetch_and_op(&v, &old, MPI_UINT64_T, agent_rank, VOTE_WORD_DISP, MPI_SUM, run->vote_win));
    MPI_CHECK(me, MPI_Win_flush(agent_rank, run->vote_win));
    blocking_end();
}

void twopc_ack(lock_run *run, int agent_rank)
{
    uint64_t one = 1, old = 0;
    int me = run->ctx->rank;
    blocking_begin("MPI_Fetch_and_op + MPI_Win_flush of an end-of-transaction acknowledgement", agent_rank);
    MPI_CHECK(me, MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, agent_rank, ACK_WORD_DISP, MPI_SUM, run->vote_win));
    MPI_CHECK(me, MPI_Win_flush(agent_rank, run->vote_win));
    blocking_end();
}
