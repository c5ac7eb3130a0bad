/* Histogram phase: local histograms of R and S over the network radix bits, the global histogram
 * (MPI_Allreduce), the partition-to-rank assignment, every partition's place in its owner's window,
 * and this rank's private write offset inside each partition (MPI_Scan); optionally the owners'
 * counts of their first local pass (MPI_Reduce_scatter). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/yield_wait.h"
#include "joins/radix/radix_phases.h"
#include "rma/count.h"

typedef struct {
    uint64_t size, p;
} part_size;

static int by_size_desc(const void *a, const void *b)
{
    const part_size *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? 1 : -1;
    return (x->p > y->p) - (x->p < y->p);
}

void radix_assign(const uint64_t *size_r, const uint64_t *size_s, uint64_t nparts, int ranks, int assign, int *owner)
{
    if (assign == ASSIGN_ROUND_ROBIN) {
        for (uint64_t p = 0; p < nparts; p++) owner[p] = (int)(p % (uint64_t)ranks);
        return;
    }
    /* sized: largest partitions first, each to the least-loaded rank (longest-processing-time) */
    part_size *ps = malloc(nparts * sizeof *ps);
    uint64_t *load = calloc((size_t)ranks, sizeof *load);
    for (uint64_t p = 0; p < nparts; p++) ps[p] = (part_size){size_r[p] + size_s[p], p};
    qsort(ps, nparts, sizeof *ps, by_size_desc);
    for (uint64_t i = 0; i < nparts; i++) {
        int best = 0;
        for (int k = 1; k < ranks; k++)
            if (load[k] < load[best]) best = k;
        /* every rank gets at least one partition while there are enough */
        if (i < (uint64_t)ranks) best = (int)i;
        owner[ps[i].p] = best;
        load[best] += ps[i].size;
    }
    free(ps);
    free(load);
}

/* Owners' counts of the first local pass: fine[rel][j * np + p] (this rank's tuples of partition p
 * in sub-partition j) summed over ranks, each owner receiving its partitions' (MPI_Reduce_scatter
 * with the owners' shares: 2^(sub_bits + 1) words per owned partition). */
static void reduce_sub_counts(const bench_ctx *ctx, radix_layout *lay, uint64_t *fine[2], int sub_bits)
{
    const uint64_t np = lay->nparts, fan = UINT64_C(1) << sub_bits, per = 2 * fan, P = (uint64_t)ctx->size;
    int *counts = calloc(P, sizeof *counts);
    uint64_t *at = calloc(P, sizeof *at), *send = malloc(np * per * sizeof *send);
    if (!counts || !at || !send) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the sub-partition histograms\n", ctx->rank);
        MPI_Abort(ctx->comm, 1);
    }
    uint64_t owned = 0;
    for (uint64_t p = 0; p < np; p++) {
        counts[lay->owner[p]] += (int)per; /* np * per <= RADIX_SUB_BINS_MAX words: fits an int */
        owned += lay->owner[p] == ctx->rank;
    }
    for (uint64_t o = 1; o < P; o++) at[o] = at[o - 1] + (uint64_t)counts[o - 1];
    for (uint64_t p = 0; p < np; p++) { /* owner by owner, their partitions in order */
        uint64_t *dst = send + at[lay->owner[p]];
        at[lay->owner[p]] += per;
        for (int rel = 0; rel < 2; rel++)
            for (uint64_t j = 0; j < fan; j++) dst[(uint64_t)rel * fan + j] = fine[rel][j * np + p];
    }
    lay->sub = malloc((owned ? owned : 1) * per * sizeof *lay->sub);
    if (!lay->sub) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the sub-partition counts\n", ctx->rank);
        MPI_Abort(ctx->comm, 1);
    }
    MPI_CHECK(ctx->rank, rmb_reduce_scatter(send, lay->sub, counts, MPI_UINT64_T, MPI_SUM, ctx->comm));
    lay->sub_bits = sub_bits;
    free(counts);
    free(at);
    free(send);
}

