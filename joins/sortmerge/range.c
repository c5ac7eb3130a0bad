/* The partition phase: range boundaries (sampled splitters or equal widths), the histogram of
 * tuples per target, window sizes (MPI_Reduce_scatter_block), private write offsets (MPI_Scan),
 * incoming piece sizes (MPI_Alltoall), and the local partitioning into packed groups per target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/fastclock.h"
#include "bench/memory.h"
#include "bench/yield_wait.h"
#include "joins/sortmerge/smj_bands.h"
#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/smj_plan.h"
#include "rma/count.h"

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
 * does not depend on how the data are spread); rank 0 sorts the sample (smj_samples_per_rank keys
 * per rank: imbalance from sampling shrinks as 1/sqrt(samples per range), smj_window_slack) and
 * picks the splitters. */
static void sampled_splitters(const join_input *in, uint64_t *splitters)
{
    const bench_ctx *ctx = in->ctx;
    const workload *w = in->wl;
    const int P = ctx->size;
    uint64_t stride = (w->r_total + w->s_total) / ((uint64_t)smj_samples_per_rank(P) * (uint64_t)P);
    if (stride < 1) stride = 1;
    /* This rank's sample (at most cap keys) and, at rank 0, everyone's with the sort's scratch (2 x
     * P x the largest rank's cap: shares differ by one tuple), in one block kept from run to run:
     * malloc gave them fresh pages in every run, heap top or mmap by its thresholds (7 minor
     * faults a rank, and 32 at rank 0 for 2 x 8192 keys, under MPICH at 2 ranks). */
    const uint64_t cap = in->r_n / stride + in->s_n / stride + 2,
                   cap_max = (w->r_total / (uint64_t)P + 1) / stride + (w->s_total / (uint64_t)P + 1) / stride + 2,
                   words = cap + (ctx->rank == 0 ? 2 * (uint64_t)P * cap_max : 0);
    uint64_t block_bytes = 0;
    bool fresh;
    uint64_t *mine = mem_kept_get(SMJ_KEPT_SAMPLE_SLOT, words * sizeof *mine, &block_bytes, &fresh);
    if (!mine) {
        fprintf(stderr, "rmabench: rank %d: sortmerge: cannot allocate the splitters' sample\n", ctx->rank);
        MPI_Abort(ctx->comm, 2);
    }
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
        all = mine + cap; /* total <= P x cap_max */
    }
    MPI_CHECK(ctx->rank, MPI_Gatherv(mine, m, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, ctx->comm));
    if (ctx->rank == 0) {
        /* keys are below 2^63: the plain kernels sort them */
        smj_sort_run(all, total, all, all + total, smj_simd_resolve(in->opt->simd));
        smj_pick_splitters(all, total, P, splitters);
    }
    MPI_CHECK(ctx->rank, MPI_Bcast(splitters, P - 1, MPI_UINT64_T, 0, ctx->comm));
    mem_kept_put(SMJ_KEPT_SAMPLE_SLOT, mine, block_bytes);
    free(counts);
    free(displs);
}

static void histogram(const tuple_t *t, uint64_t n, const uint64_t *spl, int P, const smj_range_lut *lut,
                      uint64_t *lanes, uint64_t *count)
{
    if (P == 1) {
        count[0] = n;
        return;
    }
    smj_count_ranges(t, n, spl, P, lut, lanes, count);
}

/* Two parts: the loop below with pos[0], pos[1] and sub[] kept in registers. Through pos[] in
 * memory, every other tuple's position is loaded right after the previous one stored it, and how
 * fast that store-to-load round trip ran depended on where the code sat, moving with unrelated
 * changes (docs/measurements.md, "From code comments"). */
static void scatter_two(const tuple_t *t, uint64_t n, uint64_t split, int rid_bits, const uint64_t *sub, uint64_t *pos,
                        uint64_t *out)
{
    uint64_t q0 = pos[0], q1 = pos[1];
    const uint64_t s0 = sub[0], s1 = sub[1];
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t hi = split < t[i].key, m = UINT64_C(0) - hi; /* part 1: all ones */
        const uint64_t q = (q1 & m) | (q0 & ~m);
        out[q] = (t[i].key << rid_bits) + t[i].rid - ((s1 & m) | (s0 & ~m));
        q0 += 1 - hi;
        q1 += hi;
    }
    pos[0] = q0;
    pos[1] = q1;
}

