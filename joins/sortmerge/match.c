/* The matching phase: one sequential scan over the two sorted relations with a head pointer each;
 * equal-key groups on both sides produce every pair (1:N and N:M). MPI-free.
 *
 * Scalar: a branchy merge, one head step per tuple, whose branches (which head moves, where a group
 * ends) follow the data. AVX-512 (AVX2: the same with 4 lanes): blocks of 8 R and 8 S tuples, cut
 * at the smaller of the two blocks' last keys (match_cut), so that every pair with a key under the
 * cut lies inside the two blocks: each S lane finds its R partner among 8 rotations of the R block,
 * the pairs' terms are summed in vector lanes, and the heads move past the cut by a popcount,
 * without a data-dependent branch. It takes R keys under the cut that are unique within the block
 * (a primary key: every join of the generator); a block with equal R keys or with no key under
 * the cut, or one that moved the heads little, hands the next tuples to the scalar merge.
 */
#include "bench/rmb_config.h"
#include "joins/generate.h"
#include "joins/sortmerge/smj_kernels.h"

#if RMB_SIMD_AUTO
#include <immintrin.h>
#endif

/* The scan's state: heads, and the pairs and the checksum so far. */
typedef struct {
    const uint64_t *r, *s;
    size_t rn, sn, i, j;
    int rid_bits;
    uint64_t mask, pre0, m, c;
} match_scan;

/* The checksum terms of the pairs of r[0..rn) x s[0..sn), all of key k (the range's offset).
 * match_pre is linear: the rid bases and the range's key base are in pre0, the key offset goes in
 * once per group, the R rid once per R tuple. Sums in locals, not in the scan's struct, which the
 * compiler must assume may alias the tuples (both uint64_t). */
static inline uint64_t group_terms(const uint64_t *r, size_t rn, const uint64_t *s, size_t sn, uint64_t mask,
                                   uint64_t pre_key)
{
    uint64_t c = 0;
    for (size_t a = 0; a < rn; a++) {
        const uint64_t pre_r = pre_key + (r[a] & mask) * MATCH_R_MUL;
        for (size_t b = 0; b < sn; b++) c += match_mix(pre_r + (s[b] & mask));
    }
    return c;
}

/* The branchy merge from the heads on (in locals, as group_terms), until either relation ends or
 * `budget` tuples have been consumed (a group under way is finished: it may take more). Its fused
 * group scan below matters: a separate scan for the group's end and then group_terms reads each
 * group twice (docs/measurements.md, "From code comments"). */
__attribute__((noinline)) static void match_scalar_n(match_scan *x, size_t budget)
{
    const int b = x->rid_bits;
    const uint64_t *const r = x->r, *const s = x->s, mask = x->mask, pre0 = x->pre0;
    const size_t rn = x->rn, sn = x->sn;
    size_t i = x->i, j = x->j;
    const size_t stop = budget >= rn + sn ? SIZE_MAX : i + j + budget;
    uint64_t m = 0, c = 0;
    while (i < rn && j < sn && i + j < stop) {
        const uint64_t kr = r[i] >> b, ks = s[j] >> b;
        if (kr < ks) {
            i++;
        } else if (ks < kr) {
            j++;
        } else {
            /* the group of key kr: R [i, ie), S [j, je); the first R tuple's terms are summed while
             * the S group is scanned (one pass, and a loop with a data-dependent exit, which the
             * compiler leaves unvectorised: vector set-up would cost more than groups of a few) */
            size_t ie = i + 1, je = j;
            while (ie < rn && r[ie] >> b == kr) ie++;
            const uint64_t pre_key = pre0 + kr * MATCH_KEY_MUL, pre_r = pre_key + (r[i] & mask) * MATCH_R_MUL;
            do c += match_mix(pre_r + (s[je] & mask));
            while (++je < sn && s[je] >> b == kr);
            if (ie > i + 1) c += group_terms(r + i + 1, ie - i - 1, s + j, je - j, mask, pre_key); /* N:M */
            m += (uint64_t)(ie - i) * (uint64_t)(je - j);
            i = ie;
            j = je;
        }
    }
    x->i = i;
    x->j = j;
    x->m += m;
    x->c += c;
}

