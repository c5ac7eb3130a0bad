/* The scatter loops of the local passes and of the network pass (8-byte items: the network pass
 * packs its tuples first) in AVX-512: 8 items at a time, their partitions' write offsets gathered,
 * the items of one vector that share a partition ranked by conflict detection (vpconflictq +
 * vpopcntq), items and offsets scattered, the completed lines compressed into the block's list of
 * lines to write out. The staging layout and the block are the scalar
 * loops' (radix_kernels.h), so that local_partition.c and network_partition.c write the lines out
 * the same way. The completed lines are compressed in a register and stored whole, not with
 * vpcompressq to memory, which some CPUs run as a long microcoded sequence; where the scalar loop
 * is still faster, --simd auto keeps it (kernel_pick.c; docs/measurements.md, "From code
 * comments"). MPI-free. */
#include "joins/radix/radix_kernels.h"

#include "bench/rmb_config.h"

#if RMB_SIMD_AUTO
#include <immintrin.h>

_Static_assert(RADIX_SWWC_RING == 8, "a partition's staging ring is 2^6 items (the slot's shift below)");
_Static_assert(RADIX_SWWC_BLOCK(8) % 8 == 0, "a block is whole vectors (place8's whole stores into fq/fp)");

int radix_avx512_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vpopcntdq");
}

#define AVX512_SCATTER __attribute__((target("avx512f,avx512cd,avx512vpopcntdq")))

/* Place 8 items k of partitions p: their slots, the offsets past them, the lines they complete
 * (appended to fq/fp at *nf). ranked 0 only in the mutant tests/mutants/radix_scatter_rank.patch. */
AVX512_SCATTER static inline __attribute__((always_inline)) void place8(__m512i k, __m512i p, uint64_t *off,
                                                                       uint64_t *lines, uint64_t *fq, uint64_t *fp,
                                                                       uint64_t *nf, const int ranked)
{
    const __m512i one = _mm512_set1_epi64(1), ring = _mm512_set1_epi64(8 * RADIX_SWWC_RING - 1),
                  last = _mm512_set1_epi64(7);
    /* lane i's rank among the earlier lanes of its partition; the scatter of the offsets writes
     * lanes in order, so the last lane of a partition leaves its offset + 1 */
    const __m512i rank = ranked ? _mm512_popcnt_epi64(_mm512_conflict_epi64(p)) : _mm512_setzero_si512();
    const __m512i q = _mm512_add_epi64(_mm512_i64gather_epi64(p, (const void *)off, 8), rank);
    const __m512i q1 = _mm512_add_epi64(q, one);
    _mm512_i64scatter_epi64((void *)off, p, q1, 8);
    /* staging slot: line ring of partition p (RADIX_SWWC_RING lines of 8 items), item q */
    const __m512i slot = _mm512_add_epi64(_mm512_slli_epi64(p, 3 + 3), _mm512_and_si512(q, ring));
    _mm512_i64scatter_epi64((void *)lines, slot, k, 8);
    const __mmask8 full = _mm512_cmpeq_epi64_mask(_mm512_and_si512(q1, last), _mm512_setzero_si512());
    /* whole 8-word stores at *nf: a block's 7 vectors append at most 8 each, so the last store
     * ends at index 55 of the callers' RADIX_SWWC_BLOCK(8) entries */
    _mm512_storeu_si512((void *)(fq + *nf), _mm512_maskz_compress_epi64(full, q));
    _mm512_storeu_si512((void *)(fp + *nf), _mm512_maskz_compress_epi64(full, p));
    *nf += (uint64_t)__builtin_popcount(full);
}

AVX512_SCATTER uint64_t radix_scatter_block_avx512(const uint64_t *in, int shift, uint64_t mask, uint64_t *off,
                                                   uint64_t *lines, uint64_t *fq, uint64_t *fp)
{
    const __m512i vmask = _mm512_set1_epi64((long long)mask);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    uint64_t nf = 0;
    for (int j = 0; j < RADIX_SWWC_BLOCK(8); j += 8) {
        const __m512i k = _mm512_loadu_si512((const void *)(in + j));
        place8(k, _mm512_and_si512(_mm512_srl_epi64(k, sh), vmask), off, lines, fq, fp, &nf, 1);
    }
    return nf;
}

AVX512_SCATTER uint64_t radix_write_lines_avx512(const uint64_t *fq, const uint64_t *fp, uint64_t nf, uint64_t m,
                                                 const uint64_t *lines, uint64_t *out, const uint64_t *bounds)
{
    uint64_t bad = 0;
    for (uint64_t k = 0; k < nf; k++) {
        const uint64_t *line = radix_swwc_line(lines, fp[k], fq[k], 8, RADIX_SWWC_RING);
        uint64_t *dst = radix_full_line_dst(line, fq[k], fp[k], m, 1, out, bounds, &bad);
        if (dst) _mm512_stream_si512((void *)dst, _mm512_load_si512((const void *)line));
    }
    return bad;
}

AVX512_SCATTER uint64_t radix_pack_block_avx512(const tuple_t *in, int radix_bits, int rid_bits, uint64_t add,
                                                uint64_t mask, uint64_t *off, uint64_t *lines, uint64_t *fq,
                                                uint64_t *fp)
{
    const __m512i vmask = _mm512_set1_epi64((long long)mask), vadd = _mm512_set1_epi64((long long)add),
                  even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    const __m128i rb = _mm_cvtsi32_si128(radix_bits), ridb = _mm_cvtsi32_si128(rid_bits);
    uint64_t nf = 0;
    for (int j = 0; j < RADIX_SWWC_BLOCK(8); j += 8) {
        const __m512i lo = _mm512_loadu_si512((const void *)(in + j)), hi = _mm512_loadu_si512((const void *)(in + j + 4));
        const __m512i key = _mm512_permutex2var_epi64(lo, even, hi), rid = _mm512_permutex2var_epi64(lo, odd, hi);
        /* radix_pack: the key above its radix bits, then the rid (its offset from the first rid) */
        const __m512i w = _mm512_add_epi64(_mm512_add_epi64(_mm512_sll_epi64(_mm512_srl_epi64(key, rb), ridb), rid), vadd);
        place8(w, _mm512_and_si512(key, vmask), off, lines, fq, fp, &nf, 1);
    }
    return nf;
}
#else
int radix_avx512_available(void) { return 0; }
uint64_t radix_scatter_block_avx512(const uint64_t *in, int shift, uint64_t mask, uint64_t *off, uint64_t *lines,
                                    uint64_t *fq, uint64_t *fp)
{
    (void)in, (void)shift, (void)mask, (void)off, (void)lines, (void)fq, (void)fp;
    return 0;
}
uint64_t radix_write_lines_avx512(const uint64_t *fq, const uint64_t *fp, uint64_t nf, uint64_t m, const uint64_t *lines,
                                  uint64_t *out, const uint64_t *bounds)
{
    (void)fq, (void)fp, (void)nf, (void)m, (void)lines, (void)out, (void)bounds;
    return 0;
}
uint64_t radix_pack_block_avx512(const tuple_t *in, int radix_bits, int rid_bits, uint64_t add, uint64_t mask,
                                 uint64_t *off, uint64_t *lines, uint64_t *fq, uint64_t *fp)
{
    (void)in, (void)radix_bits, (void)rid_bits, (void)add, (void)mask, (void)off, (void)lines, (void)fq, (void)fp;
    return 0;
}
#endif