/* Packs into groups per target: (key - base_t) << rid_bits | (rid - rid_base) computed as
 * (key << rid_bits) + rid - sub[t], sub[t] = (base_t << rid_bits) + rid_base, mod 2^64: exact,
 * since the result fits, and as cheap as packing whole keys. */
static void scatter_packed(const tuple_t *t, uint64_t n, const uint64_t *spl, int P, const smj_range_lut *lut,
                           int rid_bits, uint64_t rid_base, const uint64_t *start, uint64_t *pos, uint64_t *sub,
                           uint64_t *out)
{
    memcpy(pos, start, (size_t)P * sizeof *pos);
    for (int p = 0; p < P; p++) sub[p] = (smj_part_base(spl, p) << rid_bits) + rid_base;
    if (P == 1) {
        smj_pack_all(t, n, rid_bits, sub[0], out);
        return;
    }
    if (P == 2 && !lut->first) { /* two ranks: both write positions in registers (scatter_two) */
        scatter_two(t, n, spl[0], rid_bits, sub, pos, out);
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        const int p = smj_part_lut(t[i].key, spl, P, lut);
        out[pos[p]++] = (t[i].key << rid_bits) + t[i].rid - sub[p];
    }
}

/* The wide format: tuples as generated, grouped per target. */
static void scatter_wide(const tuple_t *t, uint64_t n, const uint64_t *spl, int P, const smj_range_lut *lut,
                         const uint64_t *start, uint64_t *pos, tuple_t *out)
{
    if (P == 1) {
        memcpy(out, t, n * sizeof *out);
        return;
    }
    memcpy(pos, start, (size_t)P * sizeof *pos);
    for (uint64_t i = 0; i < n; i++) out[pos[smj_part_lut(t[i].key, spl, P, lut)]++] = t[i];
}

/* Merge bands (smj_bands.h) by arithmetic rather than by B - 1 more splitters per range: the band
 * of a key at offset o = key - base_t in target t's range of w_t keys is (o * mul_t) >> SMJ_BAND_SHIFT
 * with mul_t = (B << SMJ_BAND_SHIFT) / w_t, which grows with o and stays below B for o < w_t (o * mul_t
 * < B << SMJ_BAND_SHIFT <= 2^63 for B <= 64: no overflow); bands of about w_t / B keys. Keys are at
 * most max_key (workload_max_key), so o < w_t; the loops still clamp the band to B - 1. Part f =
 * t * B + band: bands of a target follow one another, so a target's group is still one block of
 * the packed copy. */
_Static_assert(SMJ_MAX_BANDS <= 64, "B << SMJ_BAND_SHIFT must stay below 2^63");
typedef struct {
    int P, B;
    int vec; /* the scatter takes a block's parts and words from smj_band_words_avx512 first */
    const uint64_t *spl;
    const smj_range_lut *lut;
    uint64_t *base, *mul; /* [P]: each target's lowest key and multiplier */
} band_map;

/* simd: the resolved kernel set; AVX-512 (with DQ) takes the two-step scatter where the targets
 * are found without the lookup table (up to SMJ_BAND_VEC_PARTS ranks). */
static void band_map_init(band_map *m, const uint64_t *spl, int P, int B, uint64_t max_key, const smj_range_lut *lut,
                          int simd, uint64_t *base, uint64_t *mul)
{
    const int vec = simd == SMJ_SIMD_AVX512 && !lut->first && P <= SMJ_BAND_VEC_PARTS && smj_band_vec_available();
    *m = (band_map){.P = P, .B = B, .vec = vec, .spl = spl, .lut = lut, .base = base, .mul = mul};
    for (int t = 0; t < P; t++) {
        const uint64_t lo = smj_part_base(spl, t), hi = t + 1 < P ? spl[t] : max_key;
        base[t] = lo;
        mul[t] = hi >= lo ? ((uint64_t)B << SMJ_BAND_SHIFT) / (hi - lo + 1) : 0;
    }
}

/* The loops below spell the band of a key out rather than calling one helper: through an inlined
 * helper with the map in a struct the compiler kept the compare three times and the multiply
 * by B, and the scatter ran much slower than written out (docs/measurements.md, "From code
 * comments"). B is a power of two (smj_bands.h): part f = t << lb | band. */
