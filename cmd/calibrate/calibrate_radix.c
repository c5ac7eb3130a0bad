/* Compute rates of the joins' own kernels, every rank at once (memory bandwidth is shared as in a
 * join), on the generator's data (joins/generate.h), out of cache, at the parameters the joins
 * choose by default on these ranks, and with fresh or reused memory as the join sees it:
 *   P_scan             radix_histogram_tuples over R and S (16-byte tuples, the join's network bits)
 *   P_partition        the radix join's network pass itself (radix_network_partition, --compress:
 *                      16-byte tuples in, 8-byte packed words out), run by all ranks of a host at once
 *                      on windows of the host's communicator: its compute plus the MPI_Puts, put
 *                      buffers and flushes to the other ranks of the host. Puts between hosts are
 *                      not in it: eq. 3.2-3.6 add them from bw_host.
 *   P_partition_local  radix_local_partition per network partition, 8-byte words, with the local
 *                      plan the join picks at --tuples-per-rank (the size the parameters are for),
 *                      timed on a sample: this rank's tuples cut into partitions of the size the
 *                      join's network pass leaves at that size; plus the first touch of the join's
 *                      scratch (one R and one S partition) spread over the join's tuples per rank
 *   P_build, P_probe   radix_build_probe per leaf right after that partition's local pass, on the
 *                      same sample (a one-rank workload of its own, so leaves hold dense keys as in
 *                      the join) (build: one S item per leaf; probe: the full call minus the build)
 *   P_partition_range  the sort-merge join's partition phase (smj_range_partition: splitters,
 *                      histogram, fresh packed array, scatter) less the eq. 3.1 scan, which the
 *                      model adds as the histogram term
 *   P_sort_run         the sort-merge join's sort phase itself (smj_sort_phase: runs of the join's
 *                      length sorted in cache and put to the other ranks of the host, completed
 *                      as the join's default --flush completes them), on
 *                      windows faulted in as the join's window_alloc does
 *   P_merge            smj_merge_passes at the join's fan-in, window -> reused scratch, per pass
 *   P_match            smj_match over the two sorted relations */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/calibrate/calibrate.h"
#include "joins/generate.h"
#include "joins/join.h"
#include "joins/radix/local_partition.h"
#include "bench/memory.h"
#include "joins/radix/radix_phases.h"
#include "joins/radix/radix_plan.h"
#include "rma/window.h"

#define REPS_MAX 100

void calibrate_fail(const bench_ctx *ctx, const char *what)
{
    fprintf(stderr, "rmabench: rank %d: calibrate: cannot allocate %s\n", ctx->rank, what);
    MPI_Abort(ctx->comm, 2);
}

/* Median over the repeats (the first run is a warm-up) of this rank's seconds; the mean over ranks
 * of n / median. */
double calibrate_rate_of(const bench_ctx *ctx, double *t, int reps, double n)
{
    double med = calibrate_median(t, reps);
    return calibrate_allreduce(ctx, med > 0 ? n / med : 0, MPI_SUM);
}

/* --- radix hash join ------------------------------------------------------------------------ */

/* P_scan: the histogram phase's kernel over both relations; a scan of the sample takes a few
 * milliseconds, so it gets more repetitions than the rest (3x, at least 9) */
static void measure_scan(const bench_ctx *ctx, const calibrate_opts *o, const workload *w, const tuple_t *r,
                         const tuple_t *s, int bits, model_params *p)
{
    double t[REPS_MAX];
    uint64_t *hist = calloc((size_t)1 << bits, sizeof *hist);
    if (!hist) calibrate_fail(ctx, "the histogram");
    const int reps = (int)o->repeats, scan_reps = 3 * reps < 9 ? 9 : (3 * reps > REPS_MAX ? REPS_MAX : 3 * reps);
    for (int k = -o->warmup; k < scan_reps; k++) {
        MPI_Barrier(ctx->comm);
        double t0 = MPI_Wtime();
        radix_histogram_tuples(r, w->r_n, bits, hist);
        radix_histogram_tuples(s, w->s_n, bits, hist);
        if (k >= 0) t[k] = MPI_Wtime() - t0;
    }
    free(hist);
    params_put(p, MP_P_scan, calibrate_rate_of(ctx, t, scan_reps, (double)(w->r_n + w->s_n)));
}

