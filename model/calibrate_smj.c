/* Sort-merge join part of the compute calibration (see calibrate_compute.c for what each rate is
 * measured on). Apart from calibrate_compute.c because the two joins' headers both name REL_R. */
#include <stdio.h>
#include <stdlib.h>

#include "calibrate.h"
#include "memory.h"
#include "sortmerge/smj_kernels.h"
#include "sortmerge/smj_plan.h"
#include "window.h"

#define REPS_MAX 100
/* The sort-merge join's merge fan-in (joins/sortmerge/sortmerge.c DEFAULT_FANIN). */
#define SMJ_FANIN 16

void calibrate_sortmerge(const bench_ctx *ctx, const calibrate_opts *o, const join_opts *jo, const workload *w,
                                const tuple_t *r, const tuple_t *s, model_params *p)
{
    const int reps = (int)o->repeats, simd = smj_simd_resolve(jo->simd);
    const size_t run = smj_default_run_size();
    const uint64_t n_both = w->r_n + w->s_n;
    double tpart[REPS_MAX], tsort[REPS_MAX], tmerge[REPS_MAX], tmatch[REPS_MAX];
    int depth = 0;
    join_input in = {.ctx = ctx, .opt = jo, .wl = w, .r = r, .s = s, .r_n = w->r_n, .s_n = w->s_n};
    for (int k = -1; k < reps; k++) {
        smj_plan pl;
        MPI_Barrier(ctx->world);
        double t0 = MPI_Wtime();
        smj_range_partition(&in, &pl); /* the join's partition phase, collectives included */
        double t1 = MPI_Wtime();
        /* windows as the join allocates them, fresh, of this rank's own packed tuples (the join
         * receives about as many; here every rank sorts its own, nothing is sent) */
        rma_window win[RELS];
        for (int rel = 0; rel < RELS; rel++)
            rma_window_alloc(&win[rel], pl.n[rel] * sizeof(uint64_t), (win_flavor)jo->window, ctx->world);
        uint64_t *tmp = malloc(run * sizeof *tmp);
        if (!tmp) calibrate_fail(ctx, "the sort scratch");
        MPI_Barrier(ctx->world);
        double t2 = MPI_Wtime();
        for (int rel = 0; rel < RELS; rel++)
            for (uint64_t off = 0; off < pl.n[rel]; off += run) {
                size_t len = pl.n[rel] - off < run ? (size_t)(pl.n[rel] - off) : run;
                smj_sort_run(pl.packed[rel] + off, len, (uint64_t *)win[rel].base + off, tmp, simd);
            }
        double t3 = MPI_Wtime();
        free(tmp);
        uint64_t *sorted[RELS];
        int d = 0;
        for (int rel = 0; rel < RELS; rel++) {
            size_t runs = (pl.n[rel] + run - 1) / run;
            size_t *starts = malloc((runs + 1) * sizeof *starts), *lens = malloc((runs + 1) * sizeof *lens);
            if (!starts || !lens) calibrate_fail(ctx, "the run table");
            for (size_t i = 0; i < runs; i++) {
                starts[i] = i * run;
                lens[i] = pl.n[rel] - starts[i] < run ? pl.n[rel] - starts[i] : run;
            }
            int dr = 0;
            sorted[rel] = smj_merge_passes(win[rel].base, pl.packed[rel], pl.n[rel], starts, lens, (int)runs, SMJ_FANIN,
                                           simd, &dr);
            if (!sorted[rel]) calibrate_fail(ctx, "the merge tree");
            if (dr > d) d = dr;
            free(starts);
            free(lens);
        }
        double t4 = MPI_Wtime();
        uint64_t m = 0, c = 0;
        smj_match(sorted[REL_R], pl.n[REL_R], sorted[REL_S], pl.n[REL_S], pl.rid_bits, &m, &c);
        double t5 = MPI_Wtime();
        if (k >= 0) {
            tpart[k] = t1 - t0;
            tsort[k] = t3 - t2;
            tmerge[k] = t4 - t3;
            tmatch[k] = t5 - t4;
        }
        depth = d;
        for (int rel = 0; rel < RELS; rel++) rma_window_free(&win[rel]);
        smj_plan_free(&pl);
    }
    /* the join's partition phase includes its histogram; the model adds eq. 3.1 separately */
    double part = calibrate_median(tpart, reps) - (double)n_both / params_get(p, MP_P_scan);
    double floor = 0.1 * calibrate_median(tpart, reps);
    params_put(p, MP_P_partition_range, calibrate_allreduce(ctx, (double)n_both / (part > floor ? part : floor), MPI_SUM));
    params_put(p, MP_P_sort_run, calibrate_rate_of(ctx, tsort, reps, (double)n_both));
    params_put(p, MP_sort_run_length, (double)run);
    params_put(p, MP_P_merge, calibrate_rate_of(ctx, tmerge, reps, (double)n_both * (depth > 0 ? depth : 1)));
    params_put(p, MP_merge_fanin, SMJ_FANIN);
    params_put(p, MP_P_match, calibrate_rate_of(ctx, tmatch, reps, (double)n_both));
}