#define BAND_OF(key, lo, mul, last)                                                                                    \
    ((((key) - (lo)) * (mul)) >> SMJ_BAND_SHIFT < (last) ? (((key) - (lo)) * (mul)) >> SMJ_BAND_SHIFT : (last))

/* Tuples per band of every target, count[t * B + b], of the tuples t[0], t[stride], t[2 stride]
 * ... (stride 1: all; SMJ_SLOT_STRIDE: the sample that sizes the slots, smj_bands.h). Two ranks:
 * four lanes of counters, as in smj_count_ranges (a key's counter is often the previous key's: one
 * array made each increment wait for the previous store), 2 x SMJ_MAX_BANDS each; else one array,
 * consecutive keys rarely sharing a counter among P x B. */
enum { BAND_LANES = 4 };
static void count_bands(const tuple_t *t, uint64_t n_all, uint64_t stride, const band_map *m, uint64_t *count)
{
    const int F = m->P * m->B, lb = bits_for((uint64_t)m->B - 1);
    const uint64_t last = (uint64_t)m->B - 1, n = (n_all + stride - 1) / stride; /* n: the tuples counted */
    memset(count, 0, (size_t)F * sizeof *count);
    if (m->P == 2 && !m->lut->first) {
        const uint64_t split = m->spl[0], lo[2] = {m->base[0], m->base[1]}, mu[2] = {m->mul[0], m->mul[1]};
        uint64_t lane[BAND_LANES][2 * SMJ_MAX_BANDS];
        memset(lane, 0, sizeof lane);
        uint64_t i = 0;
        for (; i + BAND_LANES <= n; i += BAND_LANES)
            for (int j = 0; j < BAND_LANES; j++) {
                const uint64_t key = t[(i + j) * stride].key, hi = split < key;
                lane[j][hi << lb | BAND_OF(key, lo[hi], mu[hi], last)]++;
            }
        for (; i < n; i++) {
            const uint64_t key = t[i * stride].key, hi = split < key;
            lane[0][hi << lb | BAND_OF(key, lo[hi], mu[hi], last)]++;
        }
        for (int f = 0; f < F; f++)
            for (int j = 0; j < BAND_LANES; j++) count[f] += lane[j][f];
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t key = t[i * stride].key, p = m->P == 1 ? 0 : (uint64_t)smj_part_lut(key, m->spl, m->P, m->lut);
        count[p << lb | BAND_OF(key, m->base[p], m->mul[p], last)]++;
    }
}

/* The packed scatter in two steps (band_map.vec): a block's parts and words, then the stores, each
 * line 256 bytes ahead of a store prefetched for writing so that its read for ownership overlaps
 * the stores before (as radix's direct scatter, radix_kernels.h). sub: each target's subtrahend.
 * A block short enough that the next block's vector work and the stores overlap in the core's
 * window, and long enough to fill it: 64 tuples (docs/measurements.md, "From code comments"). */
enum { BAND_BLOCK = 64 };
static int scatter_bands_vec(const tuple_t *t, uint64_t n, const band_map *m, int rid_bits, const uint64_t *sub,
                             const uint64_t *end, uint64_t *pos, uint64_t *out)
{
    smj_band_vec v = {.parts = m->P, .lb = bits_for((uint64_t)m->B - 1), .rid_bits = rid_bits, .last = (uint64_t)m->B - 1};
    for (int p = 0; p < m->P; p++) {
        if (p + 1 < m->P) v.spl[p] = m->spl[p];
        v.base[p] = m->base[p];
        v.mul[p] = m->mul[p];
        v.sub[p] = sub[p];
    }
    uint64_t part[BAND_BLOCK], word[BAND_BLOCK];
    for (uint64_t i = 0; i < n; i += BAND_BLOCK) {
        const size_t k = n - i < BAND_BLOCK ? (size_t)(n - i) : BAND_BLOCK;
        smj_band_words_avx512(t + i, k, &v, part, word);
        for (size_t j = 0; j < k; j++) {
            const uint64_t f = part[j], q = pos[f]++;
            if (q >= end[f]) return 1;
            out[q] = word[j];
            __builtin_prefetch(out + q + 32, 1, 3);
        }
    }
    return 0;
}

#define BAND_RID(t, i, n) ((t)[i].rid)

