/* --merge-bands auto: how many key bands per range, measured. The rule (smj_bands.h
 * smj_merge_bands) takes the fewest bands that reach the fewest merge passes; each doubling beyond
 * it halves a band's runs and saves a level of 2-way merging, and makes the partition's scatter
 * write to twice the places, at a cost the rule cannot know: more bands can make the scatter
 * faster on one CPU and twice as slow on another (docs/measurements.md, "From code comments"). So
 * rank 0 times the scatter at each candidate (smj_band_candidates) on a sample of its R and a merge
 * level on sorted runs, once per process, and every rank takes the cheapest (smj_band_cheapest)
 * from the broadcast costs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/fastclock.h"
#include "bench/memory.h"
#include "bench/yield_wait.h"
#include "joins/sortmerge/smj_bands.h"
#include "joins/sortmerge/smj_format.h"
#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/smj_plan.h"

/* the sample: 16 MiB of R and 8 MiB of output, beyond the L2 as the join's scatter is (a smaller
 * sample orders the counts alike but varies more from round to round) */
enum { SAMPLE_MAX = 1 << 20, ROUNDS = 3, LEVEL_RUNS = 16, LEVEL_BITS = 4, LEVEL_RUN = 1 << 14, TREE_BUFFER = 8192 };

/* Seconds a value and level of the merge: LEVEL_RUNS sorted runs of LEVEL_RUN random values merged
 * by the join's tree (smj_merge_runs: LEVEL_BITS levels), the best of ROUNDS; negative without
 * memory. It matches a level of the join's merge phase (docs/measurements.md, "From code
 * comments"). */
static double merge_level_seconds(int simd)
{
    const size_t n = (size_t)LEVEL_RUNS * LEVEL_RUN;
    uint64_t *d = malloc(n * sizeof *d), *out = malloc(n * sizeof *out), *tmp = malloc(2 * LEVEL_RUN * sizeof *tmp);
    const uint64_t *runs[LEVEL_RUNS];
    size_t lens[LEVEL_RUNS];
    double best = -1;
    if (d && out && tmp) {
        uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
        for (size_t i = 0; i < n; i++) x ^= x << 13, x ^= x >> 7, x ^= x << 17, d[i] = x >> 2; /* below 2^62 */
        for (int r = 0; r < LEVEL_RUNS; r++) {
            smj_sort_run(d + (size_t)r * LEVEL_RUN, LEVEL_RUN, d + (size_t)r * LEVEL_RUN, tmp, simd);
            runs[r] = d + (size_t)r * LEVEL_RUN;
            lens[r] = LEVEL_RUN;
        }
        for (int k = 0; k < ROUNDS; k++) {
            const double t0 = rmb_monotonic_s();
            if (smj_merge_runs(runs, lens, LEVEL_RUNS, out, TREE_BUFFER, simd)) break;
            const double s = (rmb_monotonic_s() - t0) / (double)n / LEVEL_BITS;
            if (best < 0 || s < best) best = s;
        }
    }
    free(d);
    free(out);
    free(tmp);
    return best;
}

/* merge_level_seconds once per process and kernel set (rank 0: the run size's and the bands' choice) */
static double level_seconds(int simd)
{
    static double cached[8];
    static int measured[8];
    const int k = simd & 7;
    if (!measured[k]) {
        cached[k] = merge_level_seconds(simd);
        measured[k] = 1;
    }
    return cached[k];
}

typedef struct {
    int n, bands[SMJ_MAX_BAND_CANDIDATES], ranks;
    double cost[SMJ_MAX_BAND_CANDIDATES + 1]; /* scatter seconds a tuple per candidate, then the merge level's */
    char how[512];
} band_costs;

/* Rank 0's measurement into c->cost: the scatter of R's first tuples at each candidate, a merge
 * level; a cost it could not measure stays negative. */
static void measure(const join_input *in, int simd, band_costs *c)
{
    const uint64_t n = in->r_n < SAMPLE_MAX ? in->r_n : SAMPLE_MAX;
    const smj_format f = smj_format_for(in->wl, in->ctx->size, join_word_bits(in->opt));
    uint64_t *out = malloc((n ? n : 1) * sizeof *out);
    for (int i = 0; i < c->n; i++)
        c->cost[i] = out && n ? smj_band_scatter_seconds(in->r, n, c->ranks, c->bands[i], workload_max_key(in->wl),
                                                         f.rid_bits, out, ROUNDS, simd)
                              : -1;
    free(out);
    c->cost[c->n] = level_seconds(simd);
}

