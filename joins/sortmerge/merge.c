/* The merge phase: the received runs are merged `fanin` at a time through an in-cache merge tree
 * (2-way merge nodes with FIFO buffers, Balkesen et al.'s multi-way merge), so that one pass reads
 * and writes memory once however many runs it combines; more runs than the fan-in take several
 * passes (the thesis' d). MPI-free. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/sort_internal.h"

typedef struct {
    const uint64_t *v;   /* leaf: the run; inner node: buf */
    uint64_t *buf;       /* inner node: 2 * cap values, so that compaction is rare */
    size_t head, tail;   /* values [head, tail) are ready */
    size_t cap;          /* at most cap values ready at a time */
    int left, right;     /* children; -1 for a leaf */
    int done;            /* nothing more will be produced: [head, tail) is all that is left */
} mnode;

/* Produces values into node x until it holds cap values or its inputs are exhausted. A chunk of c
 * values is final only when neither unfinished child could still supply a smaller value: c must not
 * exceed what an unfinished child has ready. */
static void fill(mnode *nodes, int x, int simd)
{
    mnode *n = &nodes[x], *l = &nodes[n->left], *r = &nodes[n->right];
    if (n->tail + n->cap > 2 * n->cap && n->buf != NULL) {
        memmove(n->buf, n->buf + n->head, (n->tail - n->head) * sizeof *n->buf);
        n->tail -= n->head;
        n->head = 0;
    }
    while (!n->done && n->tail - n->head < n->cap) {
        if (!l->done && l->tail - l->head < l->cap / 2) fill(nodes, n->left, simd);
        if (!r->done && r->tail - r->head < r->cap / 2) fill(nodes, n->right, simd);
        size_t a = l->tail - l->head, b = r->tail - r->head;
        if (a + b == 0 && l->done && r->done) {
            n->done = 1;
            break;
        }
        size_t c = n->cap - (n->tail - n->head);
        if (!l->done && a < c) c = a;
        if (!r->done && b < c) c = b;
        if (c > a + b) c = a + b;
        if (c == 0) continue; /* an unfinished child was refilled above; it has values or is done */
        size_t i = smj_corank(c, l->v + l->head, a, r->v + r->head, b);
        smj_merge2(l->v + l->head, i, r->v + r->head, c - i, n->buf + n->tail, simd);
        l->head += i;
        r->head += c - i;
        n->tail += c;
    }
}

/* smj_merge_runs with the tree's FIFOs in tree ((k - 2) * 2 * buffer words) or, when NULL, allocated. */
static int merge_runs_in(const uint64_t *const *runs, const size_t *lens, int k, uint64_t *out, size_t buffer, int simd,
                         uint64_t *tree)
{
    if (k <= 0) return 0;
    size_t total = 0;
    for (int i = 0; i < k; i++) total += lens[i];
    if (k == 1) {
        memcpy(out, runs[0], lens[0] * sizeof *out);
        return 0;
    }
    if (k == 2) {
        smj_merge2(runs[0], lens[0], runs[1], lens[1], out, simd);
        return 0;
    }
    if (buffer < 64) buffer = 64;
    mnode *nodes = calloc((size_t)(2 * k - 1), sizeof *nodes);
    int *level = malloc((size_t)k * sizeof *level);
    uint64_t *bufs = tree ? tree : malloc((size_t)(k - 2) * 2 * buffer * sizeof *bufs);
    if (!nodes || !level || !bufs) {
        free(nodes);
        free(level);
        if (!tree) free(bufs);
        return -1;
    }
    for (int i = 0; i < k; i++) {
        nodes[i] = (mnode){runs[i], NULL, 0, lens[i], lens[i], -1, -1, 1};
        level[i] = i;
    }
    int count = k, next = k, used = 0;
    while (count > 1) {
        int m = 0;
        for (int i = 0; i + 1 < count; i += 2) {
            mnode *n = &nodes[next];
            n->left = level[i];
            n->right = level[i + 1];
            if (count == 2) { /* the root writes straight into out */
                n->buf = out;
                n->cap = total;
            } else {
                n->buf = bufs + (size_t)used++ * 2 * buffer;
                n->cap = buffer;
            }
            n->v = n->buf;
            level[m++] = next++;
        }
        if (count % 2) level[m++] = level[count - 1];
        count = m;
    }
    fill(nodes, next - 1, simd);
    free(nodes);
    free(level);
    if (!tree) free(bufs);
    return 0;
}

int smj_merge_runs(const uint64_t *const *runs, const size_t *lens, int k, uint64_t *out, size_t buffer, int simd)
{
    return merge_runs_in(runs, lens, k, out, buffer, simd, NULL);
}

/* tree buffers: about 2 MiB per tree (L2 + L3; measured best with smj-sortbench) */
static size_t tree_buffer(int fanin) { return (size_t)(2048 * 1024 / 16) / (size_t)fanin; }