/* P_partition: the network pass on the host's ranks, all at once, puts within the host included */
static void measure_network_pass(const bench_ctx *ctx, const calibrate_opts *o, const join_opts *jo,
                                 const join_plan *jp, const workload *w, const tuple_t *r, const tuple_t *s, int bits,
                                 model_params *p)
{
    double t[REPS_MAX];
    const int reps = (int)o->repeats;
    bench_ctx host;
    bench_ctx_init(&host, ctx->host);
    const radix_format f = radix_format_for(w, true, bits);
    join_input in = {.ctx = &host, .opt = jo, .wl = w, .r = r, .s = s, .r_n = w->r_n, .s_n = w->s_n, .plan = jp};
    radix_layout lay;
    radix_histogram_phase(&in, bits, jo->assign, &lay);
    rma_window win[2];
    radix_windows_alloc(&in, &lay, &f, win);
    for (int k = -o->warmup; k < reps; k++) {
        double tp, tf;
        MPI_Barrier(ctx->comm);
        double t0 = MPI_Wtime();
        radix_network_partition(&in, &lay, &f, win, &tp, &tf);
        if (k >= 0) t[k] = MPI_Wtime() - t0;
    }
    for (int rel = 0; rel < 2; rel++) rma_window_free(&win[rel]);
    radix_layout_free(&lay);
    bench_ctx_free(&host);
    params_put(p, MP_P_partition, calibrate_rate_of(ctx, t, reps, (double)(w->r_n + w->s_n)));
    params_put(p, MP_partition_bits, bits);
}

/* The sample of the local phases, network-partitioned and ready for the leaf loop.
 * The join at --tuples-per-rank N leaves network partitions of about N * ranks / 2^bits R tuples
 * (uniform keys) and picks its local plan for them. The sample: this rank's own tuples, cut by a
 * network pass on a window of its own (MPI_COMM_SELF: no transfer) into partitions of about that
 * size (at least two), then partitioned locally with the join's plan.
 * The sample is a whole join of its own (a workload of one rank, n R tuples): as in the join,
 * every network partition then holds all keys with its low bits, dense, so each leaf's keys fill
 * its hash table one per bucket and every matching S tuple finds its R tuple in the leaf. This
 * rank's share of a two-rank workload would hold a random half of the keys: colliding chains
 * and misses that the join never sees (the probe rate came out half the join's). */
typedef struct {
    bench_ctx self;
    workload ws;
    join_input in;          /* points into this struct: do not copy it */
    double join_part;       /* R tuples of the join's network partitions at --tuples-per-rank */
    radix_local_plan plan;  /* the join's local plan for them */
    radix_format sf;
    radix_layout lay;
    rma_window win[2];
    uint64_t max_part[2];   /* largest sample partition per relation */
} local_sample;

static void sample_open(local_sample *sm, const bench_ctx *ctx, const calibrate_opts *o, const join_opts *jo,
                        const join_plan *jp, int bits, const workload *wsp, const tuple_t *rs, const tuple_t *ss)
{
    sm->join_part = (double)o->tuples_per_rank * ctx->size / (double)(UINT64_C(1) << bits);
    const radix_format join_f = {.words = 1, .radix_bits = bits}; /* the join's packed items */
    sm->plan = radix_plan_local(jo, (uint64_t)(sm->join_part * 1.01), &join_f); /* its largest partition */
    int sbits = 1;
    while (sbits < 20 && (double)wsp->r_n / (double)(UINT64_C(1) << (sbits + 1)) >= sm->join_part * 0.75) sbits++;
    bench_ctx_init(&sm->self, MPI_COMM_SELF);
    sm->ws = *wsp;
    sm->in = (join_input){.ctx = &sm->self, .opt = jo, .wl = &sm->ws, .r = rs, .s = ss, .r_n = sm->ws.r_n,
                          .s_n = sm->ws.s_n, .plan = jp};
    radix_histogram_phase(&sm->in, sbits, jo->assign, &sm->lay);
    sm->sf = radix_format_for(&sm->ws, true, sbits);
    radix_windows_alloc(&sm->in, &sm->lay, &sm->sf, sm->win);
    double tp, tf;
    radix_network_partition(&sm->in, &sm->lay, &sm->sf, sm->win, &tp, &tf);
    sm->max_part[0] = sm->max_part[1] = 0;
    for (uint64_t q = 0; q < sm->lay.nparts; q++)
        for (int rel = 0; rel < 2; rel++)
            if (sm->lay.global[rel][q] > sm->max_part[rel]) sm->max_part[rel] = sm->lay.global[rel][q];
}

