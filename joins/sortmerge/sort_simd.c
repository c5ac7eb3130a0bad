/* In-cache sort of a run of packed tuples: a sorting network sorts blocks inside registers (columns
 * of 8 registers, then a transpose), bitonic merge networks merge registers, and a 2-way merge
 * kernel that feeds four registers at a time through a bitonic merge network merges sorted blocks
 * level by level (Inoue et al. 2007; Balkesen et al. 2013). AVX-512 (8 lanes), AVX2 (4 lanes) and
 * scalar kernels, chosen at run time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cache_size.h"
#include "bench/rmb_config.h"
#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/sort_internal.h"

#if RMB_SIMD_AUTO
#include <immintrin.h>

/* The next w values of an input of a vector 2-way merge: in place when w are left, else the rest
 * copied to pad and filled up with `fill`, the largest value under the kernel's compare (UINT64_MAX
 * unsigned; INT64_MAX for the AVX2 kernel of values below 2^63), which sorts after (or equal to)
 * every packed value, so that the whole merge stays in the vector kernel. Packed values are never
 * UINT64_MAX (smj_format.h), so a padded lane never ties with a value of the other input. Plain
 * C: both the AVX-512 and the AVX2 merge call it. */
static inline const uint64_t *next_step(const uint64_t **p, const uint64_t *end, uint64_t *pad, size_t w, uint64_t fill)
{
    if ((size_t)(end - *p) >= w) {
        const uint64_t *q = *p;
        *p += w;
        return q;
    }
    size_t left = (size_t)(end - *p);
    memcpy(pad, *p, left * sizeof *pad);
    for (size_t i = left; i < w; i++) pad[i] = fill;
    *p = end;
    return pad;
}

/* ---------------------------------------------------------------- AVX-512: 8 x 64-bit lanes */
/* On CPUs where 64-bit min, max and compares into a mask register, and every shuffle, share one
 * vector port while logic operations, masked moves and adds issue two per cycle, the merge network
 * is bound by that port. Hence a compare-exchange of one min and one vpternlogq (max = a ^ b ^ min)
 * instead of min and max, and half cleaners that compare two registers' lanes at once
 * (clean_pair8). Counts and timings: docs/measurements.md, "From code comments". */
#define AVX512 __attribute__((target("avx512f")))
#define AVX512_IMPL __attribute__((target("avx512f"), always_inline)) static inline
typedef __m512i v8;

AVX512 static inline void cx8(v8 *a, v8 *b)
{
    v8 lo = _mm512_min_epu64(*a, *b);
    *b = _mm512_ternarylogic_epi64(*a, *b, lo, 0x96); /* a ^ b ^ min(a, b) = max(a, b) */
    *a = lo;
}

AVX512 static inline v8 rev8(v8 v) { return _mm512_permutexvar_epi64(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), v); }

/* Sorts two bitonic registers x and y: half cleaners at lane distances 4, 2, 1. Each step gathers the
 * lower lanes of its comparator pairs of both registers into one register and their partners into
 * another (two two-source shuffles), so that every lane of one compare-exchange does useful work;
 * within one register, half the lanes would repeat their partner's comparison. The last two
 * shuffles put the values back in order (y backwards with y_reversed). */
AVX512_IMPL void clean_pair8(v8 *x, v8 *y, const int y_reversed)
{
    v8 lo = _mm512_shuffle_i64x2(*x, *y, 0x44), hi = _mm512_shuffle_i64x2(*x, *y, 0xEE); /* x0-3 y0-3 | x4-7 y4-7 */
    cx8(&lo, &hi);
    v8 l2 = _mm512_shuffle_i64x2(lo, hi, 0x88), h2 = _mm512_shuffle_i64x2(lo, hi, 0xDD); /* x01 y01 x45 y45 | x23 y23 x67 y67 */
    cx8(&l2, &h2);
    v8 l3 = _mm512_unpacklo_epi64(l2, h2), h3 = _mm512_unpackhi_epi64(l2, h2); /* x0 x2 y0 y2 x4 x6 y4 y6 | x1 x3 ... */
    cx8(&l3, &h3);
    *x = _mm512_permutex2var_epi64(l3, _mm512_set_epi64(13, 5, 12, 4, 9, 1, 8, 0), h3);
    if (y_reversed) *y = _mm512_permutex2var_epi64(l3, _mm512_set_epi64(2, 10, 3, 11, 6, 14, 7, 15), h3);
    else *y = _mm512_permutex2var_epi64(l3, _mm512_set_epi64(15, 7, 14, 6, 11, 3, 10, 2), h3);
}