/* scatter_packed and scatter_wide band by band: part f fills pos[f] = start[f] up to below end[f]
 * (its slot), sub[t] per target. Returns 1 as soon as a part would pass its slot's end (then what
 * was written is to be discarded), else 0 with pos[f] where each part ended. */
static int scatter_bands(const tuple_t *t, uint64_t n, const band_map *m, int rid_bits, uint64_t rid_base, int packed,
                         const uint64_t *start, const uint64_t *end, uint64_t *pos, uint64_t *sub, void *out)
{
    const int lb = bits_for((uint64_t)m->B - 1);
    const uint64_t last = (uint64_t)m->B - 1;
    memcpy(pos, start, (size_t)m->P * (size_t)m->B * sizeof *pos);
    for (int p = 0; p < m->P; p++) sub[p] = (m->base[p] << rid_bits) + rid_base;
    uint64_t *o = out;
    tuple_t *w = out;
    if (m->vec && packed) return scatter_bands_vec(t, n, m, rid_bits, sub, end, pos, o);
    if (m->P == 2 && !m->lut->first) {
        const uint64_t split = m->spl[0], lo[2] = {m->base[0], m->base[1]}, mu[2] = {m->mul[0], m->mul[1]};
        const uint64_t s2[2] = {sub[0], sub[1]};
        if (packed)
            for (uint64_t i = 0; i < n; i++) {
                const uint64_t key = t[i].key, hi = split < key, f = hi << lb | BAND_OF(key, lo[hi], mu[hi], last);
                const uint64_t q = pos[f]++;
                if (q >= end[f]) return 1;
                o[q] = (key << rid_bits) + BAND_RID(t, i, n) - s2[hi];
            }
        else
            for (uint64_t i = 0; i < n; i++) {
                const uint64_t key = t[i].key, hi = split < key, f = hi << lb | BAND_OF(key, lo[hi], mu[hi], last);
                const uint64_t q = pos[f]++;
                if (q >= end[f]) return 1;
                w[q] = t[i];
            }
        return 0;
    }
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t key = t[i].key, p = m->P == 1 ? 0 : (uint64_t)smj_part_lut(key, m->spl, m->P, m->lut);
        const uint64_t f = p << lb | BAND_OF(key, m->base[p], m->mul[p], last), q = pos[f]++;
        if (q >= end[f]) return 1;
        if (packed) o[q] = (key << rid_bits) + BAND_RID(t, i, n) - sub[p];
        else w[q] = t[i];
    }
    return 0;
}

double smj_band_scatter_seconds(const tuple_t *t, uint64_t n, int P, int B, uint64_t max_key, int rid_bits, uint64_t *out,
                                int rounds, int simd)
{
    const int F = P * B;
    uint64_t *spl = malloc((size_t)P * sizeof *spl), *base = malloc(2 * (size_t)P * sizeof *base),
             *sub = malloc((size_t)P * sizeof *sub), *count = malloc(4 * (size_t)F * sizeof *count);
    smj_range_lut lut = {0};
    double best = -1;
    const bool allocated = spl && base && sub && count;
    if (allocated) smj_equal_splitters(max_key, P, spl);
    if (allocated && smj_range_lut_init(&lut, spl, P, max_key) == 0) {
        uint64_t *at = count + F, *end = count + 2 * (size_t)F, *pos = count + 3 * (size_t)F;
        band_map m;
        band_map_init(&m, spl, P, B, max_key, &lut, simd, base, base + P);
        count_bands(t, n, 1, &m, count); /* exact pieces one after another: no slot overflows */
        for (int f = 0; f < F; f++) {
            at[f] = f ? end[f - 1] : 0;
            end[f] = at[f] + count[f];
        }
        for (int r = 0; r < rounds; r++) {
            const double t0 = rmb_monotonic_s();
            scatter_bands(t, n, &m, rid_bits, 0, 1, at, end, pos, sub, out);
            const double s = (rmb_monotonic_s() - t0) / (double)(n ? n : 1);
            if (best < 0 || s < best) best = s;
        }
    }
    smj_range_lut_free(&lut);
    free(spl);
    free(base);
    free(sub);
    free(count);
    return best;
}