/* The branchy merge to the end of either relation. */
static void match_scalar(match_scan *x) { match_scalar_n(x, SIZE_MAX); }

/* Where a vector block cannot go on or moves the heads little, the scalar merge takes the next
 * MATCH_STRETCH tuples: groups of a key longer than a block (a skewed S, a self-join) are the
 * scalar loop's best case and a block's worst (a block takes one key, or none); a stretch instead
 * of one key at a time shortens skewed and self-joins and leaves 1:1 as it is, whether 64, 256 or
 * 1024 tuples (docs/measurements.md, "From code comments"). The scalar merge is one function
 * out of line, not inlined into the vector kernels' blocks. */
#define MATCH_STRETCH 256

/* The cut of a vector block of w tuples per relation at the heads: the blocks take the keys below
 * it. c, the smaller of the two blocks' last keys, bounds the keys whose pairs all lie inside both
 * blocks; key c itself does too when neither relation goes on with c after its block, and then the
 * cut is c + 1 (with groups of a key aligned to the blocks, as at 1:N, a block then takes whole
 * groups: 16 tuples a block at 1:1 instead of 14, and a block of one S key at 1:8 instead of none).
 * Keys are never UINT64_MAX (smj_format.h): c + 1 does not wrap. */
static inline uint64_t match_cut(const match_scan *x, size_t w)
{
    const int b = x->rid_bits;
    const uint64_t rl = x->r[x->i + w - 1] >> b, sl = x->s[x->j + w - 1] >> b, c = rl < sl ? rl : sl;
    const uint64_t r_next = x->i + w < x->rn ? x->r[x->i + w] >> b : UINT64_MAX;
    const uint64_t s_next = x->j + w < x->sn ? x->s[x->j + w] >> b : UINT64_MAX;
    return c + (r_next != c && s_next != c);
}

#if RMB_SIMD_AUTO
#define AVX512 __attribute__((target("avx512f,avx512dq")))

#define AVX512_IMPL __attribute__((target("avx512f,avx512dq"), always_inline)) static inline

/* The kernel's constants, and one scan's sums (in locals: see group_terms). */
typedef struct {
    __m128i sh;
    __m512i vmask, vpre0, key_mul, r_mul, mix_mul, lane, seven;
} match8_consts;
typedef struct {
    __m512i acc;
    uint64_t m;
} match8_sums;

AVX512_IMPL match8_consts match8_setup(const match_scan *x)
{
    return (match8_consts){_mm_cvtsi32_si128(x->rid_bits),          _mm512_set1_epi64((long long)x->mask),
                           _mm512_set1_epi64((long long)x->pre0),   _mm512_set1_epi64((long long)MATCH_KEY_MUL),
                           _mm512_set1_epi64((long long)MATCH_R_MUL), _mm512_set1_epi64((long long)MATCH_MIX_MUL),
                           _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(7)};
}

/* Whether both sides have a block of 8 left. */
static inline int match8_room(const match_scan *x) { return x->i + 8 <= x->rn && x->j + 8 <= x->sn; }

