/* The workload generator (joins/generate.h), property by property: unique dense R keys; R and S
 * record ids disjoint; S's order a permutation of its own that does not line partners up with
 * positions or ranks (about (P-1)/P of each rank's S tuples have their partner on another rank);
 * partners per R tuple, Zipf frequencies, selectivity; independence from the rank count; a checksum
 * that changes when record ids are swapped or shifted, a key is wrong, a pair is dropped, repeated
 * or paired with another's partner; and the expected count/checksum equal to a brute-force join. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "joins/generate.h"

#define SEED 7

/* Generate all ranks' slices of one relation (rel 0 = R, 1 = S) into one array; the expected
 * matches and checksum summed over the ranks. */
static tuple_t *gen_all(uint64_t r_total, int ratio, double sel, double skew, int ranks, bool uneven, int rel,
                        uint64_t *n_out, uint64_t *exp_m, uint64_t *exp_c)
{
    workload w;
    workload_init(&w, r_total, ratio, sel, skew, SEED, 0, 1, false);
    uint64_t total = rel == 0 ? w.r_total : w.s_total;
    tuple_t *all = malloc(total * sizeof(tuple_t));
    *exp_m = *exp_c = 0;
    for (int k = 0; k < ranks; k++) {
        workload_init(&w, r_total, ratio, sel, skew, SEED, k, ranks, uneven);
        uint64_t m, c, fused[2];
        if (rel == 0) { /* generated a block at a time: each as the permutation gives it alone */
            generate_r(&w, all + w.r_off);
            for (uint64_t i = 0; i < w.r_n; i++) CHECK(all[w.r_off + i].key == workload_perm(&w, w.r_off + i) + 1);
        } else { /* the one-pass S with its expected values: the same tuples and the same sums */
            generate_s_expected(&w, all + w.s_off, fused);
            tuple_t *again = malloc((w.s_n ? w.s_n : 1) * sizeof(tuple_t));
            generate_s(&w, again);
            CHECK(memcmp(again, all + w.s_off, w.s_n * sizeof(tuple_t)) == 0);
            free(again);
        }
        workload_expected(&w, &m, &c);
        if (rel == 1) CHECK(fused[0] == m && fused[1] == c);
        *exp_m += m;
        *exp_c += c;
    }
    *n_out = total;
    return all;
}

/* A matched pair as the brute-force join found it. */
typedef struct {
    uint64_t r_rid, s_rid, key;
} pair_t;

/* Brute force: every S tuple against every R tuple; returns the pairs (*np of them). */
static pair_t *brute_force_join(const tuple_t *r, uint64_t nr, const tuple_t *s, uint64_t ns, uint64_t *np)
{
    uint64_t cap = ns + 1, n = 0;
    pair_t *p = malloc(cap * sizeof *p);
    for (uint64_t j = 0; j < ns; j++)
        for (uint64_t i = 0; i < nr; i++)
            if (r[i].key == s[j].key) {
                if (n == cap) p = realloc(p, (cap *= 2) * sizeof *p);
                p[n++] = (pair_t){r[i].rid, s[j].rid, r[i].key};
            }
    *np = n;
    return p;
}

/* Checksum of pairs, each pair's fields as given by `how`: the right one and the wrong joins'. */
enum { SUM_RIGHT, SUM_SWAPPED, SUM_KEY_PLUS_1, SUM_KEY_XOR_TOP, SUM_S_RID_PLUS_1, SUM_DROP_FIRST, SUM_DUP_LAST };
static uint64_t sum_pairs(const pair_t *p, uint64_t n, int how)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = p[i].r_rid, s = p[i].s_rid, k = p[i].key;
        if (how == SUM_SWAPPED) c += match_term(s, r, k);
        else if (how == SUM_KEY_PLUS_1) c += match_term(r, s, k + 1);
        else if (how == SUM_KEY_XOR_TOP) c += match_term(r, s, k ^ (UINT64_C(1) << 40));
        else if (how == SUM_S_RID_PLUS_1) c += match_term(r, s + 1, k);
        else if (how == SUM_DROP_FIRST && i == 0) continue;
        else c += match_term(r, s, k);
    }
    if (how == SUM_DUP_LAST && n) c += match_term(p[n - 1].r_rid, p[n - 1].s_rid, p[n - 1].key);
    return c;
}

