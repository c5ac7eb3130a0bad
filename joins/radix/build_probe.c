/* Build + probe phase of the radix join (MPI-free): per partition, a bucket-chained hash table over
 * the R items (sized to stay in the L2 cache), probed by every S item of the same partition. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "joins/generate.h"
#include "joins/radix/radix_kernels.h"

static uint64_t next_pow2(uint64_t v)
{
    uint64_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

/* heads (4 B a bucket), links (4 B an item) and the one-item buckets (8 B a bucket) */
uint64_t radix_table_bytes(uint64_t r_n) { return next_pow2(r_n ? r_n : 1) * 12 + r_n * 4; }

static bool in_arena(const radix_table *t, const uint32_t *p)
{
    return t->arena && p >= t->arena && p < t->arena + t->arena_words;
}

int radix_table_reserve(radix_table *t, uint64_t r_n)
{
    uint64_t heads = next_pow2(r_n ? r_n : 1);
    if (heads <= t->head_cap && r_n <= t->next_cap) return 0;
    /* with room: leaves differ a little in size, and each regrowth takes fresh pages */
    const uint64_t hc = heads > t->head_cap ? heads : t->head_cap, nc = r_n > t->next_cap ? r_n + r_n / 4 : t->next_cap;
    const uint64_t at = (hc + nc + 1) & ~(uint64_t)1, words = at + 2 * hc; /* the one-item buckets 8-byte aligned */
    if (!in_arena(t, t->heads)) free(t->heads);
    if (!in_arena(t, t->next)) free(t->next);
    if (!in_arena(t, (const uint32_t *)(void *)t->direct)) free(t->direct);
    if (t->arena && ((uintptr_t)t->arena & 7) == 0 && words <= t->arena_words) {
        t->heads = t->arena;
        t->next = t->arena + hc;
        t->direct = (uint64_t *)(void *)(t->arena + at);
        if (words > t->arena_used) t->arena_used = words;
    } else {
        t->heads = malloc(hc * sizeof *t->heads);
        t->next = malloc(nc * sizeof *t->next);
        t->direct = malloc(hc * sizeof *t->direct);
    }
    const int ok = t->heads && t->next && t->direct;
    t->head_cap = ok ? hc : 0;
    t->next_cap = ok ? nc : 0;
    return ok ? 0 : -1;
}

void radix_table_free(radix_table *t)
{
    if (!in_arena(t, t->heads)) free(t->heads);
    if (!in_arena(t, t->next)) free(t->next);
    if (!in_arena(t, (const uint32_t *)(void *)t->direct)) free(t->direct);
    memset(t, 0, sizeof *t);
}

radix_format radix_format_for(const workload *w, bool packed, int radix_bits)
{
    radix_format f;
    f.words = packed ? 1 : 2;
    f.radix_bits = radix_bits;
    uint64_t max_rid = (w->r_total > w->s_total ? w->r_total : w->s_total) - 1; /* the larger relation's offsets */
    f.rid_bits = packed ? bits_for(max_rid ? max_rid : 1) : 64;
    for (int rel = 0; rel < 2; rel++) f.rid_base[rel] = packed ? workload_rid_first(w, rel) : 0;
    return f;
}

/* The one-item buckets of packed R items: every bucket first holds a word whose hash is another
 * bucket's (an S item of this hash differs from it in the hash bits, which are key bits, so it
 * matches nothing), then each R item goes to its bucket. Returns 0, or -1 where two R items
 * share a hash (the chained table is built instead). nb >= 2. */
static int build_direct(const uint64_t *r, uint64_t r_n, int hash_shift, uint64_t nb, uint64_t *direct)
{
    const uint64_t mask = nb - 1;
    for (uint64_t h = 0; h < nb; h++) direct[h] = ((h ^ 1) & mask) << hash_shift;
    uint64_t shared = 0;
    for (uint64_t i = 0; i < r_n; i++) {
        const uint64_t h = (r[i] >> hash_shift) & mask;
        shared |= ((direct[h] >> hash_shift) & mask) == h; /* the bucket holds an R item already */
        direct[h] = r[i];
    }
    return shared ? -1 : 0;
}

/* One R item against one S item, and a match's checksum term (the formula is build_probe_w's
 * comment), for both tables. Packed: words; plain: tuple_t {key, rid} as two words. */
static inline bool packed_hit(uint64_t ri, uint64_t w, uint64_t keymask)
{
    return ((ri ^ w) & keymask) == 0;
}
static inline uint64_t packed_term(uint64_t ri, uint64_t w, const radix_probe_consts *k, const radix_format *f)
{
    (void)f;
    return match_mix(ri * MATCH_R_MUL + (w + (w >> k->rid_bits) * k->khi_mul + k->pre0));
}
static inline bool plain_hit(const uint64_t *ri, const uint64_t *si, const radix_format *f)
{
    (void)f;
    return ri[0] == si[0];
}
static inline uint64_t plain_term(const uint64_t *ri, const uint64_t *si)
{
    return match_term(ri[1], si[1], si[0]);
}

/* Probe packed S items against the one-item buckets: a match is the bucket's item with the S item's
 * key part, counted and summed without a branch (at selectivity < 1 the outcome is random); 8 at a
 * time in AVX-512 where the table says (t->simd), the rest here. */