/* One block of 8 R and 8 S tuples at the heads (match8_room), or a stretch of the scalar merge. */
AVX512_IMPL void match8_block(match_scan *x, const match8_consts *k, match8_sums *sum)
{
    const int b = x->rid_bits;
    const uint64_t *rp = x->r + x->i, *sp = x->s + x->j;
    const uint64_t cut = match_cut(x, 8);
    const __m512i rv = _mm512_loadu_si512((const void *)rp), sv = _mm512_loadu_si512((const void *)sp);
    const __m512i rk = _mm512_srl_epi64(rv, k->sh), sk = _mm512_srl_epi64(sv, k->sh), vcut = _mm512_set1_epi64((long long)cut);
    const __mmask8 rlt = _mm512_cmplt_epu64_mask(rk, vcut), slt = _mm512_cmplt_epu64_mask(sk, vcut);
    /* R keys under the cut equal to their right neighbour (lane 7 has none) */
    const __mmask8 dup = _mm512_mask_cmpeq_epu64_mask(rlt & 0x7F, rk, _mm512_alignr_epi64(rk, rk, 1));
    if (dup || !(rlt | slt)) {
        match_scalar_n(x, MATCH_STRETCH);
        return;
    }
    /* the R lane of each S lane's partner: rotation r holds R lane (l + r) mod 8 in lane l */
    __m512i idx = _mm512_setzero_si512();
    __mmask8 hit = 0;
    for (int r = 0; r < 8; r++) {
        const __m512i rot = _mm512_and_si512(_mm512_add_epi64(k->lane, _mm512_set1_epi64(r)), k->seven);
        const __mmask8 e = _mm512_mask_cmpeq_epu64_mask(slt, sk, _mm512_permutexvar_epi64(rot, rk));
        idx = _mm512_mask_mov_epi64(idx, e, rot);
        hit |= e;
    }
    (void)b;
    const __m512i rid_r = _mm512_and_si512(_mm512_permutexvar_epi64(idx, rv), k->vmask);
    __m512i z = _mm512_add_epi64(k->vpre0, _mm512_mullo_epi64(sk, k->key_mul));
    z = _mm512_add_epi64(z, _mm512_mullo_epi64(rid_r, k->r_mul));
    z = _mm512_add_epi64(z, _mm512_and_si512(sv, k->vmask));
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 32)); /* match_mix */
    z = _mm512_mullo_epi64(z, k->mix_mul);
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 32));
    sum->acc = _mm512_mask_add_epi64(sum->acc, hit, sum->acc, z);
    sum->m += (uint64_t)__builtin_popcount(hit);
    const int ri = __builtin_popcount(rlt), sj = __builtin_popcount(slt);
    x->i += (size_t)ri;
    x->j += (size_t)sj;
    if (ri + sj < 8) match_scalar_n(x, MATCH_STRETCH); /* under half the block's 16 tuples */
}

/* The sums into the scan (lanes summed as uint64_t: GCC's _mm512_reduce_add_epi64 adds signed, and
 * overflow is undefined). */
AVX512_IMPL void match8_add(match_scan *x, const match8_sums *sum)
{
    uint64_t lanes[8];
    _mm512_storeu_si512((void *)lanes, sum->acc);
    x->m += sum->m;
    for (int l = 0; l < 8; l++) x->c += lanes[l];
}

/* Blocks while 8 tuples are left on both sides; match_scalar takes the rest. */
AVX512 static void match_avx512(match_scan *x)
{
    const match8_consts k = match8_setup(x);
    match8_sums sum = {_mm512_setzero_si512(), 0};
    while (match8_room(x)) match8_block(x, &k, &sum);
    match8_add(x, &sum);
}

/* Two scans at once, their blocks interleaved: a block's cut and head moves are one chain of
 * dependent loads, compares and popcounts, which the other scan's block overlaps. */
AVX512 static void match_pair_avx512(match_scan *x0, match_scan *x1)
{
    const match8_consts k = match8_setup(x0);
    match8_sums s0 = {_mm512_setzero_si512(), 0}, s1 = s0;
    match_scan a = *x0, c = *x1; /* locals: the heads stay in registers */
    while (match8_room(&a) && match8_room(&c)) {
        match8_block(&a, &k, &s0);
        match8_block(&c, &k, &s1);
    }
    while (match8_room(&a)) match8_block(&a, &k, &s0);
    while (match8_room(&c)) match8_block(&c, &k, &s1);
    match8_add(&a, &s0);
    match8_add(&c, &s1);
    *x0 = a;
    *x1 = c;
}
#undef AVX512_IMPL

/* The first index of sorted v[0..n) whose key (v >> rid_bits) is at least k. */
static size_t key_lower_bound(const uint64_t *v, size_t n, uint64_t k, int rid_bits)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (v[mid] >> rid_bits < k) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

