/* The sort-merge join's kernels for the wide format (tuple_t, 16 bytes), taken when key offsets and
 * record ids do not fit one word (smj_format.h). Scalar: sorting by key alone, a run at a time in
 * cache, is what LSD radix sort does well without vectors. MPI-free. */
#include <stdlib.h>
#include <string.h>

#include "joins/generate.h"
#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/sort_internal.h"

#define DIGIT_BITS_MAX 11 /* 2048 counters per pass: the histograms stay in L1 */

/* LSD radix sort by key - min key (the run's keys lie in one range, so few digits), one pass per
 * digit over the bits the run's keys differ in, ping-ponging so that the last pass lands in dst.
 * Digits where every key agrees are skipped. */
void smj_wide_sort_run(const tuple_t *src, size_t n, tuple_t *dst, tuple_t *tmp)
{
    if (n == 0) return;
    uint64_t lo = src[0].key, hi = src[0].key;
    for (size_t i = 1; i < n; i++) {
        lo = src[i].key < lo ? src[i].key : lo;
        hi = src[i].key > hi ? src[i].key : hi;
    }
    int bits = hi > lo ? bits_for(hi - lo) : 0;
    int npass = (bits + DIGIT_BITS_MAX - 1) / DIGIT_BITS_MAX;
    int digit = npass ? (bits + npass - 1) / npass : 0;
    /* one read for every pass's histogram. Static, not _Thread_local: the kernels run on the rank's
     * one compute thread, and 96 KiB of static TLS would go into every thread's stack, so that the
     * watchdog's 64 KiB thread (rma/progress.c) could not start (EINVAL) */
    static size_t count[(64 + DIGIT_BITS_MAX - 1) / DIGIT_BITS_MAX][1 << DIGIT_BITS_MAX];
    const uint64_t mask = (UINT64_C(1) << digit) - 1;
    for (int p = 0; p < npass; p++) memset(count[p], 0, (mask + 1) * sizeof count[p][0]);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = src[i].key - lo;
        for (int p = 0; p < npass; p++) count[p][(k >> (p * digit)) & mask]++;
    }
    int live[(64 + DIGIT_BITS_MAX - 1) / DIGIT_BITS_MAX], nlive = 0;
    for (int p = 0; p < npass; p++)
        if (count[p][(src[0].key - lo) >> (p * digit) & mask] != n) live[nlive++] = p;
    if (nlive == 0) {
        if (dst != src) memmove(dst, src, n * sizeof *dst);
        return;
    }
    /* an odd number of passes starts into dst; in place, from a copy in tmp */
    const tuple_t *in = src;
    if (nlive % 2 && src == dst) {
        memcpy(tmp, src, n * sizeof *tmp);
        in = tmp;
    }
    tuple_t *out = nlive % 2 ? dst : tmp;
    for (int l = 0; l < nlive; l++) {
        const int shift = live[l] * digit;
        size_t *pos = count[live[l]], sum = 0;
        for (uint64_t d = 0; d <= mask; d++) {
            size_t c = pos[d];
            pos[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) out[pos[((in[i].key - lo) >> shift) & mask]++] = in[i];
        in = out;
        out = out == dst ? tmp : dst;
    }
}

/* A k-way merge through a binary min-heap of the runs' heads (by key). */
typedef struct {
    uint64_t key;
    const tuple_t *at, *end;
} head;

static void sift_down(head *h, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l < n && h[l].key < h[m].key) m = l;
        if (l + 1 < n && h[l + 1].key < h[m].key) m = l + 1;
        if (m == i) return;
        head t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void merge_k(const tuple_t *const *runs, const size_t *lens, int k, tuple_t *out, head *h)
{
    int n = 0;
    for (int i = 0; i < k; i++)
        if (lens[i]) h[n++] = (head){runs[i][0].key, runs[i], runs[i] + lens[i]};
    for (int i = n / 2 - 1; i >= 0; i--) sift_down(h, n, i);
    while (n > 1) {
        *out++ = *h[0].at++;
        if (h[0].at == h[0].end) h[0] = h[--n];
        else h[0].key = h[0].at->key;
        sift_down(h, n, 0);
    }
    if (n == 1) memcpy(out, h[0].at, (size_t)(h[0].end - h[0].at) * sizeof *out);
}

/* A group of wide runs through the heap (smj_run_passes' merge); ctx: a heap of fan-in heads. */
static int heap_merge(void *ctx, const void *const *runs, const size_t *lens, int k, void *out)
{
    merge_k((const tuple_t *const *)runs, lens, k, out, ctx);
    return 0;
}

tuple_t *smj_wide_merge_passes(tuple_t *data, tuple_t *scratch, const size_t *starts, const size_t *lens, int runs,
                               const int *band_runs, int bands, int fanin, int *passes)
{
    head *heap = malloc((size_t)(fanin < 2 ? 2 : fanin) * sizeof *heap);
    tuple_t *sorted = heap ? smj_run_passes(data, scratch, sizeof *data, starts, lens, runs, band_runs, bands, fanin, passes,
                                          heap_merge, heap)
                           : NULL;
    if (!heap) *passes = 0;
    free(heap);
    return sorted;
}

void smj_wide_match(const tuple_t *r, size_t rn, const tuple_t *s, size_t sn, uint64_t *matches, uint64_t *checksum)
{
    uint64_t m = 0, c = 0;
    size_t i = 0, j = 0;
    while (i < rn && j < sn) {
        const uint64_t kr = r[i].key, ks = s[j].key;
        if (kr < ks) {
            i++;
        } else if (ks < kr) {
            j++;
        } else { /* the group of key kr: R [i, ie), S [j, je) (as smj_match) */
            size_t ie = i + 1, je = j;
            while (ie < rn && r[ie].key == kr) ie++;
            const uint64_t pre_key = kr * MATCH_KEY_MUL;
            const uint64_t pre_r = pre_key + r[i].rid * MATCH_R_MUL;
            do c += match_mix(pre_r + s[je].rid);
            while (++je < sn && s[je].key == kr);
            for (size_t x = i + 1; x < ie; x++) {
                const uint64_t pre_x = pre_key + r[x].rid * MATCH_R_MUL;
                for (size_t y = j; y < je; y++) c += match_mix(pre_x + s[y].rid);
            }
            m += (uint64_t)(ie - i) * (uint64_t)(je - j);
            i = ie;
            j = je;
        }
    }
    *matches = m;
    *checksum = c;
}
