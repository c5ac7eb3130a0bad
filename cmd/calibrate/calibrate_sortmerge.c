/* Sort-merge join part of the compute calibration (see calibrate_compute.c for what each rate is
 * measured on). Apart from calibrate_compute.c because the two joins' headers both name REL_R. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/calibrate/calibrate.h"
#include "bench/memory.h"
#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/smj_plan.h"
#include "rma/window.h"

#define REPS_MAX 100
/* The sort-merge join's merge fan-in (joins/sortmerge/sortmerge.c DEFAULT_FANIN). */
#define SMJ_FANIN 16

/* Merge passes of the join at --tuples-per-rank: a rank receives about that many tuples per
 * relation, cut into runs by every sender. */
static int join_merge_depth(const bench_ctx *ctx, const calibrate_opts *o, size_t run)
{
    int depth = 0;
    for (uint64_t runs = ((uint64_t)o->tuples_per_rank + run - 1) / run + (uint64_t)ctx->size; runs > 1;
         runs = (runs + SMJ_FANIN - 1) / SMJ_FANIN)
        depth++;
    return depth;
}

/* This rank's own runs, sorted into its windows: the merge's input (the sort is timed apart, by
 * time_sort_phase). */
static void sort_own_runs(const bench_ctx *ctx, const smj_plan *pl, rma_window win[RELS], size_t run, int simd)
{
    uint64_t *tmp = malloc(run * sizeof *tmp);
    if (!tmp) calibrate_fail(ctx, "the sort scratch");
    MPI_Barrier(ctx->comm);
    for (int rel = 0; rel < RELS; rel++)
        for (uint64_t off = 0; off < pl->n[rel]; off += run) {
            size_t len = pl->n[rel] - off < run ? (size_t)(pl->n[rel] - off) : run;
            smj_sort_run(pl->packed[rel] + off, len, (uint64_t *)win[rel].base + off, tmp, simd);
        }
    free(tmp);
}

/* smj_merge_passes over each relation's runs, window -> the reused packed array; returns the
 * deeper relation's pass count. */
static int merge_relations(const bench_ctx *ctx, smj_plan *pl, rma_window win[RELS], size_t run, int simd,
                           uint64_t *sorted[RELS])
{
    int d = 0;
    for (int rel = 0; rel < RELS; rel++) {
        size_t runs = (pl->n[rel] + run - 1) / run;
        size_t *starts = malloc((runs + 1) * sizeof *starts), *lens = malloc((runs + 1) * sizeof *lens);
        if (!starts || !lens) calibrate_fail(ctx, "the run table");
        for (size_t i = 0; i < runs; i++) {
            starts[i] = i * run;
            lens[i] = pl->n[rel] - starts[i] < run ? pl->n[rel] - starts[i] : run;
        }
        int dr = 0;
        sorted[rel] = smj_merge_passes(win[rel].base, pl->packed[rel], pl->n[rel], starts, lens, (int)runs, SMJ_FANIN,
                                       simd, &dr);
        if (!sorted[rel]) calibrate_fail(ctx, "the merge tree");
        if (dr > d) d = dr;
        free(starts);
        free(lens);
    }
    return d;
}

/* Seconds of one repetition's partition, merge and match (t[0], t[1], t[2]); returns the merge depth. */
static int time_local_phases(const join_input *in, const join_opts *jo, size_t run, int simd, int join_depth,
                             double t[3])
{
    const bench_ctx *ctx = in->ctx;
    smj_plan pl;
    MPI_Barrier(ctx->comm);
    double t0 = MPI_Wtime();
    smj_range_partition(in, &pl); /* the join's partition phase, collectives included */
    double t1 = MPI_Wtime();
    /* windows as the join allocates them, of this rank's own packed tuples (the join receives
     * about as many; here every rank sorts its own, nothing is sent), faulted in as the join's
     * window_alloc does: their first touch is t_win_touch_per_byte's, not the sort's */
    rma_window win[RELS];
    for (int rel = 0; rel < RELS; rel++) {
        rma_window_alloc(&win[rel], pl.n[rel] * sizeof(uint64_t), (win_flavor)jo->window, ctx->comm);
        rma_window_prefault(&win[rel]);
    }
    sort_own_runs(ctx, &pl, win, run, simd);
    double t3 = MPI_Wtime();
    uint64_t *sorted[RELS];
    int d = merge_relations(ctx, &pl, win, run, simd, sorted);
    const double t_merged = MPI_Wtime();
    /* the join's match reads its last merge pass's output: the window after an even number of
     * passes, the partitioning buffer after an odd one. Their pages differ (the default window
     * is 4 KiB shared memory, the buffer takes huge pages) and so does a streaming scan: read
     * where the join would at --tuples-per-rank, whatever the sample's depth was. */
    for (int rel = 0; rel < RELS; rel++) {
        uint64_t *where = join_depth % 2 ? pl.packed[rel] : (uint64_t *)win[rel].base;
        if (sorted[rel] != where) {
            memcpy(where, sorted[rel], pl.n[rel] * sizeof *where);
            sorted[rel] = where;
        }
    }
    MPI_Barrier(ctx->comm);
    double t4 = MPI_Wtime();
    uint64_t m = 0, c = 0;
    smj_match(sorted[REL_R], pl.n[REL_R], sorted[REL_S], pl.n[REL_S], pl.rid_bits, pl.key_base, pl.rid_base, &m, &c);
    double t5 = MPI_Wtime();
    t[0] = t1 - t0;
    t[1] = t_merged - t3;
    t[2] = t5 - t4;
    for (int rel = 0; rel < RELS; rel++) rma_window_free(&win[rel]);
    smj_plan_free(&pl);
    return d;
}

