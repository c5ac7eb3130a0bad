/* Workload generator (Graph500's "generate" phase). Every tuple is a pure function of its global
 * index and the seed, so each rank generates its slice in parallel, the data do not depend on how
 * many ranks generate it, and the expected join result follows from the generator alone
 * (workload_expected: O(|S| / ranks) per rank, no data exchanged).
 *
 *   R[i] = (perm_R(i) + 1, i)          i in [0, |R|): keys unique, dense in [1, |R|], randomly placed;
 *                                      R's record ids are [0, |R|), range-partitioned over ranks
 *   S[g] = (key of t, |R| + g)         g in [0, |S|), |S| = ratio * |R|; S's record ids are
 *                                      [|R|, |R| + |S|): disjoint from R's
 *     t = perm_S(g): the logical S tuple held in slot g, a keyed bijection on [0, |S|) with keys of
 *     its own, so partners are not aligned with positions: slot g's partner is R tuple g only by chance;
 *     at P ranks (even slices) each rank's own R holds the partners of about 1/P of its S tuples,
 *     (P-1)/P of them being on other ranks
 *   logical S tuple t matches with probability `selectivity` (decided by a hash of t):
 *        partner j = t mod |R|      (skew 0: every R tuple gets `ratio` partners when selectivity is 1)
 *        partner j = zipf(t) - 1    (skew z > 0: Zipf(z) over R tuples, most popular j = 0)
 *        key = perm_R(j) + 1
 *     not matching: key in (|R|, 2|R|]: no R tuple has it.
 *
 * Checksum: the sum (mod 2^64) over matched pairs of match_term(R rid, S rid, key), a mix that is
 * not symmetric in the two record ids and depends on the key, so a join that swaps the record ids,
 * pairs the wrong tuples, carries a wrong key, or drops or repeats a pair does not reproduce it.
 *
 * MPI-free. */
#ifndef RMB_GENERATE_H
#define RMB_GENERATE_H
#include <stdbool.h>
#include <stdint.h>

#include "joins/tuple.h"

/* A keyed bijection on [0, n): 4-round Feistel network on `bits` (even) bits + cycle walking. */
typedef struct {
    uint64_t n;
    int bits;
    uint64_t keys[4];
    int simd; /* PERM_SIMD_*: the kernel of the array permutations, the best the CPU has (tests set each) */
} keyed_perm;
enum { PERM_SIMD_SCALAR, PERM_SIMD_AVX2, PERM_SIMD_AVX512 };
/* 1 if this build and CPU can run the array permutations with PERM_SIMD_* simd */
int keyed_perm_simd_available(int simd);

typedef struct {
    uint64_t r_total, s_total;   /* global sizes */
    uint64_t r_off, r_n;         /* this rank's slice of R: global indices [r_off, r_off + r_n) */
    uint64_t s_off, s_n;
    int ratio;                   /* |S| / |R| */
    double selectivity;          /* fraction of S tuples with a partner */
    double skew;                 /* Zipf factor, 0 = uniform */
    uint64_t seed;
    /* derived */
    keyed_perm perm_r;           /* R slot -> key - 1 */
    keyed_perm perm_s;           /* S slot -> logical S tuple */
    uint64_t sel_threshold;      /* match iff hash(t) < threshold (2^64 * selectivity) */
    bool all_match;
    double zipf_hx1, zipf_hxn, zipf_s; /* rejection-inversion constants */
} workload;

/* Per-rank sizes: rank i of `ranks` gets an even share of r_total (the first r_total % ranks ranks
 * one more); with `uneven`, rank i's share is proportional to i+1 (rank 0 gets the least). */
void workload_init(workload *w, uint64_t r_total, int ratio, double selectivity, double skew, uint64_t seed,
                   int rank, int ranks, bool uneven);
/* Slice [off, off+n) of `total` items for rank `rank`. */
void workload_slice(uint64_t total, int rank, int ranks, bool uneven, uint64_t *off, uint64_t *n);

uint64_t workload_max_key(const workload *w);          /* largest key that can occur */
uint64_t workload_perm(const workload *w, uint64_t i); /* perm_R: bijection on [0, r_total) */
uint64_t workload_s_tuple(const workload *w, uint64_t g); /* perm_S: the logical S tuple in S slot g */

/* Logical S tuple t's partner index in R (its position and record id), or UINT64_MAX when t does
 * not match. S slot g's partner is workload_partner(w, workload_s_tuple(w, g)). */
uint64_t workload_partner(const workload *w, uint64_t t);

/* The first record id of relation rel (0 = R, 1 = S): a relation's ids are [first, first + size),
 * known to every rank as a catalog knows a column's minimum; packing stores offsets from it. */
static inline uint64_t workload_rid_first(const workload *w, int rel) { return rel ? w->r_total : 0; }

void generate_r(const workload *w, tuple_t *out); /* r_n tuples */
void generate_s(const workload *w, tuple_t *out); /* s_n tuples */
/* generate_s, and workload_expected's matches and checksum of them (expected[0], expected[1]) from
 * the same draws, in one pass. */
void generate_s_expected(const workload *w, tuple_t *out, uint64_t expected[2]);
/* Tuples [first, first + n) of this rank's slice of R (rel 0) or S (rel 1) into out[first..]:
 * what generate_r/s wrote there. */
void generate_range(const workload *w, int rel, tuple_t *out, uint64_t first, uint64_t n);

/* The checksum term of one matched pair, in two steps so that the joins can fold the parts that
 * are constant in their loops (a relation's first record id, a partition's key bits) out of them:
 * match_pre is linear in each input, match_mix a bijection (xorshift-multiply-xorshift) that is not
 * linear, so that sums over different sets of pairs differ. MATCH_R_MUL = 3 mod 4 makes
 * match_pre(r, s, k) != match_pre(s, r, k) for any r != s below 2^63; MATCH_KEY_MUL is odd, so a
 * different key always gives a different term. */
#define MATCH_R_MUL UINT64_C(0xD1B54A32D192ED03)
#define MATCH_KEY_MUL UINT64_C(0x9E3779B97F4A7C15)
#define MATCH_MIX_MUL UINT64_C(0xD6E8FEB86659FD93) /* match_mix's multiplier (the vector kernels' too) */
static inline uint64_t match_pre(uint64_t r_rid, uint64_t s_rid, uint64_t key)
{
    return r_rid * MATCH_R_MUL + s_rid + key * MATCH_KEY_MUL;
}
static inline uint64_t match_mix(uint64_t z)
{
    z ^= z >> 32;
    z *= MATCH_MIX_MUL;
    return z ^ (z >> 32);
}
static inline uint64_t match_term(uint64_t r_rid, uint64_t s_rid, uint64_t key)
{
    return match_mix(match_pre(r_rid, s_rid, key));
}

/* Expected matches and checksum of this rank's S slice, from the generator alone. */
void workload_expected(const workload *w, uint64_t *matches, uint64_t *checksum);

/* Bits needed to represent v (v >= 1). */
int bits_for(uint64_t v);

#endif