int smj_bands_resolve(const join_input *in, uint64_t run, int fanin, int simd, const char **how)
{
    static band_costs cached;
    const bench_ctx *ctx = in->ctx;
    const workload *w = in->wl;
    *how = NULL;
    const int forced = (int)in->opt->merge_bands;
    if (forced > 0) return forced;
    band_costs c = {.ranks = ctx->size};
    c.n = smj_band_candidates(w->r_total, w->s_total, ctx->size, run, fanin, c.bands);
    /* one candidate, or the 16-byte format (its own scatter and merge: not measured): the rule's count */
    if (c.n == 1 || (in->plan && in->plan->tuple_bytes != 8)) return c.bands[0];
    if (cached.n != c.n || cached.ranks != c.ranks || memcmp(cached.bands, c.bands, sizeof c.bands) != 0) {
        if (ctx->rank == 0) measure(in, simd, &c);
        MPI_CHECK(ctx->rank, rmb_bcast(c.cost, c.n + 1, MPI_DOUBLE, 0, ctx->comm)); /* bench/yield_wait.h */
        cached = c; /* its how is empty: written below, once */
    }
    for (int i = 0; i <= c.n; i++)
        if (cached.cost[i] < 0) return c.bands[0]; /* not measured (no memory): the rule */
    const double level = cached.cost[c.n];
    const int best = smj_band_cheapest(c.n, c.bands, cached.cost, level, w->r_total, w->s_total, ctx->size, run);
    if (!cached.how[0]) {
        const uint64_t total = w->r_total > w->s_total ? w->r_total : w->s_total;
        int len = snprintf(cached.how, sizeof cached.how, "%d (rank 0, per tuple: the scatter + merge levels x a level:",
                           c.bands[best]);
        for (int i = 0; i < c.n && len < (int)sizeof cached.how; i++) {
            const int lv = smj_band_levels(total, (uint64_t)ctx->size, run, (uint64_t)c.bands[i]);
            len += snprintf(cached.how + len, sizeof cached.how - (size_t)len, "%s %d bands %.2f + %d x %.2f = %.2f ns",
                            i ? ";" : "", c.bands[i], cached.cost[i] * 1e9, lv, level * 1e9,
                            (cached.cost[i] + lv * level) * 1e9);
        }
        if (len < (int)sizeof cached.how) snprintf(cached.how + len, sizeof cached.how - (size_t)len, ")");
    }
    *how = cached.how;
    return c.bands[best];
}

/* --run-size auto: the L2 run, or twice it where that saves a merge level (smj_run_candidates) and
 * the run sort, timed on that run on this host, costs less than the level saves: with a large L2 a
 * run of twice the L2 size can sort as fast and save a merge level, and four times it cannot
 * (docs/measurements.md, "From code comments"). Rank 0 measures once per process; all take its
 * choice. */
uint64_t smj_run_resolve(const join_input *in, uint64_t run, int fanin, int simd, const char **how)
{
    static struct {
        uint64_t runs[SMJ_MAX_RUN_CANDIDATES];
        int n, ranks, simd;
        double cost[SMJ_MAX_RUN_CANDIDATES + 1]; /* the run sort's seconds a tuple per candidate, a level's */
        char how[256];
    } cached;
    const bench_ctx *ctx = in->ctx;
    const workload *w = in->wl;
    *how = NULL;
    if (in->opt->run_size || (in->plan && in->plan->tuple_bytes != 8)) return run; /* given, or the 16-byte format */
    uint64_t runs[SMJ_MAX_RUN_CANDIDATES] = {0};
    const int forced = (int)in->opt->merge_bands,
              n = smj_run_candidates(w->r_total, w->s_total, ctx->size, run, fanin, forced, runs);
    if (n == 1) return run;
    if (cached.n != n || cached.ranks != ctx->size || cached.simd != simd || memcmp(cached.runs, runs, sizeof runs) != 0) {
        double cost[SMJ_MAX_RUN_CANDIDATES + 1] = {-1, -1, -1};
        if (ctx->rank == 0) {
            const int bits = bits_for(workload_max_key(w) / (uint64_t)ctx->size + 1); /* a range's keys, as packed */
            const int key_bits = bits < 1 ? 1 : bits > 62 ? 62 : bits;
            for (int i = 0; i < n; i++) {
                const int sort = in->opt->run_sort ? (int)in->opt->run_sort : smj_run_sort_faster((size_t)runs[i], simd);
                const double rate = smj_run_sort_rate((size_t)runs[i], key_bits, sort, simd);
                cost[i] = rate > 0 ? 1 / rate : -1;
            }
            cost[n] = level_seconds(simd);
        }
        MPI_CHECK(ctx->rank, rmb_bcast(cost, n + 1, MPI_DOUBLE, 0, ctx->comm)); /* bench/yield_wait.h */
        memset(&cached, 0, sizeof cached);
        cached.n = n;
        cached.ranks = ctx->size;
        cached.simd = simd;
        memcpy(cached.runs, runs, sizeof runs);
        memcpy(cached.cost, cost, sizeof cost);
    }
    for (int i = 0; i <= n; i++)
        if (cached.cost[i] < 0) return run; /* not measured (no memory): the L2 run */
    int best = 0, lv[SMJ_MAX_RUN_CANDIDATES];
    for (int i = 0; i < n; i++) {
        lv[i] = smj_run_levels(w->r_total, w->s_total, ctx->size, runs[i], fanin, forced);
        if (cached.cost[i] + lv[i] * cached.cost[n] < cached.cost[best] + lv[best] * cached.cost[n]) best = i;
    }
    if (!cached.how[0]) {
        int len = snprintf(cached.how, sizeof cached.how, "%" PRIu64 " (rank 0, per tuple: the run sort + merge levels x a level:",
                           runs[best]);
        for (int i = 0; i < n && len < (int)sizeof cached.how; i++)
            len += snprintf(cached.how + len, sizeof cached.how - (size_t)len, "%s %" PRIu64 " %.2f + %d x %.2f = %.2f ns",
                            i ? ";" : "", runs[i], cached.cost[i] * 1e9, lv[i], cached.cost[n] * 1e9,
                            (cached.cost[i] + lv[i] * cached.cost[n]) * 1e9);
        if (len < (int)sizeof cached.how) snprintf(cached.how + len, sizeof cached.how - (size_t)len, ")");
    }
    *how = cached.how;
    return runs[best];
}
