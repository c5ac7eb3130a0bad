/* The matching phase: one sequential scan over the two sorted relations with a head pointer each;
 * equal-key groups on both sides produce every pair (1:N and N:M). MPI-free. */
#include "bench/rmb_mutant.h"
#include "joins/generate.h"
#include "joins/sortmerge/smj_kernels.h"

void smj_match(const uint64_t *r, size_t rn, const uint64_t *s, size_t sn, int rid_bits, uint64_t key_base,
               const uint64_t rid_base[2], uint64_t *matches, uint64_t *checksum)
{
    const uint64_t mask = rid_bits >= 64 ? ~0ull : (1ull << rid_bits) - 1;
    /* match_pre is linear: the rid bases and the range's key base go in once, the key offset once
     * per group, the R rid once per R tuple */
    const uint64_t pre0 = match_pre(rid_base[0], rid_base[1], key_base);
    uint64_t m = 0, c = 0;
    size_t i = 0, j = 0;
    while (i < rn && j < sn) {
        uint64_t kr = r[i] >> rid_bits, ks = s[j] >> rid_bits;
        if (kr < ks) {
            i++;
        } else if (ks < kr) {
            j++;
        } else {
            /* the group of key kr: R [i, ie), S [j, je); the first R tuple's terms are summed while
             * the S group is scanned (one pass, and a loop with a data-dependent exit, which the
             * compiler leaves unvectorised: vector set-up would cost more than groups of a few) */
            size_t ie = i + 1, je = j;
            while (ie < rn && r[ie] >> rid_bits == kr) ie++;
            const uint64_t pre_key = pre0 + kr * MATCH_KEY_MUL;
            const uint64_t pre_r = pre_key + (r[i] & mask) * MATCH_R_MUL;
#ifdef RMB_MUTANT_SMJ_FIRST_EQUAL_ONLY /* mutation suite: only the group's first S tuple is matched */
            c += match_mix(pre_r + (s[je++] & mask));
#else
            do c += match_mix(pre_r + (s[je] & mask));
            while (++je < sn && s[je] >> rid_bits == kr);
#endif
            for (size_t x = i + 1; x < ie; x++) { /* N:M: the other R tuples of the group */
                const uint64_t pre_x = pre_key + (r[x] & mask) * MATCH_R_MUL;
                for (size_t y = j; y < je; y++) c += match_mix(pre_x + (s[y] & mask));
            }
            m += (uint64_t)(ie - i) * (uint64_t)(je - j);
            i = ie;
            j = je;
        }
    }
    *matches = m;
    *checksum = c;
}