#define MATCH_PAIR_MIN 256 /* tuples on each side, below: one scan (match_avx512) */

/* The whole scan as two, split at R's middle key: both relations are cut at that key's lower
 * bound, so that no key's group is split; the second scan's scalar rest is taken here, the first's
 * by the caller (match_scalar on x). Needs rid_bits < 64. */
static void match_split_avx512(match_scan *x)
{
    const uint64_t k = x->r[x->rn / 2] >> x->rid_bits;
    const size_t ir = key_lower_bound(x->r, x->rn, k, x->rid_bits), js = key_lower_bound(x->s, x->sn, k, x->rid_bits);
    match_scan y = *x;
    y.r += ir;
    y.rn -= ir;
    y.s += js;
    y.sn -= js;
    x->rn = ir;
    x->sn = js;
    match_pair_avx512(x, &y);
    match_scalar(&y);
    x->m += y.m;
    x->c += y.c;
}

/* ---------------------------------------------------------------- AVX2: blocks of 4 */
#define AVX2 __attribute__((target("avx2")))

/* The low 64 bits of a * b per lane (AVX2 has no 64-bit multiply): three 32 x 32 -> 64 products. */
AVX2 static inline __m256i mul64(__m256i a, __m256i b, __m256i b_hi)
{
    const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b), _mm256_mul_epu32(a, b_hi));
    return _mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32));
}

AVX2 static inline int lanes4(__m256i m) { return _mm256_movemask_pd(_mm256_castsi256_pd(m)); }

/* As match_avx512 with 4 lanes. Keys are compared signed (AVX2 has no unsigned 64-bit compare):
 * the caller makes sure they are below 2^63 (rid_bits >= 1). Rotation k is a vpermq. */