void radix_histogram_phase(const join_input *in, int bits, int sub_bits, int assign, radix_layout *lay)
{
    const bench_ctx *ctx = in->ctx;
    const uint64_t np = UINT64_C(1) << bits;
    memset(lay, 0, sizeof *lay);
    lay->bits = bits;
    lay->nparts = np;
    lay->ranks = ctx->size;
    lay->rank = ctx->rank;
    /* one block [rel][p] per array so that each collective moves both relations at once */
    uint64_t *blk = calloc(8 * np, sizeof *blk);
    for (int rel = 0; rel < 2; rel++) {
        lay->local[rel] = blk + (0 + rel) * np;
        lay->global[rel] = blk + (2 + rel) * np;
        lay->prefix[rel] = blk + (4 + rel) * np;
        lay->base[rel] = blk + (6 + rel) * np;
    }
    lay->owner = malloc(np * sizeof *lay->owner);
    if (!blk || !lay->owner) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the radix histograms\n", ctx->rank);
        MPI_Abort(ctx->comm, 1);
    }

    /* with sub_bits, fine[rel][j * np + p] over bits + sub_bits key bits; the partitions' counts are
     * their sums over j */
    uint64_t *fine[2] = {NULL, NULL};
    if (sub_bits > 0) {
        fine[REL_R] = calloc(2 * (np << sub_bits), sizeof(uint64_t));
        if (!fine[REL_R]) {
            fprintf(stderr, "rmabench: rank %d: cannot allocate the sub-partition histograms\n", ctx->rank);
            MPI_Abort(ctx->comm, 1);
        }
        fine[REL_S] = fine[REL_R] + (np << sub_bits);
        radix_histogram_tuples(in->r, in->r_n, bits + sub_bits, fine[REL_R]);
        radix_histogram_tuples(in->s, in->s_n, bits + sub_bits, fine[REL_S]);
        for (int rel = 0; rel < 2; rel++)
            for (uint64_t i = 0; i < (np << sub_bits); i++) lay->local[rel][i & (np - 1)] += fine[rel][i];
    } else {
        radix_histogram_tuples(in->r, in->r_n, bits, lay->local[REL_R]);
        radix_histogram_tuples(in->s, in->s_n, bits, lay->local[REL_S]);
    }
    /* the scans' imbalance, apart from the histogram (the Allreduce would absorb it) */
    lay->t_wait = rmb_wait_all(ctx->comm);
    /* rma/count.h: counts of any size (2 * np fits an int today; the helper keeps it so) */
    MPI_CHECK(ctx->rank, rma_allreduce_u64(lay->local[REL_R], lay->global[REL_R], 2 * np, MPI_SUM, ctx->comm));
    /* inclusive scan minus own counts = tuples of lower ranks = my offset inside each partition */
    MPI_CHECK(ctx->rank, rma_scan_u64(lay->local[REL_R], lay->prefix[REL_R], 2 * np, MPI_SUM, ctx->comm));
    for (uint64_t i = 0; i < 2 * np; i++) lay->prefix[REL_R][i] -= lay->local[REL_R][i];

    radix_assign(lay->global[REL_R], lay->global[REL_S], np, ctx->size, assign, lay->owner);
    /* partitions lie in their owner's window in partition order */
    uint64_t *fill = calloc(2 * (size_t)ctx->size, sizeof *fill);
    for (uint64_t p = 0; p < np; p++) {
        int o = lay->owner[p];
        for (int rel = 0; rel < 2; rel++) {
            lay->base[rel][p] = fill[2 * o + rel];
            fill[2 * o + rel] += lay->global[rel][p];
        }
        if (o == ctx->rank && lay->global[REL_R][p] > lay->max_r_part) lay->max_r_part = lay->global[REL_R][p];
    }
    lay->win_items[REL_R] = fill[2 * ctx->rank];
    lay->win_items[REL_S] = fill[2 * ctx->rank + 1];
    free(fill);
    if (sub_bits > 0) reduce_sub_counts(ctx, lay, fine, sub_bits);
    free(fine[REL_R]);
}

void radix_layout_free(radix_layout *lay)
{
    free(lay->local[REL_R]);
    free(lay->owner);
    free(lay->sub);
    memset(lay, 0, sizeof *lay);
}
