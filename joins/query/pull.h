/* The pull design (the seed's NAM architecture in MPI terms), one file per phase:
 *   load.c        memory ranks' window, the tables split by every join key into cells and blocks
 *                 (layout.h), the rows put there by every rank: timed apart from the query
 *   fetch.c       a compute rank's stream of blocks: MPI_Rget into a ring of --prefetch slots,
 *                 blocks in a given order or claimed from the shared counter (MPI_Fetch_and_op)
 *   replicate.c   every dimension whole into every compute rank's hash tables: read (fetch.c)
 *                 or broadcast by the memory ranks (MPI_Ibcast, two chunks in flight)
 *   pipeline.c    a block through the pipeline (MPI-free): dimension rows into their tables, fact
 *                 rows probed through every dimension's table of their cell
 *   pull.c        one run: replicate, stream the fact table through the pipeline, the memory ranks
 *                 serving (they only make MPI progress) until every compute rank is done
 * Ranks 0 .. M-1 are the memory ranks, M .. P-1 the compute ranks. */
#ifndef RMB_QUERY_PULL_H
#define RMB_QUERY_PULL_H
#include <mpi.h>

#include "joins/query/layout.h"
#include "joins/query/query.h"
#include "joins/query/table.h"
#include "rma/window.h"

typedef struct {
    const bench_ctx *ctx;
    const query_opts *o;
    const star_schema *s;
    int memory_ranks, compute_ranks;
    int compute_index;               /* rank - M on compute ranks, -1 on memory ranks */
    pull_layout L;
    rma_window data;                 /* the blocks: L.window_blocks x block_bytes on memory ranks */
    MPI_Win counter;                 /* rank 0: the next unclaimed fact block */
    uint64_t *counter_base;
    MPI_Comm *bcast;                 /* [M]: memory rank m (root 0) and the compute ranks; --replicate bcast */
    uint64_t *table_mem;             /* compute ranks: the dimensions' tables */
    uint64_t table_words;
    query_table *tables[STAR_MAX_DIMS]; /* [partitions of dimension j] */
    uint64_t expected[2];            /* the result's count and checksum, from the generator */
    double t_generate, t_load;       /* slowest rank */
    uint64_t load_bytes;             /* rows put into the memory ranks by all ranks */
} pull_state;

/* Collective: generates this rank's slices, loads them into the memory ranks (layout.h), opens
 * the counter and, for --replicate bcast, the broadcast communicators; the compute ranks
 * allocate their tables. Aborts on a failed allocation (the command checked the sizes first). */
void pull_load(pull_state *ps, const bench_ctx *ctx, const query_opts *o, const star_schema *s);
void pull_free(pull_state *ps);

/* Collective: one run of the query (phases: query_pull_phases). */
void pull_run(pull_state *ps, query_output *out);

/* Compute ranks: every dimension into the tables (the replicate phase). */
void pull_replicate(pull_state *ps, query_output *out);

/* --- fetch.c ---------------------------------------------------------------------------------- */
typedef struct {
    MPI_Win win;
    int rank;
    uint64_t block_bytes;
    int memory_ranks;
    int depth;                   /* blocks in flight at most: the ring's slots */
    char *buf;                   /* depth x block_bytes */
    MPI_Request *req;
    int head, filled;            /* slots head .. head + filled - 1 (mod depth) hold requested blocks */
    int held;                    /* the head slot is with the caller until the next call */
    uint64_t first, count;       /* the blocks: global numbers first .. first + count - 1 */
    uint64_t start, issued;      /* a sequence: read from position start on, wrapping */
    MPI_Win counter;             /* MPI_WIN_NULL: a sequence; else claims from the counter */
    uint64_t claim, claim_at, claim_left; /* the smallest claim; this claim's next block, its blocks left */
    int claimers;                /* ranks claiming (guided claims), 0: every claim `claim` blocks */
    uint64_t seen, claims;       /* the counter after this rank's last claim; its claims */
    bool exhausted;
    double wait_s;               /* seconds waiting for a block */
    uint64_t blocks;             /* blocks handed out */
} block_stream;

/* A stream over blocks first .. first + count - 1 of the window (block b on rank b mod M at
 * (b / M) * block_bytes), in the order start, start + 1, ... (mod count) when counter is
 * MPI_WIN_NULL, else in claims from the counter word at displacement 0 of rank 0 (fetch-and-add;
 * the counter counts from 0 to count): guided among `claimers` ranks (half of what was left over
 * their number, at least `claim` blocks), or `claim` blocks each with claimers 0. Starts `depth`
 * MPI_Rget at once; the window must be in a passive-target epoch (MPI_Win_lock_all). Aborts
 * without memory. */
void block_stream_open(block_stream *st, MPI_Win win, int rank, int memory_ranks, uint64_t block_bytes, int depth,
                       uint64_t first, uint64_t count, uint64_t start, MPI_Win counter, uint64_t claim, int claimers);
/* The next block's bytes (valid until the next call); NULL at the end. */
const uint64_t *block_stream_next(block_stream *st);
void block_stream_close(block_stream *st);

#endif
