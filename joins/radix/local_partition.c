/* Local partitioning (after the network pass): passes of radix partitioning with software
 * write-combining until every partition and its hash table fit the L2 cache. MPI-free. */
#include "joins/radix/local_partition.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cache_size.h"

uint64_t radix_l2_bytes(void)
{
    const uint64_t v = rmb_cache_bytes(2);
    return v ? v : UINT64_C(1) << 20;
}

int radix_local_bits_needed(uint64_t r_n, int item_bytes, uint64_t l2_bytes)
{
    /* item + 4-byte chain link + ~4-byte bucket head per R item, in half the L2 (the rest is S) */
    uint64_t bytes = r_n * (uint64_t)(item_bytes + 8), budget = l2_bytes / 2;
    int bits = 0;
    while (bits < 40 && (budget << bits) < bytes) bits++;
    return bits;
}

int radix_swwc_init(radix_swwc *ws, int max_bits)
{
    size_t fan = (size_t)1 << max_bits;
    ws->max_bits = max_bits;
    ws->simd = radix_avx512_available();
    ws->direct_bits = RADIX_DIRECT_MAX_BITS;
    ws->lines = aligned_alloc(64, fan * 64 * RADIX_SWWC_RING);
    ws->off = malloc(fan * sizeof(uint64_t));
    if (!ws->lines || !ws->off) {
        radix_swwc_free(ws);
        return -1;
    }
    return 0;
}

void radix_swwc_free(radix_swwc *ws)
{
    free(ws->lines);
    free(ws->off);
    ws->lines = ws->off = NULL;
}

/* Write the full lines listed in fq/fp (fq: the staging index of a line's last item, fp: its
 * partition) to the output; the first line of a partition may begin before it (plain stores). A
 * line that would end past its partition (bounds that undercount it) is not written: returns how
 * many were not. */
static inline __attribute__((always_inline)) uint64_t write_full_lines(const uint64_t *fq, const uint64_t *fp,
                                                                      uint64_t nf, const int W, uint64_t m,
                                                                      const uint64_t *lines, uint64_t *out,
                                                                      const uint64_t *bounds)
{
    uint64_t bad = 0;
    for (uint64_t k = 0; k < nf; k++) {
        const uint64_t *line = radix_swwc_line(lines, fp[k], fq[k], 8 / (uint64_t)W, RADIX_SWWC_RING);
        uint64_t *dst = radix_full_line_dst(line, fq[k], fp[k], m, W, out, bounds, &bad);
        if (dst) radix_stream_line(dst, line);
    }
    return bad;
}

static inline __attribute__((always_inline)) void stage_item(const uint64_t *t, uint64_t *item, const int W)
{
    item[0] = t[0];
    if (W == 2) item[1] = t[1];
}

/* How far input item i moves its partition's write offset: 1. */
static inline uint64_t slot_step(uint64_t i)
{
    (void)i;
    return 1;
}

/* The scatter of a pass for a compile-time item width W (1 or 2 words), its bounds given; L = items per cache line.
 * Items are staged in cache lines per partition; a full line goes to the output with one
 * non-temporal 64-byte store. Lines are aligned to the output address, so the first line of a
 * partition may be partial (written with plain stores), as is the tail. Bounds that disagree with
 * the items (counted elsewhere: the histogram phase counts the first local pass) write nothing
 * outside a partition's own range, and return -1: one compare per line, and one per partition at
 * the end. */
