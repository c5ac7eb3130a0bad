/* The radix hash join's primitives, each timed alone on data laid out for it (never a phase of
 * the join: a phase that deviates from its equation must show up as a deviation). All ranks run
 * them at once, so memory bandwidth is shared as in a join. The sample: n tuples per rank of a
 * one-rank workload (joins/generate.h), and the same tuples packed into 8-byte words.
 *   P_scan              radix_histogram_tuples over R and S (16-byte tuples, the join's bins: the
 *                       network fan-out times the first local pass's where the histogram phase
 *                       counts that pass)
 *   P_partition         radix_scatter_pass at the network fan-out, out of cache, its bounds counted
 *                       before the timing (the network pass has them from the histogram phase, eq.
 *                       3.1; with radix_partition_pass, which counts its own, the network pass
 *                       would be predicted long, docs/measurements.md, "From code comments"): it
 * reads
 *                       a 16-byte tuple and writes an 8-byte word, so the mean time of a 16 B -> 16 B
 *                       scatter and an 8 B -> 8 B scatter over the same tuples; direct or staged
 *                       as the join's --scatter takes it at that fan-out (radix_kernels.h)
 *   P_partition_incache the same 8 B pass on a block that fits half the L2 cache (how much of the
 *                       out-of-cache rate is memory; informational)
 *   P_partition_local   radix_scatter_pass, 8-byte words, at the fan-out of the join's first local
 *                       pass at --tuples-per-rank, over blocks of the size of the join's network
 *                       partitions there, each block's bounds counted untimed (the histogram phase
 *                       counts the join's first pass)
 *   P_count_local       radix_pass_bounds over the same blocks: what a pass that counts its own
 *                       items adds (the passes after the first, or a first one over the bins' cap)
 *   P_build, P_probe    radix_build_probe over leaves of the join's leaf size (R keys dense in a leaf,
 *                       in random order; S keys uniform over them): build alone (no S), then both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/calibrate/calibrate.h"
#include "bench/memory.h"
#include "bench/stats.h"
#include "bench/wait_bound.h"
#include "joins/radix/local_partition.h"
#include "joins/radix/radix_kernels.h"
#include "joins/radix/radix_phases.h"
#include "joins/radix/radix_plan.h"

#define REPS_MAX 100

void calibrate_fail(const bench_ctx *ctx, const char *what)
{
    fprintf(stderr, "rmabench: rank %d: calibrate: cannot allocate %s\n", ctx->rank, what);
    MPI_Abort(ctx->comm, 2);
}

double calibrate_rate_of(const bench_ctx *ctx, double *t, int reps, double n)
{
    enum { MAX_REPS = 128 };
    double slowest[MAX_REPS], mean[MAX_REPS];
    if (reps > MAX_REPS) reps = MAX_REPS;
    MPI_CHECK(ctx->rank, MPI_Allreduce(t, slowest, reps, MPI_DOUBLE, MPI_MAX, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Allreduce(t, mean, reps, MPI_DOUBLE, MPI_SUM, ctx->comm));
    const double best = mean[stats_argmin(slowest, reps)] / ctx->size;
    return best > 0 ? n / best : 0;
}

/* o->alone: only the first rank of each host runs; the mean over hosts of its rate */
static bool runs_body(const bench_ctx *ctx, const calibrate_opts *o) { return !o->alone || ctx->host_rank == 0; }

/* A barrier whose waiting ranks sleep: under o->alone the idle ranks wait here while one rank per
 * host computes all its rounds, and a rank spinning in MPI_Barrier would take the memory bus or, on
 * SMT siblings, the core the one running shares. Naps of 20 ms: shorter naps wake often enough to
 * slow the rank running alone (docs/measurements.md, "From code comments"); a nap delays a
 * primitive at most once, not per round. */
static void sleepy_barrier(const bench_ctx *ctx)
{
    MPI_Request req;
    int done = 0;
    MPI_CHECK(ctx->rank, MPI_Ibarrier(ctx->comm, &req));
    const struct timespec nap = {0, 20000000};
    blocking_begin("MPI_Barrier (sleeping while one rank per host measures)", -1); /* the wait bound */
    for (MPI_Test(&req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&req, &done, MPI_STATUS_IGNORE)) nanosleep(&nap, NULL);
    blocking_end();
}

