/* The matching phase: one sequential scan over the two sorted relations with a head pointer each;
 * equal-key groups on both sides produce every pair (1:N and N:M). MPI-free. */
#include "joins/generate.h"
#include "joins/sortmerge/smj_kernels.h"

void smj_match(const uint64_t *r, size_t rn, const uint64_t *s, size_t sn, int rid_bits, uint64_t *matches,
               uint64_t *checksum)
{
    const uint64_t mask = rid_bits >= 64 ? ~0ull : (1ull << rid_bits) - 1;
    uint64_t m = 0, c = 0;
    size_t i = 0, j = 0;
    while (i < rn && j < sn) {
        uint64_t kr = r[i] >> rid_bits, ks = s[j] >> rid_bits;
        if (kr < ks) {
            i++;
        } else if (ks < kr) {
            j++;
        } else {
            size_t ie = i + 1, je = j + 1;
            while (ie < rn && r[ie] >> rid_bits == kr) ie++;
            while (je < sn && s[je] >> rid_bits == kr) je++;
            for (size_t x = i; x < ie; x++)
                for (size_t y = j; y < je; y++) c += match_term(r[x] & mask, s[y] & mask);
            m += (uint64_t)(ie - i) * (uint64_t)(je - j);
            i = ie;
            j = je;
        }
    }
    *matches = m;
    *checksum = c;
}