AVX2 static void match_avx2(match_scan *x)
{
    const int b = x->rid_bits;
    const __m128i sh = _mm_cvtsi32_si128(b);
    const __m256i vmask = _mm256_set1_epi64x((long long)x->mask), vpre0 = _mm256_set1_epi64x((long long)x->pre0);
    const __m256i key_mul = _mm256_set1_epi64x((long long)MATCH_KEY_MUL), r_mul = _mm256_set1_epi64x((long long)MATCH_R_MUL);
    const __m256i mix_mul = _mm256_set1_epi64x((long long)MATCH_MIX_MUL);
    const __m256i key_mul_hi = _mm256_srli_epi64(key_mul, 32), r_mul_hi = _mm256_srli_epi64(r_mul, 32),
                  mix_mul_hi = _mm256_srli_epi64(mix_mul, 32);
    __m256i acc = _mm256_setzero_si256();
    uint64_t m = 0;
    while (x->i + 4 <= x->rn && x->j + 4 <= x->sn) {
        const uint64_t *rp = x->r + x->i, *sp = x->s + x->j;
        const uint64_t cut = match_cut(x, 4);
        const __m256i rv = _mm256_loadu_si256((const __m256i *)rp), sv = _mm256_loadu_si256((const __m256i *)sp);
        const __m256i rk = _mm256_srl_epi64(rv, sh), sk = _mm256_srl_epi64(sv, sh), vcut = _mm256_set1_epi64x((long long)cut);
        const __m256i slt = _mm256_cmpgt_epi64(vcut, sk);
        const int rlt = lanes4(_mm256_cmpgt_epi64(vcut, rk)), sltm = lanes4(slt);
        const int dup = lanes4(_mm256_cmpeq_epi64(rk, _mm256_permute4x64_epi64(rk, _MM_SHUFFLE(0, 3, 2, 1)))) & rlt & 0x7;
        if (dup || !(rlt | sltm)) {
            match_scalar_n(x, MATCH_STRETCH);
            continue;
        }
        /* rotation k holds R lane (l + k) mod 4 in lane l; each S lane takes its partner's word */
        __m256i e0 = _mm256_and_si256(_mm256_cmpeq_epi64(sk, rk), slt);
        const __m256i r1 = _mm256_permute4x64_epi64(rv, _MM_SHUFFLE(0, 3, 2, 1)),
                      r2 = _mm256_permute4x64_epi64(rv, _MM_SHUFFLE(1, 0, 3, 2)),
                      r3 = _mm256_permute4x64_epi64(rv, _MM_SHUFFLE(2, 1, 0, 3));
        __m256i e1 = _mm256_and_si256(_mm256_cmpeq_epi64(sk, _mm256_srl_epi64(r1, sh)), slt);
        __m256i e2 = _mm256_and_si256(_mm256_cmpeq_epi64(sk, _mm256_srl_epi64(r2, sh)), slt);
        __m256i e3 = _mm256_and_si256(_mm256_cmpeq_epi64(sk, _mm256_srl_epi64(r3, sh)), slt);
        __m256i rsel = _mm256_and_si256(rv, e0);
        rsel = _mm256_or_si256(rsel, _mm256_and_si256(r1, e1));
        rsel = _mm256_or_si256(rsel, _mm256_and_si256(r2, e2));
        rsel = _mm256_or_si256(rsel, _mm256_and_si256(r3, e3));
        __m256i hit = _mm256_or_si256(_mm256_or_si256(e0, e1), _mm256_or_si256(e2, e3));
        __m256i z = _mm256_add_epi64(vpre0, mul64(sk, key_mul, key_mul_hi));
        z = _mm256_add_epi64(z, mul64(_mm256_and_si256(rsel, vmask), r_mul, r_mul_hi));
        z = _mm256_add_epi64(z, _mm256_and_si256(sv, vmask));
        z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 32)); /* match_mix */
        z = mul64(z, mix_mul, mix_mul_hi);
        z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 32));
        acc = _mm256_add_epi64(acc, _mm256_and_si256(z, hit));
        m += (uint64_t)__builtin_popcount((unsigned)lanes4(hit));
        const int ri = __builtin_popcount((unsigned)rlt), sj = __builtin_popcount((unsigned)sltm);
        x->i += (size_t)ri;
        x->j += (size_t)sj;
        if (ri + sj < 4) match_scalar_n(x, MATCH_STRETCH); /* under half the block's 8 tuples */
    }
    x->m += m;
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes, acc);
    for (int l = 0; l < 4; l++) x->c += lanes[l];
}
#endif

void smj_match(const uint64_t *r, size_t rn, const uint64_t *s, size_t sn, int rid_bits, uint64_t key_base,
               const uint64_t rid_base[2], int simd, uint64_t *matches, uint64_t *checksum)
{
    match_scan x = {.r = r, .s = s, .rn = rn, .sn = sn, .rid_bits = rid_bits,
                    .mask = rid_bits >= 64 ? ~0ull : (1ull << rid_bits) - 1,
                    .pre0 = match_pre(rid_base[0], rid_base[1], key_base)};
#if RMB_SIMD_AUTO
    /* the kernel multiplies 64-bit lanes (AVX-512DQ, which the first AVX-512 many-core CPUs lack)
     * */
    if (simd == SMJ_SIMD_AVX512 && __builtin_cpu_supports("avx512dq")) {
        if (rn >= MATCH_PAIR_MIN && sn >= MATCH_PAIR_MIN && rid_bits < 64) match_split_avx512(&x);
        else match_avx512(&x);
    }
    /* AVX2 only up to 2 S tuples per R tuple: its 4-lane blocks take about one S group each at 1:4,
     * and its multiplies are three 32-bit ones, so beyond that the scalar merge is as fast
     * (docs/measurements.md, "From code comments") */
    else if ((simd == SMJ_SIMD_AVX2 || simd == SMJ_SIMD_AVX2_U64) && rid_bits >= 1 && sn <= 2 * rn) match_avx2(&x);
#endif
    (void)simd;
    match_scalar(&x);
    *matches = x.m;
    *checksum = x.c;
}
