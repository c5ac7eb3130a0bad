/* Workload generator (Graph500's "generate" phase). Every tuple is a pure function of its global
 * index and the seed, so each rank generates its slice in parallel, the data do not depend on how
 * many ranks generate it, and the expected join result follows from the generator alone.
 *
 *   R[j] = (perm(j) + 1, j)        j in [0, |R|): keys unique, dense in [1, |R|], randomly placed;
 *                                   rids range-partitioned over ranks (rank i holds a contiguous j range)
 *   S[g] = (key, g)                 g in [0, |S|), |S| = ratio * |R|
 *     matching (probability `selectivity`, decided by a hash of g):
 *        partner j = g mod |R|      (skew 0: every R tuple gets `ratio` partners when selectivity is 1)
 *        partner j = zipf(g) - 1    (skew z > 0: Zipf(z) over R tuples, most popular j = 0)
 *        key = perm(j) + 1
 *     not matching: key in (|R|, 2|R|]: no R tuple has it.
 *
 * MPI-free. */
#ifndef RMB_GENERATE_H
#define RMB_GENERATE_H
#include <stdbool.h>
#include <stdint.h>

#include "joins/tuple.h"

typedef struct {
    uint64_t r_total, s_total;   /* global sizes */
    uint64_t r_off, r_n;         /* this rank's slice of R: global indices [r_off, r_off + r_n) */
    uint64_t s_off, s_n;
    int ratio;                   /* |S| / |R| */
    double selectivity;          /* fraction of S tuples with a partner */
    double skew;                 /* Zipf factor, 0 = uniform */
    uint64_t seed;
    /* derived */
    int perm_bits;
    uint64_t perm_keys[4];
    uint64_t sel_threshold;      /* match iff hash(g) < threshold (2^64 * selectivity) */
    bool all_match;
    double zipf_hx1, zipf_hxn, zipf_s; /* rejection-inversion constants */
} workload;

/* Per-rank sizes: rank i of `ranks` gets an even share of r_total (the first r_total % ranks ranks
 * one more); with `uneven`, rank i's share is proportional to i+1 (rank 0 gets the least). */
void workload_init(workload *w, uint64_t r_total, int ratio, double selectivity, double skew, uint64_t seed,
                   int rank, int ranks, bool uneven);
/* Slice [off, off+n) of `total` items for rank `rank`. */
void workload_slice(uint64_t total, int rank, int ranks, bool uneven, uint64_t *off, uint64_t *n);

uint64_t workload_max_key(const workload *w);        /* largest key that can occur */
uint64_t workload_perm(const workload *w, uint64_t j); /* bijection on [0, r_total) */

/* S[g]'s partner index in R, or UINT64_MAX when S[g] does not match. */
uint64_t workload_partner(const workload *w, uint64_t g);

void generate_r(const workload *w, tuple_t *out); /* r_n tuples */
void generate_s(const workload *w, tuple_t *out); /* s_n tuples */

/* The checksum term of one matched pair; the join's checksum is the sum (mod 2^64) over pairs. */
static inline uint64_t match_term(uint64_t r_rid, uint64_t s_rid)
{
    uint64_t z = r_rid * 0x9E3779B97F4A7C15ull + s_rid + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Expected matches and checksum of this rank's S slice, from the generator alone. */
void workload_expected(const workload *w, uint64_t *matches, uint64_t *checksum);

/* Bits needed to represent v (v >= 1). */
int bits_for(uint64_t v);

#endif