static inline __attribute__((always_inline)) int scatter_w(const uint64_t *in, uint64_t n, const int W, int shift,
                                                             int bits, uint64_t *out, const uint64_t *bounds,
                                                             radix_swwc *ws)
{
    const uint64_t fan = UINT64_C(1) << bits, mask = fan - 1, L = 8 / (uint64_t)W, ring = L * RADIX_SWWC_RING;
    uint64_t *restrict off = ws->off, *restrict lines = ws->lines;
    uint64_t fq[RADIX_SWWC_BLOCK(8)], fp[RADIX_SWWC_BLOCK(8)]; /* L <= 8 */
    uint64_t bad = 0;
    /* off[p] = output index + m, where m is the slot of out[0] in its cache line, so that
     * off[p] mod L is the slot of the next item */
    const uint64_t m = ((uintptr_t)out % 64) / (8 * (uint64_t)W);
    for (uint64_t p = 0; p < fan; p++) off[p] = bounds[p] + m;

    for (uint64_t i0 = 0; i0 < n; i0 += RADIX_SWWC_BLOCK(L)) {
        const uint64_t bn = n - i0 < RADIX_SWWC_BLOCK(L) ? n - i0 : RADIX_SWWC_BLOCK(L);
        uint64_t nf = 0;
        if (W == 1 && ws->simd && bn == RADIX_SWWC_BLOCK(8)) {
            nf = radix_scatter_block_avx512(in + i0, shift, mask, off, lines, fq, fp);
            bad += radix_write_lines_avx512(fq, fp, nf, m, lines, out, bounds);
            continue;
        }
        /* four items' slots taken before any is staged, as in the network pass (network_partition.c:
         * the next slot's load no longer waits for a staging store whose address came from a load) */
        uint64_t i = i0;
        for (; i + 4 <= i0 + bn; i += 4) {
            uint64_t p4[4], q4[4];
            for (int j = 0; j < 4; j++) {
                p4[j] = (in[(i + j) * (uint64_t)W] >> shift) & mask;
                q4[j] = off[p4[j]];
                off[p4[j]] = q4[j] + slot_step(i + j);
            }
            for (int j = 0; j < 4; j++) {
                stage_item(in + (i + j) * (uint64_t)W, lines + p4[j] * 8 * RADIX_SWWC_RING + (q4[j] % ring) * W, W);
                fq[nf] = q4[j];
                fp[nf] = p4[j];
                nf += (q4[j] % L + 1) / L; /* 1 when q is a line's last slot */
            }
        }
        for (; i < i0 + bn; i++) {
            const uint64_t p = (in[i * (uint64_t)W] >> shift) & mask, q = off[p];
            stage_item(in + i * (uint64_t)W, lines + p * 8 * RADIX_SWWC_RING + (q % ring) * W, W);
            off[p] = q + slot_step(i);
            fq[nf] = q;
            fp[nf] = p;
            nf += (q % L + 1) / L;
        }
        bad += write_full_lines(fq, fp, nf, W, m, lines, out, bounds);
    }
    for (uint64_t p = 0; p < fan; p++) { /* tails */
        uint64_t end = off[p] - m, filled = off[p] % L, valid = end - bounds[p];
        if (end != bounds[p + 1]) { /* more or fewer items than the bounds said */
            bad++;
            continue;
        }
        if (valid > filled) valid = filled;
        const uint64_t *line = radix_swwc_line(lines, p, off[p], L, RADIX_SWWC_RING);
        memcpy(out + (end - valid) * W, line + (filled - valid) * W, valid * W * sizeof(uint64_t));
    }
    radix_stream_fence();
    return bad ? -1 : 0;
}

/* Item t (W words) to its place q in the output of n items, and the line 256 bytes ahead of it
 * prefetched for writing (the partition's next lines: their read for ownership overlaps the
 * stores). A q past the output (bounds that undercount) writes nothing: counted in *bad. */
static inline __attribute__((always_inline)) void place_item(const uint64_t *t, uint64_t q, uint64_t n, const int W,
                                                               uint64_t *out, uint64_t *bad)
{
    if (__builtin_expect(q >= n, 0)) {
        ++*bad;
        return;
    }
    stage_item(t, out + q * (uint64_t)W, W);
    __builtin_prefetch((const void *)((uintptr_t)(out + q * (uint64_t)W) + 256), 1, 3);
}

