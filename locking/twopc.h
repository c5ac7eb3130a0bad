/* Two-phase commit over one 64-bit vote word of the coordinating agent (thesis §5.2.3): the agent
 * zeroes the word, sends a vote request to every server involved, and each server adds +1 (yes,
 * low 32 bits) or +2^32 (no, high 32 bits) to it. The agent polls until yes + no equals the number
 * of participants; it commits only when all said yes. A second word counts end-of-transaction
 * acknowledgements (+1 per server, never reset). Both are peer words (rma/peer_words.h): atomic
 * adds through shared memory from servers on the agent's host (--notify-shm), MPI_Fetch_and_op
 * (MPI_SUM) from the others, under either --transport (msg replaces the notified puts: lock
 * request, response, vote request, end of transaction; not the vote itself). */
#ifndef RMB_TWOPC_H
#define RMB_TWOPC_H
#include <stdbool.h>
#include <stdint.h>

#define VOTE_YES ((uint64_t)1)
#define VOTE_NO ((uint64_t)1 << 32)
#define VOTE_WORD 0
#define ACK_WORD 1
#define TWOPC_WORDS 2

static inline uint32_t vote_yes_count(uint64_t w) { return (uint32_t)w; }
static inline uint32_t vote_no_count(uint64_t w) { return (uint32_t)(w >> 32); }
static inline bool vote_complete(uint64_t w, uint32_t participants)
{
    return (uint64_t)vote_yes_count(w) + vote_no_count(w) >= participants;
}
static inline bool vote_commits(uint64_t w, uint32_t participants)
{
    return vote_no_count(w) == 0 && vote_yes_count(w) == participants;
}

#ifdef RMB_LOCK_H
/* agent: zero the vote word. */
void twopc_reset(lock_run *run);
/* agent: wait until all participants (the servers at ranks[0..participants-1]) voted; returns the
 * vote word. A hit --wait-bound names the servers and the votes that did arrive, then aborts. */
uint64_t twopc_collect(lock_run *run, uint32_t participants, const int *ranks);
/* agent: wait until the acknowledgement counter reaches `target` (the last n acknowledgements owed
 * by the servers at ranks[0..n-1]); a hit bound is reported like the vote's. */
void twopc_wait_acks(lock_run *run, uint64_t target, const int *ranks, int n);
/* server: vote on behalf of a transaction of the agent at agent_rank. */
void twopc_vote(lock_run *run, int agent_rank, bool yes);
/* server: acknowledge an end of transaction. */
void twopc_ack(lock_run *run, int agent_rank);
#endif

#endif