/* The widest range (keys it may hold) under the splitters. */
static uint64_t widest_range(const uint64_t *spl, int P, uint64_t max_key)
{
    uint64_t widest = 0;
    for (int t = 0; t < P; t++) {
        uint64_t lo = smj_part_base(spl, t), hi = t + 1 < P ? spl[t] : max_key;
        if (hi >= lo && hi - lo + 1 > widest) widest = hi - lo + 1;
    }
    return widest;
}

/* The boundaries: equal widths (always within the packed width when the format is packed), or
 * sampled and then kept within it. */
static void choose_splitters(const join_input *in, smj_plan *pl)
{
    const int P = pl->parts;
    const smj_format *f = &pl->format;
    if (P == 1) return;
    if (in->opt->ranges == RANGES_EQUAL) {
        smj_equal_splitters(f->max_key, P, pl->splitters);
        return;
    }
    sampled_splitters(in, pl->splitters);
    if (f->packed) pl->clamped = smj_clamp_splitters(pl->splitters, P, f->max_key, f->max_width);
}

/* The partitioned copy of rel, of capacity max(sent, received) tuples: one allocation serves as the
 * partitioned input now and as the merge's scratch later. Fresh pages are costly (zeroing, and
 * first touch under a hypervisor), so S's copy goes into R's memory,
 * dead once R is partitioned and mapped already, when it fits there (16-byte input tuples hold two
 * packed words); the later phases' buffers follow it (pl->spare_from). */
/* Returns whether its pages are fresh (mapped for this run, not R's memory or a kept block). */
static bool alloc_packed(const join_input *in, smj_plan *pl, int rel, uint64_t tuples)
{
    pl->capacity[rel] = tuples;
    if (pl->capacity[rel] == 0) pl->capacity[rel] = 1;
    const uint64_t words = pl->capacity[rel] * (uint64_t)pl->words;
    const uint64_t r_words = in->r_n * (sizeof(tuple_t) / sizeof(uint64_t));
    if (rel == REL_S && in->reusable[REL_R] && words <= r_words) {
        pl->packed[rel] = (uint64_t *)(void *)in->reusable[REL_R];
        pl->packed_in_r[rel] = 1;
        pl->spare_from = (words + 7) & ~(uint64_t)7; /* the buffers after it start on a cache line */
        return false;
    }
    /* kept from the previous run (bench/memory.h slots 1 and 2): R's packed copy, and S's where it
     * does not fit in R's memory, would otherwise be fresh pages in every run, and under a
     * hypervisor what the host took back costs its first touch again (docs/measurements.md, "From
     * code comments") */
    bool fresh;
    pl->packed_in_r[rel] = 0;
    pl->packed[rel] = mem_kept_get(SMJ_KEPT_SLOT + rel, words * sizeof(uint64_t), &pl->packed_bytes[rel], &fresh);
    if (!pl->packed[rel]) {
        fprintf(stderr, "rmabench: rank %d: sortmerge: cannot allocate the partitioned relation\n", in->ctx->rank);
        MPI_Abort(in->ctx->comm, 2);
    }
    return fresh;
}

/* With bands (smj_bands.h, slots instead of a counting pass): rel's band pieces scattered into
 * slots sized from a sample, pl->band_at[rel] where each slot starts, pl->band_count[rel] the
 * exact counts from where each slot's writing ended. Where a slot would overflow, or under
 * --band-count exact, the exact count first and a scatter into pieces that follow one another
 * (pl->counted[rel] = 1). The copy is allocated here, of the slots' size (grown to the received
 * size later, grow_packed). end: F words of scratch. Returns whether the copy's pages are fresh. */
static bool scatter_to_slots(const join_input *in, smj_plan *pl, int rel, const tuple_t *src, const band_map *bm,
                             uint64_t *pos, uint64_t *end, uint64_t *sub)
{
    const int F = pl->parts * pl->bands;
    const uint64_t n = pl->n[rel];
    uint64_t *at = pl->band_at[rel], *count = pl->band_count[rel];
    bool fresh;
    int exact = in->opt->band_count == SMJ_BAND_COUNT_EXACT;
    if (!exact) {
        count_bands(src, n, SMJ_SLOT_STRIDE, bm, count);
        for (int f = 0; f < F; f++) {
            at[f] = f ? end[f - 1] : 0;
            end[f] = at[f] + smj_band_slot(count[f]);
        }
        fresh = alloc_packed(in, pl, rel, end[F - 1]); /* >= n: the samples times the stride are */
        exact = scatter_bands(src, n, bm, pl->rid_bits, pl->rid_base[rel], pl->format.packed, at, end, pos, sub,
                              pl->packed[rel]);
    } else {
        fresh = alloc_packed(in, pl, rel, n);
    }
    if (exact) {
        pl->counted[rel] = 1;
        count_bands(src, n, 1, bm, count);
        for (int f = 0; f < F; f++) {
            at[f] = f ? at[f - 1] + count[f - 1] : 0;
            end[f] = UINT64_MAX; /* the counts are exact */
        }
        scatter_bands(src, n, bm, pl->rid_bits, pl->rid_base[rel], pl->format.packed, at, end, pos, sub, pl->packed[rel]);
    }
    for (int f = 0; f < F; f++) {
        count[f] = pos[f] - at[f];
    }
    return fresh;
}

