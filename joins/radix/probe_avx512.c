/* The probe of build_probe.c in AVX-512 for packed (8-byte) items: 8 S items at a time walk their
 * bucket chains together (the heads and then each chain's next link gathered, the R items gathered
 * and compared under the key mask), the matches' checksum terms summed in the lanes. A lane whose
 * chain ends waits for the vector's longest chain; chains are short (a bucket per R item), and
 * no branch depends on a chain's length, which is what the scalar loop mispredicts. Over one-item
 * buckets (radix_probe_direct_avx512) a probe is one gather, and the checksum's 64-bit multiplies
 * run in vectors too. Whether either beats the scalar probe depends on the CPU (kernel_pick.c;
 * docs/measurements.md, "From code comments"). MPI-free. */
#include "joins/radix/radix_kernels.h"

#include "bench/rmb_config.h"
#include "joins/generate.h"

#if RMB_SIMD_AUTO
#include <immintrin.h>

#define AVX512_PROBE __attribute__((target("avx512f,avx512dq")))

/* sum + the checksum terms of the lanes in eq: R items ri against S items w, spart the S items'
 * part of their terms (w + khi * khi_mul + pre0, build_probe.c) */
AVX512_PROBE static inline __attribute__((always_inline)) __m512i add_terms(__m512i sum, __mmask8 eq, __m512i ri, __m512i w,
                                                                           __m512i spart, const radix_probe_consts *k)
{
    (void)k, (void)w;
    __m512i z = _mm512_add_epi64(_mm512_mullo_epi64(ri, _mm512_set1_epi64((long long)MATCH_R_MUL)), spart); /* match_mix */
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 32));
    z = _mm512_mullo_epi64(z, _mm512_set1_epi64((long long)MATCH_MIX_MUL));
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 32));
    return _mm512_mask_add_epi64(sum, eq, sum, z);
}

/* the bits a match compares */
AVX512_PROBE static inline __m512i key_bits(const radix_probe_consts *k)
{
    return _mm512_set1_epi64((long long)k->keymask);
}

/* the S items' part of their terms */
AVX512_PROBE static inline __attribute__((always_inline)) __m512i s_part(__m512i w, const radix_probe_consts *k)
{
    const __m512i hi = _mm512_srl_epi64(w, _mm_cvtsi32_si128(k->rid_bits));
    return _mm512_add_epi64(_mm512_add_epi64(w, _mm512_mullo_epi64(hi, _mm512_set1_epi64((long long)k->khi_mul))),
                            _mm512_set1_epi64((long long)k->pre0));
}

/* the lanes' sum, as uint64_t: a signed reduction could overflow (UBSan) */
AVX512_PROBE static inline uint64_t lane_sum(__m512i sum)
{
    uint64_t lanes[8], c = 0;
    _mm512_storeu_si512((void *)lanes, sum);
    for (int l = 0; l < 8; l++) c += lanes[l];
    return c;
}

AVX512_PROBE uint64_t radix_probe_avx512(const uint64_t *r, const uint64_t *s, uint64_t s_n, const radix_probe_consts *k,
                                        const uint32_t *heads, const uint32_t *next, uint64_t *matches, uint64_t *checksum)
{
    const __m512i vmask = _mm512_set1_epi64((long long)k->mask), one = _mm512_set1_epi64(1), zero = _mm512_setzero_si512();
    const __m512i vkey = key_bits(k);
    const __m128i hs = _mm_cvtsi32_si128(k->hash_shift);
    __m512i sum = zero;
    uint64_t m = 0, j = 0;
    for (; j + 8 <= s_n; j += 8) {
        const __m512i w = _mm512_loadu_si512((const void *)(s + j));
        __m512i idx = _mm512_cvtepu32_epi64(
            _mm512_i64gather_epi32(_mm512_and_si512(_mm512_srl_epi64(w, hs), vmask), (const void *)heads, 4));
        __mmask8 act = _mm512_test_epi64_mask(idx, idx);
        const __m512i spart = s_part(w, k); /* once per S item */
        while (act) {
            const __m512i at = _mm512_sub_epi64(idx, one); /* links are 1 + the R item's index */
            const __m512i ri = _mm512_mask_i64gather_epi64(zero, act, at, (const void *)r, 8);
            const __mmask8 eq = _mm512_mask_testn_epi64_mask(act, _mm512_xor_si512(ri, w), vkey);
            if (eq) {
                m += (uint64_t)__builtin_popcount(eq);
                sum = add_terms(sum, eq, ri, w, spart, k);
            }
            idx = _mm512_mask_cvtepu32_epi64(
                zero, act, _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), act, at, (const void *)next, 4));
            act = _mm512_test_epi64_mask(idx, idx);
        }
    }
    *matches += m;
    *checksum += lane_sum(sum);
    return j;
}

/* The one-item buckets (build_probe.c: direct): 8 S items, their buckets' R items gathered, compared
 * under the key mask, the matches' terms summed in the lanes. */
AVX512_PROBE uint64_t radix_probe_direct_avx512(const uint64_t *s, uint64_t s_n, const radix_probe_consts *k,
                                               const uint64_t *direct, uint64_t *matches, uint64_t *checksum)
{
    const __m512i vmask = _mm512_set1_epi64((long long)k->mask);
    const __m512i vkey = key_bits(k);
    const __m128i hs = _mm_cvtsi32_si128(k->hash_shift);
    __m512i sum = _mm512_setzero_si512();
    uint64_t m = 0, j = 0;
    for (; j + 8 <= s_n; j += 8) {
        const __m512i w = _mm512_loadu_si512((const void *)(s + j));
        const __m512i ri = _mm512_i64gather_epi64(_mm512_and_si512(_mm512_srl_epi64(w, hs), vmask), (const void *)direct, 8);
        const __mmask8 eq = _mm512_testn_epi64_mask(_mm512_xor_si512(ri, w), vkey);
        m += (uint64_t)__builtin_popcount(eq);
        sum = add_terms(sum, eq, ri, w, s_part(w, k), k);
    }
    *matches += m;
    *checksum += lane_sum(sum);
    return j;
}
#else
uint64_t radix_probe_avx512(const uint64_t *r, const uint64_t *s, uint64_t s_n, const radix_probe_consts *k,
                            const uint32_t *heads, const uint32_t *next, uint64_t *matches, uint64_t *checksum)
{
    (void)r, (void)s, (void)s_n, (void)k, (void)heads, (void)next, (void)matches, (void)checksum;
    return 0;
}
uint64_t radix_probe_direct_avx512(const uint64_t *s, uint64_t s_n, const radix_probe_consts *k, const uint64_t *direct,
                                   uint64_t *matches, uint64_t *checksum)
{
    (void)s, (void)s_n, (void)k, (void)direct, (void)matches, (void)checksum;
    return 0;
}
#endif