size_t smj_merge_tree_words(int fanin)
{
    if (fanin < 2) fanin = 2;
    size_t buffer = tree_buffer(fanin) < 64 ? 64 : tree_buffer(fanin);
    return fanin > 2 ? (size_t)(fanin - 2) * 2 * buffer : 0;
}

uint64_t *smj_merge_passes(uint64_t *data, uint64_t *scratch, size_t n, const size_t *starts, const size_t *lens,
                           int runs, int fanin, int simd, int *passes)
{
    (void)n;
    return smj_merge_passes_in(data, scratch, starts, lens, runs, NULL, 1, fanin, simd, passes, NULL);
}

/* Whether the runs already are the sorted result: every band one run (or none), and the runs one
 * after another from the start of data (bands arrive as each source's pieces, not in band order). */
static bool in_order(const size_t *starts, const size_t *lens, const int *band_runs, int bands)
{
    size_t at = 0;
    int r = 0;
    for (int b = 0; b < bands; b++) {
        if (band_runs[b] > 1) return false;
        for (int i = 0; i < band_runs[b]; i++, r++) {
            if (starts[r] != at) return false;
            at += lens[r];
        }
    }
    return true;
}

void *smj_run_passes(void *data, void *scratch, size_t item, const size_t *starts, const size_t *lens, int runs,
                     const int *band_runs, int bands, int fanin, int *passes, smj_group_merge merge, void *ctx)
{
    *passes = 0;
    if (!band_runs || bands < 1) {
        if (runs <= 1) return data;
        band_runs = &runs;
        bands = 1;
    } else if (in_order(starts, lens, band_runs, bands)) {
        return data;
    }
    if (fanin < 2) fanin = 2;
    size_t *st = malloc((size_t)runs * sizeof *st), *ln = malloc((size_t)runs * sizeof *ln);
    int *br = malloc((size_t)bands * sizeof *br);
    const void **ptr = malloc((size_t)fanin * sizeof *ptr);
    char *src = data, *dst = scratch;
    bool ok = st && ln && br && ptr, more = true;
    if (ok) {
        memcpy(st, starts, (size_t)runs * sizeof *st);
        memcpy(ln, lens, (size_t)runs * sizeof *ln);
        memcpy(br, band_runs, (size_t)bands * sizeof *br);
    }
    while (ok && more) {
        int out_runs = 0, g = 0; /* g: the band's first run; output runs never overtake the input */
        size_t pos = 0;
        more = false;
        for (int b = 0; ok && b < bands; b++) {
            const int n = br[b];
            br[b] = 0;
            for (int x = 0; ok && x < n; x += fanin) {
                int k = n - x < fanin ? n - x : fanin;
                size_t len = 0;
                for (int i = 0; i < k; i++) {
                    ptr[i] = src + st[g + x + i] * item;
                    len += ln[g + x + i];
                }
                ok = merge(ctx, ptr, ln + g + x, k, dst + pos * item) == 0;
                st[out_runs] = pos;
                ln[out_runs++] = len;
                pos += len;
                br[b]++;
            }
            if (br[b] > 1) more = true;
            g += n;
        }
        runs = out_runs;
        char *t = src;
        src = dst;
        dst = t;
        (*passes)++;
    }
    free(st);
    free(ln);
    free(br);
    free(ptr);
    return ok ? src : NULL;
}

/* A group of packed runs through the merge tree (smj_run_passes' merge). */
typedef struct {
    size_t buffer;
    int simd;
    uint64_t *tree;
} tree_merge;

static int merge_group(void *ctx, const void *const *runs, const size_t *lens, int k, void *out)
{
    const tree_merge *m = ctx;
    return merge_runs_in((const uint64_t *const *)runs, lens, k, out, m->buffer, m->simd, m->tree);
}

uint64_t *smj_merge_passes_in(uint64_t *data, uint64_t *scratch, const size_t *starts, const size_t *lens, int runs,
                              const int *band_runs, int bands, int fanin, int simd, int *passes, uint64_t *tree)
{
    if (fanin < 2) fanin = 2;
    /* without the caller's: one tree for every merge of the call (a fresh malloc per merge is fresh
     * pages each time once it is large enough for mmap, costly under a hypervisor); without
     * that either, each merge allocates its own (merge_runs_in) */
    uint64_t *own = tree || runs <= 1 ? NULL : malloc(smj_merge_tree_words(fanin) * sizeof *own + 8);
    tree_merge m = {tree_buffer(fanin), simd, tree ? tree : own};
    uint64_t *sorted = smj_run_passes(data, scratch, sizeof *data, starts, lens, runs, band_runs, bands, fanin, passes,
                                      merge_group, &m);
    free(own);
    return sorted;
}