static void sample_close(local_sample *sm)
{
    for (int rel = 0; rel < 2; rel++) rma_window_free(&sm->win[rel]);
    radix_layout_free(&sm->lay);
    bench_ctx_free(&sm->self);
}

/* What radix.c's run() holds for its per-partition loop: leaf bounds, the passes' workspace, the
 * hash table, and scratch for one partition per relation (faulted in beforehand: the join's own
 * first touch of its scratch is measured apart, at the join's size, since the sample's few
 * partitions would amortise it over fewer tuples than the join does). */
typedef struct {
    uint64_t *bounds[2], *scratch[2];
    radix_local_ws lws;
    radix_table table;
    uint64_t matches, checksum;
} leaf_ws;

static void leaf_ws_open(leaf_ws *lw, const bench_ctx *ctx, const local_sample *sm)
{
    memset(lw, 0, sizeof *lw);
    const uint64_t leaves = UINT64_C(1) << sm->plan.total_bits;
    lw->bounds[0] = malloc((leaves + 1) * 8);
    lw->bounds[1] = malloc((leaves + 1) * 8);
    if (!lw->bounds[0] || !lw->bounds[1] || radix_local_ws_init(&lw->lws, &sm->plan))
        calibrate_fail(ctx, "the local partitioning workspace");
    for (int rel = 0; rel < 2 && sm->plan.passes > 0; rel++) {
        if (!(lw->scratch[rel] = mem_alloc_large(sm->max_part[rel] * 8))) calibrate_fail(ctx, "the local partitioning buffer");
        memset(lw->scratch[rel], 0, sm->max_part[rel] * 8);
    }
}

static void leaf_ws_close(leaf_ws *lw, const local_sample *sm)
{
    for (int rel = 0; rel < 2; rel++)
        if (lw->scratch[rel]) mem_free_large(lw->scratch[rel], sm->max_part[rel] * 8);
    radix_table_free(&lw->table);
    radix_local_ws_free(&lw->lws);
    free(lw->bounds[0]);
    free(lw->bounds[1]);
}

/* One pass over the sample's network partitions as radix.c's run() makes it: the local passes,
 * then the join's own leaf loop (build_only: one S item probed per leaf). */
static void leaf_loop(const bench_ctx *ctx, const local_sample *sm, leaf_ws *lw, int build_only, double *t_local,
                      double *t_bp)
{
    const radix_local_plan *plan = &sm->plan;
    const uint64_t leaves = UINT64_C(1) << plan->total_bits;
    const int hash_shift = radix_key_shift(&sm->sf, sm->sf.radix_bits + plan->total_bits);
    *t_local = *t_bp = 0;
    MPI_Barrier(ctx->comm);
    double t4 = MPI_Wtime();
    for (uint64_t q = 0; q < sm->lay.nparts; q++) {
        uint64_t *fin[2];
        for (int rel = 0; rel < 2; rel++) {
            uint64_t *part = (uint64_t *)sm->win[rel].base + sm->lay.base[rel][q];
            fin[rel] = plan->passes == 0 ? part
                                         : radix_local_partition(part, lw->scratch[rel], sm->lay.global[rel][q], &sm->sf,
                                                                 plan, lw->bounds[rel], &lw->lws);
        }
        if (plan->passes == 0)
            for (int rel = 0; rel < 2; rel++) lw->bounds[rel][0] = 0, lw->bounds[rel][1] = sm->lay.global[rel][q];
        double t5 = MPI_Wtime();
        *t_local += t5 - t4;
        if (radix_build_probe_leaves(fin[REL_R], lw->bounds[REL_R], fin[REL_S], lw->bounds[REL_S], leaves,
                                     build_only ? 1 : UINT64_MAX, &sm->sf, q, hash_shift, &lw->table,
                                     &lw->matches, &lw->checksum))
            calibrate_fail(ctx, "the hash table");
        t4 = MPI_Wtime();
        *t_bp += t4 - t5;
    }
}

