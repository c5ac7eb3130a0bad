/* Histogram kernels shared by the histogram phase (network radix bits of the input tuples) and
 * every local partitioning pass. MPI-free. */
#include "joins/radix/radix_kernels.h"

#include <string.h>

void radix_histogram_tuples(const tuple_t *t, uint64_t n, int bits, uint64_t *hist)
{
    const uint64_t mask = (UINT64_C(1) << bits) - 1;
    uint64_t i = 0;
    for (; i + 4 <= n; i += 4) { /* independent loads; memory-bound either way */
        hist[t[i].key & mask]++;
        hist[t[i + 1].key & mask]++;
        hist[t[i + 2].key & mask]++;
        hist[t[i + 3].key & mask]++;
    }
    for (; i < n; i++) hist[t[i].key & mask]++;
}

/* Items counted into RADIX_HIST_LANES arrays of counters in turn, summed at the end: with few
 * partitions consecutive items often hit one counter, and each increment would wait for the last
 * one's store; lanes shorten small fan-outs' passes and cost nothing at large ones
 * (docs/measurements.md, "From code comments"). Up to 2^8 partitions (8 KiB of lanes on the stack);
 * above, one array (collisions are rare). */
#define RADIX_HIST_LANES 4
#define RADIX_HIST_LANE_BITS 8
static inline __attribute__((always_inline)) void histogram_lanes(const uint64_t *items, uint64_t n, const uint64_t W,
                                                                   int shift, int bits, uint64_t *hist)
{
    const uint64_t np = UINT64_C(1) << bits, mask = np - 1;
    uint64_t lane[RADIX_HIST_LANES << RADIX_HIST_LANE_BITS];
    memset(lane, 0, RADIX_HIST_LANES * np * sizeof *lane);
    uint64_t i = 0;
    for (; i + RADIX_HIST_LANES <= n; i += RADIX_HIST_LANES)
        for (uint64_t l = 0; l < RADIX_HIST_LANES; l++) lane[l * np + ((items[(i + l) * W] >> shift) & mask)]++;
    for (; i < n; i++) hist[(items[i * W] >> shift) & mask]++;
    for (uint64_t p = 0; p < np; p++)
        for (uint64_t l = 0; l < RADIX_HIST_LANES; l++) hist[p] += lane[l * np + p];
}

void radix_histogram_items(const uint64_t *items, uint64_t n, int words, int shift, int bits, uint64_t *hist)
{
    const uint64_t mask = (UINT64_C(1) << bits) - 1;
    if (bits <= RADIX_HIST_LANE_BITS) {
        if (words == 1) histogram_lanes(items, n, 1, shift, bits, hist);
        else histogram_lanes(items, n, 2, shift, bits, hist);
    } else if (words == 1) {
        for (uint64_t i = 0; i < n; i++) hist[(items[i] >> shift) & mask]++;
    } else {
        for (uint64_t i = 0; i < n; i++) hist[(items[2 * i] >> shift) & mask]++;
    }
}
