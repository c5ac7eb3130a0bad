/* The workload generator: unique R keys, partners per R tuple, Zipf frequencies, selectivity,
 * independence from the rank count, and the expected count/checksum checked a second way by a
 * reference join (sort both relations, merge). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "joins/generate.h"

static int cmp_key(const void *a, const void *b)
{
    const tuple_t *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* Generate all ranks' slices into one array. */
static tuple_t *gen_all(uint64_t r_total, int ratio, double sel, double skew, int ranks, bool uneven, int rel,
                        uint64_t *n_out, uint64_t *exp_m, uint64_t *exp_c)
{
    workload w;
    workload_init(&w, r_total, ratio, sel, skew, 7, 0, 1, false);
    uint64_t total = rel == 0 ? w.r_total : w.s_total;
    tuple_t *all = malloc(total * sizeof(tuple_t));
    *exp_m = *exp_c = 0;
    for (int k = 0; k < ranks; k++) {
        workload_init(&w, r_total, ratio, sel, skew, 7, k, ranks, uneven);
        uint64_t m, c;
        if (rel == 0) generate_r(&w, all + w.r_off);
        else generate_s(&w, all + w.s_off);
        workload_expected(&w, &m, &c);
        *exp_m += m;
        *exp_c += c;
    }
    *n_out = total;
    return all;
}

/* Reference join: sort-merge over full copies; counts pairs and sums match_term. */
static void reference_join(tuple_t *r, uint64_t nr, tuple_t *s, uint64_t ns, uint64_t *m, uint64_t *c)
{
    qsort(r, nr, sizeof *r, cmp_key);
    qsort(s, ns, sizeof *s, cmp_key);
    uint64_t i = 0, j = 0;
    *m = *c = 0;
    while (i < nr && j < ns) {
        if (r[i].key < s[j].key) i++;
        else if (r[i].key > s[j].key) j++;
        else {
            uint64_t i2 = i;
            while (i2 < nr && r[i2].key == s[j].key) {
                (*m)++;
                *c += match_term(r[i2].rid, s[j].rid);
                i2++;
            }
            j++;
        }
    }
}

static void check_case(uint64_t r_total, int ratio, double sel, double skew, int ranks, bool uneven)
{
    uint64_t nr, ns, em, ec, dm, dc;
    tuple_t *r = gen_all(r_total, ratio, sel, skew, ranks, uneven, 0, &nr, &dm, &dc);
    tuple_t *s = gen_all(r_total, ratio, sel, skew, ranks, uneven, 1, &ns, &em, &ec);
    CHECK_EQ_U64(nr, r_total);
    CHECK_EQ_U64(ns, r_total * (uint64_t)ratio);
    /* rids are the global indices: range-partitioned over ranks */
    for (uint64_t i = 0; i < nr; i++) CHECK(r[i].rid == i);
    uint64_t m, c;
    reference_join(r, nr, s, ns, &m, &c);
    CHECK_EQ_U64(m, em);
    CHECK_EQ_U64(c, ec);
    /* R keys unique and dense in [1, |R|] (sorted by the reference join) */
    for (uint64_t i = 0; i < nr; i++) CHECK(r[i].key == i + 1);
    if (sel >= 1.0) CHECK_EQ_U64(em, ns);
    free(r);
    free(s);
}

int main(void)
{
    /* 1:1, 1:4 at several rank counts, uneven and tiny slices, selectivity, skew */
    check_case(1000, 1, 1.0, 0, 1, false);
    check_case(1000, 4, 1.0, 0, 3, false);
    check_case(997, 2, 1.0, 0, 4, true);
    check_case(5, 1, 1.0, 0, 4, false);
    check_case(20000, 1, 0.5, 0, 2, false);
    check_case(20000, 2, 1.0, 1.2, 3, false);
    check_case(20000, 1, 0.3, 1.05, 2, true);

    /* every R tuple has exactly `ratio` partners when skew = 0 and selectivity = 1 */
    {
        workload w;
        workload_init(&w, 5000, 4, 1.0, 0, 7, 0, 1, false);
        unsigned *deg = calloc(w.r_total, sizeof *deg);
        for (uint64_t g = 0; g < w.s_total; g++) deg[workload_partner(&w, g)]++;
        for (uint64_t j = 0; j < w.r_total; j++) CHECK(deg[j] == 4);
        free(deg);
    }
    /* selectivity: fraction of matching S tuples within 1% of the target */
    {
        workload w;
        workload_init(&w, 200000, 1, 0.5, 0, 7, 0, 1, false);
        uint64_t m, c;
        workload_expected(&w, &m, &c);
        CHECK(fabs((double)m / (double)w.s_total - 0.5) < 0.01);
    }
    /* Zipf: frequency of the k most popular R tuples within 5% (relative) of 1/(k^s H(n,s)) */
    for (int t = 0; t < 2; t++) {
        double s = t ? 1.2 : 1.05;
        const uint64_t n = 10000, draws = 2000000;
        workload w;
        workload_init(&w, n, 200, 1.0, s, 11, 0, 1, false);
        uint64_t *freq = calloc(n, sizeof *freq);
        for (uint64_t g = 0; g < draws; g++) freq[workload_partner(&w, g)]++;
        double h = 0;
        for (uint64_t k = 1; k <= n; k++) h += pow((double)k, -s);
        for (uint64_t k = 1; k <= 5; k++) {
            double expect = pow((double)k, -s) / h, got = (double)freq[k - 1] / (double)draws;
            CHECK(fabs(got - expect) / expect < 0.05);
        }
        free(freq);
    }
    /* the data do not depend on the number of ranks that generate them */
    {
        uint64_t n1, n3, m, c;
        tuple_t *a = gen_all(3000, 2, 0.7, 1.1, 1, false, 1, &n1, &m, &c);
        tuple_t *b = gen_all(3000, 2, 0.7, 1.1, 3, true, 1, &n3, &m, &c);
        CHECK(n1 == n3 && memcmp(a, b, n1 * sizeof *a) == 0);
        free(a);
        free(b);
    }
    /* uneven slices cover [0, total) in order and rank 0 holds the least */
    {
        uint64_t next = 0, off, n, first = 0;
        for (int k = 0; k < 4; k++) {
            workload_slice(1000, k, 4, true, &off, &n);
            CHECK(off == next);
            next = off + n;
            if (k == 0) first = n;
            else CHECK(n > first);
        }
        CHECK(next == 1000);
    }
    CHECK(bits_for(1) == 1 && bits_for(255) == 8 && bits_for(256) == 9);
    CHECK_DONE();
}