/* a[0..m) and b[0..m) hold two sorted sequences of 8m values; afterwards a, b hold their merge.
 * With `reversed`, b holds its sequence backwards (b[0] lane 0 the largest value) before and after:
 * the first comparator level pairs a's smallest with b's largest, so a reversed b needs no lane
 * reversal, and the last shuffles of clean_pair8 write it backwards at no cost (merge2_avx512). */
AVX512_IMPL void merge_regs8_impl(v8 *a, v8 *b, int m, const int reversed)
{
    for (int i = 0; i < m; i++) {
        if (reversed) {
            cx8(&a[i], &b[i]); /* b[i] = the larger values, in a[i]'s lane order */
        } else {
            v8 rb = rev8(b[m - 1 - i]);
            cx8(&a[i], &rb);
            b[m - 1 - i] = rb;
        }
    }
    /* lo (a) and hi are bitonic; unreversed, hi_i was stored in b[m-1-i]: put it back in order */
    for (int i = 0; !reversed && i < m / 2; i++) {
        v8 t = b[i];
        b[i] = b[m - 1 - i];
        b[m - 1 - i] = t;
    }
    for (int d = m / 2; d >= 1; d /= 2)
        for (int i = 0; i < m; i++)
            if (!(i & d)) {
                cx8(&a[i], &a[i + d]);
                cx8(&b[i], &b[i + d]);
            }
    v8 y[8];
    for (int i = 0; i < m; i++) {
        y[i] = b[i];
        clean_pair8(&a[i], &y[i], reversed);
    }
    for (int i = 0; i < m; i++) b[reversed ? m - 1 - i : i] = y[i];
}
AVX512 static inline void merge_regs8(v8 *a, v8 *b, int m) { merge_regs8_impl(a, b, m, 0); }

/* Sorts 64 values: 8-input sorting network over the registers (sorts every lane column), 8x8
 * transpose (every register a sorted run of 8), then bitonic merges 8 -> 16 -> 32 -> 64. */
