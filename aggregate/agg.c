#include "aggregate/agg.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/fastclock.h"

static uint64_t gcd(uint64_t x, uint64_t y)
{
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return x;
}

/* a^-1 mod m (a prime to m) by the extended Euclid algorithm. */
static uint64_t inverse(uint64_t a, uint64_t m)
{
    int64_t t = 0, nt = 1;
    uint64_t r = m, nr = a % m;
    while (nr) {
        const uint64_t q = r / nr, tr = r - q * nr;
        const int64_t tt = t - (int64_t)q * nt;
        t = nt;
        nt = tt;
        r = nr;
        nr = tr;
    }
    return (uint64_t)(t < 0 ? t + (int64_t)m : t);
}

int agg_gen_init(agg_gen *g, int ranks, uint64_t per_rank, uint64_t group_size, char *err, size_t len)
{
    memset(g, 0, sizeof *g);
    g->ranks = ranks;
    g->per_rank = per_rank;
    g->tuples = per_rank * (uint64_t)ranks;
    if (group_size > g->tuples) {
        snprintf(err, len, "--group-size: %" PRIu64 " tuples per group is more than the %" PRIu64 " tuples of the run", group_size, g->tuples);
        return 2;
    }
    g->groups = g->tuples / group_size;
    if (g->groups > UINT32_MAX - 1) {
        snprintf(err, len, "--group-size: %" PRIu64 " groups do not fit 32-bit keys; at least %" PRIu64 " tuples per group",
                 g->groups, g->tuples / (UINT32_MAX - 1) + 1);
        return 2;
    }
    g->a = 1;
    for (uint64_t c = (g->groups * 5 / 8) | 1; g->groups > 2 && c < g->groups; c += 2) /* a multiplier far from 1 */
        if (gcd(c, g->groups) == 1) {
            g->a = c;
            break;
        }
    g->a_inv = g->groups > 1 ? inverse(g->a, g->groups) : 0;
    return 0;
}

uint64_t agg_group_of_key(const agg_gen *g, uint32_t key)
{
    if (key == 0 || key > g->groups) return UINT64_MAX;
    return (uint64_t)(key - 1) * g->a_inv % g->groups;
}

void agg_expected(const agg_gen *g, uint64_t q, uint64_t *count, uint64_t *sum)
{
    const uint64_t c = g->tuples / g->groups + (q < g->tuples % g->groups ? 1 : 0);
    *count = c;
    *sum = c * (q + 1) + g->groups * (c * (c - 1) / 2);
}

uint32_t agg_probe_key(const agg_gen *g, int rank, uint64_t i)
{
    const uint64_t j = i * (uint64_t)g->ranks + (uint64_t)rank;
    if (i % 4 == 3) return (uint32_t)(g->groups + 1 + j % 1000 < UINT32_MAX ? g->groups + 1 + j % 1000 : 0);
    return agg_key_of(g, rdmo_mix(j) % g->groups);
}

agg_table_shape agg_table_shape_of(const agg_gen *g, uint64_t group_size, uint64_t chain, int design)
{
    const uint64_t mean = g->groups / (uint64_t)g->ranks + 1, room = mean + mean / 4 + 64;
    agg_table_shape s = {room / chain + 1, room};
    if (design == RDMO_DESIGN_VERBS) s.entries = room * (group_size < 2 ? 2 : group_size);
    return s;
}

/* --- the run ----------------------------------------------------------------------------------- */

static rdmo_counts counts_since(const rdmo_counts *now, const rdmo_counts *then)
{
    rdmo_counts d = {0};
    d.ops = now->ops - then->ops;
    d.msgs = now->msgs - then->msgs;
    d.rts = now->rts - then->rts;
    d.retries = now->retries - then->retries;
    return d;
}

static void send_batch(agg_run *x, int owner)
{
    if (!x->fill[owner]) return;
    const int st = rdmo_scatter_accumulate(x->ep, owner, x->obj, x->bufs + (size_t)owner * (size_t)x->batch, x->fill[owner]);
    x->calls++;
    if (st != RDMO_OK) x->errors++;
    x->fill[owner] = 0;
}