/* The direct scatter of a pass (fan-outs up to 2^ws->direct_bits, radix_kernels.h): every item
 * stored at its partition's next index, four items' indices taken before any is stored (as in the
 * staged loop). A partition with more items than its bounds say runs into its neighbour's range,
 * never past the output; the offsets at the end tell (-1). */
static inline __attribute__((always_inline)) int direct_w(const uint64_t *in, uint64_t n, const int W, int shift,
                                                            int bits, uint64_t *out, const uint64_t *bounds,
                                                            uint64_t *restrict off)
{
    const uint64_t fan = UINT64_C(1) << bits, mask = fan - 1;
    uint64_t bad = 0, i = 0;
    memcpy(off, bounds, fan * sizeof *off);
    for (; i + 4 <= n; i += 4) {
        uint64_t p4[4], q4[4];
        for (int j = 0; j < 4; j++) {
            p4[j] = (in[(i + j) * (uint64_t)W] >> shift) & mask;
            q4[j] = off[p4[j]];
            off[p4[j]] = q4[j] + slot_step(i + j);
        }
        for (int j = 0; j < 4; j++) place_item(in + (i + j) * (uint64_t)W, q4[j], n, W, out, &bad);
    }
    for (; i < n; i++) {
        const uint64_t p = (in[i * (uint64_t)W] >> shift) & mask, q = off[p];
        off[p] = q + slot_step(i);
        place_item(in + i * (uint64_t)W, q, n, W, out, &bad);
    }
    for (uint64_t p = 0; p < fan; p++) bad += off[p] != bounds[p + 1];
    return bad ? -1 : 0;
}

int radix_scatter_pass(const uint64_t *in, uint64_t n, int words, int shift, int bits, uint64_t *out,
                       const uint64_t *bounds, radix_swwc *ws)
{
    if (radix_pass_direct(bits, ws->direct_bits))
        return words == 1 ? direct_w(in, n, 1, shift, bits, out, bounds, ws->off)
                          : direct_w(in, n, 2, shift, bits, out, bounds, ws->off);
    return words == 1 ? scatter_w(in, n, 1, shift, bits, out, bounds, ws) : scatter_w(in, n, 2, shift, bits, out, bounds, ws);
}

void radix_pass_bounds(const uint64_t *in, uint64_t n, int words, int shift, int bits, uint64_t *bounds)
{
    const uint64_t fan = UINT64_C(1) << bits;
    memset(bounds, 0, (fan + 1) * sizeof *bounds);
    radix_histogram_items(in, n, words, shift, bits, bounds + 1);
    for (uint64_t p = 0; p < fan; p++) bounds[p + 1] += bounds[p];
}

/* A pass whose counts disagree with its items is a fault of the counting code (or, for counts
 * from the histogram phase, of the network pass): it leaves every partition empty (whatever the
 * output held would be joined as it stands: stale items of one key are a quadratic build/probe),
 * says so once, and the join's result is then short, which its verification reports (a lost lane
 * of the histogram had corrupted memory instead). */
static void pass_failed(uint64_t *bounds, uint64_t fan, uint64_t n, uint64_t counted)
{
    static int said;
    if (!said++) {
        if (counted != n)
            fprintf(stderr, "rmabench: radix: a partitioning pass counted the wrong number of items (%" PRIu64
                    " counted, %" PRIu64 " items): partitions left empty\n", counted, n);
        else
            fprintf(stderr, "rmabench: radix: a partitioning pass found partitions of other sizes than counted (%" PRIu64
                    " items): partitions left empty\n", n);
    }
    for (uint64_t p = 0; p <= fan; p++) bounds[p] = n;
}

/* The pass with the counts given (counts[p] items go to partition p) or, counts NULL, counted here. */
static void partition_pass_counts(const uint64_t *in, uint64_t n, int words, int shift, int bits, uint64_t *out,
                                  uint64_t *bounds, radix_swwc *ws, const uint64_t *counts)
{
    const uint64_t fan = UINT64_C(1) << bits;
    if (counts) {
        bounds[0] = 0;
        for (uint64_t p = 0; p < fan; p++) bounds[p + 1] = bounds[p] + counts[p];
    } else {
        radix_pass_bounds(in, n, words, shift, bits, bounds);
    }
    /* the scatter would write past the partitions with fewer or more than n counted */
    if (bounds[fan] != n || radix_scatter_pass(in, n, words, shift, bits, out, bounds, ws))
        pass_failed(bounds, fan, n, bounds[fan]);
}

