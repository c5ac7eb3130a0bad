/* Build + probe of one partition against a nested-loop reference: duplicate R keys, S keys with
 * several partners, keys without partners, empty sides, packed and plain items (packed: keys
 * without the partition's bits, rids as offsets from each relation's first), distinct R keys (the
 * one-item buckets, and the chained table where their hashes collide), and a partition larger
 * than any cache (correct, just slower). */
#include <stdlib.h>

#include "tests/check.h"
#include "joins/generate.h"
#include "joins/radix/radix_kernels.h"

static unsigned long long rng = 2463534242ull;
/* the probe under test: 0 scalar, 1 AVX-512 (packed items; main runs every case with each this CPU has) */
static int use_simd;
static uint64_t next_rand(void) { return check_rand(&rng); }

static void reference(const tuple_t *r, uint64_t rn, const tuple_t *s, uint64_t sn, uint64_t *m, uint64_t *c)
{
    *m = *c = 0;
    for (uint64_t j = 0; j < sn; j++)
        for (uint64_t i = 0; i < rn; i++)
            if (r[i].key == s[j].key) {
                (*m)++;
                *c += match_term(r[i].rid, s[j].rid, r[i].key);
            }
}

/* keys drawn from [0, key_range) so that duplicates and misses both occur */
static void one_case(uint64_t rn, uint64_t sn, uint64_t key_range, int hash_bits_used)
{
    const int radix_bits = 2, rid_bits = 24;
    const uint64_t r_base = 5000, s_base = 1000000; /* disjoint rid ranges, as in the generator */
    tuple_t *r = malloc((rn + 1) * sizeof *r), *s = malloc((sn + 1) * sizeof *s);
    uint64_t *rp = malloc((rn + 1) * 8), *sp = malloc((sn + 1) * 8);
    /* all keys of one network partition (low radix bits = 1) */
    for (uint64_t i = 0; i < rn; i++) r[i] = (tuple_t){(next_rand() % key_range) << radix_bits | 1, r_base + i};
    for (uint64_t j = 0; j < sn; j++) s[j] = (tuple_t){(next_rand() % (2 * key_range)) << radix_bits | 1, s_base + j};
    for (uint64_t i = 0; i < rn; i++) rp[i] = radix_pack(r[i].key, r[i].rid - r_base, radix_bits, rid_bits);
    for (uint64_t j = 0; j < sn; j++) sp[j] = radix_pack(s[j].key, s[j].rid - s_base, radix_bits, rid_bits);
    uint64_t em, ec;
    reference(r, rn, s, sn, &em, &ec);
    radix_table t = {0};
    CHECK(radix_table_reserve(&t, rn) == 0);
    t.simd = use_simd;
    radix_format packed = {1, radix_bits, rid_bits, {r_base, s_base}}, plain = {2, radix_bits, 64, {0, 0}};
    uint64_t m = 0, c = 0;
    radix_build_probe(rp, rn, sp, sn, &packed, 1, radix_key_shift(&packed, radix_bits + hash_bits_used), &t, &m, &c);
    CHECK_EQ_U64(m, em);
    CHECK_EQ_U64(c, ec);
    m = c = 0;
    radix_build_probe((const uint64_t *)r, rn, (const uint64_t *)s, sn, &plain, 1,
                      radix_key_shift(&plain, radix_bits + hash_bits_used), &t, &m, &c);
    CHECK_EQ_U64(m, em);
    CHECK_EQ_U64(c, ec);
    radix_table_free(&t);
    free(r), free(s), free(rp), free(sp);
}

/* Distinct R keys (a permutation of [0, rn)), S keys from [0, 2 rn): the one-item buckets where
 * the hash bits tell the keys apart (hash_bits_used 0), the chained table where they do not (> 0:
 * keys that differ only below the hash share a bucket); misses, 1:N and a tail below a vector. */
