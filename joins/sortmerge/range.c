/* The partition phase: range boundaries (sampled splitters or equal widths), the histogram of
 * tuples per target, window sizes (MPI_Reduce_scatter_block), private write offsets (MPI_Scan),
 * incoming piece sizes (MPI_Alltoall), and the local partitioning into packed groups per target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/smj_plan.h"

/* Sample keys per rank for the splitters: imbalance from sampling shrinks as 1/sqrt(samples per
 * range). Rank 0 gathers and sorts the whole sample, so it is capped at 2^22 keys (32 MiB) in all:
 * 4096 per rank up to 1024 ranks, 1024 at 4096 ranks (about 3% between ranges), never fewer than
 * 256; a fixed 4096 per rank would make rank 0 hold 4096 words per rank (128 MiB at 4096 ranks). */
static uint64_t samples_per_rank(int ranks)
{
    uint64_t k = (UINT64_C(1) << 22) / (uint64_t)ranks;
    return k > 4096 ? 4096 : k < 256 ? 256 : k;
}

uint64_t smj_rank_arrays_bytes(int ranks, bool gathers_sample)
{
    const uint64_t P = (uint64_t)ranks;
    /* every rank: its sample and 16 words per rank; rank 0 also the whole sample, counts and displacements */
    uint64_t b = samples_per_rank(ranks) * 8 + 16 * P * 8;
    return gathers_sample ? b + samples_per_rank(ranks) * P * 8 + 2 * P * sizeof(int) : b;
}

int smj_rid_bits(const workload *w)
{
    uint64_t max_rid = w->s_total > w->r_total ? w->s_total : w->r_total;
    return bits_for(max_rid > 1 ? max_rid - 1 : 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void *xmalloc(const bench_ctx *ctx, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "rmabench: rank %d: sortmerge: out of memory (%zu bytes)\n", ctx->rank, bytes);
        MPI_Abort(ctx->comm, 2);
    }
    return p;
}

/* Every rank samples the keys at global positions that are multiples of a stride (so the sample
 * does not depend on how the data are spread); rank 0 sorts the sample and picks the splitters. */
static void sampled_splitters(const join_input *in, uint64_t *splitters)
{
    const bench_ctx *ctx = in->ctx;
    const workload *w = in->wl;
    const int P = ctx->size;
    uint64_t stride = (w->r_total + w->s_total) / (samples_per_rank(P) * (uint64_t)P);
    if (stride < 1) stride = 1;
    uint64_t cap = in->r_n / stride + in->s_n / stride + 2;
    uint64_t *mine = xmalloc(ctx, cap * sizeof *mine);
    int m = 0;
    for (uint64_t i = (stride - w->r_off % stride) % stride; i < in->r_n; i += stride) mine[m++] = in->r[i].key;
    for (uint64_t i = (stride - w->s_off % stride) % stride; i < in->s_n; i += stride) mine[m++] = in->s[i].key;
    int *counts = NULL, *displs = NULL;
    uint64_t *all = NULL;
    if (ctx->rank == 0) {
        counts = xmalloc(ctx, (size_t)P * sizeof *counts);
        displs = xmalloc(ctx, (size_t)P * sizeof *displs);
    }
    MPI_CHECK(ctx->rank, MPI_Gather(&m, 1, MPI_INT, counts, 1, MPI_INT, 0, ctx->comm));
    size_t total = 0;
    if (ctx->rank == 0) {
        for (int i = 0; i < P; i++) {
            displs[i] = (int)total;
            total += (size_t)counts[i];
        }
        all = xmalloc(ctx, total * sizeof *all);
    }
    MPI_CHECK(ctx->rank, MPI_Gatherv(mine, m, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, ctx->comm));
    if (ctx->rank == 0) {
        qsort(all, total, sizeof *all, cmp_u64);
        smj_pick_splitters(all, total, P, splitters);
    }
    MPI_CHECK(ctx->rank, MPI_Bcast(splitters, P - 1, MPI_UINT64_T, 0, ctx->comm));
    free(mine);
    free(counts);
    free(displs);
    free(all);
}

static void histogram(const tuple_t *t, uint64_t n, const uint64_t *spl, int P, uint64_t *count)
{
    memset(count, 0, (size_t)P * sizeof *count);
    if (P == 1) {
        count[0] = n;
        return;
    }
    for (uint64_t i = 0; i < n; i++) count[smj_part_of(t[i].key, spl, P)]++;
}

