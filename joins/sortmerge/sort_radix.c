/* In-cache sort of a run of packed tuples by LSD radix over the key bits alone (--run-sort radix).
 *
 * A packed word is key offset << rid_bits | rid offset. The partition scatters each relation in
 * input order, so within a run the record ids of equal keys already ascend; a stable sort by the
 * key bits alone then leaves the words in full order, and the rid bits need no pass. At most two
 * passes of up to SMJ_RADIX_DIGIT_BITS bits: a range of up to 2^26 keys (16M tuples per rank at 1:1
 * and 2 ranks has 2^24), where it beats the AVX2 network sort (sort_simd.c) on runs of 32768 words
 * (docs/measurements.md, "From code comments"). Wider ranges take a third pass, no faster than the
 * network sort: the caller sorts those with it. MPI-free. */
#include <stdlib.h>
#include <string.h>

#include "bench/fastclock.h"
#include "joins/generate.h"
#include "joins/sortmerge/smj_kernels.h"

/* 8192 four-byte counters a pass: 32 KiB, the L1 data cache of the machines measured */
enum { DIGIT_BITS = SMJ_RADIX_DIGIT_BITS };

int smj_radix_sort_run(const uint64_t *src, size_t n, uint64_t *dst, uint64_t *tmp, int shift)
{
    /* One read of the input for both passes' histograms and for the span of the keys: the digits
     * are therefore fixed (the low DIGIT_BITS key bits, then the next DIGIT_BITS), not balanced
     * after a first scan for the span, which would cost a read of the run from memory and more
     * than balanced digits save (docs/measurements.md, "From code comments"). The
     * counters are static (not on the stack, not thread-local) for the reason wide.c gives. */
    static uint32_t count[2][1 << DIGIT_BITS];
    memset(count, 0, sizeof count);
    const uint64_t mask = (UINT64_C(1) << DIGIT_BITS) - 1;
    uint64_t any = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t v = src[i], k = v >> shift;
        any |= v;
        count[0][k & mask]++;
        count[1][(k >> DIGIT_BITS) & mask]++;
    }
    const int bits = bits_for(any >> shift); /* 1 where every key is 0 */
    if (bits > 2 * DIGIT_BITS) return -1; /* a third pass: no faster than the network sort */
    const int passes = bits > DIGIT_BITS ? 2 : 1, digit = DIGIT_BITS;
    for (int p = 0; p < passes; p++) {
        uint32_t sum = 0;
        for (uint64_t d = 0; d <= mask; d++) {
            const uint32_t c = count[p][d];
            count[p][d] = sum;
            sum += c;
        }
    }
    /* the last pass lands in dst; one pass in place reads a copy */
    const uint64_t *in = src;
    if (passes == 1 && src == dst) {
        memcpy(tmp, src, n * sizeof *tmp);
        in = tmp;
    }
    uint64_t *out = passes == 2 ? tmp : dst;
    for (int p = 0; p < passes; p++) {
        uint32_t *pos = count[p];
        const int sh = shift + p * digit;
        /* four words' slots taken before any is stored (as in the radix join's passes,
         * joins/radix/network_partition.c), so that a slot's load does not wait for the previous
         * store (docs/measurements.md, "From code comments") */
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            uint32_t q[4];
            for (int j = 0; j < 4; j++) q[j] = pos[(in[i + j] >> sh) & mask]++;
            for (int j = 0; j < 4; j++) out[q[j]] = in[i + j];
        }
        for (; i < n; i++) {
            const uint64_t v = in[i];
            out[pos[(v >> sh) & mask]++] = v;
        }
        in = out;
        out = dst;
    }
    return passes;
}

/* A run of `run` packed words as the partition leaves them: xorshift keys of key_bits bits over
 * ascending record ids (shift = their bits) in src[0..run). */
