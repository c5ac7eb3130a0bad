/* The matching phase: one sequential scan over the two sorted relations with a head pointer each;
 * equal-key groups on both sides produce every pair (1:N and N:M). MPI-free.
 *
 * Scalar: a branchy merge, one head step per tuple; with S keys drawn at random, whether an R key
 * has 0, 1 or more S tuples is a coin flip the branch predictor loses about once per R tuple.
 * AVX-512: blocks of 8 R and 8 S tuples, cut below the smaller of the two blocks' last keys, so
 * that every pair with a key under the cut lies inside the two blocks: each S lane finds its R
 * partner among 8 rotations of the R block, the pairs' terms are summed in vector lanes, and the
 * heads move past the cut by a popcount, without a data-dependent branch. It takes R keys under the
 * cut that are unique within the block (a primary key: every join of the generator); a block with
 * equal R keys, or with no key under the cut, goes one key at a time through the scalar groups. */
#include "bench/rmb_config.h"
#include "bench/rmb_mutant.h"
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

/* The pairs of R [i, ie) x S [j, je), all of key k (the range's offset). match_pre is linear: the
 * rid bases and the range's key base are in pre0, the key offset goes in once per group, the R rid
 * once per R tuple. */
static inline void match_group(match_scan *x, uint64_t k, size_t ie, size_t je)
{
    const uint64_t pre_key = x->pre0 + k * MATCH_KEY_MUL;
#ifdef RMB_MUTANT_SMJ_FIRST_EQUAL_ONLY /* mutation suite: only the group's first S tuple is matched */
    je = x->j + 1;
#endif
    for (size_t a = x->i; a < ie; a++) {
        const uint64_t pre_r = pre_key + (x->r[a] & x->mask) * MATCH_R_MUL;
        for (size_t b = x->j; b < je; b++) x->c += match_mix(pre_r + (x->s[b] & x->mask));
    }
    x->m += (uint64_t)(ie - x->i) * (uint64_t)(je - x->j);
}

/* Consumes every tuple of the smaller head key on both sides (one side's group may be empty). */
static inline void match_key(match_scan *x)
{
    const int b = x->rid_bits;
    const uint64_t kr = x->r[x->i] >> b, ks = x->s[x->j] >> b, k = kr < ks ? kr : ks;
    size_t ie = x->i, je = x->j;
    while (ie < x->rn && x->r[ie] >> b == k) ie++;
    while (je < x->sn && x->s[je] >> b == k) je++;
    if (ie > x->i && je > x->j) match_group(x, k, ie, je);
    x->i = ie;
    x->j = je;
}

/* The branchy merge from the heads to the end of either relation. */
static void match_scalar(match_scan *x)
{
    const int b = x->rid_bits;
    while (x->i < x->rn && x->j < x->sn) {
        const uint64_t kr = x->r[x->i] >> b, ks = x->s[x->j] >> b;
        if (kr < ks) {
            x->i++;
        } else if (ks < kr) {
            x->j++;
        } else {
            size_t ie = x->i + 1, je = x->j + 1;
            while (ie < x->rn && x->r[ie] >> b == kr) ie++;
            while (je < x->sn && x->s[je] >> b == kr) je++;
            match_group(x, kr, ie, je);
            x->i = ie;
            x->j = je;
        }
    }
}

#if RMB_SIMD_AUTO
#define AVX512 __attribute__((target("avx512f,avx512dq")))

