/* Portable kernels: the fallback for every SIMD kernel and the tails the vector kernels leave. */
#include <string.h>

#include "sort_internal.h"

void smj_scalar_sort_small(const uint64_t *src, size_t n, uint64_t *dst)
{
    if (dst != src) memmove(dst, src, n * sizeof *dst);
    for (size_t i = 1; i < n; i++) {
        uint64_t v = dst[i];
        size_t j = i;
        while (j > 0 && dst[j - 1] > v) {
            dst[j] = dst[j - 1];
            j--;
        }
        dst[j] = v;
    }
}

/* Branch-free: which input advances is data-dependent and unpredictable. */
void smj_scalar_merge2(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        uint64_t x = a[i], y = b[j];
        int take_b = y < x;
        out[k++] = take_b ? y : x;
        j += (size_t)take_b;
        i += (size_t)!take_b;
    }
    if (i < na) memcpy(out + k, a + i, (na - i) * sizeof *out);
    if (j < nb) memcpy(out + k, b + j, (nb - j) * sizeof *out);
}

/* Merges the vector kernels' carried register (c, nc values) with the two input tails. Values are
 * below 2^63, so UINT64_MAX marks an exhausted input. */
void smj_scalar_merge3(const uint64_t *c, size_t nc, const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                       uint64_t *out)
{
    size_t i = 0, j = 0, l = 0, total = nc + na + nb;
    for (size_t k = 0; k < total; k++) {
        uint64_t x = i < na ? a[i] : UINT64_MAX, y = j < nb ? b[j] : UINT64_MAX, z = l < nc ? c[l] : UINT64_MAX;
        if (x <= y && x <= z) {
            out[k] = x;
            i++;
        } else if (y <= z) {
            out[k] = y;
            j++;
        } else {
            out[k] = z;
            l++;
        }
    }
}