static void sample_run(uint64_t *src, size_t run, int key_bits, int shift)
{
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
    for (size_t i = 0; i < run; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        src[i] = (x >> (64 - key_bits)) << shift | i;
    }
}

int smj_sort_run_by(const uint64_t *src, size_t n, uint64_t *dst, uint64_t *tmp, int shift, int run_sort, int simd)
{
    if (run_sort == SMJ_RUN_SORT_RADIX && smj_radix_sort_run(src, n, dst, tmp, shift) > 0) return 1;
    smj_sort_run(src, n, dst, tmp, simd);
    return 0;
}

/* One run sort by smj_sort_run_by, its seconds. */
static double time_run_sort(const uint64_t *src, size_t run, uint64_t *dst, uint64_t *tmp, int shift, int run_sort,
                            int simd)
{
    const double t0 = rmb_monotonic_s();
    smj_sort_run_by(src, run, dst, tmp, shift, run_sort, simd);
    return rmb_monotonic_s() - t0;
}

/* --run-sort auto: which run sort is faster on this CPU, timed on one run of `run` packed words
 * with 24 key bits (2^24 keys a range: 16M tuples per rank at 1:1) over ascending record ids, each
 * kernel alternately, the best of 5. With AVX2 the network sort loses (above); with AVX-512 the
 * order is not known in advance: the CPU decides, not a rule. Returns SMJ_RUN_SORT_NETWORK or
 * _RADIX (network when the scratch cannot be had). */
int smj_run_sort_faster(size_t run, int simd)
{
    enum { KEY_BITS = 24, ROUNDS = 5 };
    const int shift = bits_for(run - 1); /* the record ids 0 .. run - 1 below the keys */
    uint64_t *src = malloc(3 * run * sizeof *src);
    if (!src) return SMJ_RUN_SORT_NETWORK;
    uint64_t *dst = src + run, *tmp = dst + run;
    sample_run(src, run, KEY_BITS, shift);
    double best[2] = {1e30, 1e30};
    for (int k = 0; k < ROUNDS; k++)
        for (int r = 0; r < 2; r++) {
            const double t = time_run_sort(src, run, dst, tmp, shift, r ? SMJ_RUN_SORT_RADIX : SMJ_RUN_SORT_NETWORK, simd);
            best[r] = t < best[r] ? t : best[r];
        }
    free(src);
    return best[1] < best[0] ? SMJ_RUN_SORT_RADIX : SMJ_RUN_SORT_NETWORK;
}

double smj_run_sort_rate(size_t run, int key_bits, int run_sort, int simd)
{
    /* up to 8 runs, a sample of at most 2^21 words (16 MiB), and 2 more runs of scratch: at most
     * 48 MiB, 10 MiB at the default run of a 2 MiB L2 */
    enum { SAMPLE_WORDS = 1 << 21 };
    if (run < 2 || run > SAMPLE_WORDS || key_bits < 1 || key_bits > 62) return 0;
    const int RUNS = SAMPLE_WORDS / run < 8 ? (int)(SAMPLE_WORDS / run) : 8;
    const int shift = bits_for(run - 1);
    if (shift + key_bits > 63) key_bits = 63 - shift; /* the packed word's bits (below UINT64_MAX) */
    uint64_t *src = malloc(((size_t)RUNS + 2) * run * sizeof *src);
    if (!src) return 0;
    uint64_t *dst = src + (size_t)RUNS * run, *tmp = dst + run;
    for (int r = 0; r < RUNS; r++) sample_run(src + (size_t)r * run, run, key_bits, shift);
    double best = 1e30;
    for (int k = 0; k < 2; k++) /* two rounds over the runs: the first may fault in dst and tmp */
        for (int r = 0; r < RUNS; r++) {
            const double t = time_run_sort(src + (size_t)r * run, run, dst, tmp, shift, run_sort, simd);
            best = t < best ? t : best;
        }
    free(src);
    return best > 0 ? (double)run / best : 0;
}