/* P_partition_local, P_build, P_probe from the leaf loop's times: tl, tb [0] full, [1] build-only. */
static void put_local_rates(const bench_ctx *ctx, const calibrate_opts *o, const local_sample *sm,
                            double tl[2][REPS_MAX], double tb[2][REPS_MAX], model_params *p)
{
    const int reps = (int)o->repeats;
    /* both loops ran the same local passes: their times are one sample set */
    double all_local[2 * REPS_MAX];
    for (int i = 0; i < reps; i++) { /* a loop, not memcpy: gcc -O2 + sanitizers cannot bound reps */
        all_local[i] = tl[0][i];
        all_local[reps + i] = tl[1][i];
    }
    /* The join allocates scratch for its largest R and S partition once per run (radix.c) and its
     * passes fault it in: fresh memory, first touch, free; timed at the join's size. P_partition_local
     * is the rate the join sees at --tuples-per-rank: its 2N tuples per rank (R and S) through the
     * passes plus that first touch. */
    const double join_tuples = 2.0 * (double)o->tuples_per_rank;
    const uint64_t join_scratch = sm->plan.passes > 0 ? (uint64_t)(sm->join_part * 1.01) * 8 : 0;
    const double pass_rate = (double)(sm->ws.r_n + sm->ws.s_n) / calibrate_median(all_local, 2 * reps);
    const double join_local = join_tuples / pass_rate + 2.0 * (double)join_scratch * o->touch_per_byte;
    params_put(p, MP_P_partition_local, calibrate_allreduce(ctx, join_tuples / join_local, MPI_SUM));
    params_put(p, MP_partition_local_bits, sm->plan.passes ? sm->plan.bits[0] : 0);
    params_put(p, MP_radix_local_passes, sm->plan.passes);
    double build = calibrate_median(tb[1], reps), both = calibrate_median(tb[0], reps);
    params_put(p, MP_P_build, calibrate_allreduce(ctx, (double)sm->ws.r_n / build, MPI_SUM));
    /* the probe is the full call less the build (an S item per leaf in the build loop: negligible) */
    double probe = both - build > 0.05 * both ? both - build : 0.05 * both;
    params_put(p, MP_P_probe, calibrate_allreduce(ctx, (double)sm->ws.s_n / probe, MPI_SUM));
}

static void calibrate_radix(const bench_ctx *ctx, const calibrate_opts *o, const join_opts *jo, const workload *w,
                            const tuple_t *r, const tuple_t *s, const workload *wsp, const tuple_t *rs,
                            const tuple_t *ss, model_params *p)
{
    const int reps = (int)o->repeats, bits = radix_plan_bits(jo, ctx->size);
    /* the send buffers of the join being modelled: its plan at this rank count (--buffer-memory) */
    join_plan jp;
    char err[512];
    if (radix_join_algo.plan(jo, w, ctx->size, &jp, err, sizeof err)) bench_usage_error(ctx, "%s", err);
    measure_scan(ctx, o, w, r, s, bits, p);
    measure_network_pass(ctx, o, jo, &jp, w, r, s, bits, p);

    /* P_partition_local, P_build, P_probe: per network partition of the sample, as radix.c's run() does */
    local_sample sm;
    sample_open(&sm, ctx, o, jo, &jp, bits, wsp, rs, ss);
    leaf_ws lw;
    leaf_ws_open(&lw, ctx, &sm);
    double tl[2][REPS_MAX], tb[2][REPS_MAX];
    for (int k = -o->warmup; k < reps; k++)
        for (int build_only = 0; build_only < 2; build_only++) {
            double t_local, t_bp;
            leaf_loop(ctx, &sm, &lw, build_only, &t_local, &t_bp);
            if (k >= 0) {
                tl[build_only][k] = t_local;
                tb[build_only][k] = t_bp;
            }
        }
    leaf_ws_close(&lw, &sm);
    put_local_rates(ctx, o, &sm, tl, tb, p);
    sample_close(&sm);
}