static void distinct_case(uint64_t rn, uint64_t sn, int hash_bits_used)
{
    const int radix_bits = 3, rid_bits = 22;
    const uint64_t r_base = 77, s_base = 3000000;
    tuple_t *r = malloc((rn + 1) * sizeof *r), *s = malloc((sn + 1) * sizeof *s);
    uint64_t *rp = malloc((rn + 1) * 8), *sp = malloc((sn + 1) * 8);
    for (uint64_t i = 0; i < rn; i++) r[i] = (tuple_t){i << radix_bits | 5, r_base + i};
    for (uint64_t i = rn; i > 1; i--) { /* Fisher-Yates: build order is not key order */
        const uint64_t k = next_rand() % i;
        const uint64_t key = r[i - 1].key;
        r[i - 1].key = r[k].key, r[k].key = key;
    }
    for (uint64_t j = 0; j < sn; j++) s[j] = (tuple_t){(next_rand() % (2 * rn)) << radix_bits | 5, s_base + j};
    for (uint64_t i = 0; i < rn; i++) rp[i] = radix_pack(r[i].key, r[i].rid - r_base, radix_bits, rid_bits);
    for (uint64_t j = 0; j < sn; j++) sp[j] = radix_pack(s[j].key, s[j].rid - s_base, radix_bits, rid_bits);
    uint64_t em, ec, m = 0, c = 0;
    reference(r, rn, s, sn, &em, &ec);
    radix_table t = {0};
    CHECK(radix_table_reserve(&t, rn) == 0);
    t.simd = use_simd;
    radix_format packed = {1, radix_bits, rid_bits, {r_base, s_base}};
    radix_build_probe(rp, rn, sp, sn, &packed, 5, radix_key_shift(&packed, radix_bits + hash_bits_used), &t, &m, &c);
    CHECK_EQ_U64(m, em);
    CHECK_EQ_U64(c, ec);
    /* the same table again, reused for another leaf of other sizes (as the leaves of a partition) */
    m = c = 0;
    radix_build_probe(rp, rn / 2, sp, sn, &packed, 5, radix_key_shift(&packed, radix_bits + hash_bits_used), &t, &m, &c);
    reference(r, rn / 2, s, sn, &em, &ec);
    CHECK_EQ_U64(m, em);
    CHECK_EQ_U64(c, ec);
    radix_table_free(&t);
    free(r), free(s), free(rp), free(sp);
}

static void all_cases(void)
{
    distinct_case(2, 5, 0);        /* two buckets, S beyond them */
    distinct_case(1000, 3000, 0);  /* one-item buckets, half the S items miss */
    distinct_case(4096, 4099, 0);  /* a power of two: every bucket full, then a tail of 3 */
    distinct_case(1000, 3000, 2);  /* distinct keys whose hashes collide: the chained table */
    distinct_case(3, 40, 1);
    one_case(0, 10, 5, 0);
    one_case(10, 0, 5, 0);
    one_case(1, 1, 1, 0);
    one_case(100, 300, 1000, 0);   /* mostly misses */
    one_case(100, 300, 20, 0);     /* many duplicates on both sides: n:m */
    one_case(1000, 4000, 1500, 3); /* hash on higher bits */
    one_case(2000, 2000, 3000, 60);/* shift beyond the key: every item in one bucket, still exact */
    /* a large partition (beyond L2) and 1:N probes: unique R keys, S = 4 copies each + misses */
    {
        const uint64_t rn = 200000;
        radix_format f = {1, 0, 20, {0, rn}}; /* S's rids start after R's */
        uint64_t *r = malloc(rn * 8), *s = malloc(5 * rn * 8);
        for (uint64_t i = 0; i < rn; i++) r[i] = radix_pack(i + 1, i, 0, 20);
        uint64_t sn = 0, ec = 0;
        for (uint64_t i = 0; i < rn; i++)
            for (int k = 0; k < 4; k++) {
                s[sn] = radix_pack(i + 1, sn, 0, 20);
                ec += match_term(i, rn + sn, i + 1);
                sn++;
            }
        for (uint64_t i = 0; i < rn; i++, sn++) s[sn] = radix_pack(rn + 1 + i, sn, 0, 20);
        radix_table t = {0};
        CHECK(radix_table_reserve(&t, rn) == 0);
        t.simd = use_simd;
        uint64_t m = 0, c = 0;
        radix_build_probe(r, rn, s, sn, &f, 0, radix_key_shift(&f, 0), &t, &m, &c);
        CHECK_EQ_U64(m, 4 * rn);
        CHECK_EQ_U64(c, ec);
        radix_table_free(&t);
        free(r), free(s);
    }
    one_case(7, 15, 4, 0);        /* fewer S items than a vector, then one vector and 7 more */
    one_case(64, 800, 16, 2);     /* long chains: 4 R items a key, 16 keys a bucket */
}

int main(void)
{
    for (use_simd = 0; use_simd <= radix_avx512_available(); use_simd++) {
        printf("probe: %s\n", use_simd ? "AVX-512" : "scalar");
        all_cases();
    }
    CHECK_DONE();
}