/* P_sort_run: the join's sort phase itself (smj_sort_phase) on the ranks of this host at once,
 * ranges split between them, windows got as the join's window_alloc gets them: its in-cache sorts
 * plus the puts to the other ranks of the host, completed as the join's --flush does (the time
 * MPICH's passive-target progress adds is the join's too). Puts between hosts are not in it:
 * eq. 3.14-3.15 add them from bw_host, as for P_partition. Seconds of one repetition. */
static double time_sort_phase(const join_input *in, const bench_ctx *host, size_t run, int simd)
{
    join_input hin = *in;
    hin.ctx = host;
    smj_plan hp;
    smj_range_partition(&hin, &hp);
    rma_window win[RELS];
    smj_windows_alloc(&hin, &hp, win); /* jo has no --window-pool: fresh windows */
    phase_set ph;
    phases_init(&ph, sortmerge_join_algo.phases);
    MPI_Barrier(in->ctx->comm);
    double t6 = MPI_Wtime();
    smj_sort_phase(&hin, &hp, win, run, simd, &ph);
    double t = MPI_Wtime() - t6;
    for (int rel = 0; rel < RELS; rel++) rma_window_free(&win[rel]);
    smj_plan_free(&hp);
    return t;
}

void calibrate_sortmerge(const bench_ctx *ctx, const calibrate_opts *o, const join_opts *jo, const workload *w,
                         const tuple_t *r, const tuple_t *s, model_params *p)
{
    const int reps = (int)o->repeats, simd = smj_simd_resolve(jo->simd);
    const size_t run = smj_default_run_size();
    const uint64_t n_both = w->r_n + w->s_n;
    const int join_depth = join_merge_depth(ctx, o, run);
    double tpart[REPS_MAX], tsort[REPS_MAX], tmerge[REPS_MAX], tmatch[REPS_MAX];
    int depth = 0;
    join_input in = {.ctx = ctx, .opt = jo, .wl = w, .r = r, .s = s, .r_n = w->r_n, .s_n = w->s_n};
    bench_ctx host;
    bench_ctx_init(&host, ctx->host);
    for (int k = -o->warmup; k < reps; k++) {
        double t[3];
        depth = time_local_phases(&in, jo, run, simd, join_depth, t);
        double t_sort = time_sort_phase(&in, &host, run, simd);
        if (k >= 0) {
            tpart[k] = t[0];
            tmerge[k] = t[1];
            tmatch[k] = t[2];
            tsort[k] = t_sort;
        }
    }
    bench_ctx_free(&host);
    /* The join's partition phase includes its histogram (the model adds eq. 3.1 separately) and
     * the first touch of its fresh packed arrays, 8 bytes per tuple (o->touch_per_byte, measured at
     * the join's size): taken out at the sample's size and put back at the join's, so that
     * P_partition_range is the rate the join sees at --tuples-per-rank, as P_partition_local is. */
    const double t_part = calibrate_median(tpart, reps), join_n = 2.0 * (double)o->tuples_per_rank;
    double pure = t_part - (double)n_both / params_get(p, MP_P_scan) - (double)n_both * 8 * o->touch_per_byte;
    if (pure < 0.1 * t_part) pure = 0.1 * t_part;
    const double join_part = join_n / (double)n_both * pure + join_n * 8 * o->touch_per_byte;
    params_put(p, MP_P_partition_range, calibrate_allreduce(ctx, join_n / join_part, MPI_SUM));
    params_put(p, MP_P_sort_run, calibrate_rate_of(ctx, tsort, reps, (double)n_both));
    params_put(p, MP_sort_run_length, (double)run);
    params_put(p, MP_P_merge, calibrate_rate_of(ctx, tmerge, reps, (double)n_both * (depth > 0 ? depth : 1)));
    params_put(p, MP_merge_fanin, SMJ_FANIN);
    params_put(p, MP_P_match, calibrate_rate_of(ctx, tmatch, reps, (double)n_both));
}