/* The copy is the merge's scratch later, of the received size (capacity >= window): a copy in
 * slots may be smaller. alloc_packed at the received size: R's memory again where it has the room
 * (the copy stays where it is), else a kept block, into which the band pieces move. Returns whether
 * pages are fresh. */
static bool grow_packed(const join_input *in, smj_plan *pl, int rel)
{
    if (pl->window[rel] <= pl->capacity[rel]) return false;
    const int F = pl->parts * pl->bands;
    uint64_t *old = pl->packed[rel], old_bytes = pl->packed_bytes[rel];
    const int old_in_r = pl->packed_in_r[rel];
    const bool fresh = alloc_packed(in, pl, rel, pl->window[rel]);
    if (pl->packed[rel] == old) return fresh;
    const uint64_t used = pl->band_at[rel][F - 1] + pl->band_count[rel][F - 1]; /* the last piece's end */
    memcpy(pl->packed[rel], old, used * (uint64_t)pl->words * sizeof(uint64_t));
    if (old_in_r) pl->spare_from = 0; /* S's copy left R's memory: all of it is spare */
    else mem_free_large(old, old_bytes);
    return fresh;
}

/* Fresh pages of a copy in slots: what the scatter left unwritten (the slots' slack, and the rest
 * up to the received size) is faulted in now, with the copy, and not in the merge. */
static void zero_unwritten(smj_plan *pl, int rel)
{
    const int F = pl->parts * pl->bands;
    const size_t W = (size_t)pl->words;
    for (int f = 0; f < F; f++) {
        const uint64_t from = pl->band_at[rel][f] + pl->band_count[rel][f];
        const uint64_t to = f + 1 < F ? pl->band_at[rel][f + 1] : pl->capacity[rel];
        if (to > from) memset(pl->packed[rel] + from * W, 0, (to - from) * W * sizeof(uint64_t));
    }
}

/* The plan's format: packed words or (key, rid) pairs, the splitters, and whether a packed word
 * reaches bit 63 (the widest offset above 2^(63 - rid_bits)). */
static void plan_format(const join_input *in, smj_plan *pl, int P, int B)
{
    memset(pl, 0, sizeof *pl);
    pl->parts = P;
    pl->bands = B;
    pl->format = smj_format_for(in->wl, P, join_word_bits(in->opt));
    if (in->plan) pl->format.packed = in->plan->tuple_bytes == 8; /* as planned (calibration: the rule alone) */
    pl->words = pl->format.packed ? 1 : 2;
    pl->rid_bits = pl->format.rid_bits;
    for (int rel = 0; rel < RELS; rel++) pl->rid_base[rel] = workload_rid_first(in->wl, rel);
    pl->splitters = xmalloc(in->ctx, (size_t)P * sizeof *pl->splitters);
    choose_splitters(in, pl);
    pl->key_base = smj_part_base(pl->splitters, in->ctx->rank);
    if (pl->format.packed) {
        uint64_t widest = widest_range(pl->splitters, P, pl->format.max_key);
        pl->values_u64 = widest > 1 && (pl->rid_bits >= 63 || (widest - 1) >> (63 - pl->rid_bits) != 0);
    }
    pl->n[REL_R] = in->r_n;
    pl->n[REL_S] = in->s_n;
}