static void check_case(uint64_t r_total, int ratio, double sel, double skew, int ranks, bool uneven)
{
    uint64_t nr, ns, em, ec, dm, dc;
    tuple_t *r = gen_all(r_total, ratio, sel, skew, ranks, uneven, 0, &nr, &dm, &dc);
    tuple_t *s = gen_all(r_total, ratio, sel, skew, ranks, uneven, 1, &ns, &em, &ec);
    CHECK_EQ_U64(nr, r_total);
    CHECK_EQ_U64(ns, r_total * (uint64_t)ratio);
    /* record ids: R's are [0, |R|), S's [|R|, |R| + |S|), both in global position order */
    for (uint64_t i = 0; i < nr; i++) CHECK(r[i].rid == i);
    for (uint64_t g = 0; g < ns; g++) CHECK(s[g].rid == nr + g);
    /* R keys unique and dense in [1, |R|] */
    unsigned char *hit = calloc(nr + 1, 1);
    for (uint64_t i = 0; i < nr; i++) {
        CHECK(r[i].key >= 1 && r[i].key <= nr && !hit[r[i].key]);
        if (r[i].key >= 1 && r[i].key <= nr) hit[r[i].key] = 1;
    }
    free(hit);
    uint64_t np;
    pair_t *p = brute_force_join(r, nr, s, ns, &np);
    CHECK_EQ_U64(np, em);
    CHECK_EQ_U64(sum_pairs(p, np, SUM_RIGHT), ec);
    if (sel >= 1.0) CHECK_EQ_U64(em, ns);
    /* the wrong joins' checksums differ from the right one */
    if (np > 0)
        for (int how = SUM_SWAPPED; how <= SUM_DUP_LAST; how++) CHECK(sum_pairs(p, np, how) != ec);
    free(p);
    free(r);
    free(s);
}

/* S's order is a bijection on [0, |S|) and not the identity. */
static void check_s_order(uint64_t r_total, int ratio)
{
    workload w;
    workload_init(&w, r_total, ratio, 1.0, 0, SEED, 0, 1, false);
    unsigned char *hit = calloc(w.s_total, 1);
    uint64_t fixed = 0;
    for (uint64_t g = 0; g < w.s_total; g++) {
        uint64_t t = workload_s_tuple(&w, g);
        CHECK(t < w.s_total && !hit[t]);
        if (t < w.s_total) hit[t] = 1;
        fixed += t == g;
    }
    if (w.s_total >= 1000) CHECK(fixed * 100 <= w.s_total); /* a random permutation fixes ~1 point */
    free(hit);
}

/* Fraction of each rank's S tuples whose partner R tuple lives on another rank: (P-1)/P within
 * 0.03 on every rank (binomial: several standard deviations at these sizes); and partners hardly
 * ever at S's own position (the old generator's S was R's copy: all of them). */
static void check_remote_fraction(uint64_t r_total, int ratio, int P)
{
    uint64_t aligned = 0;
    for (int k = 0; k < P; k++) {
        workload w;
        workload_init(&w, r_total, ratio, 1.0, 0, SEED, k, P, false);
        uint64_t remote = 0;
        for (uint64_t i = 0; i < w.s_n; i++) {
            uint64_t g = w.s_off + i, j = workload_partner(&w, workload_s_tuple(&w, g));
            aligned += j == g % r_total;
            /* R is range-partitioned: j lives on rank k iff it is in rank k's slice */
            remote += !(j >= w.r_off && j < w.r_off + w.r_n);
        }
        double frac = (double)remote / (double)w.s_n, want = (double)(P - 1) / P;
        if (fabs(frac - want) >= 0.03) fprintf(stderr, "P=%d rank %d: remote fraction %.4f, want %.4f\n", P, k, frac, want);
        CHECK(fabs(frac - want) < 0.03);
    }
    CHECK(aligned * 100 <= r_total * (uint64_t)ratio);
}

/* A join that pairs two R tuples with each other's S partners (a wrong join keeping the count)
 * changes the checksum: the mix is not linear. Random pairs of the default workload. */
static void check_exchange(void)
{
    const uint64_t n = 100000;
    workload w;
    workload_init(&w, n, 1, 1.0, 0, SEED, 0, 1, false);
    unsigned long long state = 88172645463325252ull;
    uint64_t collisions = 0;
    for (int trial = 0; trial < 100000; trial++) {
        uint64_t ga = check_rand(&state) % n, gb = check_rand(&state) % n;
        if (ga == gb) continue;
        uint64_t ja = workload_partner(&w, workload_s_tuple(&w, ga)), jb = workload_partner(&w, workload_s_tuple(&w, gb));
        uint64_t ka = workload_perm(&w, ja) + 1, kb = workload_perm(&w, jb) + 1;
        uint64_t sa = workload_rid_first(&w, 1) + ga, sb = workload_rid_first(&w, 1) + gb;
        uint64_t right = match_term(ja, sa, ka) + match_term(jb, sb, kb);
        collisions += right == match_term(ja, sb, ka) + match_term(jb, sa, kb);
        collisions += right == match_term(ja, sb, kb) + match_term(jb, sa, ka);
    }
    CHECK_EQ_U64(collisions, 0);
}