static double alone_rate_of(const bench_ctx *ctx, double *t, int reps, double n)
{
    double best = ctx->host_rank == 0 ? stats_min(t, reps) : 0;
    return calibrate_allreduce(ctx, best > 0 ? n / best : 0, MPI_SUM) * ctx->size / ctx->hosts;
}

uint64_t calibrate_mix(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Times nb bodies alternately (body[0], body[1], ..., body[0], ...) reps times after o->warmup
 * untimed rounds, all ranks starting each together; rate[i] = n[i] / the least disturbed repetition
 * of body[i] (calibrate_rate_of). With o->alone only each host's first rank runs, and the others sleep
 * through all the rounds: no barrier, no wake-up between them. */
static void time_bodies(const bench_ctx *ctx, const calibrate_opts *o, int reps, int nb, void (*const *body)(void *),
                        void *arg, const double *n, double *rate)
{
    double t[2][REPS_MAX];
    if (reps > REPS_MAX) reps = REPS_MAX;
    const bool run = runs_body(ctx, o);
    if (o->alone) sleepy_barrier(ctx);
    for (int k = -o->warmup; k < reps && run; k++)
        for (int i = 0; i < nb; i++) {
            if (!o->alone) MPI_Barrier(ctx->comm);
            double t0 = MPI_Wtime();
            body[i](arg);
            if (k >= 0) t[i][k] = MPI_Wtime() - t0;
        }
    if (o->alone) sleepy_barrier(ctx);
    else
        for (int i = 0; i < nb; i++) calibrate_spread_add(ctx, t[i], reps);
    for (int i = 0; i < nb; i++)
        rate[i] = o->alone ? alone_rate_of(ctx, t[i], reps, n[i]) : calibrate_rate_of(ctx, t[i], reps, n[i]);
}

double calibrate_time(const bench_ctx *ctx, const calibrate_opts *o, int reps, double n, void (*body)(void *), void *arg)
{
    double rate;
    time_bodies(ctx, o, reps, 1, &body, arg, &n, &rate);
    return rate;
}

void calibrate_time_pair(const bench_ctx *ctx, const calibrate_opts *o, int reps, void (*body_a)(void *),
                         void (*body_b)(void *), void *arg, double rate[2])
{
    void (*const body[2])(void *) = {body_a, body_b};
    const double one[2] = {1.0, 1.0};
    time_bodies(ctx, o, reps, 2, body, arg, one, rate);
}

typedef struct {
    const tuple_t *r, *s;
    uint64_t r_n, s_n;
    uint64_t *items, n;   /* R then S packed: key << 32 | index */
    uint64_t *out;        /* 2 words per tuple of R and S */
    uint64_t *bounds, *hist;
    radix_swwc swwc;
    int bits, words;
    uint64_t block;       /* partition the items in blocks of this many (0: all at once) */
    uint64_t *net_bounds[2]; /* P_partition: the bounds of R and S (words 2) or of the packed items, counted untimed */
    int scatter;             /* partition_body scatters with net_bounds (the network pass) instead of whole passes */
    uint64_t *block_bounds;  /* P_partition_local: every block's bounds, counted untimed (NULL: counted in the pass) */
    /* build/probe */
    uint64_t *leaf_r, *leaf_s, r_leaf, s_leaf, leaves;
    radix_table table;
    int build_only;
    uint64_t matches, checksum;
} radix_bench;

static void scan_body(void *a)
{
    radix_bench *b = a;
    radix_histogram_tuples(b->r, b->r_n, b->bits, b->hist);
    radix_histogram_tuples(b->s, b->s_n, b->bits, b->hist);
}

/* One pass over all tuples, in blocks of b->block items: 16-byte tuples (words 2) or packed words. */
static void partition_body(void *a)
{
    radix_bench *b = a;
    const uint64_t *in = b->words == 2 ? (const uint64_t *)b->r : b->items;
    const uint64_t n = b->words == 2 ? b->r_n : b->n, block = b->block ? b->block : n;
    const int shift = b->words == 2 ? 0 : 32;
    if (b->scatter) { /* all at once, the bounds known */
        radix_scatter_pass(in, n, b->words, shift, b->bits, b->out, b->net_bounds[0], &b->swwc);
        if (b->words == 2) radix_scatter_pass((const uint64_t *)b->s, b->s_n, 2, 0, b->bits, b->out + 2 * b->r_n, b->net_bounds[1], &b->swwc);
        return;
    }
    for (uint64_t off = 0, k = 0; off < n; off += block, k++) {
        uint64_t len = n - off < block ? n - off : block;
        if (b->block_bounds)
            radix_scatter_pass(in + off * (uint64_t)b->words, len, b->words, shift, b->bits,
                               b->out + off * (uint64_t)b->words, b->block_bounds + k * ((UINT64_C(1) << b->bits) + 1), &b->swwc);
        else
            radix_partition_pass(in + off * (uint64_t)b->words, len, b->words, shift, b->bits,
                                 b->out + off * (uint64_t)b->words, b->bounds, &b->swwc);
    }
    if (b->words == 2) /* S after R: the tuples are two arrays */
        for (uint64_t off = 0; off < b->s_n; off += block) {
            uint64_t len = b->s_n - off < block ? b->s_n - off : block;
            radix_partition_pass((const uint64_t *)b->s + 2 * off, len, 2, 0, b->bits, b->out + 2 * (b->r_n + off),
                                 b->bounds, &b->swwc);
        }
}

/* The count of every block of partition_body's (8-byte items): P_count_local */
static void count_body(void *a)
{
    radix_bench *b = a;
    for (uint64_t off = 0; off < b->n; off += b->block)
        radix_pass_bounds(b->items + off, b->n - off < b->block ? b->n - off : b->block, 1, 32, b->bits, b->bounds);
}

static void build_probe_body(void *a)
{
    radix_bench *b = a;
    const radix_format f = {.words = 1, .radix_bits = 0, .rid_bits = 32};
    for (uint64_t l = 0; l < b->leaves; l++)
        radix_build_probe(b->leaf_r + l * b->r_leaf, b->r_leaf, b->leaf_s + l * b->s_leaf, b->build_only ? 1 : b->s_leaf,
                          &f, 0, 32, &b->table, &b->matches, &b->checksum);
}

/* Leaves of r_leaf R items (keys 0..r_leaf-1 in random order) and s_leaf S items (keys uniform in
 * that range), packed as key << 32 | rid, covering at most n items in all: the buffers hold n, so
 * a leaf larger than that (the join's leaf beside a small sample) is cut to fit, and b->r_leaf
 * says what was filled. */
static void leaves_fill(radix_bench *b, uint64_t n, uint64_t r_leaf, uint64_t ratio)
{
    if (r_leaf > n / (1 + ratio)) r_leaf = n / (1 + ratio);
    if (r_leaf < 1) r_leaf = 1; /* n is at least the 2 x 1000 tuples --tuples allows */
    b->r_leaf = r_leaf;
    b->s_leaf = r_leaf * ratio;
    b->leaves = n / (b->r_leaf + b->s_leaf);
    if (b->leaves < 1) b->leaves = 1;
    uint64_t st = 12345;
    for (uint64_t l = 0; l < b->leaves; l++) {
        uint64_t *r = b->leaf_r + l * b->r_leaf, *s = b->leaf_s + l * b->s_leaf;
        for (uint64_t j = 0; j < b->r_leaf; j++) r[j] = j << 32 | j;
        for (uint64_t j = b->r_leaf - 1; j > 0; j--) { /* Fisher-Yates */
            uint64_t k = calibrate_mix(&st) % (j + 1), t = r[j];
            r[j] = r[k];
            r[k] = t;
        }
        for (uint64_t j = 0; j < b->s_leaf; j++) s[j] = (calibrate_mix(&st) % b->r_leaf) << 32 | j;
    }
}

/* the two shapes of the probe's slope (arg: radix_bench *[2], the 1:1 and the 1:4 leaves) */
static void probe_shape_1to1(void *a) { build_probe_body(((radix_bench **)a)[0]); }
static void probe_shape_1to4(void *a) { build_probe_body(((radix_bench **)a)[1]); }

/* P_build, P_probe on leaves of the join's leaf size (the sample's memory reused) */
static void measure_build_probe(const bench_ctx *ctx, const calibrate_opts *o, radix_bench *bb, double join_part,
                                int total_bits, model_params *p)
{
    radix_bench b = *bb;
    const int reps = (int)o->repeats;
    const uint64_t n = b.n;
    char how[CALIBRATE_HOW];
    uint64_t r_leaf = (uint64_t)(join_part / (double)(UINT64_C(1) << total_bits));
    if (r_leaf < 64) r_leaf = 64;
    b.leaf_r = b.items;       /* the packed sample is no longer needed: reuse its memory */
    b.leaf_s = b.out;
    leaves_fill(&b, n, r_leaf, 1);
    if (radix_table_reserve(&b.table, b.r_leaf)) calibrate_fail(ctx, "the hash table");
    b.build_only = 1;
    double build = calibrate_time(ctx, o, reps, (double)(b.leaves * b.r_leaf), build_probe_body, &b);
    const uint64_t build_leaves = b.leaves, build_leaf = b.r_leaf;
    b.build_only = 0;
    /* The probe: the slope per S item between leaves at 1:1 and at 1:4, t = R a + S c, rather than
     * one build and probe less a separately timed build: that difference of two medians spreads
     * widely over rounds and misses the joins' probes (docs/measurements.md, "From code comments").
     * The two shapes, half the sample each, are timed alternately (calibrate_time_pair), so that a
     * slow spell of the machine falls on both. */
    radix_bench b4 = b;
    /* items: n words, out: 2n; each shape covers n/2 items, at least one leaf: a leaf of the
     * join's size may not fit a small sample, which then probes smaller leaves (the note says) */
    const uint64_t probe_leaf = r_leaf < n / 10 ? r_leaf : (n / 10 ? n / 10 : 1);
    leaves_fill(&b, n / 2, probe_leaf, 1);
    b4.leaf_r = b.items + b.leaves * b.r_leaf;
    b4.leaf_s = b.out + b.leaves * b.s_leaf;
    leaves_fill(&b4, n / 2, probe_leaf, 4);
    const double r1 = (double)(b.leaves * b.r_leaf), s1 = (double)(b.leaves * b.s_leaf);
    const double r4 = (double)(b4.leaves * b4.r_leaf), s4 = (double)(b4.leaves * b4.s_leaf);
    radix_bench *shapes[2] = {&b, &b4};
    double rate[2];
    calibrate_time_pair(ctx, o, reps, probe_shape_1to1, probe_shape_1to4, shapes, rate);
    const double t1 = 1.0 / rate[0], t4 = 1.0 / rate[1]; /* seconds */
    double c = (r1 * t4 - r4 * t1) / (r1 * s4 - r4 * s1);
    if (c < 0.05 * t4 / s4) c = 0.05 * t4 / s4; /* noise: keep it positive */
    params_put(p, MP_P_build, build);
    params_put(p, MP_P_probe, 1 / c);
    snprintf(how, sizeof how, "radix_build_probe with one S item per leaf, %llu leaves of %llu R items (%s at %lld tuples per rank)",
             (unsigned long long)build_leaves, (unsigned long long)build_leaf,
             build_leaf < r_leaf ? "smaller than the join's leaf: the sample holds less" : "the join's leaf", (long long)o->tuples_per_rank);
    calibrate_note(p, MP_P_build, how, 8);
    snprintf(how, sizeof how, "radix_build_probe per S item: slope between leaves of %llu R with %llu S (%.2f ms) and %llu S (%.2f ms), timed alternately, %s probe",
             (unsigned long long)probe_leaf, (unsigned long long)probe_leaf, t1 * 1e3, (unsigned long long)(4 * probe_leaf), t4 * 1e3,
             b.table.simd ? "avx512" : "scalar");
    calibrate_note(p, MP_P_probe, how, 8);

    bb->table = b.table;
}

/* P_partition_local and P_count_local: the join's first local pass at --tuples-per-rank, its
 * scatter (the bounds of every block counted untimed) and its count apart. */
static void measure_local_pass(const bench_ctx *ctx, const calibrate_opts *o, radix_bench *b, const radix_local_plan plan,
                               double join_part, int reps, int scan_reps, model_params *p)
{
    const uint64_t n = b->n;
    char how[CALIBRATE_HOW];
    b->bits = plan.passes ? plan.bits[0] : 1;
    b->block = (uint64_t)(2 * join_part) > 64 ? (uint64_t)(2 * join_part) : 64; /* R and S of one partition */
    const uint64_t nblocks = (n + b->block - 1) / b->block, stride = (UINT64_C(1) << b->bits) + 1;
    if (!(b->block_bounds = malloc(nblocks * stride * 8))) calibrate_fail(ctx, "the local pass's bounds");
    for (uint64_t k = 0; k < nblocks; k++)
        radix_pass_bounds(b->items + k * b->block, n - k * b->block < b->block ? n - k * b->block : b->block, 1, 32, b->bits,
                          b->block_bounds + k * stride);
    params_put(p, MP_P_partition_local, calibrate_time(ctx, o, reps, (double)n, partition_body, b));
    free(b->block_bounds);
    b->block_bounds = NULL;
    params_put(p, MP_P_count_local, calibrate_time(ctx, o, scan_reps, (double)n, count_body, b));
    params_put(p, MP_partition_local_bits, plan.passes ? plan.bits[0] : 0);
    params_put(p, MP_radix_local_passes, plan.passes);
    snprintf(how, sizeof how, "radix_scatter_pass 8->8 B (bounds counted untimed), 2^%d fan-out, %s, blocks of %llu items (a join partition at %lld tuples per rank), %llu per rank",
             b->bits, radix_pass_direct(b->bits, b->swwc.direct_bits) ? "direct" : "staged", (unsigned long long)b->block,
             (long long)o->tuples_per_rank, (unsigned long long)n);
    calibrate_note(p, MP_P_partition_local, how, 16);
    snprintf(how, sizeof how, "radix_pass_bounds 8 B, 2^%d bins, the same blocks, %llu per rank", b->bits, (unsigned long long)n);
    calibrate_note(p, MP_P_count_local, how, 8);
}

/* P_scan at the join's bins (scan_bits) and the scan curve at the others (model_scan_factor) */
static void measure_scan(const bench_ctx *ctx, const calibrate_opts *o, radix_bench *b, int join_bits, int reps, model_params *p)
{
    const int curve[SCAN_CURVE_N] = SCAN_CURVE_BITS;
    char how[CALIBRATE_HOW];
    for (int k = -1; k < (o->alone ? 0 : SCAN_CURVE_N); k++) { /* the curve has no P_*_alone twins */
        const int i = k < 0 ? MP_P_scan : MP_P_scan_at_4 + k;
        b->bits = k < 0 ? join_bits : curve[k];
        params_put(p, i, calibrate_time(ctx, o, reps, (double)b->n, scan_body, b));
        snprintf(how, sizeof how, "radix_histogram_tuples, 2^%d bins, %llu tuples (16 B) per rank", b->bits, (unsigned long long)b->n);
        calibrate_note(p, i, how, 16);
    }
    params_put(p, MP_scan_bits, join_bits);
}

void calibrate_radix(const bench_ctx *ctx, const calibrate_opts *o, const join_opts *jo, const workload *w,
                     const tuple_t *r, const tuple_t *s, model_params *p)
{
    const int reps = (int)o->repeats, bits = radix_plan_bits(jo, ctx->size);
    const uint64_t n = w->r_n + w->s_n;
    char how[CALIBRATE_HOW];
    radix_bench b = {.r = r, .s = s, .r_n = w->r_n, .s_n = w->s_n, .n = n, .bits = bits};
    b.items = mem_alloc_large(n * 8);
    b.out = mem_alloc_large(n * 16);
    /* the join's local plan at --tuples-per-rank: network partitions of join_part R items */
    const double join_part = (double)o->tuples_per_rank * ctx->size / (double)(UINT64_C(1) << bits);
    const radix_format join_f = {.words = 1, .radix_bits = bits};
    const radix_local_plan plan = radix_plan_local(jo, (uint64_t)(join_part * 1.01), &join_f);
    const int max_bits = plan.passes && plan.bits[0] > bits ? plan.bits[0] : bits;
    /* the join's histogram phase counts its first local pass too where the bins fit (radix_plan.h) */
    const int sub_bits = radix_plan_sub_bits(jo, o->tuples_per_rank * (uint64_t)ctx->size, bits, &join_f);
    const int hist_bits = bits + sub_bits > max_bits ? bits + sub_bits : max_bits, curve[SCAN_CURVE_N] = SCAN_CURVE_BITS;
    b.hist = calloc((size_t)1 << (hist_bits > curve[SCAN_CURVE_N - 1] ? hist_bits : curve[SCAN_CURVE_N - 1]), 8);
    b.bounds = malloc((((size_t)1 << max_bits) + 1) * 8);
    if (!b.items || !b.out || !b.hist || !b.bounds || radix_swwc_init(&b.swwc, max_bits))
        calibrate_fail(ctx, "the radix sample");
    const unsigned simd = radix_simd_resolve(ctx, jo); /* the join's kernels at its --simd */
    b.swwc.simd = (simd & RADIX_SIMD_SCATTER) != 0;
    b.swwc.direct_bits = radix_direct_bits(jo->scatter); /* the join's passes at its --scatter */
    b.table.simd = (simd & RADIX_SIMD_PROBE) != 0;
    memset(b.out, 0, n * 16); /* faulted in: first touch is t_touch_per_byte's */
    for (uint64_t i = 0; i < w->r_n; i++) b.items[i] = r[i].key << 32 | i;
    for (uint64_t i = 0; i < w->s_n; i++) b.items[w->r_n + i] = s[i].key << 32 | i;

    /* a scan takes a few milliseconds: more repetitions than the rest (3x, at least 9) */
    const int scan_reps = 3 * reps < 9 ? 9 : 3 * reps;
    b.bits = bits + sub_bits;
    measure_scan(ctx, o, &b, bits + sub_bits, scan_reps, p);
    b.bits = bits;

    b.net_bounds[0] = malloc((((size_t)1 << bits) + 1) * 8);
    b.net_bounds[1] = malloc((((size_t)1 << bits) + 1) * 8);
    if (!b.net_bounds[0] || !b.net_bounds[1]) calibrate_fail(ctx, "the radix sample's bounds");
    b.scatter = 1;
    b.words = 2;
    radix_pass_bounds((const uint64_t *)r, w->r_n, 2, 0, bits, b.net_bounds[0]);
    radix_pass_bounds((const uint64_t *)s, w->s_n, 2, 0, bits, b.net_bounds[1]);
    double wide = calibrate_time(ctx, o, reps, (double)n, partition_body, &b);
    b.words = 1;
    radix_pass_bounds(b.items, n, 1, 32, bits, b.net_bounds[0]);
    double narrow = calibrate_time(ctx, o, reps, (double)n, partition_body, &b);
    b.scatter = 0;
    params_put(p, MP_P_partition, 2.0 / (1.0 / wide + 1.0 / narrow));
    params_put(p, MP_partition_bits, bits);
    snprintf(how, sizeof how, "radix_scatter_pass (bounds counted untimed), 2^%d fan-out, %llu tuples per rank out of cache: mean time of 16->16 B (%.0f M/s) and 8->8 B (%.0f M/s, %s scatter)",
             bits, (unsigned long long)n, wide / 1e6, narrow / 1e6,
             radix_pass_direct(bits, b.swwc.direct_bits) ? "direct" : b.swwc.simd ? "staged avx512" : "staged scalar");
    calibrate_note(p, MP_P_partition, how, 24);

    /* in cache: blocks of half the L2 (input and output) */
    const uint64_t l2 = radix_l2_bytes();
    b.block = l2 / 4 / 8;
    params_put(p, MP_P_partition_incache, calibrate_time(ctx, o, reps, (double)n, partition_body, &b));
    snprintf(how, sizeof how, "radix_partition_pass 8->8 B, 2^%d fan-out, blocks of %llu items (L2/4), %llu per rank", bits,
             (unsigned long long)b.block, (unsigned long long)n);
    calibrate_note(p, MP_P_partition_incache, how, 0);

    measure_local_pass(ctx, o, &b, plan, join_part, reps, scan_reps, p);

    measure_build_probe(ctx, o, &b, join_part, plan.total_bits, p);

    radix_table_free(&b.table);
    radix_swwc_free(&b.swwc);
    free(b.hist);
    free(b.bounds);
    free(b.net_bounds[0]);
    free(b.net_bounds[1]);
    mem_free_large(b.items, n * 8);
    mem_free_large(b.out, n * 16);
}