/* A relation's per-rank arrays (P words each) and, with bands, its per-band ones (P x B). */
static void plan_arrays(const bench_ctx *ctx, smj_plan *pl, int rel, int P, int B)
{
    const size_t F = (size_t)P * (size_t)B;
    pl->count[rel] = xmalloc(ctx, (size_t)P * sizeof(uint64_t));
    pl->local[rel] = xmalloc(ctx, (size_t)P * sizeof(uint64_t));
    pl->remote[rel] = xmalloc(ctx, (size_t)P * sizeof(uint64_t));
    pl->incoming[rel] = xmalloc(ctx, (size_t)P * sizeof(uint64_t));
    pl->band_count[rel] = B > 1 ? xmalloc(ctx, F * sizeof(uint64_t)) : pl->count[rel];
    pl->band_in[rel] = B > 1 ? xmalloc(ctx, F * sizeof(uint64_t)) : pl->incoming[rel];
    pl->band_at[rel] = B > 1 ? xmalloc(ctx, F * sizeof(uint64_t)) : pl->local[rel];
    pl->counted[rel] = B == 1;
}

/* From the summed counts: where this rank's piece of rel starts at each target (the exclusive
 * scan) and what each source sends it (per band with bands). */
static void plan_incoming(smj_plan *pl, int rel, const uint64_t *hist, const uint64_t *scan, const uint64_t *inc, int P, int B)
{
    for (int t = 0; t < P; t++) {
        pl->remote[rel][t] = scan[2 * t + rel] - hist[2 * t + rel];
        uint64_t c = 0;
        for (int b = 0; b < B; b++) {
            const uint64_t in_b = inc[2 * (size_t)B * t + (size_t)B * rel + b];
            if (B > 1) pl->band_in[rel][t * B + b] = in_b;
            c += in_b;
        }
        pl->incoming[rel][t] = c;
    }
}

/* R and S are packed: the rest of R's memory is free for the later phases' buffers. */
static void plan_spare(const join_input *in, smj_plan *pl)
{
    if (!in->reusable[REL_R]) return;
    const uint64_t words = in->r_n * (sizeof(tuple_t) / sizeof(uint64_t));
    if (words > pl->spare_from) {
        pl->spare = (uint64_t *)(void *)in->reusable[REL_R] + pl->spare_from;
        pl->spare_words = words - pl->spare_from;
    }
}