/* Blocks while 8 tuples are left on both sides; match_scalar takes the rest. */
AVX512 static void match_avx512(match_scan *x)
{
    const int b = x->rid_bits;
    const __m128i sh = _mm_cvtsi32_si128(b);
    const __m512i vmask = _mm512_set1_epi64((long long)x->mask), vpre0 = _mm512_set1_epi64((long long)x->pre0);
    const __m512i key_mul = _mm512_set1_epi64((long long)MATCH_KEY_MUL), r_mul = _mm512_set1_epi64((long long)MATCH_R_MUL);
    const __m512i mix_mul = _mm512_set1_epi64((long long)UINT64_C(0xD6E8FEB86659FD93));
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), seven = _mm512_set1_epi64(7);
    __m512i acc = _mm512_setzero_si512();
    uint64_t m = 0;
    while (x->i + 8 <= x->rn && x->j + 8 <= x->sn) {
        const uint64_t *rp = x->r + x->i, *sp = x->s + x->j;
        const uint64_t rl = rp[7] >> b, sl = sp[7] >> b, cut = rl < sl ? rl : sl;
        const __m512i rv = _mm512_loadu_si512((const void *)rp), sv = _mm512_loadu_si512((const void *)sp);
        const __m512i rk = _mm512_srl_epi64(rv, sh), sk = _mm512_srl_epi64(sv, sh), vcut = _mm512_set1_epi64((long long)cut);
        const __mmask8 rlt = _mm512_cmplt_epu64_mask(rk, vcut), slt = _mm512_cmplt_epu64_mask(sk, vcut);
        /* R keys under the cut equal to their right neighbour (lane 7 has none) */
        const __mmask8 dup = _mm512_mask_cmpeq_epu64_mask(rlt & 0x7F, rk, _mm512_alignr_epi64(rk, rk, 1));
        if (dup || !(rlt | slt)) {
            match_key(x);
            continue;
        }
        /* the R lane of each S lane's partner: rotation k holds R lane (l + k) mod 8 in lane l */
        __m512i idx = _mm512_setzero_si512();
        __mmask8 hit = 0;
        for (int k = 0; k < 8; k++) {
            const __m512i rot = _mm512_and_si512(_mm512_add_epi64(lane, _mm512_set1_epi64(k)), seven);
            const __mmask8 e = _mm512_mask_cmpeq_epu64_mask(slt, sk, _mm512_permutexvar_epi64(rot, rk));
            idx = _mm512_mask_mov_epi64(idx, e, rot);
            hit |= e;
        }
#ifdef RMB_MUTANT_SMJ_FIRST_EQUAL_ONLY /* mutation suite: only the group's first S tuple is matched */
        const uint64_t before = x->j ? x->s[x->j - 1] >> b : UINT64_MAX;
        hit &= (__mmask8)~_mm512_cmpeq_epu64_mask(sk, _mm512_alignr_epi64(sk, _mm512_set1_epi64((long long)before), 7));
#endif
        const __m512i rid_r = _mm512_and_si512(_mm512_permutexvar_epi64(idx, rv), vmask);
        __m512i z = _mm512_add_epi64(vpre0, _mm512_mullo_epi64(sk, key_mul));
        z = _mm512_add_epi64(z, _mm512_mullo_epi64(rid_r, r_mul));
        z = _mm512_add_epi64(z, _mm512_and_si512(sv, vmask));
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 32)); /* match_mix */
        z = _mm512_mullo_epi64(z, mix_mul);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 32));
        acc = _mm512_mask_add_epi64(acc, hit, acc, z);
        m += (uint64_t)__builtin_popcount(hit);
        x->i += (size_t)__builtin_popcount(rlt);
        x->j += (size_t)__builtin_popcount(slt);
    }
    x->m += m;
    /* lanes summed as uint64_t (GCC's _mm512_reduce_add_epi64 adds signed: overflow is undefined) */
    uint64_t lanes[8];
    _mm512_storeu_si512((void *)lanes, acc);
    for (int l = 0; l < 8; l++) x->c += lanes[l];
}
#endif

void smj_match(const uint64_t *r, size_t rn, const uint64_t *s, size_t sn, int rid_bits, uint64_t key_base,
               const uint64_t rid_base[2], int simd, uint64_t *matches, uint64_t *checksum)
{
    match_scan x = {.r = r, .s = s, .rn = rn, .sn = sn, .rid_bits = rid_bits,
                    .mask = rid_bits >= 64 ? ~0ull : (1ull << rid_bits) - 1,
                    .pre0 = match_pre(rid_base[0], rid_base[1], key_base)};
#if RMB_SIMD_AUTO
    /* the kernel multiplies 64-bit lanes (AVX-512DQ: every AVX-512 CPU but the Xeon Phi) */
    if (simd == SMJ_SIMD_AVX512 && __builtin_cpu_supports("avx512dq")) match_avx512(&x);
#endif
    (void)simd;
    match_scalar(&x);
    *matches = x.m;
    *checksum = x.c;
}
