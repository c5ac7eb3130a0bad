/* The sort-merge join's primitives, each timed alone on data laid out for it (see
 * calibrate_radix.c for why not the join's phases). Sample: this rank's n tuples of a one-rank
 * workload (dense keys, so every S tuple finds its R as in the join).
 *   P_partition_range  the scatter of the range partitioning: smj_part_lut over the splitters of
 *                      `ranks` equal key ranges and smj_pack into a packed array laid out by range
 *                      (its counting pass is P_count_range, its fresh array t_touch_per_byte)
 *   P_pack             smj_pack_all: the partition of a one-rank join (one range: no lookup, no count)
 *   P_count_range      smj_count_ranges over the same ranges: the sort-merge histogram (eq. 3.1)
 *   P_sort_run         smj_sort_run over runs of the join's run length, packed array -> another
 *   P_sort_radix       smj_radix_sort_run over the same runs (--run-sort radix; unset where the
 *                      sample's keys span more than its two digits)
 *   P_merge            smj_merge_passes at the join's fan-in over fan-in sorted runs: one pass
 *   P_match            smj_match over the two sorted relations
 *   P_match_r/_s       its cost per R and per S tuple at up to 2 S tuples per R key (shapes 1:1, 1:2), and
 *   P_match_*_many     beyond (1:4, 1:8): the join's kernel may differ between the two (measure_match) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/calibrate/calibrate.h"
#include "bench/memory.h"
#include "joins/sortmerge/smj_kernels.h"

/* The sort-merge join's merge fan-in (joins/sortmerge/sortmerge.c DEFAULT_FANIN). */
#define SMJ_FANIN 16

typedef struct {
    const tuple_t *rel[2];
    uint64_t n[2], max_key;
    int rid_bits, parts, simd;
    uint64_t splitters[64], start[2][65], pos[65];
    uint64_t *packed[2], *sorted[2], *tmp;
    size_t run;
    size_t starts[SMJ_FANIN], lens[SMJ_FANIN];
    int runs, depth;
    int radix;               /* sort_body: the radix run sort instead of the network sort */
    const uint64_t *mr, *ms; /* the matching scan's R and S (match_body) */
    uint64_t mrn, msn;
    const uint64_t *sg[9];   /* sg[g]: S with every key k made ceil(k / g), g S tuples per R key (match_shape) */
    uint64_t matches, checksum;
    smj_range_lut lut;      /* the join's range lookup over the splitters (range_body) */
    uint64_t lanes[SMJ_COUNT_LANES * 64], count[64]; /* smj_count_ranges' (parts <= 64) */
} smj_bench;

static void range_body(void *a)
{
    smj_bench *b = a;
    for (int rel = 0; rel < 2; rel++) {
        uint64_t *pos = b->pos, *out = b->packed[rel];
        memcpy(pos, b->start[rel], (size_t)b->parts * sizeof *pos);
        const tuple_t *t = b->rel[rel];
        for (uint64_t i = 0; i < b->n[rel]; i++) {
            int q = smj_part_lut(t[i].key, b->splitters, b->parts, &b->lut);
            out[pos[q]++] = smj_pack(t[i].key, i, b->rid_bits);
        }
    }
}

static void count_body(void *a)
{
    smj_bench *b = a;
    for (int rel = 0; rel < 2; rel++)
        smj_count_ranges(b->rel[rel], b->n[rel], b->splitters, b->parts, &b->lut, b->lanes, b->count);
}

/* the one-rank partition: each relation packed in order into one array (sub: the lowest key 1) */
static void pack_body(void *a)
{
    smj_bench *b = a;
    for (int rel = 0; rel < 2; rel++) smj_pack_all(b->rel[rel], b->n[rel], b->rid_bits, UINT64_C(1) << b->rid_bits, b->packed[rel]);
}

/* Every run sorted by the network sort, or with b->radix by the radix sort (timed only where the
 * first run showed that it sorts them). */
static void sort_body(void *a)
{
    smj_bench *b = a;
    for (int rel = 0; rel < 2; rel++)
        for (uint64_t off = 0; off < b->n[rel]; off += b->run) {
            size_t len = b->n[rel] - off < b->run ? (size_t)(b->n[rel] - off) : b->run;
            if (b->radix) smj_radix_sort_run(b->packed[rel] + off, len, b->sorted[rel] + off, b->tmp, b->rid_bits);
            else smj_sort_run(b->packed[rel] + off, len, b->sorted[rel] + off, b->tmp, b->simd);
        }
}