AVX512 static void sort_block64_avx512(const uint64_t *src, uint64_t *dst)
{
    v8 r[8];
    for (int i = 0; i < 8; i++) r[i] = _mm512_loadu_si512((const void *)(src + 8 * i));
    static const int net[19][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {1, 2}, {5, 6},
                                   {0, 4}, {1, 5}, {2, 6}, {3, 7}, {2, 4}, {3, 5}, {1, 2}, {3, 4}, {5, 6}};
    for (int c = 0; c < 19; c++) cx8(&r[net[c][0]], &r[net[c][1]]);
    v8 t[8], u[8], o[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_epi64(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi64(r[i], r[i + 1]);
    }
    for (int h = 0; h < 8; h += 4) {
        u[h + 0] = _mm512_shuffle_i64x2(t[h + 0], t[h + 2], 0x88);
        u[h + 1] = _mm512_shuffle_i64x2(t[h + 1], t[h + 3], 0x88);
        u[h + 2] = _mm512_shuffle_i64x2(t[h + 0], t[h + 2], 0xDD);
        u[h + 3] = _mm512_shuffle_i64x2(t[h + 1], t[h + 3], 0xDD);
    }
    for (int i = 0; i < 4; i++) {
        o[i] = _mm512_shuffle_i64x2(u[i], u[i + 4], 0x88);
        o[i + 4] = _mm512_shuffle_i64x2(u[i], u[i + 4], 0xDD);
    }
    for (int i = 0; i < 8; i += 2) merge_regs8(&o[i], &o[i + 1], 1);
    merge_regs8(&o[0], &o[2], 2);
    merge_regs8(&o[4], &o[6], 2);
    merge_regs8(&o[0], &o[4], 4);
    for (int i = 0; i < 8; i++) _mm512_storeu_si512((void *)(dst + 8 * i), o[i]);
}

/* 2-way merge, 4 registers (32 values) per step (more independent lanes per step hide the
 * network's latency): the largest 32 so far stay in c; the input with the smaller head supplies
 * the next 32 (branch-free choice); an input's last partial step is padded (next_step). The state
 * of one merge is a chain8, so that two merges can run interleaved (merge2_pair_avx512). */
#define STEP8 4
#define AHEAD 256

/* The pointers of one merge; its registers (c: the carried values, backwards, see merge_regs8_impl;
 * x: the next step) are the caller's arrays, which stay in registers only outside any struct. */
typedef struct {
    const uint64_t *a, *ea, *b, *eb;
    uint64_t *out;
    size_t left; /* values still to be written */
} chain8;

/* Whether merge2_avx512's vector loop takes a merge of na and nb values (else the scalar merge). */
static inline int chain8_fits(size_t na, size_t nb) { return na + nb >= 2 * 8 * STEP8 && na > 0 && nb > 0; }

/* Loads the first step of each input: a's into c, b's into x. */
AVX512_IMPL void chain8_start(chain8 *s, v8 *c, v8 *x, const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                              uint64_t *out)
{
    const size_t w = 8 * STEP8;
    uint64_t pad[8 * STEP8];
    *s = (chain8){a, a + na, b, b + nb, out, na + nb};
    const uint64_t *q = next_step(&s->a, s->ea, pad, w, UINT64_MAX);
    for (int i = 0; i < STEP8; i++) c[STEP8 - 1 - i] = rev8(_mm512_loadu_si512((const void *)(q + 8 * i)));
    q = next_step(&s->b, s->eb, pad, w, UINT64_MAX);
    for (int i = 0; i < STEP8; i++) x[i] = _mm512_loadu_si512((const void *)(q + 8 * i));
}

/* Both inputs hold a whole step: the next step needs no padding, and merging x cannot finish. */
static inline int chain8_whole(const chain8 *s)
{
    const size_t w = 8 * STEP8;
    return (size_t)(s->ea - s->a) >= w && (size_t)(s->eb - s->b) >= w;
}

/* One step of a chain with chain8_whole: merge x into c, write x, load the next step from the input
 * with the smaller head, chosen without a branch (the choice is random, and a mispredicted branch
 * cost more), and prefetch that input AHEAD values on: a tree's 2-way merges read many streams
 * at once from the L2, the L3 and memory, more than the hardware prefetchers follow (AHEAD and
 * its neighbours: docs/measurements.md, "From code comments").
 * A prefetch past the input's end is harmless: it never faults. */
AVX512_IMPL void chain8_step_whole(chain8 *s, v8 *c, v8 *x)
{
    const size_t w = 8 * STEP8;
    merge_regs8_impl(x, c, STEP8, 1);
    for (int i = 0; i < STEP8; i++) _mm512_storeu_si512((void *)(s->out + 8 * i), x[i]);
    s->out += w;
    s->left -= w;
    const uintptr_t take_a = (uintptr_t)0 - (uintptr_t)(*s->a <= *s->b);
    const uint64_t *q = (const uint64_t *)(((uintptr_t)s->a & take_a) | ((uintptr_t)s->b & ~take_a));
    s->a += w & take_a;
    s->b += w & ~take_a;
    for (int i = 0; i < STEP8; i++) x[i] = _mm512_loadu_si512((const void *)(q + 8 * i));
    for (int i = 0; i < STEP8; i++) _mm_prefetch((const char *)(q + AHEAD + 8 * i), _MM_HINT_T0);
}

/* The rest of a chain: whole steps while both inputs have them, then the padded ones. */
AVX512_IMPL void chain8_finish(chain8 *s, v8 *c, v8 *x)
{
    const size_t w = 8 * STEP8;
    uint64_t pad[8 * STEP8], last[8 * STEP8];
    while (chain8_whole(s)) chain8_step_whole(s, c, x);
    for (;;) {
        merge_regs8_impl(x, c, STEP8, 1);
        if (s->left <= w) break; /* the rest is in x (padding after it) */
        for (int i = 0; i < STEP8; i++) _mm512_storeu_si512((void *)(s->out + 8 * i), x[i]);
        s->out += w;
        s->left -= w;
        if (s->a == s->ea && s->b == s->eb) { /* inputs done: c holds the last values */
            for (int i = 0; i < STEP8; i++) x[i] = rev8(c[STEP8 - 1 - i]);
            break;
        }
        uint64_t ha = s->a < s->ea ? *s->a : UINT64_MAX, hb = s->b < s->eb ? *s->b : UINT64_MAX;
        const uint64_t *q =
            ha <= hb ? next_step(&s->a, s->ea, pad, w, UINT64_MAX) : next_step(&s->b, s->eb, pad, w, UINT64_MAX);
        for (int i = 0; i < STEP8; i++) x[i] = _mm512_loadu_si512((const void *)(q + 8 * i));
    }
    for (int i = 0; i < STEP8; i++) _mm512_storeu_si512((void *)(last + 8 * i), x[i]);
    memcpy(s->out, last, s->left * sizeof *s->out);
}

AVX512 static void merge2_avx512(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out)
{
    if (!chain8_fits(na, nb)) {
        smj_scalar_merge2(a, na, b, nb, out);
        return;
    }
    chain8 s;
    v8 c[STEP8], x[STEP8];
    chain8_start(&s, c, x, a, na, b, nb, out);
    chain8_finish(&s, c, x);
}

/* Two merges at once, their steps interleaved: a step's network is one long chain of dependent
 * operations, which an out-of-order core overlaps with the other merge's step. Where the network is
 * bound by one vector port instead (see cx8), a second chain has no idle slots to fill
 * (docs/measurements.md, "From code comments"). */
#define PAIR_MIN (8 * 8 * STEP8) /* below: one chain (each half four steps or fewer) */

AVX512 static void merge2_pair_avx512(const uint64_t *a0, size_t na0, const uint64_t *b0, size_t nb0, uint64_t *o0,
                                      const uint64_t *a1, size_t na1, const uint64_t *b1, size_t nb1, uint64_t *o1)
{
    if (!chain8_fits(na0, nb0) || !chain8_fits(na1, nb1)) {
        merge2_avx512(a0, na0, b0, nb0, o0);
        merge2_avx512(a1, na1, b1, nb1, o1);
        return;
    }
    chain8 s0, s1;
    v8 c0[STEP8], x0[STEP8], c1[STEP8], x1[STEP8];
    chain8_start(&s0, c0, x0, a0, na0, b0, nb0, o0);
    chain8_start(&s1, c1, x1, a1, na1, b1, nb1, o1);
    while (chain8_whole(&s0) && chain8_whole(&s1)) {
        chain8_step_whole(&s0, c0, x0);
        chain8_step_whole(&s1, c1, x1);
    }
    chain8_finish(&s0, c0, x0);
    chain8_finish(&s1, c1, x1);
}

/* ---------------------------------------------------------------- AVX2: 4 x 64-bit lanes */
#define AVX2 __attribute__((target("avx2")))
typedef __m256i v4;

/* AVX2 has only a signed 64-bit compare. Values below 2^63 (a packed word of at most 63 bits) are
 * compared as they are; the _u64 kernels, for values that may use bit 63, flip the sign bit of
 * every value loaded and flip it back when storing, which maps unsigned order onto signed order at
 * two XORs per register moved instead of two per compare. U64 is a compile-time constant in every
 * instantiation, so the plain kernels carry no XOR. */
#define AVX2_IMPL __attribute__((target("avx2"), always_inline)) static inline
AVX2_IMPL v4 load4(const uint64_t *p, const int u64)
{
    v4 v = _mm256_loadu_si256((const __m256i *)p);
    return u64 ? _mm256_xor_si256(v, _mm256_set1_epi64x(INT64_MIN)) : v;
}
AVX2_IMPL void store4(uint64_t *p, v4 v, const int u64)
{
    _mm256_storeu_si256((__m256i *)p, u64 ? _mm256_xor_si256(v, _mm256_set1_epi64x(INT64_MIN)) : v);
}

AVX2 static inline void cx4(v4 *a, v4 *b)
{
    /* blendv_pd selects on each lane's sign bit: one instruction per select (GCC turns the
     * byte-wise blendv_epi8 on a compare mask into an extra compare). The max is a ^ b ^ min: two
     * XORs, which issue on more ports than a second blendv; which is faster depends on the CPU
     * (docs/measurements.md, "From code comments"). */
    __m256d x = _mm256_castsi256_pd(*a), y = _mm256_castsi256_pd(*b);
    __m256d gt = _mm256_castsi256_pd(_mm256_cmpgt_epi64(*a, *b));
    v4 lo = _mm256_castpd_si256(_mm256_blendv_pd(x, y, gt));
    *b = _mm256_xor_si256(_mm256_xor_si256(*a, *b), lo);
    *a = lo;
}

/* Reverses the lanes: swap the 128-bit halves, then the pairs within them (cheaper than vpermq on
 * some cores). */
AVX2 static inline v4 rev4(v4 v)
{
    __m256d h = _mm256_castsi256_pd(_mm256_permute2x128_si256(v, v, 0x01));
    return _mm256_castpd_si256(_mm256_permute_pd(h, 0x5));
}

/* Sorts two bitonic registers x and y, as clean_pair8 does for AVX-512: each half-cleaner step
 * compares the lanes of both registers at once (every lane of the compare-exchange useful), the
 * last two shuffles put the values back in order. */
AVX2 static inline void clean_pair4(v4 *x, v4 *y)
{
    v4 lo = _mm256_permute2x128_si256(*x, *y, 0x20), hi = _mm256_permute2x128_si256(*x, *y, 0x31); /* x01 y01 | x23 y23 */
    cx4(&lo, &hi);
    v4 l2 = _mm256_unpacklo_epi64(lo, hi), h2 = _mm256_unpackhi_epi64(lo, hi); /* x0 x2 y0 y2 | x1 x3 y1 y3 */
    cx4(&l2, &h2);
    v4 u = _mm256_unpacklo_epi64(l2, h2), v = _mm256_unpackhi_epi64(l2, h2); /* x0 x1 y0 y1 | x2 x3 y2 y3 */
    *x = _mm256_permute2x128_si256(u, v, 0x20);
    *y = _mm256_permute2x128_si256(u, v, 0x31);
}

AVX2 static inline void merge_regs4(v4 *a, v4 *b, int m)
{
    for (int i = 0; i < m; i++) {
        v4 lo = a[i], hi = rev4(b[m - 1 - i]);
        cx4(&lo, &hi);
        a[i] = lo;
        b[m - 1 - i] = hi;
    }
    for (int i = 0; i < m / 2; i++) {
        v4 t = b[i];
        b[i] = b[m - 1 - i];
        b[m - 1 - i] = t;
    }
    for (int d = m / 2; d >= 1; d /= 2)
        for (int i = 0; i < m; i++)
            if (!(i & d)) {
                cx4(&a[i], &a[i + d]);
                cx4(&b[i], &b[i + d]);
            }
    for (int i = 0; i < m; i++) clean_pair4(&a[i], &b[i]);
}

/* Sorts the 16 values in r[0..4) (4-input network over registers, 4x4 transpose, merges 4 -> 8 ->
 * 16); afterwards r[0..4) is one sorted run. */
AVX2 static inline void sort16_regs_avx2(v4 *r)
{
    cx4(&r[0], &r[1]);
    cx4(&r[2], &r[3]);
    cx4(&r[0], &r[2]);
    cx4(&r[1], &r[3]);
    cx4(&r[1], &r[2]);
    v4 t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
    v4 t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
    r[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    r[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    r[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    r[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
    merge_regs4(&r[0], &r[1], 1);
    merge_regs4(&r[2], &r[3], 1);
    merge_regs4(&r[0], &r[2], 2);
}

/* Sorts 64 values in registers: four sorted groups of 16, merged into 32, then 64. */
AVX2_IMPL void sort_block64_avx2_impl(const uint64_t *src, uint64_t *dst, const int u64)
{
    v4 r[16];
    for (int i = 0; i < 16; i++) r[i] = load4(src + 4 * i, u64);
    for (int g = 0; g < 16; g += 4) sort16_regs_avx2(&r[g]);
    merge_regs4(&r[0], &r[4], 4);
    merge_regs4(&r[8], &r[12], 4);
    merge_regs4(&r[0], &r[8], 8);
    for (int i = 0; i < 16; i++) store4(dst + 4 * i, r[i], u64);
}
AVX2 static void sort_block64_avx2(const uint64_t *src, uint64_t *dst) { sort_block64_avx2_impl(src, dst, 0); }
AVX2 static void sort_block64_avx2_u64(const uint64_t *src, uint64_t *dst) { sort_block64_avx2_impl(src, dst, 1); }

/* 2-way merge, 4 registers (16 values) per step (more independent lanes per step hide the
 * network's latency): the largest 16 so far stay in c; the input with the smaller head supplies
 * the next 16 (branch-free choice); an input's last partial step is padded (next_step). */
#define STEP4 4

AVX2_IMPL void merge2_avx2_impl(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out, const int u64)
{
    const size_t w = 4 * STEP4;
    if (na + nb < 2 * w || na == 0 || nb == 0) {
        smj_scalar_merge2(a, na, b, nb, out);
        return;
    }
    uint64_t pad[4 * STEP4], last[4 * STEP4];
    const uint64_t fill = u64 ? UINT64_MAX : INT64_MAX;
    const uint64_t *ea = a + na, *eb = b + nb;
    size_t left = na + nb; /* values still to be written */
    v4 c[STEP4], x[STEP4];
    const uint64_t *q = next_step(&a, ea, pad, w, fill);
    for (int i = 0; i < STEP4; i++) c[i] = load4(q + 4 * i, u64);
    q = next_step(&b, eb, pad, w, fill);
    for (int i = 0; i < STEP4; i++) x[i] = load4(q + 4 * i, u64);
    for (;;) {
        merge_regs4(c, x, STEP4);
        if (left <= w) break; /* the rest is in c (padding after it) */
        for (int i = 0; i < STEP4; i++) store4(out + 4 * i, c[i], u64);
        out += w;
        left -= w;
        for (int i = 0; i < STEP4; i++) c[i] = x[i];
        if (a == ea && b == eb) break; /* inputs done: c holds the last values */
        uint64_t ha = a < ea ? *a : UINT64_MAX, hb = b < eb ? *b : UINT64_MAX;
        q = ha <= hb ? next_step(&a, ea, pad, w, fill) : next_step(&b, eb, pad, w, fill);
        for (int i = 0; i < STEP4; i++) x[i] = load4(q + 4 * i, u64);
        for (int i = 0; i < STEP4; i += 2) _mm_prefetch((const char *)(q + AHEAD + 4 * i), _MM_HINT_T0); /* see chain8 */
    }
    for (int i = 0; i < STEP4; i++) store4(last + 4 * i, c[i], u64);
    memcpy(out, last, left * sizeof *out);
}
AVX2 static void merge2_avx2(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out)
{
    merge2_avx2_impl(a, na, b, nb, out, 0);
}
AVX2 static void merge2_avx2_u64(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out)
{
    merge2_avx2_impl(a, na, b, nb, out, 1);
}
#endif /* RMB_SIMD_AUTO */

/* ---------------------------------------------------------------- dispatch */
int smj_simd_available(int simd)
{
    switch (simd) {
    case SMJ_SIMD_SCALAR: return 1;
#if RMB_SIMD_AUTO
    case SMJ_SIMD_AVX512: __builtin_cpu_init(); return __builtin_cpu_supports("avx512f");
    case SMJ_SIMD_AVX2:
    case SMJ_SIMD_AVX2_U64: __builtin_cpu_init(); return __builtin_cpu_supports("avx2");
#endif
    case SMJ_SIMD_AUTO: return 1;
    default: return 0;
    }
}

int smj_simd_for_values(int simd, int u64) { return simd == SMJ_SIMD_AVX2 && u64 ? SMJ_SIMD_AVX2_U64 : simd; }

int smj_simd_resolve(int simd)
{
    if (simd != SMJ_SIMD_AUTO) return simd;
    if (smj_simd_available(SMJ_SIMD_AVX512)) return SMJ_SIMD_AVX512;
    if (smj_simd_available(SMJ_SIMD_AVX2)) return SMJ_SIMD_AVX2;
    return SMJ_SIMD_SCALAR;
}

const char *smj_simd_name(int simd)
{
    switch (simd) {
    case SMJ_SIMD_AVX512: return "avx512";
    case SMJ_SIMD_AVX2:
    case SMJ_SIMD_AVX2_U64: return "avx2";
    case SMJ_SIMD_SCALAR: return "scalar";
    default: return "auto";
    }
}

void smj_merge2(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out, int simd)
{
#if RMB_SIMD_AUTO
    if (simd == SMJ_SIMD_AVX512) {
        if (na + nb < PAIR_MIN) {
            merge2_avx512(a, na, b, nb, out);
            return;
        }
        /* the halves of the output, split at the merge path, merged as two interleaved chains */
        const size_t h = (na + nb) / 2, i = smj_corank(h, a, na, b, nb);
        merge2_pair_avx512(a, i, b, h - i, out, a + i, na - i, b + (h - i), nb - (h - i), out + h);
        return;
    }
    if (simd == SMJ_SIMD_AVX2) {
        merge2_avx2(a, na, b, nb, out);
        return;
    }
    if (simd == SMJ_SIMD_AVX2_U64) {
        merge2_avx2_u64(a, na, b, nb, out);
        return;
    }
#endif
    (void)simd;
    smj_scalar_merge2(a, na, b, nb, out);
}

/* Sorts full blocks with the register network (the tail with insertion sort), then merges
 * neighbouring sorted blocks level by level, alternating between dst and tmp so that the last
 * level lands in dst. */
void smj_sort_run(const uint64_t *src, size_t n, uint64_t *dst, uint64_t *tmp, int simd)
{
    size_t block = 16;
    void (*block_sort)(const uint64_t *, uint64_t *) = NULL;
#if RMB_SIMD_AUTO
    if (simd == SMJ_SIMD_AVX512) {
        block = 64;
        block_sort = sort_block64_avx512;
    } else if (simd == SMJ_SIMD_AVX2) {
        block = 64;
        block_sort = sort_block64_avx2;
    } else if (simd == SMJ_SIMD_AVX2_U64) {
        block = 64;
        block_sort = sort_block64_avx2_u64;
    }
#endif
    int levels = 0;
    for (size_t w = block; w < n; w *= 2) levels++;
    uint64_t *in = levels % 2 ? tmp : dst, *out = levels % 2 ? dst : tmp;
    size_t full = block_sort ? n - n % block : 0;
    for (size_t i = 0; i < full; i += block) block_sort(src + i, in + i);
    for (size_t i = full; i < n; i += block) smj_scalar_sort_small(src + i, n - i < block ? n - i : block, in + i);
    for (size_t w = block; w < n; w *= 2) {
        for (size_t i = 0; i < n; i += 2 * w) {
            size_t na = n - i < w ? n - i : w;
            size_t nb = n - i - na < w ? n - i - na : w;
            if (nb == 0) memcpy(out + i, in + i, na * sizeof *out);
            else smj_merge2(in + i, na, in + i + na, nb, out + i, simd);
        }
        uint64_t *t = in;
        in = out;
        out = t;
    }
}

size_t smj_default_run_size(void)
{
    uint64_t l2 = rmb_cache_bytes(2);
    if (l2 == 0) l2 = 1 << 20;
    /* the run being sorted and the sort's scratch: 16 bytes per tuple */
    size_t n = 1024;
    while (n * 2 * 16 <= l2) n *= 2;
    return n;
}
