/* A compute rank's stream of blocks (the seed's Fig. 5 in MPI terms): a read buffer of --prefetch
 * blocks; every block is one MPI_Rget, started without waiting for it, and the rank waits for a
 * block's request only when the pipeline needs that block. A block handed to the pipeline keeps
 * its slot until the pipeline asks for the next one; then the slot reads the next block while the
 * pipeline works on the blocks already there. One slot is the seed's "no prefetching": the next
 * read starts only when the block before it has been processed. */
#include <stdio.h>
#include <stdlib.h>

#include "bench/yield_wait.h"
#include "joins/query/pull.h"
#include "rma/progress.h"

static void fail(int rank, const char *what)
{
    fprintf(stderr, "rmabench: rank %d: cannot allocate %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The next block to read, or false when there is none: the sequence's next position, or the next
 * block of this rank's claim (a new claim of `claim` blocks when it is used up). */
static bool next_block(block_stream *st, uint64_t *b)
{
    if (st->exhausted) return false;
    if (st->counter == MPI_WIN_NULL) {
        if (st->issued == st->count) return (st->exhausted = true, false);
        *b = st->first + (st->start + st->issued++) % st->count;
        return true;
    }
    if (st->claim_left == 0) {
        /* guided: a share of what was left at this rank's last claim, never below --claim blocks, so
         * that a rank claims O(C log blocks) times, not blocks / claim times (each claim is a round
         * trip to rank 0), and the last claims are small enough to even out the ranks' ends */
        const uint64_t left = st->count > st->seen ? st->count - st->seen : 0;
        uint64_t want = st->claimers ? left / (2 * (uint64_t)st->claimers) : 0, old = 0;
        if (want < st->claim) want = st->claim;
        blocking_begin("block counter fetch-and-op", 0);
        MPI_CHECK(st->rank, MPI_Fetch_and_op(&want, &old, MPI_UINT64_T, 0, 0, MPI_SUM, st->counter));
        MPI_CHECK(st->rank, MPI_Win_flush(0, st->counter));
        blocking_end();
        st->claims++;
        st->seen = old + want;
        if (old >= st->count) return (st->exhausted = true, false);
        st->claim_at = old;
        st->claim_left = st->count - old < want ? st->count - old : want;
    }
    st->claim_left--;
    *b = st->first + st->claim_at++;
    return true;
}

/* Starts the read of the next block into slot i; false when there is none. */
static bool issue(block_stream *st, int i)
{
    uint64_t b;
    if (!next_block(st, &b)) return false;
    const int owner = (int)(b % (uint64_t)st->memory_ranks);
    const MPI_Aint disp = (MPI_Aint)(b / (uint64_t)st->memory_ranks * st->block_bytes);
    MPI_CHECK(st->rank, MPI_Rget(st->buf + (size_t)i * st->block_bytes, (int)st->block_bytes, MPI_BYTE, owner, disp,
                                 (int)st->block_bytes, MPI_BYTE, st->win, &st->req[i]));
    st->filled++;
    return true;
}

void block_stream_open(block_stream *st, MPI_Win win, int rank, int memory_ranks, uint64_t block_bytes, int depth,
                       uint64_t first, uint64_t count, uint64_t start, MPI_Win counter, uint64_t claim, int claimers)
{
    *st = (block_stream){.win = win, .rank = rank, .block_bytes = block_bytes, .memory_ranks = memory_ranks,
                         .depth = depth, .first = first, .count = count, .start = count ? start % count : 0,
                         .counter = counter, .claim = claim, .claimers = claimers};
    st->buf = aligned_alloc(64, ((size_t)depth * block_bytes + 63) / 64 * 64);
    st->req = malloc((size_t)depth * sizeof *st->req);
    if (!st->buf || !st->req) fail(rank, "the read buffer");
    while (st->filled < depth && issue(st, st->filled)) {}
}

const uint64_t *block_stream_next(block_stream *st)
{
    if (st->held) { /* the block handed out last is done: its slot (the ring's new tail) reads the next one */
        st->held = 0;
        st->head = (st->head + 1) % st->depth;
        st->filled--;
        issue(st, (st->head + st->filled) % st->depth);
    }
    if (st->filled == 0) return NULL;
    const double t0 = MPI_Wtime();
    blocking_begin("block read (MPI_Rget)", -1);
    MPI_CHECK(st->rank, rmb_wait(&st->req[st->head]));
    blocking_end();
    st->wait_s += MPI_Wtime() - t0;
    st->held = 1;
    st->blocks++;
    return (const uint64_t *)(const void *)(st->buf + (size_t)st->head * st->block_bytes);
}

void block_stream_close(block_stream *st)
{
    /* a stream closed early still owns requests in flight: complete them before freeing their buffers */
    if (st->held) {
        st->head = (st->head + 1) % st->depth;
        st->filled--;
    }
    for (int k = 0; k < st->filled; k++) MPI_CHECK(st->rank, rmb_wait(&st->req[(st->head + k) % st->depth]));
    free(st->buf);
    free(st->req);
    st->buf = NULL;
    st->req = NULL;
}