void calibrate_compute(const bench_ctx *ctx, const calibrate_opts *o, model_params *p)
{
    /* the joins' defaults (joins/join_main.c) */
    join_opts jo;
    join_default_opts(&jo);
    jo.window = o->window; /* the flavour the joins to model use */
    workload w;
    workload_init(&w, (uint64_t)o->tuples * (uint64_t)ctx->size, 1, 1.0, 0, (uint64_t)jo.seed, ctx->rank, ctx->size,
                  false);
    /* input 32 B, the radix local sample's own input 32 B, radix windows + scratch 16 B, sort-merge
     * packed + windows 16 B per tuple pair */
    int64_t need = (int64_t)(w.r_n + w.s_n) * (16 + 16 + 16 + 16) + (64 << 20);
    mem_check_or_exit(ctx, need, "--tuples");
    tuple_t *r = mem_alloc_large(w.r_n * sizeof(tuple_t)), *s = mem_alloc_large(w.s_n * sizeof(tuple_t));
    if (!r || !s) calibrate_fail(ctx, "the relations");
    generate_r(&w, r);
    generate_s(&w, s);
    calibrate_opts oo = *o;
    if (oo.tuples_per_rank <= 0) oo.tuples_per_rank = jo.tuples_per_rank; /* the join's default */
    params_put(p, MP_tuples_per_rank, (double)oo.tuples_per_rank);
    /* The samples of the local phases: a one-rank workload on every rank (see calibrate_radix) */
    workload ws;
    workload_init(&ws, w.r_n, 1, 1.0, 0, (uint64_t)jo.seed, 0, 1, false);
    tuple_t *rs = mem_alloc_large(ws.r_n * sizeof(tuple_t)), *ss = mem_alloc_large(ws.s_n * sizeof(tuple_t));
    if (!rs || !ss) calibrate_fail(ctx, "the local sample");
    generate_r(&ws, rs);
    generate_s(&ws, ss);
    /* first touch of the joins' fresh buffers, at the size of the sort-merge join's packed
     * relations (8 bytes per tuple of R and S): once, not per round */
    const uint64_t touch_bytes = 2 * (uint64_t)oo.tuples_per_rank * 8;
    oo.touch_per_byte = calibrate_first_touch(ctx, touch_bytes, (int)o->repeats + 2) / (double)touch_bytes;
    /* Rounds of all kernels, the median per parameter kept: on a shared or virtual machine a
     * slowdown of a second or so would otherwise take all repetitions of the kernels it overlaps
     * (seen here: P_sort_run, P_merge and P_match 30% low in one calibration out of eight). */
    model_params round[CALIBRATE_ROUNDS_MAX];
    for (int k = 0; k < o->rounds; k++) {
        round[k] = *p;
        oo.warmup = k == 0; /* caches, page tables and the MPI library are warm after the first round */
        calibrate_radix(ctx, &oo, &jo, &w, r, s, &ws, rs, ss, &round[k]);
        /* sort-merge: each rank partitions, sorts and matches a whole relation pair of its own, so
         * the runs hold dense keys and every matching S finds its R as in the join (this rank's
         * share of a global workload holds half the partners: unpredictable branches in smj_match) */
        calibrate_sortmerge(ctx, &oo, &jo, &ws, rs, ss, &round[k]);
    }
    for (int i = 0; i < MP_COUNT; i++) {
        if (!round[0].set[i]) continue;
        double v[CALIBRATE_ROUNDS_MAX];
        for (int k = 0; k < o->rounds; k++) v[k] = round[k].v[i];
        if (strncmp(params_name(i), "P_", 2) == 0) params_put_spread(p, i, v, (int)o->rounds); /* rates only */
        params_put(p, i, calibrate_median(v, (int)o->rounds)); /* same on every rank: inputs were reduced */
    }
    mem_free_large(rs, ws.r_n * sizeof(tuple_t));
    mem_free_large(ss, ws.s_n * sizeof(tuple_t));
    mem_free_large(r, w.r_n * sizeof(tuple_t));
    mem_free_large(s, w.s_n * sizeof(tuple_t));
    if (ctx->rank == 0)
        snprintf(p->info[MI_kernels], sizeof p->info[MI_kernels],
                 "the joins' own kernels (radix_kernels.h, radix_network_partition, smj_kernels.h, smj_range_partition), "
                 "%lld tuples per relation per rank",
                 (long long)o->tuples);
}
