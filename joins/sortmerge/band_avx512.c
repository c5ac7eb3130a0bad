/* The partition's band scatter (range.c scatter_bands) computes, per tuple, its target (a compare
 * with the splitters), its band (a multiply) and its packed word before the store. One tuple at a
 * time, the store's address waits for the whole chain, in L3 as out of it. So a block's parts and
 * words come first, 8 tuples at a time (vpmullq: AVX-512DQ), and the scatter that follows only
 * loads each part's position and stores. */
#include "bench/rmb_config.h"
#include "joins/sortmerge/smj_kernels.h"

#if RMB_SIMD_AUTO
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512dq")))
enum { BAND_PREFETCH = 512 }; /* tuples */

int smj_band_vec_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}

/* The 8-word masks of the two loads that hold k <= 8 tuples (16 words), and of k words. */
static inline __mmask8 low_words(size_t w) { return w >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << w) - 1); }

AVX512 void smj_band_words_avx512(const tuple_t *t, size_t n, const smj_band_vec *v, uint64_t *part, uint64_t *word)
{
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    /* per-target tables of up to 16 entries: two registers each, picked by _mm512_permutex2var_epi64 */
    const __m512i base0 = _mm512_loadu_si512(v->base), base1 = _mm512_loadu_si512(v->base + 8);
    const __m512i mul0 = _mm512_loadu_si512(v->mul), mul1 = _mm512_loadu_si512(v->mul + 8);
    const __m512i sub0 = _mm512_loadu_si512(v->sub), sub1 = _mm512_loadu_si512(v->sub + 8);
    const __m512i last = _mm512_set1_epi64((long long)v->last), one = _mm512_set1_epi64(1);
    const __m128i rid_bits = _mm_cvtsi32_si128(v->rid_bits), lb = _mm_cvtsi32_si128(v->lb);
    const uint64_t *words = (const uint64_t *)(const void *)t;
    for (size_t i = 0; i < n; i += 8) {
        /* the input 8 KiB ahead (prefetches never fault past its end): without it the loads below
         * wait on memory, the stream's prefetcher outrun by the scatter's stores; 512 tuples ahead
         * shortens the partition most (docs/measurements.md, "From code comments") */
        const uintptr_t ahead = (uintptr_t)(t + i) + BAND_PREFETCH * sizeof(tuple_t); /* no pointer past the end */
        _mm_prefetch((const char *)ahead, _MM_HINT_T0);
        _mm_prefetch((const char *)(ahead + 64), _MM_HINT_T0);
        const size_t k = n - i < 8 ? n - i : 8;
        const __m512i a = _mm512_maskz_loadu_epi64(low_words(2 * k), words + 2 * i);
        const __m512i b = _mm512_maskz_loadu_epi64(k > 4 ? low_words(2 * k - 8) : 0, words + 2 * i + 8);
        const __m512i key = _mm512_permutex2var_epi64(a, even, b), rid = _mm512_permutex2var_epi64(a, odd, b);
        __m512i tgt = _mm512_setzero_si512(); /* the splitters below the key (smj_part_of) */
        for (int s = 0; s + 1 < v->parts; s++)
            tgt = _mm512_mask_add_epi64(tgt, _mm512_cmpgt_epu64_mask(key, _mm512_set1_epi64((long long)v->spl[s])), tgt, one);
        const __m512i base = _mm512_permutex2var_epi64(base0, tgt, base1);
        const __m512i mul = _mm512_permutex2var_epi64(mul0, tgt, mul1);
        const __m512i sub = _mm512_permutex2var_epi64(sub0, tgt, sub1);
        const __m512i band =
            _mm512_min_epu64(_mm512_srli_epi64(_mm512_mullo_epi64(_mm512_sub_epi64(key, base), mul), SMJ_BAND_SHIFT), last);
        const __m512i f = _mm512_or_si512(_mm512_sll_epi64(tgt, lb), band);
        const __m512i w = _mm512_sub_epi64(_mm512_add_epi64(_mm512_sll_epi64(key, rid_bits), rid), sub);
        _mm512_mask_storeu_epi64(part + i, low_words(k), f);
        _mm512_mask_storeu_epi64(word + i, low_words(k), w);
    }
}
#else /* a build without the vector kernels: never chosen (not available), and exact if called */
int smj_band_vec_available(void) { return 0; }
void smj_band_words_avx512(const tuple_t *t, size_t n, const smj_band_vec *v, uint64_t *part, uint64_t *word)
{
    smj_band_words_scalar(t, n, v, part, word);
}
#endif