static void scatter(const tuple_t *t, uint64_t n, const uint64_t *spl, int P, int rid_bits, uint64_t rid_base,
                    const uint64_t *start, uint64_t *pos, uint64_t *out)
{
    memcpy(pos, start, (size_t)P * sizeof *pos);
    if (P == 1) {
        for (uint64_t i = 0; i < n; i++) out[i] = smj_pack(t[i].key, t[i].rid - rid_base, rid_bits);
        return;
    }
    for (uint64_t i = 0; i < n; i++)
        out[pos[smj_part_of(t[i].key, spl, P)]++] = smj_pack(t[i].key, t[i].rid - rid_base, rid_bits);
}

void smj_range_partition(const join_input *in, smj_plan *pl)
{
    const bench_ctx *ctx = in->ctx;
    const int P = ctx->size;
    memset(pl, 0, sizeof *pl);
    pl->parts = P;
    pl->rid_bits = smj_rid_bits(in->wl);
    for (int rel = 0; rel < RELS; rel++) pl->rid_base[rel] = workload_rid_first(in->wl, rel);
    pl->splitters = xmalloc(ctx, (size_t)P * sizeof *pl->splitters);
    if (P > 1) {
        if (in->opt->ranges == RANGES_EQUAL) smj_equal_splitters(workload_max_key(in->wl), P, pl->splitters);
        else sampled_splitters(in, pl->splitters);
    }
    const tuple_t *src[RELS] = {in->r, in->s};
    pl->n[REL_R] = in->r_n;
    pl->n[REL_S] = in->s_n;
    uint64_t *hist = xmalloc(ctx, 2 * (size_t)P * sizeof *hist), *scan = xmalloc(ctx, 2 * (size_t)P * sizeof *scan);
    uint64_t *inc = xmalloc(ctx, 2 * (size_t)P * sizeof *inc), *pos = xmalloc(ctx, (size_t)P * sizeof *pos);
    for (int rel = 0; rel < RELS; rel++) {
        pl->count[rel] = xmalloc(ctx, (size_t)P * sizeof(uint64_t));
        pl->local[rel] = xmalloc(ctx, (size_t)P * sizeof(uint64_t));
        pl->remote[rel] = xmalloc(ctx, (size_t)P * sizeof(uint64_t));
        pl->incoming[rel] = xmalloc(ctx, (size_t)P * sizeof(uint64_t));
        histogram(src[rel], pl->n[rel], pl->splitters, P, pl->count[rel]);
        for (int t = 0; t < P; t++) {
            hist[2 * t + rel] = pl->count[rel][t];
            pl->local[rel][t] = t ? pl->local[rel][t - 1] + pl->count[rel][t - 1] : 0;
        }
    }
    /* (R, S) counts interleaved per target: one collective each serves both relations */
    uint64_t win[2];
    MPI_CHECK(ctx->rank, MPI_Reduce_scatter_block(hist, win, 2, MPI_UINT64_T, MPI_SUM, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Scan(hist, scan, 2 * P, MPI_UINT64_T, MPI_SUM, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Alltoall(hist, 2, MPI_UINT64_T, inc, 2, MPI_UINT64_T, ctx->comm));
    for (int rel = 0; rel < RELS; rel++) {
        pl->window[rel] = win[rel];
        for (int t = 0; t < P; t++) {
            pl->remote[rel][t] = scan[2 * t + rel] - hist[2 * t + rel];
            pl->incoming[rel][t] = inc[2 * t + rel];
        }
        /* fresh pages are costly (zeroing, and first touch in a VM): one allocation serves as the
         * partitioned input now and as the merge's scratch later */
        pl->capacity[rel] = pl->n[rel] > pl->window[rel] ? pl->n[rel] : pl->window[rel];
        if (pl->capacity[rel] == 0) pl->capacity[rel] = 1;
        pl->packed[rel] = mem_alloc_large(pl->capacity[rel] * sizeof(uint64_t));
        if (!pl->packed[rel]) {
            fprintf(stderr, "rmabench: rank %d: sortmerge: cannot allocate the partitioned relation\n", ctx->rank);
            MPI_Abort(ctx->comm, 2);
        }
        scatter(src[rel], pl->n[rel], pl->splitters, P, pl->rid_bits, pl->rid_base[rel], pl->local[rel], pos,
                pl->packed[rel]);
    }
    free(hist);
    free(scan);
    free(inc);
    free(pos);
}

void smj_plan_free(smj_plan *pl)
{
    for (int rel = 0; rel < RELS; rel++) {
        if (pl->packed[rel]) mem_free_large(pl->packed[rel], pl->capacity[rel] * sizeof(uint64_t));
        free(pl->count[rel]);
        free(pl->local[rel]);
        free(pl->remote[rel]);
        free(pl->incoming[rel]);
    }
    free(pl->splitters);
    memset(pl, 0, sizeof *pl);
}
