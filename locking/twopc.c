#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locking/lock.h"
#include "locking/twopc.h"

void twopc_reset(lock_run *run) { peer_words_reset(&run->votes, VOTE_WORD); }

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

static uint64_t wait_word(lock_run *run, int word, const char *what, bool (*done)(uint64_t, uint64_t),
                          uint64_t arg, const int *ranks, int n)
{
    poll_bound b;
    poll_begin(&b, what, run->ctx->rank, n == 1 ? ranks[0] : -1, (double)run->o->wait_bound_s, run->ctx->poll_yield);
    uint64_t w;
    if (!peer_words_wait(&run->votes, word, done, arg, &b, &w)) {
        poll_report_timeout(&b);
        if (n > 1) report_peers(run, what, w, arg, ranks, n);
        MPI_Abort(run->ctx->comm, 3);
        exit(3);
    }
    return w;
}

static bool votes_done(uint64_t w, uint64_t n) { return vote_complete(w, (uint32_t)n); }

uint64_t twopc_collect(lock_run *run, uint32_t participants, const int *ranks)
{
    return wait_word(run, VOTE_WORD, "2PC vote", votes_done, participants, ranks, (int)participants);
}

void twopc_wait_acks(lock_run *run, uint64_t target, const int *ranks, int n)
{
    if (n > 0) wait_word(run, ACK_WORD, "end-of-transaction acknowledgement", peer_words_at_least, target, ranks, n);
}

void twopc_vote(lock_run *run, int agent_rank, bool yes)
{
    peer_words_add(&run->votes, agent_rank, VOTE_WORD, yes ? VOTE_YES : VOTE_NO);
}

void twopc_ack(lock_run *run, int agent_rank) { peer_words_add(&run->votes, agent_rank, ACK_WORD, 1); }
