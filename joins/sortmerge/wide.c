/* The sort-merge join's kernels for the wide format (tuple_t, 16 bytes), taken when key offsets and
 * record ids do not fit one word (smj_format.h). Scalar: sorting by key alone, a run at a time in
 * cache, is what LSD radix sort does well without vectors. MPI-free. */
#include <stdlib.h>
#include <string.h>

#include "bench/rmb_mutant.h"
#include "joins/generate.h"
#include "joins/sortmerge/smj_kernels.h"

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

tuple_t *smj_wide_merge_passes(tuple_t *data, tuple_t *scratch, const size_t *starts, const size_t *lens, int runs,
                               int fanin, int *passes)
{
    *passes = 0;
    if (runs <= 1) return data;
    if (fanin < 2) fanin = 2;
    size_t *st = malloc((size_t)runs * sizeof *st), *ln = malloc((size_t)runs * sizeof *ln);
    const tuple_t **ptr = malloc((size_t)fanin * sizeof *ptr);
    head *heap = malloc((size_t)fanin * sizeof *heap);
    tuple_t *src = data, *dst = scratch;
    if (st && ln && ptr && heap) {
        memcpy(st, starts, (size_t)runs * sizeof *st);
        memcpy(ln, lens, (size_t)runs * sizeof *ln);
        while (runs > 1) {
            int out_runs = 0;
            size_t pos = 0;
            for (int g = 0; g < runs; g += fanin) {
                int k = runs - g < fanin ? runs - g : fanin;
#ifdef RMB_MUTANT_SMJ_LOSE_LAST_RUN /* mutation suite: the first pass loses the last run */
                if (*passes == 0 && g + k == runs && k > 1) k--;
#endif
                size_t len = 0;
                for (int i = 0; i < k; i++) {
                    ptr[i] = src + st[g + i];
                    len += ln[g + i];
                }
                merge_k(ptr, ln + g, k, dst + pos, heap);
                st[out_runs] = pos;
                ln[out_runs++] = len;
                pos += len;
            }
            runs = out_runs;
            tuple_t *t = src;
            src = dst;
            dst = t;
            (*passes)++;
        }
    } else {
        src = NULL;
    }
    free(st);
    free(ln);
    free(ptr);
    free(heap);
    return src;
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
#ifdef RMB_MUTANT_SMJ_FIRST_EQUAL_ONLY /* mutation suite: only the group's first S tuple is matched */
            c += match_mix(pre_r + s[je++].rid);
#else
            do c += match_mix(pre_r + s[je].rid);
            while (++je < sn && s[je].key == kr);
#endif
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