/* The merge input: relation rel in `runs` sorted runs (in sorted[rel], kept), copied to packed[rel]. */
static void merge_body(void *a)
{
    smj_bench *b = a;
    for (int rel = 0; rel < 2; rel++) {
        memcpy(b->packed[rel], b->sorted[rel], b->n[rel] * 8); /* outside the merge's rate: timed apart */
    }
}

static void merge_only(void *a)
{
    smj_bench *b = a;
    for (int rel = 0; rel < 2; rel++) {
        size_t per = (b->n[rel] + SMJ_FANIN - 1) / SMJ_FANIN;
        int k = 0;
        for (uint64_t off = 0; off < b->n[rel]; off += per, k++) {
            b->starts[k] = off;
            b->lens[k] = b->n[rel] - off < per ? b->n[rel] - off : per;
        }
        uint64_t *res = smj_merge_passes(b->packed[rel], b->tmp, b->n[rel], b->starts, b->lens, k, SMJ_FANIN, b->simd,
                                         &b->depth);
        if (!res) abort();
    }
}

static void merge_body_both(void *a)
{
    merge_body(a);
    merge_only(a);
}

static void match_body(void *a)
{
    smj_bench *b = a;
    const uint64_t base[2] = {0, 0};
    smj_match(b->mr, b->mrn, b->ms, b->msn, b->rid_bits, 0, base, b->simd, &b->matches, &b->checksum);
}

/* The R tuples of shape 1:g (what fit_match divides by must be what match_shape scanned). */
static uint64_t shape_r(const smj_bench *b, int g) { return b->n[0] / (uint64_t)g; }

/* The shapes of measure_match: the first shape_r tuples of sorted R against S with g tuples per key. */
static void match_shape(smj_bench *b, int g)
{
    b->mr = b->sorted[0], b->mrn = shape_r(b, g), b->ms = b->sg[g], b->msn = b->n[1];
    match_body(b);
}
static void match_g1(void *a) { match_shape(a, 1); }
static void match_g2(void *a) { match_shape(a, 2); }
static void match_g4(void *a) { match_shape(a, 4); }
static void match_g8(void *a) { match_shape(a, 8); }

/* S of the sample (sorted, 1 tuple per R key) with every key k made ceil(k / g), into out. */
static void group_s(const smj_bench *b, int g, uint64_t *out)
{
    const uint64_t mask = (UINT64_C(1) << b->rid_bits) - 1;
    for (uint64_t j = 0; j < b->n[1]; j++) {
        const uint64_t v = b->sorted[1][j];
        out[j] = ((v >> b->rid_bits) + (uint64_t)g - 1) / (uint64_t)g << b->rid_bits | (v & mask);
    }
}

/* P_x_r, P_x_s of t = |R| / P_x_r + |S| / P_x_s through two shapes of the same |S| (rates: 1 / s),
 * each kept positive against noise (per: the mean time per tuple of the 1:1 shape). */
static void fit_match(const smj_bench *b, const double rate[2], const int g[2], double per, model_params *p, int pr,
                      int ps)
{
    const double ra = (double)shape_r(b, g[0]), rb = (double)shape_r(b, g[1]);
    double a = (1 / rate[0] - 1 / rate[1]) / (ra - rb);
    if (a < 0.01 * per) a = 0.01 * per;
    double c = (1 / rate[1] - a * rb) / (double)b->n[1];
    if (c < 0.05 * per) c = 0.05 * per;
    params_put(p, pr, 1 / a);
    params_put(p, ps, 1 / c);
    char how[CALIBRATE_HOW];
    snprintf(how, sizeof how, "smj_match at 1:%d (%.0f + %llu tuples) and 1:%d (%.0f + %llu) per rank: t = |R|/P_r + |S|/P_s",
             g[0], ra, (unsigned long long)b->n[1], g[1], rb, (unsigned long long)b->n[1]);
    calibrate_note(p, pr, how, 0);
    calibrate_note(p, ps, how, 8);
}