void radix_partition_pass(const uint64_t *in, uint64_t n, int words, int shift, int bits, uint64_t *out,
                          uint64_t *bounds, radix_swwc *ws)
{
    partition_pass_counts(in, n, words, shift, bits, out, bounds, ws, NULL);
}

/* Pass k over region [off, off + n) of src into dst; recursion into every sub-partition. */
static void partition_rec(uint64_t *src, uint64_t *dst, uint64_t off, uint64_t n, const radix_format *f, int bit,
                          const radix_local_plan *plan, int k, uint64_t leaf, uint64_t *leaf_bounds,
                          radix_local_ws *ws, const uint64_t *counts)
{
    if (k == plan->passes) {
        leaf_bounds[leaf] = off;
        return;
    }
    const int W = f->words, b = plan->bits[k];
    uint64_t *bounds = ws->level_bounds[k];
    partition_pass_counts(src + off * (uint64_t)W, n, W, radix_key_shift(f, bit), b, dst + off * (uint64_t)W, bounds,
                          &ws->swwc, counts);
    const uint64_t fan = UINT64_C(1) << b;
    if (k + 1 == plan->passes) {
        for (uint64_t i = 0; i < fan; i++) leaf_bounds[leaf * fan + i] = off + bounds[i];
        return;
    }
    /* the next level reuses level_bounds[k + 1]; keep this level's bounds */
    uint64_t *mine = malloc((fan + 1) * sizeof *mine);
    memcpy(mine, bounds, (fan + 1) * sizeof *mine);
    for (uint64_t i = 0; i < fan; i++)
        partition_rec(dst, src, off + mine[i], mine[i + 1] - mine[i], f, bit + b, plan, k + 1, leaf * fan + i,
                      leaf_bounds, ws, NULL);
    free(mine);
}

const char *radix_scatter_name(int net_bits, const radix_local_plan *plan, int direct_bits)
{
    int direct = radix_pass_direct(net_bits, direct_bits);
    for (int k = 0; k < plan->passes; k++) direct += radix_pass_direct(plan->bits[k], direct_bits);
    return direct == plan->passes + 1 ? "direct" : direct ? "direct+staged" : "staged";
}

int radix_local_ws_init(radix_local_ws *ws, const radix_local_plan *plan)
{
    memset(ws, 0, sizeof *ws);
    int maxb = 1;
    for (int k = 0; k < plan->passes; k++) {
        if (plan->bits[k] > maxb) maxb = plan->bits[k];
        ws->level_bounds[k] = malloc(((size_t)1 << plan->bits[k]) * sizeof(uint64_t) + sizeof(uint64_t));
        if (!ws->level_bounds[k]) return -1;
    }
    return radix_swwc_init(&ws->swwc, maxb);
}

void radix_local_ws_free(radix_local_ws *ws)
{
    for (int k = 0; k < RADIX_MAX_PASSES; k++) free(ws->level_bounds[k]);
    radix_swwc_free(&ws->swwc);
    memset(ws, 0, sizeof *ws);
}

uint64_t *radix_local_partition(uint64_t *a, uint64_t *b, uint64_t n, const radix_format *f,
                                const radix_local_plan *plan, uint64_t *leaf_bounds, radix_local_ws *ws,
                                const uint64_t *first_counts)
{
    partition_rec(a, b, 0, n, f, f->radix_bits, plan, 0, 0, leaf_bounds, ws, first_counts);
    leaf_bounds[UINT64_C(1) << plan->total_bits] = n;
    return plan->passes % 2 ? b : a;
}