void smj_range_partition(const join_input *in, smj_plan *pl, int bands)
{
    const bench_ctx *ctx = in->ctx;
    const int P = ctx->size, B = bands > 1 ? bands : 1, F = P * B; /* F: the parts the scatter fills */
    plan_format(in, pl, P, B);
    smj_range_lut lut; /* a fixed-size table: the lookup stays short at thesis scale (smj_kernels.h) */
    if (smj_range_lut_init(&lut, pl->splitters, P, pl->format.max_key)) {
        fprintf(stderr, "rmabench: rank %d: sortmerge: cannot allocate the range lookup table\n", ctx->rank);
        MPI_Abort(ctx->comm, 2);
    }
    const tuple_t *src[RELS] = {in->r, in->s};
    /* the counting lanes (SMJ_COUNT_LANES = 4 words per part) are the scan's and the Alltoall's
     * arrays (2 words per rank and 2 per band), used only after the counts are summed: no words
     * beyond plan() */
    _Static_assert(SMJ_COUNT_LANES == 4, "the lanes are scan and inc");
    uint64_t *hist = xmalloc(ctx, 2 * (size_t)P * sizeof *hist), *lanes = xmalloc(ctx, 4 * (size_t)F * sizeof *lanes);
    uint64_t *scan = lanes, *inc = lanes + 2 * (size_t)P, *pos = xmalloc(ctx, (size_t)F * sizeof *pos);
    /* ends: with bands, the slots' ends (scatter_to_slots) */
    uint64_t *sub = xmalloc(ctx, (size_t)P * sizeof *sub), *ends = xmalloc(ctx, (size_t)F * sizeof *ends);
    bool fresh[RELS] = {false, false};
    /* with bands, the Alltoall sends each target its 2 x B band counts (R's, then S's) */
    uint64_t *bh = B > 1 ? xmalloc(ctx, 2 * (size_t)F * sizeof *bh) : hist;
    uint64_t *base = xmalloc(ctx, 2 * (size_t)P * sizeof *base);
    band_map bands_of;
    band_map_init(&bands_of, pl->splitters, P, B, pl->format.max_key, &lut, smj_simd_resolve(in->opt->simd), base,
                  base + P);
    for (int rel = 0; rel < RELS; rel++) {
        plan_arrays(ctx, pl, rel, P, B);
        if (B > 1) fresh[rel] = scatter_to_slots(in, pl, rel, src[rel], &bands_of, pos, ends, sub);
        else histogram(src[rel], pl->n[rel], pl->splitters, P, &lut, lanes, pl->count[rel]);
        for (int t = 0; t < P; t++) {
            uint64_t c = 0;
            for (int b = 0; b < B; b++) {
                if (B > 1) bh[2 * (size_t)B * t + (size_t)B * rel + b] = pl->band_count[rel][t * B + b];
                c += pl->band_count[rel][t * B + b];
            }
            pl->count[rel][t] = c;
            hist[2 * t + rel] = c;
            pl->local[rel][t] = B > 1 ? pl->band_at[rel][t * B] : t ? pl->local[rel][t - 1] + pl->count[rel][t - 1] : 0;
        }
    }
    /* (R, S) counts interleaved per target: one collective each serves both relations */
    uint64_t win[2];
    pl->t_wait = rmb_wait_all(ctx->comm); /* the counts' imbalance, apart from the partition phase */
    MPI_CHECK(ctx->rank, rmb_reduce_scatter_block(hist, win, 2, MPI_UINT64_T, MPI_SUM, ctx->comm));
    MPI_CHECK(ctx->rank, rma_scan_u64(hist, scan, 2 * (uint64_t)P, MPI_SUM, ctx->comm));
    MPI_CHECK(ctx->rank, rmb_alltoall(bh, 2 * B, MPI_UINT64_T, inc, 2 * B, MPI_UINT64_T, ctx->comm));
    for (int rel = 0; rel < RELS; rel++) {
        pl->window[rel] = win[rel];
        plan_incoming(pl, rel, hist, scan, inc, P, B);
        if (B > 1) {
            fresh[rel] = grow_packed(in, pl, rel) || fresh[rel];
            if (fresh[rel]) zero_unwritten(pl, rel);
            continue;
        }
        fresh[rel] = alloc_packed(in, pl, rel, pl->n[rel] > pl->window[rel] ? pl->n[rel] : pl->window[rel]);
        if (pl->format.packed)
            scatter_packed(src[rel], pl->n[rel], pl->splitters, P, &lut, pl->rid_bits, pl->rid_base[rel], pl->local[rel],
                           pos, sub, pl->packed[rel]);
        else
            scatter_wide(src[rel], pl->n[rel], pl->splitters, P, &lut, pl->local[rel], pos,
                         (tuple_t *)(void *)pl->packed[rel]);
        /* the copy is the merge's scratch later, of the received size: a rank that receives more
         * than it sent faults the rest of fresh memory in at this point, with the copy, not in the
         * merge; R's memory and a kept block are mapped already */
        if (fresh[rel] && pl->capacity[rel] > pl->n[rel])
            memset(pl->packed[rel] + pl->n[rel] * (size_t)pl->words, 0,
                   (pl->capacity[rel] - pl->n[rel]) * (size_t)pl->words * sizeof(uint64_t));
    }
    smj_range_lut_free(&lut);
    if (B > 1) free(bh);
    free(base);
    free(sub);
    free(ends);
    free(hist);
    free(lanes);
    free(pos);
    plan_spare(in, pl);
}

uint64_t *smj_spare(smj_plan *pl, uint64_t words)
{
    if (!pl->spare || words > pl->spare_words) return NULL;
    if (words > pl->spare_used) pl->spare_used = words;
    return pl->spare;
}

void smj_plan_free(smj_plan *pl)
{
    for (int rel = 0; rel < RELS; rel++) {
        if (pl->packed[rel] && !pl->packed_in_r[rel]) mem_kept_put(SMJ_KEPT_SLOT + rel, pl->packed[rel], pl->packed_bytes[rel]);
        if (pl->band_count[rel] != pl->count[rel]) free(pl->band_count[rel]);
        if (pl->band_in[rel] != pl->incoming[rel]) free(pl->band_in[rel]);
        if (pl->band_at[rel] != pl->local[rel]) free(pl->band_at[rel]);
        free(pl->count[rel]);
        free(pl->local[rel]);
        free(pl->remote[rel]);
        free(pl->incoming[rel]);
    }
    free(pl->splitters);
    memset(pl, 0, sizeof *pl);
}
