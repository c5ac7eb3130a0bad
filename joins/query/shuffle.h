/* The shuffling engine the pull design is measured against (the seed's baseline, with the
 * intermediates materialised as a shuffling engine does): every rank holds a slice of every
 * table, and the star query runs as k binary joins, fact table first:
 *   join j:  R = dimension j's rows that pass its filter (a scan before the shuffle),
 *            S = the fact table (j = 0) or the previous join's result, keyed by fk_j
 *   histogram    the radix join's histogram phase over R's and S's keys (joins/radix/histogram.c:
 *                histograms, MPI_Allreduce, partition assignment, offsets) and its exchange plan
 *                (exchange_plan.c: who sends what to whom), R's filter scan included
 *   exchange     the rows packed owner by owner and moved whole: --exchange put, each partition's
 *                rows with one MPI_Rput at this rank's offset in its owner's window (the radix
 *                join's put design: the histogram's prefix sums place them); --exchange alltoallv,
 *                one MPI_Alltoallv per relation (the radix join's alltoallv, radix_alltoallv_pieces)
 *   build_probe  per owned partition a hash table of R's rows (table.h), probed by S's rows; each
 *                result row materialised for the next join: the next key first, the term so far,
 *                the keys still to join and the carried columns, this dimension's record id added
 *                (the row keeps its width); the last join adds the result's count and terms.
 * Rows are kept as a (key, second word) column beside the rest of the row, so that the radix
 * join's histogram phase reads the keys as it reads its own tuples; on the wire a row is whole. */
#ifndef RMB_QUERY_SHUFFLE_H
#define RMB_QUERY_SHUFFLE_H
#include "joins/query/query.h"
#include "joins/tuple.h"
#include "rma/window.h"

/* Memory that grows to the largest size asked of it and is kept from one use to the next. */
typedef struct {
    void *p;
    uint64_t bytes;
} shuffle_buf;

typedef struct {
    uint64_t n, words;   /* rows, words a row */
    tuple_t *kv;         /* [n] the row's first two words: the join key, then the record id or term */
    uint64_t *rest;      /* [n * (words - 2)] the rest of each row */
    shuffle_buf kv_mem, rest_mem;
} shuffle_rel;

typedef struct {
    const bench_ctx *ctx;
    const query_opts *o;
    const star_schema *s;
    shuffle_rel fact, dim[STAR_MAX_DIMS]; /* this rank's slices, generated once */
    shuffle_rel selected;                 /* the joined dimension's rows that pass its filter */
    shuffle_rel inter[2];                 /* the intermediates, one written while the other is read */
    shuffle_buf pack, recv[2], table;     /* recv: --exchange alltoallv's received rows */
    rma_window win[2];                    /* --exchange put: the rows each rank receives, per relation */
    uint64_t win_bytes[2];
    uint64_t expected[2];
    double t_generate;                    /* slowest rank */
} shuffle_state;

/* Collective: this rank's slices and the expected result. */
void shuffle_setup(shuffle_state *sh, const bench_ctx *ctx, const query_opts *o, const star_schema *s);
/* Collective: one run (phases: query_shuffle_phases). */
void shuffle_run(shuffle_state *sh, query_output *out);
void shuffle_free(shuffle_state *sh);

#endif
