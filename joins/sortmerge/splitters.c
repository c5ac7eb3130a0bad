/* Range boundaries for the sort-merge join's partitioning. MPI-free (the sampling and broadcast
 * are in range.c). */
#include "joins/sortmerge/smj_kernels.h"

#include <stdlib.h>
#include <string.h>

#include "joins/generate.h"

void smj_equal_splitters(uint64_t max_key, int parts, uint64_t *splitters)
{
    uint64_t width = max_key / (uint64_t)parts + (max_key % (uint64_t)parts != 0);
    if (width == 0) width = 1;
    for (int t = 0; t + 1 < parts; t++) splitters[t] = width * (uint64_t)(t + 1);
}

/* Part t ends at sample position t*m/parts, moved to the nearer end of the key group it falls
 * in, so that equal keys stay together and stray cuts do not accumulate. */
void smj_pick_splitters(const uint64_t *sample, size_t m, int parts, uint64_t *splitters)
{
    size_t prev_cut = 0;
    uint64_t prev = 0;
    for (int t = 1; t < parts; t++) {
        size_t q = m / (size_t)parts * (size_t)t + m % (size_t)parts * (size_t)t / (size_t)parts;
        size_t cut = q;
        if (q > 0 && q < m && sample[q - 1] == sample[q]) { /* q falls inside a key group */
            uint64_t v = sample[q];
            size_t lo = q, hi = q;
            while (lo > 0 && sample[lo - 1] == v) lo--;
            while (hi < m && sample[hi] == v) hi++;
            cut = (hi - q <= q - lo || lo < prev_cut) ? hi : lo;
        }
        if (cut < prev_cut) cut = prev_cut;
        uint64_t s = cut == 0 ? 0 : sample[cut - 1];
        if (s < prev) s = prev;
        splitters[t - 1] = s;
        prev = s;
        prev_cut = cut;
    }
}

/* Boundary t must leave parts t+1.. room for the keys above it, s_t >= max_key - (parts-1-t)
 * max_width, and part t itself at most max_width keys, s_t <= s_(t-1) + max_width; the first
 * bound is below the second whenever the previous boundary met its own first bound, which holds
 * from s_(-1) = 0 on because parts * max_width >= max_key. */
int smj_clamp_splitters(uint64_t *splitters, int parts, uint64_t max_key, uint64_t max_width)
{
    if (max_width >= max_key) return 0;
    int moved = 0;
    uint64_t prev = 0;
    for (int t = 0; t + 1 < parts; t++) {
        uint64_t rest = (uint64_t)(parts - 1 - t); /* parts after t */
        uint64_t lo = rest >= max_key / max_width + 1 ? 0 : max_key - rest * max_width;
        uint64_t hi = prev + max_width, s = splitters[t];
        if (lo < prev) lo = prev;
        if (s < lo) s = lo;
        if (s > hi) s = hi;
        moved += s != splitters[t];
        splitters[t] = prev = s;
    }
    return moved;
}

int smj_range_lut_init(smj_range_lut *l, const uint64_t *splitters, int parts, uint64_t max_key)
{
    l->first = NULL;
    l->shift = 0;
    l->nb = 0;
    if (parts < SMJ_LUT_MIN_PARTS) return 0;
    const int bits = bits_for(max_key ? max_key : 1);
    l->shift = bits > SMJ_LUT_BITS ? bits - SMJ_LUT_BITS : 0;
    const uint64_t nb = l->nb = (max_key >> l->shift) + 1;
    if (!(l->first = malloc((nb + 1) * sizeof *l->first))) return -1;
    for (uint64_t b = 0; b < nb; b++) l->first[b] = (uint32_t)smj_part_of(b << l->shift, splitters, parts);
    l->first[nb] = (uint32_t)(parts - 1);
    return 0;
}

void smj_range_lut_free(smj_range_lut *l)
{
    free(l->first);
    l->first = NULL;
}

/* Few parts, no table: for each lane and splitter, how many keys lie above the splitter, summed in
 * registers; a lane's count of part p is then above[p - 1] - above[p]. No counter in memory is
 * incremented at an address that depends on the key, so no increment waits for the previous one's
 * store, and the loop is a plain reduction whatever the code's alignment (the table-free loop of
 * increments ran at two speeds depending on where an unrelated change put it,
 * (docs/measurements.md, "From code comments")). NS: the splitters, a compile-time constant where
 * given. */
static inline __attribute__((always_inline)) void count_above(const tuple_t *t, uint64_t n, const uint64_t *splitters,
                                                              const size_t NS, size_t P, uint64_t *lanes)
{
    uint64_t above[SMJ_COUNT_LANES][SMJ_PART_COUNT] = {{0}}, seen[SMJ_COUNT_LANES] = {0};
    uint64_t i = 0;
    for (; i + SMJ_COUNT_LANES <= n; i += SMJ_COUNT_LANES)
        for (size_t k = 0; k < SMJ_COUNT_LANES; k++)
            for (size_t s = 0; s < NS; s++) above[k][s] += splitters[s] < t[i + k].key;
    for (size_t k = 0; k < SMJ_COUNT_LANES; k++) seen[k] = i / SMJ_COUNT_LANES;
    for (; i < n; i++, seen[0]++)
        for (size_t s = 0; s < NS; s++) above[0][s] += splitters[s] < t[i].key;
    for (size_t k = 0; k < SMJ_COUNT_LANES; k++)
        for (size_t p = 0; p <= NS; p++) lanes[k * P + p] = (p ? above[k][p - 1] : seen[k]) - (p < NS ? above[k][p] : 0);
}

void smj_count_ranges(const tuple_t *t, uint64_t n, const uint64_t *splitters, int parts, const smj_range_lut *l,
                      uint64_t *lanes, uint64_t *count)
{
    const size_t P = (size_t)parts;
    if (!l->first && P >= 2 && P - 1 <= SMJ_PART_COUNT) {
        if (P == 2)
            count_above(t, n, splitters, 1, P, lanes);
        else
            count_above(t, n, splitters, P - 1, P, lanes);
    } else {
        memset(lanes, 0, SMJ_COUNT_LANES * P * sizeof *lanes);
        uint64_t i = 0;
        for (; i + SMJ_COUNT_LANES <= n; i += SMJ_COUNT_LANES)
            for (size_t k = 0; k < SMJ_COUNT_LANES; k++) lanes[k * P + (size_t)smj_part_lut(t[i + k].key, splitters, parts, l)]++;
        for (; i < n; i++) lanes[(size_t)smj_part_lut(t[i].key, splitters, parts, l)]++;
    }
    for (size_t p = 0; p < P; p++) {
        uint64_t c = 0;
        for (size_t k = 0; k < SMJ_COUNT_LANES; k++) c += lanes[k * P + p];
        count[p] = c;
    }
}