void agg_aggregate(agg_run *x)
{
    const agg_gen *g = x->g;
    const rdmo_counts c0 = *rdmo_counts_of(x->ep);
    const double t0 = MPI_Wtime();
    for (uint64_t i = 0; i < g->per_rank; i++) {
        const uint32_t key = agg_key_of(g, agg_group_of(g, x->rank, i));
        const int owner = agg_owner(key, g->ranks);
        x->bufs[(size_t)owner * (size_t)x->batch + (size_t)x->fill[owner]++] = (rdmo_pair){key, agg_value_of(g, x->rank, i)};
        if (x->fill[owner] == x->batch) send_batch(x, owner);
    }
    for (int r = 0; r < g->ranks; r++) send_batch(x, r);
    x->t_aggregate = MPI_Wtime() - t0;
    x->c_aggregate = counts_since(rdmo_counts_of(x->ep), &c0);
    rdmo_quiesce(x->ep);
}

void agg_probe(agg_run *x, uint64_t n)
{
    const agg_gen *g = x->g;
    const rdmo_counts c0 = *rdmo_counts_of(x->ep);
    rdmo_entry got[2];
    const double t0 = MPI_Wtime();
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t key = agg_probe_key(g, x->rank, i);
        int m = 0;
        const int st = rdmo_conditional_gather(x->ep, agg_owner(key, g->ranks), x->obj, key, 2, got, &m);
        x->probes++;
        if (st != RDMO_OK) {
            x->errors++;
            continue;
        }
        const uint64_t q = agg_group_of_key(g, key);
        uint64_t count = 0, sum = 0;
        if (q != UINT64_MAX) agg_expected(g, q, &count, &sum);
        const bool ok = q == UINT64_MAX ? m == 0 : m == 1 && got[0].key == key && got[0].a == count && got[0].b == sum;
        x->matched += (uint64_t)m;
        if (!ok) x->wrong++;
    }
    x->t_probe = MPI_Wtime() - t0;
    x->c_probe = counts_since(rdmo_counts_of(x->ep), &c0);
    rdmo_quiesce(x->ep);
}

typedef struct {
    const agg_run *x;
    uint32_t *keys; /* the keys met, for the duplicates (sorted afterwards): O(groups per rank) */
    uint64_t n, cap;
} check_arg;

static rdmo_verdict check_entry(rdmo_verdict v, const rdmo_entry *e, void *arg)
{
    check_arg *c = arg;
    const agg_gen *g = c->x->g;
    const uint64_t q = agg_group_of_key(g, e->key);
    uint64_t count, sum;
    if (q == UINT64_MAX || agg_owner(e->key, g->ranks) != c->x->rank) {
        snprintf(v.why, sizeof v.why, "rank %d holds key %u, which %s", c->x->rank, e->key,
                 q == UINT64_MAX ? "no group has" : "another rank owns");
        v.pass = false;
        return v;
    }
    if (c->n < c->cap) c->keys[c->n++] = e->key;
    agg_expected(g, q, &count, &sum);
    if (e->a != count || e->b != sum) {
        snprintf(v.why, sizeof v.why, "key %u counts %" PRIu64 " tuples summing to %" PRIu64 "; the generator says %" PRIu64
                 " summing to %" PRIu64, e->key, e->a, e->b, count, sum);
        v.pass = false;
    }
    return v;
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

rdmo_verdict agg_check_table(const agg_run *x, const unsigned char *table, const agg_table_shape *s, uint64_t *entries)
{
    check_arg c = {x, malloc((size_t)s->entries * sizeof(uint32_t) + 4), 0, s->entries};
    rdmo_verdict v = {false, 0, "out of memory for the check"};
    if (c.keys) v = rdmo_check_walk_table(table, s->buckets, s->entries, check_entry, &c);
    *entries = v.checked;
    if (v.pass) {
        qsort(c.keys, (size_t)c.n, sizeof *c.keys, cmp_u32);
        for (uint64_t i = 1; i < c.n && v.pass; i++)
            if (c.keys[i] == c.keys[i - 1]) {
                snprintf(v.why, sizeof v.why, "rank %d holds key %u twice", x->rank, c.keys[i]);
                v.pass = false;
            }
    }
    free(c.keys);
    return v;
}
