/* Distributed hash aggregation over composite remote operations (rdmo/rdmo.h): group-by count and
 * sum over a high-cardinality key. Every rank owns the groups whose key hashes to it, in a chained
 * hash table (an rdmo table object); it sends its tuples to the owners in batches of (key, value)
 * pairs with ScatterAndAccumulate (the owner finds or inserts each key's entry and adds 1 and the
 * value), then probes owners' buckets for keys with ConditionalGather (a key's entry, or nothing).
 * The design (verbs, rdmo, rpc) is the caller's choice; the operator calls the interface only.
 *
 * The generator, and what it says about the result without running it: T = ranks x tuples per rank
 * tuples, global index j = i x ranks + r for tuple i of rank r, value j + 1, in G = T / C groups
 * (C: --group-size): tuple j belongs to group q = j mod G, whose key is (a q mod G) + 1 for an a
 * prime to G (a bijection of 1..G, so keys spread over the owners). Group q then counts
 * c = T / G, plus 1 when q < T mod G, and sums to c (q + 1) + G c (c - 1) / 2. The check compares
 * every owner's table with that, entry by entry, and the entries over all ranks with G. */
#ifndef RMB_AGG_H
#define RMB_AGG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/context.h"
#include "rdmo/check.h"
#include "rdmo/rdmo.h"

typedef struct {
    int ranks;
    uint64_t per_rank, tuples, groups; /* N, T, G */
    uint64_t a, a_inv;                 /* the groups' permutation, mod G */
} agg_gen;

/* 0, or 2 with the reason ("--group-size: ...") in err: G between 1 and 2^32 - 2 (32-bit keys). MPI-free. */
int agg_gen_init(agg_gen *g, int ranks, uint64_t per_rank, uint64_t group_size, char *err, size_t len);
static inline uint64_t agg_group_of(const agg_gen *g, int rank, uint64_t i) { return (i * (uint64_t)g->ranks + (uint64_t)rank) % g->groups; }
static inline uint32_t agg_key_of(const agg_gen *g, uint64_t q) { return (uint32_t)(g->a * q % g->groups) + 1; }
static inline uint64_t agg_value_of(const agg_gen *g, int rank, uint64_t i) { return i * (uint64_t)g->ranks + (uint64_t)rank + 1; }
/* The group of a key (1..G), or UINT64_MAX for a key no group has. */
uint64_t agg_group_of_key(const agg_gen *g, uint32_t key);
void agg_expected(const agg_gen *g, uint64_t q, uint64_t *count, uint64_t *sum);
/* The rank that owns a key's group. */
static inline int agg_owner(uint32_t key, int ranks) { return (int)(rdmo_mix(key) % (uint64_t)ranks); }
/* Probe i of rank r: a key of some group, or (every fourth) a key no group has. */
uint32_t agg_probe_key(const agg_gen *g, int rank, uint64_t i);

/* A rank's table: room for the groups it owns (their count varies with the hash: a quarter more
 * than the mean, and 64) and, verbs, for the entries of inserts that lost a race (at most one per
 * other tuple of the group). MPI-free. */
typedef struct {
    uint64_t buckets, entries;
} agg_table_shape;
agg_table_shape agg_table_shape_of(const agg_gen *g, uint64_t group_size, uint64_t chain, int design);

/* One run of the operator on this rank. */
typedef struct {
    rdmo_ep *ep;
    uint16_t obj;
    const agg_gen *g;
    int rank, batch;
    rdmo_pair *bufs;  /* [ranks x batch]: a batch per owner */
    int *fill;        /* [ranks] */
    uint64_t calls, errors, probes, matched, wrong;
    double t_aggregate, t_probe;
    rdmo_counts c_aggregate, c_probe; /* this rank's counts in each phase */
} agg_run;

/* Collective: the aggregation phase (every tuple of this rank to its owner), then its end. */
void agg_aggregate(agg_run *x);
/* Collective: n probes, each checked against the generator, then the end. */
void agg_probe(agg_run *x, uint64_t n);
/* This rank's table against the generator (the checker's walk, rdmo/check.h); *entries: its entries. */
rdmo_verdict agg_check_table(const agg_run *x, const unsigned char *table, const agg_table_shape *s, uint64_t *entries);

#endif