int main(void)
{
    /* brute-force joins: 1:1, 1:4 at several rank counts, uneven and tiny slices, selectivity, skew */
    check_case(1000, 1, 1.0, 0, 1, false);
    check_case(500, 4, 1.0, 0, 3, false);
    check_case(997, 2, 1.0, 0, 4, true);
    check_case(5, 1, 1.0, 0, 4, false);
    check_case(2000, 1, 0.5, 0, 2, false);
    check_case(500, 4, 0.5, 0, 3, false);
    check_case(1000, 1, 1.0, 1.2, 2, false);
    check_case(500, 4, 0.5, 1.2, 3, false);
    check_case(1500, 1, 0.3, 1.05, 2, true);

    /* S's order */
    check_s_order(1000, 1);
    check_s_order(4097, 4);
    check_s_order(3, 1);
    for (int P = 2; P <= 8; P *= 2) {
        check_remote_fraction(40000, 1, P);
        check_remote_fraction(10000, 4, P);
    }
    check_exchange();

    /* every R tuple has exactly `ratio` partners among S's slots when skew = 0 and selectivity = 1 */
    {
        workload w;
        workload_init(&w, 5000, 4, 1.0, 0, SEED, 0, 1, false);
        unsigned *deg = calloc(w.r_total, sizeof *deg);
        for (uint64_t g = 0; g < w.s_total; g++) deg[workload_partner(&w, workload_s_tuple(&w, g))]++;
        for (uint64_t j = 0; j < w.r_total; j++) CHECK(deg[j] == 4);
        free(deg);
    }
    /* selectivity: fraction of matching S tuples within 1% of the target */
    {
        workload w;
        workload_init(&w, 200000, 1, 0.5, 0, SEED, 0, 1, false);
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
    /* the data and the expected result do not depend on the number of ranks that generate them */
    for (int rel = 0; rel < 2; rel++) {
        uint64_t n1, n3, m1, c1, m3, c3;
        tuple_t *a = gen_all(3000, 2, 0.7, 1.1, 1, false, rel, &n1, &m1, &c1);
        tuple_t *b = gen_all(3000, 2, 0.7, 1.1, 3, true, rel, &n3, &m3, &c3);
        CHECK(n1 == n3 && memcmp(a, b, n1 * sizeof *a) == 0);
        CHECK(m1 == m3 && c1 == c3);
        free(a);
        free(b);
    }
    /* every kernel of the array permutations the CPU has (scalar, AVX2, AVX-512) gives every tuple
     * as the permutations give it one at a time: R's keys, and S's keys through its own permutation,
     * the partner and R's; sizes around the block and domains of 2 to 34 bits (walks of every length) */
    {
        static const uint64_t sizes[] = {1, 2, 3, 5, 1023, 1024, 1025, 3000, 70001, (1ull << 16) + 1};
        int paths = 0;
        for (int simd = PERM_SIMD_SCALAR; simd <= PERM_SIMD_AVX512; simd++) {
            if (!keyed_perm_simd_available(simd)) continue;
            paths++;
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                workload w;
                workload_init(&w, sizes[k], 2, 0.8, k & 1 ? 1.05 : 0, SEED + k, 0, 1, false);
                w.perm_r.simd = w.perm_s.simd = simd;
                tuple_t *r = malloc(w.r_n * sizeof *r), *t = malloc(w.s_n * sizeof *t);
                generate_r(&w, r);
                generate_s(&w, t);
                uint64_t bad = 0;
                for (uint64_t i = 0; i < w.r_n; i++) bad += r[i].key != workload_perm(&w, i) + 1 || r[i].rid != i;
                for (uint64_t g = 0; g < w.s_n; g++) {
                    const uint64_t j = workload_partner(&w, workload_s_tuple(&w, g));
                    bad += j != UINT64_MAX ? t[g].key != workload_perm(&w, j) + 1 : t[g].key <= w.r_total;
                }
                CHECK(bad == 0);
                free(r);
                free(t);
            }
            /* a domain of 34 bits (|R| just over 2^33): the last rank's slice of 2^22 ranks, its far end */
            enum { FAR = 4096 };
            workload w;
            workload_init(&w, (1ull << 33) + 3, 1, 1.0, 0, SEED, (1 << 22) - 1, 1 << 22, false);
            w.perm_r.simd = simd;
            tuple_t far[FAR];
            CHECK(w.r_n <= FAR && w.r_off + w.r_n == w.r_total);
            generate_r(&w, far);
            uint64_t bad = 0;
            for (uint64_t i = 0; i < w.r_n; i++) bad += far[i].key != workload_perm(&w, w.r_off + i) + 1;
            CHECK(bad == 0);
        }
        CHECK(paths >= 1);
        printf("generator: %d kernel(s) of the array permutations checked\n", paths);
    }
    /* the seed decides S's order too */
    {
        workload w1, w2;
        workload_init(&w1, 1000, 1, 1.0, 0, 1, 0, 1, false);
        workload_init(&w2, 1000, 1, 1.0, 0, 2, 0, 1, false);
        uint64_t same = 0;
        for (uint64_t g = 0; g < 1000; g++) same += workload_s_tuple(&w1, g) == workload_s_tuple(&w2, g);
        CHECK(same < 20);
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
