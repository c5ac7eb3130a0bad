/* Histogram kernels shared by the histogram phase (network radix bits of the input tuples) and
 * every local partitioning pass. MPI-free. */
#include "joins/radix/radix_kernels.h"

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

void radix_histogram_items(const uint64_t *items, uint64_t n, int words, int shift, int bits, uint64_t *hist)
{
    const uint64_t mask = (UINT64_C(1) << bits) - 1;
    if (words == 1)
        for (uint64_t i = 0; i < n; i++) hist[(items[i] >> shift) & mask]++;
    else
        for (uint64_t i = 0; i < n; i++) hist[(items[2 * i] >> shift) & mask]++;
}
