/* The matching phase: a sequential scan over the two sorted relations with a head pointer each;
 * equal-key groups on both sides produce every pair (1:N and N:M). MPI-free.
 * Which head advances is a coin flip per step on random keys, so a step decides it without a
 * branch (a mispredicted branch per R key was most of the scan's time); a branch-free step still
 * waits for its loads before the next one knows where to read, so SMJ_MATCH_STREAMS scans over
 * disjoint key ranges run interleaved. Only R key groups of several tuples (N:M) take a branch,
 * which is predictable when R's keys are unique (a primary key). */
#include "bench/rmb_mutant.h"
#include "joins/generate.h"
#include "joins/sortmerge/smj_kernels.h"

enum { SMJ_MATCH_STREAMS = 4 };

typedef struct {
    size_t i, ie, j, je; /* heads and ends in R and S */
    uint64_t m, c;       /* matches and checksum so far */
} match_stream;

typedef struct {
    const uint64_t *r, *s;
    int rid_bits;
    uint64_t mask, pre0; /* rid mask; match_pre of the rid bases and the range's key base */
} match_ctx;

/* The key group at r[i] == s[j] (R [i, ie), S [j, je)): every pair; the first R tuple's terms are
 * summed while the S group is scanned (one pass, and a loop with a data-dependent exit, which the
 * compiler leaves unvectorised: vector set-up would cost more than groups of a few). */
static void match_group(match_stream *st, const match_ctx *x)
{
    const uint64_t *r = x->r, *s = x->s, kr = r[st->i] >> x->rid_bits;
    size_t i = st->i, ie = i + 1, j = st->j, je = j;
    while (ie < st->ie && r[ie] >> x->rid_bits == kr) ie++;
    const uint64_t pre_key = x->pre0 + kr * MATCH_KEY_MUL;
    const uint64_t pre_r = pre_key + (r[i] & x->mask) * MATCH_R_MUL;
#ifdef RMB_MUTANT_SMJ_FIRST_EQUAL_ONLY /* mutation suite: only the group's first S tuple is matched */
    st->c += match_mix(pre_r + (s[je++] & x->mask));
#else
    do st->c += match_mix(pre_r + (s[je] & x->mask));
    while (++je < st->je && s[je] >> x->rid_bits == kr);
#endif
    for (size_t a = i + 1; a < ie; a++) { /* N:M: the other R tuples of the group */
        const uint64_t pre_a = pre_key + (r[a] & x->mask) * MATCH_R_MUL;
        for (size_t b = j; b < je; b++) st->c += match_mix(pre_a + (s[b] & x->mask));
    }
    st->m += (uint64_t)(ie - i) * (uint64_t)(je - j);
    st->i = ie;
    st->j = je;
}

/* One step: R advances when its key is smaller, else S (after matching its tuple when the keys are
 * equal: the next S tuple may have the same key, R stays). */
static inline void match_step(match_stream *st, const match_ctx *x)
{
    const uint64_t rv = x->r[st->i], sv = x->s[st->j], kr = rv >> x->rid_bits, ks = sv >> x->rid_bits;
    if (__builtin_expect(st->i + 1 < st->ie && x->r[st->i + 1] >> x->rid_bits == kr, 0) && kr == ks) {
        match_group(st, x);
        return;
    }
    const uint64_t eq = kr == ks, lt = kr < ks;
    const uint64_t term = match_mix(x->pre0 + kr * MATCH_KEY_MUL + (rv & x->mask) * MATCH_R_MUL + (sv & x->mask));
    st->c += term & (0 - eq);
    st->m += eq;
#ifdef RMB_MUTANT_SMJ_FIRST_EQUAL_ONLY
    st->i += lt | eq;
#else
    st->i += lt;
#endif
    st->j += 1 - lt;
}

/* The first index of v[lo, hi) whose key is at least key. */
static size_t lower_bound(const uint64_t *v, size_t lo, size_t hi, uint64_t key, int rid_bits)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] >> rid_bits < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void smj_match(const uint64_t *r, size_t rn, const uint64_t *s, size_t sn, int rid_bits, uint64_t key_base,
               const uint64_t rid_base[2], uint64_t *matches, uint64_t *checksum)
{
    /* match_pre is linear: the rid bases and the range's key base go in once, the key offset and
     * the R rid per step */
    const match_ctx x = {r, s, rid_bits, rid_bits >= 64 ? ~0ull : (1ull << rid_bits) - 1,
                         match_pre(rid_base[0], rid_base[1], key_base)};
    match_stream st[SMJ_MATCH_STREAMS];
    /* stream q: the keys from R's q-th quantile on, cut at key boundaries (a group stays whole) */
    size_t ri = 0, si = 0;
    for (int q = 0; q < SMJ_MATCH_STREAMS; q++) {
        size_t re = rn, se = sn;
        if (q + 1 < SMJ_MATCH_STREAMS && rn > 0) {
            const uint64_t cut = r[rn / SMJ_MATCH_STREAMS * (size_t)(q + 1)] >> rid_bits;
            re = lower_bound(r, ri, rn, cut, rid_bits);
            se = lower_bound(s, si, sn, cut, rid_bits);
        }
        st[q] = (match_stream){ri, re, si, se, 0, 0};
        ri = re;
        si = se;
    }
    for (;;) {
        int live = 1;
        for (int q = 0; q < SMJ_MATCH_STREAMS; q++) live &= st[q].i < st[q].ie && st[q].j < st[q].je;
        if (!live) break;
        for (int q = 0; q < SMJ_MATCH_STREAMS; q++) match_step(&st[q], &x);
    }
    uint64_t m = 0, c = 0;
    for (int q = 0; q < SMJ_MATCH_STREAMS; q++) {
        while (st[q].i < st[q].ie && st[q].j < st[q].je) match_step(&st[q], &x);
        m += st[q].m;
        c += st[q].c;
    }
    *matches = m;
    *checksum = c;
}
