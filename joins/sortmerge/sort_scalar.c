/* Portable kernels: the fallback for every SIMD kernel and the tails the vector kernels leave. */
#include <stdlib.h>
#include <string.h>

#include "joins/sortmerge/sort_internal.h"

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

/* Merges a short sorted sequence into a long one: the long run's stretches between consecutive
 * short values are found by binary search and copied whole. */
static void merge_short_long(const uint64_t *sh, size_t ns, const uint64_t *lg, size_t nl, uint64_t *out)
{
    size_t j = 0;
    for (size_t i = 0; i < ns; i++) {
        /* first lg[k] > sh[i] in [j, nl): gallop, then binary search */
        size_t lo = j, hi = j, step = 1;
        while (hi < nl && lg[hi] <= sh[i]) {
            lo = hi + 1;
            hi += step;
            step *= 2;
        }
        if (hi > nl) hi = nl;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (lg[mid] <= sh[i]) lo = mid + 1;
            else hi = mid;
        }
        memcpy(out, lg + j, (lo - j) * sizeof *out);
        out += lo - j;
        j = lo;
        *out++ = sh[i];
    }
    memcpy(out, lg + j, (nl - j) * sizeof *out);
}

/* Finishes a vector merge: the carried registers (c, nc values), and the input tails, at least one
 * of which is shorter than a vector step. */
void smj_scalar_merge3(const uint64_t *c, size_t nc, const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                       uint64_t *out)
{
    if (na > nb) { /* a: the short tail */
        const uint64_t *t = a;
        a = b;
        b = t;
        size_t tn = na;
        na = nb;
        nb = tn;
    }
    uint64_t small[64 + 64];
    if (nc + na > sizeof small / sizeof *small) { /* not reached by the kernels: stay correct anyway */
        uint64_t *tmp = malloc((nc + na) * sizeof *tmp);
        smj_scalar_merge2(c, nc, a, na, tmp);
        merge_short_long(tmp, nc + na, b, nb, out);
        free(tmp);
        return;
    }
    smj_scalar_merge2(c, nc, a, na, small);
    merge_short_long(small, nc + na, b, nb, out);
}

/* binary search on the merge path (sort_internal.h) */
size_t smj_corank(size_t c, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    size_t lo = c > nb ? c - nb : 0, hi = c < na ? c : na;
    while (lo < hi) {
        size_t i = lo + (hi - lo) / 2;
        if (a[i] <= b[c - i - 1]) lo = i + 1;
        else hi = i;
    }
    return lo;
}