/* P_match over sorted R and S (1:1, dense R keys, S keys uniform over them); and the scan's cost
 * per R and per S tuple from pairs of shapes with g S tuples per R key (the first n / g tuples of R
 * against S with every key k made ceil(k / g), as in a join at 1:g; fewer groups: the per-group
 * work is the R tuples' share): P_match_r/_s from 1:1 and 1:2, P_match_r/_s_many from 1:4 and
 * 1:8. Two pairs, because the join's kernel may change with the group size (smj_match: AVX2 blocks
 * up to 2 S tuples per R tuple, the scalar scan beyond), and one line through 1:1 and 1:4 then
 * mixed two kernels and mispredicts the match at 1:8 on an AVX2 machine (docs/measurements.md,
 * "From code comments"). The two shapes of a pair are timed alternately (calibrate_time_pair), so
 * that a slow spell of the machine falls on both. */
static void measure_match(const bench_ctx *ctx, const calibrate_opts *o, smj_bench *b, model_params *p)
{
    const int reps = (int)o->repeats;
    const uint64_t n = b->n[0] + b->n[1];
    char how[CALIBRATE_HOW];
    double rate[2]; /* s^-1 */
    /* free after the merge: packed[1] (n[1] words) and tmp (at least as many) */
    b->sg[1] = b->sorted[1];
    b->sg[2] = b->packed[1];
    group_s(b, 2, b->packed[1]);
    calibrate_time_pair(ctx, o, reps, match_g1, match_g2, b, rate);
    params_put(p, MP_P_match, (double)n * rate[0]);
    snprintf(how, sizeof how, "smj_match over sorted R and S, %llu tuples per rank", (unsigned long long)n);
    calibrate_note(p, MP_P_match, how, 8);
    const double per = 1 / rate[0] / (double)n;
    fit_match(b, rate, (const int[2]){1, 2}, per, p, MP_P_match_r, MP_P_match_s);
    b->sg[4] = b->packed[1];
    b->sg[8] = b->tmp;
    group_s(b, 4, b->packed[1]);
    group_s(b, 8, b->tmp);
    calibrate_time_pair(ctx, o, reps, match_g4, match_g8, b, rate);
    fit_match(b, rate, (const int[2]){4, 8}, per, p, MP_P_match_r_many, MP_P_match_s_many);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

void calibrate_sortmerge(const bench_ctx *ctx, const calibrate_opts *o, const join_opts *jo, const workload *w,
                         const tuple_t *r, const tuple_t *s, model_params *p)
{
    const int reps = (int)o->repeats;
    char how[CALIBRATE_HOW];
    smj_bench b = {.rel = {r, s}, .n = {w->r_n, w->s_n}, .simd = smj_simd_resolve(jo->simd), .run = smj_default_run_size()};
    const uint64_t n = w->r_n + w->s_n, big = w->r_n > w->s_n ? w->r_n : w->s_n;
    b.max_key = workload_max_key(w);
    b.rid_bits = 1;
    while ((UINT64_C(1) << b.rid_bits) < big) b.rid_bits++;
    b.parts = ctx->size < 2 ? 2 : ctx->size > 64 ? 64 : ctx->size;
    smj_equal_splitters(b.max_key, b.parts, b.splitters);
    if (smj_range_lut_init(&b.lut, b.splitters, b.parts, b.max_key)) calibrate_fail(ctx, "the range lookup table");
    for (int rel = 0; rel < 2; rel++) {
        b.packed[rel] = mem_alloc_large(b.n[rel] * 8);
        b.sorted[rel] = mem_alloc_large(b.n[rel] * 8);
        if (!b.packed[rel] || !b.sorted[rel]) calibrate_fail(ctx, "the sort-merge sample");
        memset(b.packed[rel], 0, b.n[rel] * 8);
        memset(b.sorted[rel], 0, b.n[rel] * 8);
        smj_count_ranges(b.rel[rel], b.n[rel], b.splitters, b.parts, &b.lut, b.lanes, b.count);
        for (int q = 1; q <= b.parts; q++) b.start[rel][q] = b.start[rel][q - 1] + b.count[q - 1];
    }
    b.tmp = mem_alloc_large(big * 8 > b.run * 16 ? big * 8 : b.run * 16);
    if (!b.tmp) calibrate_fail(ctx, "the sort-merge scratch");
    memset(b.tmp, 0, big * 8 > b.run * 16 ? big * 8 : b.run * 16);

    params_put(p, MP_P_partition_range, calibrate_time(ctx, o, reps, (double)n, range_body, &b));
    snprintf(how, sizeof how, "smj_part_lut + smj_pack scatter into %d ranges, %llu tuples per rank", b.parts, (unsigned long long)n);
    calibrate_note(p, MP_P_partition_range, how, 24);

    params_put(p, MP_P_count_range, calibrate_time(ctx, o, reps, (double)n, count_body, &b));
    snprintf(how, sizeof how, "smj_count_ranges into %d ranges, %llu tuples per rank", b.parts, (unsigned long long)n);
    calibrate_note(p, MP_P_count_range, how, 16);

    params_put(p, MP_P_pack, calibrate_time(ctx, o, reps, (double)n, pack_body, &b));
    snprintf(how, sizeof how, "smj_pack_all, one range, %llu tuples per rank", (unsigned long long)n);
    calibrate_note(p, MP_P_pack, how, 24);

    params_put(p, MP_P_sort_run, calibrate_time(ctx, o, reps, (double)n, sort_body, &b));
    params_put(p, MP_sort_run_length, (double)b.run);
    snprintf(how, sizeof how, "smj_sort_run (%s), runs of %zu tuples, %llu tuples per rank", smj_simd_name(b.simd), b.run,
             (unsigned long long)n);
    calibrate_note(p, MP_P_sort_run, how, 16);

    const int radix_passes = smj_radix_sort_run(b.packed[0], b.n[0] < b.run ? (size_t)b.n[0] : b.run, b.sorted[0], b.tmp, b.rid_bits);
    if (radix_passes > 0) { /* the sample's keys fit its two digits, as the join's ranges do up to 2^26 keys */
        b.radix = 1;
        params_put(p, MP_P_sort_radix, calibrate_time(ctx, o, reps, (double)n, sort_body, &b));
        b.radix = 0;
        snprintf(how, sizeof how, "smj_radix_sort_run, %d pass(es) over %d key bits, runs of %zu tuples, %llu tuples per rank",
                 radix_passes, bits_for(b.max_key), b.run, (unsigned long long)n);
        calibrate_note(p, MP_P_sort_radix, how, 16);
    }

    /* merge input: each relation in SMJ_FANIN sorted runs (sorted[] keeps it between repetitions) */
    for (int rel = 0; rel < 2; rel++) {
        size_t per = (b.n[rel] + SMJ_FANIN - 1) / SMJ_FANIN;
        for (uint64_t off = 0; off < b.n[rel]; off += per)
            qsort(b.sorted[rel] + off, b.n[rel] - off < per ? b.n[rel] - off : per, 8, cmp_u64);
    }
    double copy = calibrate_time(ctx, o, reps, 1.0, merge_body, &b), both = calibrate_time(ctx, o, reps, 1.0, merge_body_both, &b);
    double t_merge = 1.0 / both - 1.0 / copy;
    if (t_merge < 0.1 / both) t_merge = 0.1 / both;
    params_put(p, MP_P_merge, (double)n / t_merge);
    params_put(p, MP_merge_fanin, SMJ_FANIN);
    snprintf(how, sizeof how, "smj_merge_passes, %d runs of %llu tuples at fan-in %d (one pass), %llu tuples per rank", SMJ_FANIN,
             (unsigned long long)(big / SMJ_FANIN), SMJ_FANIN, (unsigned long long)n);
    calibrate_note(p, MP_P_merge, how, 16);

    for (int rel = 0; rel < 2; rel++) qsort(b.sorted[rel], b.n[rel], 8, cmp_u64);
    measure_match(ctx, o, &b, p);

    for (int rel = 0; rel < 2; rel++) {
        mem_free_large(b.packed[rel], b.n[rel] * 8);
        mem_free_large(b.sorted[rel], b.n[rel] * 8);
    }
    smj_range_lut_free(&b.lut);
    mem_free_large(b.tmp, big * 8 > b.run * 16 ? big * 8 : b.run * 16);
}