static void probe_direct(const uint64_t *s, uint64_t s_n, uint64_t probes, const radix_table *t,
                         const radix_probe_consts *k, const radix_format *f, uint64_t *matches, uint64_t *checksum)
{
    uint64_t m = 0, c = 0, first = 0;
    if (t->simd) first = radix_probe_direct_avx512(s, s_n, k, t->direct, &m, &c);
    for (uint64_t jj = first; jj < probes; jj++) {
        const uint64_t w = s[jj < s_n ? jj : 0], ri = t->direct[(w >> k->hash_shift) & k->mask];
        const uint64_t hit = packed_hit(ri, w, k->keymask);
        m += hit;
        c += packed_term(ri, w, k, f) & (UINT64_C(0) - hit);
    }
    *matches += m;
    *checksum += c;
}

/* W: item width in words (compile-time). Packed items compare the key part (bits above rid_bits);
 * plain tuples compare word 0.
 * The checksum term: match_pre is linear, so its parts that are constant per call (the rid bases,
 * the partition's key bits) and per S item are summed once, and a match costs a multiply, an add and
 * match_mix. Packed, a match has the same key part khi in both words, so with
 * pr = r0 - khi 2^rid_bits, ps = s0 - khi 2^rid_bits and key = khi 2^radix_bits + part:
 *   match_pre(pr + base_R, ps + base_S, key)
 *     = r0 C_R + s0 + khi (C_KEY 2^radix_bits - (C_R + 1) 2^rid_bits) + match_pre(base_R, base_S, part). */
static inline __attribute__((always_inline)) void build_probe_w(const uint64_t *r, uint64_t r_n, const uint64_t *s,
                                                                 uint64_t s_n, const int W, const radix_format *f,
                                                                 uint64_t part, int hash_shift, radix_table *t,
                                                                 uint64_t *matches, uint64_t *checksum)
{
    const uint64_t nb = next_pow2(r_n ? r_n : 1), mask = nb - 1;
    const int rid_bits = f->rid_bits & 63; /* packed items have rid_bits < 64 */
    const uint64_t keymask = W == 2 ? ~UINT64_C(0) : ~((UINT64_C(1) << rid_bits) - 1);
    const uint64_t khi_mul = (MATCH_KEY_MUL << f->radix_bits) - ((MATCH_R_MUL + 1) << rid_bits);
    const uint64_t pre0 = match_pre(f->rid_base[0], f->rid_base[1], part);
    uint32_t *heads = t->heads, *next = t->next;
    uint64_t probes = s_n;
    const radix_probe_consts k = {hash_shift, rid_bits, f->radix_bits, mask, keymask, khi_mul, pre0, part,
                                  {f->rid_base[0], f->rid_base[1]}};
    if (W == 1 && nb >= 2 && build_direct(r, r_n, hash_shift, nb, t->direct) == 0) {
        probe_direct(s, s_n, probes, t, &k, f, matches, checksum);
        return;
    }
    memset(heads, 0, nb * sizeof *heads);
    for (uint64_t i = 0; i < r_n; i++) {
        uint64_t h = (r[i * W] >> hash_shift) & mask;
        next[i] = heads[h];
        heads[h] = (uint32_t)(i + 1);
    }
    uint64_t m = 0, c = 0, first = 0;
    /* AVX-512 only: an AVX2 probe (4 lanes, heads, links and R items gathered, the checksum in
     * emulated 64-bit multiplies) is slower than this scalar loop where gathers are slow
     * (docs/measurements.md, "From code comments"): AVX2 CPUs probe in scalar */
    if (W == 1 && t->simd) first = radix_probe_avx512(r, s, s_n, &k, heads, next, &m, &c); /* 8 at a time; the rest below */
    for (uint64_t jj = first; jj < probes; jj++) {
        const uint64_t j = jj < s_n ? jj : 0;
        const uint64_t w = s[j * W];
        for (uint32_t idx = heads[(w >> hash_shift) & mask]; idx; idx = next[idx - 1]) {
            const uint64_t *ri = r + (uint64_t)(idx - 1) * W, *si = s + j * W;
            if (W == 1 ? packed_hit(ri[0], w, keymask) : plain_hit(ri, si, f)) {
                m++;
                c += W == 1 ? packed_term(ri[0], w, &k, f) : plain_term(ri, si);
            }
        }
    }
    *matches += m;
    *checksum += c;
}

void radix_build_probe(const uint64_t *r, uint64_t r_n, const uint64_t *s, uint64_t s_n, const radix_format *f,
                       uint64_t part, int hash_shift, radix_table *t, uint64_t *matches, uint64_t *checksum)
{
    if (r_n == 0 || s_n == 0) return;
    if (f->words == 1)
        build_probe_w(r, r_n, s, s_n, 1, f, part, hash_shift, t, matches, checksum);
    else
        build_probe_w(r, r_n, s, s_n, 2, f, part, hash_shift, t, matches, checksum);
}

int radix_build_probe_leaves(const uint64_t *r, const uint64_t *r_bounds, const uint64_t *s, const uint64_t *s_bounds,
                             uint64_t leaves, uint64_t s_cap, const radix_format *f, uint64_t part, int hash_shift,
                             radix_table *t, uint64_t *matches, uint64_t *checksum)
{
    const uint64_t w = (uint64_t)f->words;
    uint64_t max_leaf = 0;
    for (uint64_t i = 0; i < leaves; i++)
        if (r_bounds[i + 1] - r_bounds[i] > max_leaf) max_leaf = r_bounds[i + 1] - r_bounds[i];
    if (radix_table_reserve(t, max_leaf)) return -1;
    for (uint64_t i = 0; i < leaves; i++) {
        uint64_t s_n = s_bounds[i + 1] - s_bounds[i];
        radix_build_probe(r + r_bounds[i] * w, r_bounds[i + 1] - r_bounds[i], s + s_bounds[i] * w,
                          s_n < s_cap ? s_n : s_cap, f, part, hash_shift, t, matches, checksum);
    }
    return 0;
}
