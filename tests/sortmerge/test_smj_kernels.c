/* Unit tests of the sort-merge join's kernels: in-cache sort vs qsort (every SIMD path this CPU
 * runs, plus scalar; packed values below 2^63 and values using all 64 bits), the radix run sort
 * against a stable sort by key, 2-way and multi-way
 * merge, merge passes, matching scan vs nested loops, splitter choice and clamping, and the wide
 * (16-byte) format's sort, merge and match. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "joins/generate.h"
#include "joins/sortmerge/smj_bands.h"
#include "joins/sortmerge/smj_kernels.h"

static uint64_t rng_state = 12345;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* HIGH and TOP use bit 63 (the packed format may, smj_format.h): random words, words around 2^63,
 * and the largest packed word there can be, UINT64_MAX - 1, beside the merges' padding. */
enum { RANDOM, SORTED, REVERSE, ALL_EQUAL, FEW_KEYS, HIGH, TOP, PATTERNS };
static const char *pattern_name[] = {"random", "sorted", "reverse", "all-equal", "few-keys", "high", "top"};

static void fill(uint64_t *v, size_t n, int pattern)
{
    for (size_t i = 0; i < n; i++) {
        switch (pattern) {
        case RANDOM: v[i] = rnd() >> 1; break; /* below 2^63: the plain kernels */
        case SORTED: v[i] = i * 3; break;
        case REVERSE: v[i] = (uint64_t)(n - i) * 5; break;
        case ALL_EQUAL: v[i] = 0x7FFFFFFFFFFFFFFFull; break;
        case HIGH: v[i] = i % 3 ? rnd() : (1ull << 63) + rnd() % 64 - 32; break;
        case TOP: v[i] = i % 2 ? UINT64_MAX - 1 : rnd() >> 1; break;
        default: v[i] = rnd() % 5; break;
        }
        if (v[i] == UINT64_MAX) v[i]--; /* never a packed word */
    }
}

static int simd_paths[3], nsimd;

/* The kernel set the join picks for a pattern's values (smj_simd_for_values). */
static int kernels(int si, int pattern) { return smj_simd_for_values(simd_paths[si], pattern >= HIGH); }

static void test_sort(void)
{
    const size_t sizes[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 63, 64, 65, 127, 1001, 4097, 65536 + 13};
    for (int si = 0; si < nsimd; si++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
            for (int p = 0; p < PATTERNS; p++) {
                size_t n = sizes[z];
                uint64_t *src = malloc((n + 1) * 8), *ref = malloc((n + 1) * 8), *dst = malloc((n + 1) * 8),
                         *tmp = malloc((n + 1) * 8);
                fill(src, n, p);
                memcpy(ref, src, n * 8);
                qsort(ref, n, 8, cmp_u64);
                smj_sort_run(src, n, dst, tmp, kernels(si, p));
                int ok = memcmp(dst, ref, n * 8) == 0;
                /* in place (src == dst), as for runs sorted straight into the own window */
                smj_sort_run(src, n, src, tmp, kernels(si, p));
                ok &= memcmp(src, ref, n * 8) == 0;
                if (!ok) fprintf(stderr, "sort %s n=%zu %s wrong\n", smj_simd_name(simd_paths[si]), n, pattern_name[p]);
                CHECK(ok);
                free(src);
                free(ref);
                free(dst);
                free(tmp);
            }
}

/* (key, input position) of a packed word, for the radix sort's stable reference */
typedef struct {
    uint64_t key, at, v;
} keyed;
static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    return x->key != y->key ? (x->key > y->key) - (x->key < y->key) : (x->at > y->at) - (x->at < y->at);
}

/* The radix run sort: keys of 0-27 bits above rid_bits, record ids ascending (as the partition
 * leaves them: the result must equal qsort's) and descending (it must equal a stable sort by key,
 * equal keys in input order); 1 pass up to 13 key bits, 2 up to 26, beyond -1 and dst untouched. */
static void test_radix_sort(void)
{
    const size_t sizes[] = {0, 1, 2, 17, 1001, 32768 + 5};
    const int key_bits[] = {0, 1, 7, 13, 14, 20, 26, 27}, rid_bits[] = {17, 37};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
        for (size_t kb = 0; kb < sizeof key_bits / sizeof *key_bits; kb++)
            for (size_t rb = 0; rb < 2; rb++)
                for (int descending = 0; descending < 2; descending++) {
                    const size_t n = sizes[z];
                    const int bits = key_bits[kb], shift = rid_bits[rb];
                    uint64_t *src = malloc((n + 1) * 8), *dst = malloc((n + 1) * 8), *tmp = malloc((n + 1) * 8);
                    keyed *ref = malloc((n + 1) * sizeof *ref);
                    for (size_t i = 0; i < n; i++) {
                        /* the top key bit set in the first word, so that the keys span exactly `bits` */
                        uint64_t key = bits ? rnd() >> (64 - bits) | (i == 0 ? UINT64_C(1) << (bits - 1) : 0) : 0;
                        if (i % 7 == 3) key = ref[i / 2].key; /* equal keys */
                        src[i] = key << shift | (descending ? n - i : i);
                        ref[i] = (keyed){key, i, src[i]};
                    }
                    qsort(ref, n, sizeof *ref, cmp_keyed);
                    for (size_t i = 0; i < n; i++) dst[i] = 0xAA;
                    const int want = n == 0 || bits <= SMJ_RADIX_DIGIT_BITS ? 1 : bits <= 2 * SMJ_RADIX_DIGIT_BITS ? 2 : -1;
                    const int passes = smj_radix_sort_run(src, n, dst, tmp, shift);
                    int ok = passes == want;
                    for (size_t i = 0; i < n; i++) ok &= dst[i] == (passes < 0 ? 0xAA : ref[i].v);
                    if (passes > 0) { /* in place, as for runs sorted straight into the own window */
                        smj_radix_sort_run(src, n, src, tmp, shift);
                        for (size_t i = 0; i < n; i++) ok &= src[i] == ref[i].v;
                    }
                    if (!ok)
                        fprintf(stderr, "radix sort n=%zu key bits %d rid bits %d %s rids: %d passes (want %d), wrong\n", n,
                                bits, shift, descending ? "descending" : "ascending", passes, want);
                    CHECK(ok);
                    free(src);
                    free(dst);
                    free(tmp);
                    free(ref);
                }
    const int pick = smj_run_sort_faster(32768, simd_paths[0]);
    CHECK(pick == SMJ_RUN_SORT_NETWORK || pick == SMJ_RUN_SORT_RADIX);
}

static void test_merge2(void)
{
    const size_t lens[] = {0, 1, 5, 8, 15, 16, 17, 33, 100, 255, 256, 1000, 4099}; /* 256 and up: two chains (AVX-512) */
    const size_t nl = sizeof lens / sizeof *lens;
    for (int si = 0; si < nsimd; si++)
        for (size_t x = 0; x < nl; x++)
            for (size_t y = 0; y < nl; y++) {
                size_t na = lens[x], nb = lens[y];
                uint64_t *a = malloc((na + 1) * 8), *b = malloc((nb + 1) * 8), *out = malloc((na + nb + 1) * 8),
                         *ref = malloc((na + nb + 1) * 8);
                int p = (int)((x + y) % 3 == 0 ? HIGH : (x + y) % 2 ? RANDOM : FEW_KEYS);
                fill(a, na, p);
                fill(b, nb, p);
                qsort(a, na, 8, cmp_u64);
                qsort(b, nb, 8, cmp_u64);
                memcpy(ref, a, na * 8);
                memcpy(ref + na, b, nb * 8);
                qsort(ref, na + nb, 8, cmp_u64);
                smj_merge2(a, na, b, nb, out, kernels(si, p));
                CHECK(memcmp(out, ref, (na + nb) * 8) == 0);
                free(a);
                free(b);
                free(out);
                free(ref);
            }
}

/* k runs of random lengths (some empty), merged through the tree with small buffers. */
static void test_merge_runs(void)
{
    const int fanins[] = {2, 3, 5, 8, 17, 64};
    for (int si = 0; si < nsimd; si++)
        for (size_t f = 0; f < sizeof fanins / sizeof *fanins; f++)
            for (int p = 0; p < 3; p++) {
                const int pattern = p == 0 ? RANDOM : p == 1 ? FEW_KEYS : HIGH;
                int k = fanins[f];
                size_t lens[64], total = 0;
                const uint64_t *runs[64];
                uint64_t *data[64];
                for (int i = 0; i < k; i++) {
                    lens[i] = (i % 4 == 1) ? 0 : rnd() % 3000;
                    total += lens[i];
                    data[i] = malloc((lens[i] + 1) * 8);
                    fill(data[i], lens[i], pattern);
                    qsort(data[i], lens[i], 8, cmp_u64);
                    runs[i] = data[i];
                }
                uint64_t *out = malloc((total + 1) * 8), *ref = malloc((total + 1) * 8);
                size_t pos = 0;
                for (int i = 0; i < k; i++) {
                    memcpy(ref + pos, data[i], lens[i] * 8);
                    pos += lens[i];
                }
                qsort(ref, total, 8, cmp_u64);
                CHECK(smj_merge_runs(runs, lens, k, out, 64, kernels(si, pattern)) == 0);
                int ok = memcmp(out, ref, total * 8) == 0;
                if (!ok) fprintf(stderr, "merge_runs %s k=%d wrong\n", smj_simd_name(simd_paths[si]), k);
                CHECK(ok);
                for (int i = 0; i < k; i++) free(data[i]);
                free(out);
                free(ref);
            }
}

/* 37 or 38 runs at fan-in 4 take ceil(log4 runs) = 3 passes; with 38 the first pass's last group
 * holds two runs (37: one, which a pass merely copies). */
static void test_merge_passes(int runs)
{
    size_t starts[38], lens[38], n = 0;
    for (int i = 0; i < runs; i++) {
        starts[i] = n;
        lens[i] = i == 5 ? 0 : 100 + rnd() % 900;
        n += lens[i];
    }
    uint64_t *data = malloc(n * 8), *scratch = malloc(n * 8), *ref = malloc(n * 8);
    fill(data, n, RANDOM);
    for (int i = 0; i < runs; i++) qsort(data + starts[i], lens[i], 8, cmp_u64);
    memcpy(ref, data, n * 8);
    qsort(ref, n, 8, cmp_u64);
    int passes = -1;
    uint64_t *res = smj_merge_passes(data, scratch, n, starts, lens, runs, 4, smj_simd_resolve(SMJ_SIMD_AUTO), &passes);
    CHECK(res == data || res == scratch);
    CHECK_EQ_U64(passes, 3);
    CHECK(res && memcmp(res, ref, n * 8) == 0);
    /* one run: no pass, the data are already sorted */
    uint64_t *one = smj_merge_passes(ref, scratch, n, starts, &n, 1, 4, SMJ_SIMD_SCALAR, &passes);
    CHECK(one == ref);
    CHECK_EQ_U64(passes, 0);
    free(data);
    free(scratch);
    free(ref);
}

static int cmp_tuple(const void *a, const void *b);
static int same_sorted(const tuple_t *got, const tuple_t *in, size_t n);

/* Key bands as the join lays them out (smj_plan.h): S sources send B bands each, band b's keys in
 * [b * 4096, (b + 1) * 4096), each band piece cut into runs of at most 300, so the runs come source
 * by source in data and band by band in the run list. At fan-in 4 the bands (3 x 1-4 runs; band 4:
 * 3 x 5, which takes 2 passes) take 1 or 2 passes; a band of one run is copied along; the result is the whole
 * sorted array, in band order. With one run per band in band order: no pass, data returned. */
static void test_merge_bands(int wide)
{
    enum { S = 3, B = 5, MAXR = 64 };
    size_t starts[MAXR], lens[MAXR], n = 0, piece[S][B];
    int band_runs[B], runs = 0;
    for (int j = 0; j < S; j++)
        for (int b = 0; b < B; b++) piece[j][b] = b == 2 ? (j == 1 ? 250 : 0) : b == 4 ? 1201 + rnd() % 300 : 300 + rnd() % 700;
    size_t at[S];
    for (int j = 0; j < S; j++) {
        at[j] = n;
        for (int b = 0; b < B; b++) n += piece[j][b];
    }
    uint64_t *data = malloc(n * 16), *scratch = malloc(n * 16), *ref = malloc(n * 16);
    tuple_t *wd = (tuple_t *)(void *)data, *ws = (tuple_t *)(void *)scratch, *wr = (tuple_t *)(void *)ref;
    for (int b = 0; b < B; b++) {
        const int first = runs;
        for (int j = 0; j < S; j++) {
            for (size_t off = 0; off < piece[j][b]; off += 300, runs++) {
                starts[runs] = at[j] + off;
                lens[runs] = piece[j][b] - off < 300 ? piece[j][b] - off : 300;
                for (size_t i = 0; i < lens[runs]; i++) {
                    const uint64_t key = (uint64_t)b * 4096 + rnd() % 4096;
                    if (wide) wd[starts[runs] + i] = (tuple_t){key, rnd()};
                    else data[starts[runs] + i] = key << 20 | (rnd() & 0xFFFFF);
                }
                if (wide) qsort(wd + starts[runs], lens[runs], sizeof *wd, cmp_tuple);
                else qsort(data + starts[runs], lens[runs], 8, cmp_u64);
            }
            at[j] += piece[j][b];
        }
        band_runs[b] = runs - first;
    }
    CHECK(band_runs[2] == 1 && band_runs[4] == 15);
    memcpy(ref, data, n * (wide ? 16 : 8));
    int passes = -1;
    void *res;
    if (wide) {
        qsort(wr, n, sizeof *wr, cmp_tuple);
        res = smj_wide_merge_passes(wd, ws, starts, lens, runs, band_runs, B, 4, &passes);
        CHECK(res && same_sorted(res, wr, n));
    } else {
        qsort(ref, n, 8, cmp_u64);
        res = smj_merge_passes_in(data, scratch, starts, lens, runs, band_runs, B, 4, smj_simd_resolve(SMJ_SIMD_AUTO), &passes,
                                  NULL);
        CHECK(res && memcmp(res, ref, n * 8) == 0);
    }
    CHECK(res == data || res == scratch);
    CHECK_EQ_U64(passes, 2); /* band 4: 15 runs, 4 after one pass, then 1 */
    /* one run per band, in order: already sorted */
    if (!wide) {
        size_t st[B], ln[B], pos = 0;
        int one[B];
        for (int b = 0; b < B; b++) {
            st[b] = pos;
            ln[b] = n / B + (b < (int)(n % B));
            pos += ln[b];
            one[b] = 1;
        }
        res = smj_merge_passes_in(ref, scratch, st, ln, B, one, B, 4, SMJ_SIMD_SCALAR, &passes, NULL);
        CHECK(res == ref);
        CHECK_EQ_U64(passes, 0);
        /* one run per band, but not in band order (two sources' pieces): one pass puts them in order */
        size_t st2[2] = {n - ln[0], 0}, ln2[2] = {ln[0], n - ln[0]};
        int two[2] = {1, 1};
        memcpy(data, ref + ln[0], (n - ln[0]) * 8);
        memcpy(data + (n - ln[0]), ref, ln[0] * 8);
        res = smj_merge_passes_in(data, scratch, st2, ln2, 2, two, 2, 4, SMJ_SIMD_SCALAR, &passes, NULL);
        CHECK(res == scratch && memcmp(res, ref, n * 8) == 0);
        CHECK_EQ_U64(passes, 1);
    }
    free(data);
    free(scratch);
    free(ref);
}

/* Duplicates on both sides, keys only in R, keys only in S, vs nested loops, on every kernel set:
 * N:M keys; unique R keys (a primary key) spread out, dense with S keys at random, with exactly q S
 * tuples each (q = 1..9: the generator's 1:q joins, groups aligned to the vector blocks or not),
 * with a few R keys doubled, and with S groups longer than a vector block. */
enum { MATCH_NM, MATCH_UNIQUE, MATCH_DENSE, MATCH_EXACT, MATCH_FEW_DUPS, MATCH_LONG_GROUPS, MATCH_PATTERNS };

/* --merge-bands auto's arithmetic (smj_bands.h): the levels a band's runs take, the candidates
 * beyond the rule's count, and the cheapest by measured costs, on the figures measured on the Zen 4
 * VM (the scatter cheaper at 2 x 64 parts than at 2 x 16), and where each doubling of the parts costs
 * more than the level it saves. */
static void test_band_pick(void)
{
    /* 2 ranks, 8K tuples per rank, runs of 64 (mpi/sortmerge_bands_auto): pieces of 4K tuples */
    CHECK(smj_band_levels(16384, 2, 64, 16) == 3); /* 4 runs a source, 8 a band */
    CHECK(smj_band_levels(16384, 2, 64, 32) == 2);
    CHECK(smj_band_levels(16384, 2, 64, 64) == 1);
    CHECK(smj_band_levels(16384, 2, 64, 128) == 1); /* a source sends at least one run */
    CHECK(smj_band_levels(0, 2, 64, 16) == 0);
    int c[SMJ_MAX_BAND_CANDIDATES];
    int n = smj_band_candidates(16384, 16384, 2, 64, 16, c);
    CHECK(n == 3 && c[0] == 16 && c[1] == 32 && c[2] == 64);
    /* 2 ranks, 16M (10^6) tuples per rank, runs of 65536: 16, 32, 64 bands leave 4, 3, 2 levels */
    const uint64_t big = 32000000;
    n = smj_band_candidates(big, big, 2, 65536, 16, c);
    CHECK(n == 3 && c[0] == 16 && c[1] == 32 && c[2] == 64);
    CHECK(smj_band_levels(big, 2, 65536, 16) == 4 && smj_band_levels(big, 2, 65536, 64) == 2);
    /* 2^25 tuples: the rule's count is 32 already (16 bands would take 2 passes) */
    n = smj_band_candidates(UINT64_C(32) << 20, UINT64_C(32) << 20, 2, 65536, 16, c);
    CHECK(n == 2 && c[0] == 32 && c[1] == 64);
    /* thesis scale: pieces shorter than a run, one band, and auto measures nothing */
    const uint64_t thesis = (UINT64_C(16) << 20) * 4096;
    n = smj_band_candidates(thesis, thesis, 4096, 65536, 16, c);
    CHECK(n == 1 && c[0] == 1);
    /* a forced count is not auto's business; the rule's count where bands never help */
    n = smj_band_candidates(1000, 1000, 2, 65536, 16, c);
    CHECK(n == 1 && c[0] == 1);

    const int b3[3] = {16, 32, 64};
    const double zen4[3] = {3.15e-9, 3.60e-9, 2.75e-9}, dearer_parts[3] = {2.9e-9, 5.8e-9, 8.7e-9}, flat[3] = {3e-9, 3e-9, 3e-9};
    CHECK(smj_band_cheapest(3, b3, zen4, 0.65e-9, big, big, 2, 65536) == 2);
    CHECK(smj_band_cheapest(3, b3, dearer_parts, 0.80e-9, big, big, 2, 65536) == 0);
    CHECK(smj_band_cheapest(3, b3, flat, 0.65e-9, big, big, 2, 65536) == 2);   /* levels alone decide */
    CHECK(smj_band_cheapest(3, b3, flat, 0, big, big, 2, 65536) == 0);         /* equal costs: the fewer bands */
    /* a dearer scatter pays where the levels it saves cost more */
    const double dearer[3] = {3.0e-9, 3.2e-9, 3.3e-9};
    CHECK(smj_band_cheapest(3, b3, dearer, 0.65e-9, big, big, 2, 65536) == 2); /* 2 levels x 0.65 saved > 0.3 */
    CHECK(smj_band_cheapest(3, b3, dearer, 0.10e-9, big, big, 2, 65536) == 0); /* 2 x 0.10 < 0.3 */
    /* each relation's levels at its own size: S 8 times R, whose merge then decides */
    CHECK(smj_band_cheapest(3, b3, dearer, 0.10e-9, big / 8, big, 2, 65536) == 0);
    CHECK(smj_band_levels(big / 8, 2, 65536, 16) == 1 && smj_band_levels(big / 8, 2, 65536, 64) == 1);

    /* --run-size auto's candidates: twice the L2 run where it saves a level at the most bands */
    uint64_t runs[SMJ_MAX_RUN_CANDIDATES];
    const uint64_t r16m = UINT64_C(32) << 20; /* 2 ranks x 16M: 64 bands of 2 runs -> of 1 */
    CHECK(smj_run_levels(r16m, r16m, 2, 65536, 16, 0) == 2 && smj_run_levels(r16m, r16m, 2, 131072, 16, 0) == 1);
    CHECK(smj_run_candidates(r16m, r16m, 2, 65536, 16, 0, runs) == 2 && runs[0] == 65536 && runs[1] == 131072);
    /* forced bands, the levels at those: 16 bands, 16 runs a band (4 levels) -> 8 (3) */
    CHECK(smj_run_levels(r16m, r16m, 2, 65536, 16, 16) == 4 && smj_run_levels(r16m, r16m, 2, 131072, 16, 16) == 3);
    CHECK(smj_run_candidates(r16m, r16m, 2, 65536, 16, 16, runs) == 2);
    /* 2 x 1000000 tuples: no bands by the rule, 4 levels -> 3 (mpi/sortmerge_run_auto) */
    CHECK(smj_run_candidates(2000000, 2000000, 2, 65536, 16, 0, runs) == 2 && runs[1] == 131072);
    /* 2 x 2^20: 8 bands leave one level already; 2 x 2^22 likewise at 32 */
    CHECK(smj_run_candidates(UINT64_C(2) << 20, UINT64_C(2) << 20, 2, 65536, 16, 0, runs) == 1 && runs[0] == 65536);
    CHECK(smj_run_candidates(UINT64_C(8) << 20, UINT64_C(8) << 20, 2, 65536, 16, 0, runs) == 1);
    /* 4 ranks x 16M: 64 bands leave 2 levels at either run */
    CHECK(smj_run_candidates(UINT64_C(64) << 20, UINT64_C(64) << 20, 4, 65536, 16, 0, runs) == 1);
    /* thesis scale: pieces shorter than a run, and the tests' sizes: one candidate */
    CHECK(smj_run_candidates(thesis, thesis, 4096, 65536, 16, 0, runs) == 1 && runs[0] == 65536);
    CHECK(smj_run_candidates(40000, 40000, 2, 65536, 16, 0, runs) == 1);
}

/* The partition's band parts and packed words (smj_band_words_avx512, range.c's two-step scatter)
 * against the one-tuple reference, and both against what they mean: the target is the range the
 * key lies in (smj_part_of), bands grow with the key inside a range and stay below B, and a word
 * unpacks to the key's offset in its range and the record id's offset. Every target count the
 * kernel takes (1-16 parts, the permute tables' two halves), block sizes around the 8-lane width
 * (the masked tail), and keys on and next to every splitter. */
static void test_band_words(void)
{
    printf("band words: %s\n", smj_band_vec_available() ? "avx512 kernel against the reference" : "reference only (no AVX-512DQ)");
    const int parts[] = {1, 2, 3, 5, 8, 9, 15, 16}, bands[] = {1, 2, 16, 64};
    const size_t sizes[] = {0, 1, 7, 8, 9, 15, 17, 256, 1001};
    enum { N = 1001 };
    static tuple_t t[N];
    static uint64_t part[N + 8], word[N + 8], part_ref[N], word_ref[N];
    int failed = 0;
    for (size_t pi = 0; pi < sizeof parts / sizeof *parts; pi++)
        for (size_t bi = 0; bi < sizeof bands / sizeof *bands; bi++) {
            const int P = parts[pi], B = bands[bi], rid_bits = 20 + (int)(pi % 3) * 5;
            const uint64_t max_key = (UINT64_C(1) << 30) - 3, rid_base = 1000;
            smj_band_vec v = {.parts = P, .lb = 0, .rid_bits = rid_bits, .last = (uint64_t)B - 1};
            while ((1 << v.lb) < B) v.lb++;
            uint64_t spl[SMJ_BAND_VEC_PARTS];
            smj_equal_splitters(max_key, P, spl);
            for (int q = 0; q < P; q++) {
                if (q + 1 < P) v.spl[q] = spl[q];
                const uint64_t lo = smj_part_base(spl, q), hi = q + 1 < P ? spl[q] : max_key;
                v.base[q] = lo;
                v.mul[q] = ((uint64_t)B << SMJ_BAND_SHIFT) / (hi - lo + 1);
                v.sub[q] = (lo << rid_bits) + rid_base;
            }
            for (size_t i = 0; i < N; i++) {
                uint64_t key = 1 + rnd() % max_key;
                if (i % 5 == 0 && P > 1) key = spl[rnd() % (uint64_t)(P - 1)] + (i % 3) - 1; /* at a splitter, and next to it */
                if (i == 1) key = 1;
                if (i == 2) key = max_key;
                t[i] = (tuple_t){.key = key, .rid = rid_base + (rnd() & ((UINT64_C(1) << rid_bits) - 1))};
            }
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
                const size_t n = sizes[si];
                for (size_t i = 0; i < n + 8; i++) part[i] = word[i] = UINT64_MAX; /* past n: untouched */
                smj_band_words_avx512(t, n, &v, part, word);
                smj_band_words_scalar(t, n, &v, part_ref, word_ref);
                int same = 1, meaning = 1;
                for (size_t i = 0; i < n; i++) {
                    same &= part[i] == part_ref[i] && word[i] == word_ref[i];
                    const uint64_t tgt = part[i] >> v.lb, band = part[i] & (((uint64_t)1 << v.lb) - 1);
                    meaning &= tgt == (uint64_t)smj_part_of(t[i].key, spl, P) && band < (uint64_t)B;
                    meaning &= word[i] >> rid_bits == t[i].key - v.base[tgt % SMJ_BAND_VEC_PARTS] &&
                               (word[i] & ((UINT64_C(1) << rid_bits) - 1)) == t[i].rid - rid_base;
                    for (size_t j = 0; j < i; j++) /* bands in key order within a target */
                        if (part[j] >> v.lb == tgt && t[j].key < t[i].key) meaning &= (part[j] & (((uint64_t)1 << v.lb) - 1)) <= band;
                }
                for (size_t i = n; i < n + 8; i++) meaning &= part[i] == UINT64_MAX && word[i] == UINT64_MAX;
                if ((!same || !meaning) && ++failed <= 3)
                    fprintf(stderr, "band words: P %d B %d n %zu: same as the reference %d, meaning %d\n", P, B, n, same, meaning);
            }
        }
    CHECK(failed == 0);
}

static void test_match(void)
{
    const uint64_t rid_base[2] = {7, 1000}; /* packed rids are offsets from each relation's first */
    for (int trial = 0; trial < 400; trial++) {
        const int rid_bits = trial % 4 == 3 ? 33 : 20, pattern = trial % MATCH_PATTERNS;
        /* packed keys are offsets from their range's lowest key */
        const uint64_t key_base = trial % 2 ? (UINT64_C(1) << 40) + (uint64_t)trial : 1;
        /* from 256 tuples a side, the AVX-512 scan splits into two (MATCH_PAIR_MIN) */
        size_t rn = trial < 40 ? (size_t)trial / 2 : rnd() % 600, sn = trial < 40 ? (size_t)trial : rnd() % 2400;
        uint64_t *r = malloc((rn + 1) * 8), *s = malloc((sn + 1) * 8);
        uint64_t keys = 1 + rnd() % 300; /* MATCH_NM */
        for (size_t i = 0; i < rn; i++) {
            uint64_t k = 1 + rnd() % keys;
            if (pattern == MATCH_UNIQUE) k = 1 + 2 * i;
            if (pattern == MATCH_DENSE || pattern == MATCH_EXACT || pattern == MATCH_LONG_GROUPS) k = 1 + i;
            if (pattern == MATCH_FEW_DUPS) k = 1 + i - (i > 0 && rnd() % 40 == 0); /* now and then the last key again */
            r[i] = smj_pack(k, i, rid_bits);
        }
        const uint64_t q = 1 + (uint64_t)trial / MATCH_PATTERNS % 9; /* MATCH_EXACT: S tuples per R key */
        if (pattern == MATCH_EXACT) sn = rn * q;
        s = realloc(s, (sn + 1) * 8);
        for (size_t i = 0; i < sn; i++) {
            uint64_t span = pattern == MATCH_NM ? keys * 2 : pattern == MATCH_UNIQUE ? 2 * rn + 2 : rn + 2;
            uint64_t k = 1 + rnd() % span;
            if (pattern == MATCH_LONG_GROUPS) k = 1 + rnd() % (rn / 12 + 1) * 12; /* ~12 x sn / rn per key */
            if (pattern == MATCH_EXACT) k = 1 + i / q;
            s[i] = smj_pack(k, i, rid_bits);
        }
        const uint64_t mask = (UINT64_C(1) << rid_bits) - 1;
        uint64_t m_ref = 0, c_ref = 0;
        for (size_t i = 0; i < rn; i++)
            for (size_t j = 0; j < sn; j++)
                if (r[i] >> rid_bits == s[j] >> rid_bits) {
                    m_ref++;
                    c_ref += match_term(rid_base[0] + (r[i] & mask), rid_base[1] + (s[j] & mask), key_base + (r[i] >> rid_bits));
                }
        qsort(r, rn, 8, cmp_u64);
        qsort(s, sn, 8, cmp_u64);
        for (int si = 0; si < nsimd; si++) {
            uint64_t m, c;
            smj_match(r, rn, s, sn, rid_bits, key_base, rid_base, simd_paths[si], &m, &c);
            if (m != m_ref || c != c_ref)
                fprintf(stderr, "match %s trial %d (pattern %d, %zu x %zu) wrong\n", smj_simd_name(simd_paths[si]), trial,
                        pattern, rn, sn);
            CHECK_EQ_U64(m, m_ref);
            CHECK_EQ_U64(c, c_ref);
        }
        free(r);
        free(s);
    }
}

static void shares(const uint64_t *sample, size_t m, int parts, const uint64_t *spl, uint64_t *count)
{
    memset(count, 0, (size_t)parts * 8);
    for (size_t i = 0; i < m; i++) count[smj_part_of(sample[i], spl, parts)]++;
}

static void test_splitters(void)
{
    uint64_t spl[8], count[8];
    /* distinct keys: shares within one of m/parts */
    uint64_t *u = malloc(1000 * 8);
    for (int i = 0; i < 1000; i++) u[i] = (uint64_t)i * 7 + 1;
    for (int parts = 2; parts <= 8; parts++) {
        smj_pick_splitters(u, 1000, parts, spl);
        shares(u, 1000, parts, spl, count);
        for (int t = 0; t < parts; t++) CHECK(count[t] >= 1000 / (uint64_t)parts && count[t] <= 1000 / (uint64_t)parts + 1);
    }
    /* a heavy key (30%) straddling the first cut stays whole in one part; the rest stay even */
    uint64_t *k = malloc(1000 * 8);
    for (int i = 0; i < 300; i++) k[i] = 1;
    for (int i = 300; i < 1000; i++) k[i] = (uint64_t)i;
    smj_pick_splitters(k, 1000, 4, spl);
    CHECK_EQ_U64(spl[0], 1);
    shares(k, 1000, 4, spl, count);
    CHECK_EQ_U64(count[0], 300);
    CHECK_EQ_U64(count[1], 200);
    CHECK_EQ_U64(count[2], 250);
    CHECK_EQ_U64(count[3], 250);
    /* Zipf-like sample: no part exceeds the even share by more than the largest key group */
    for (int i = 0; i < 1000; i++) k[i] = 1 + (uint64_t)(1000.0 / (1 + (double)(rnd() % 1000)));
    qsort(k, 1000, 8, cmp_u64);
    size_t group = 0;
    for (size_t i = 0, j; i < 1000; i = j) {
        for (j = i; j < 1000 && k[j] == k[i]; j++) {}
        if (j - i > group) group = j - i;
    }
    for (int parts = 2; parts <= 8; parts++) {
        smj_pick_splitters(k, 1000, parts, spl);
        shares(k, 1000, parts, spl, count);
        uint64_t sum = 0;
        for (int t = 0; t < parts; t++) {
            CHECK(count[t] <= 1000 / (uint64_t)parts + group);
            sum += count[t];
            if (t) CHECK(spl[t - 1] >= (t > 1 ? spl[t - 2] : 0));
        }
        CHECK_EQ_U64(sum, 1000);
    }
    /* smj_part_of = the number of splitters below the key, for any part count and repeated splitters */
    for (int parts = 1; parts <= 40; parts++) {
        uint64_t sp[40];
        for (int t = 0; t + 1 < parts; t++) sp[t] = rnd() % 50;
        qsort(sp, (size_t)(parts > 1 ? parts - 1 : 0), 8, cmp_u64);
        for (uint64_t key = 0; key < 55; key++) {
            int below = 0;
            for (int t = 0; t + 1 < parts; t++) below += sp[t] < key;
            CHECK_EQ_U64(smj_part_of(key, sp, parts), below);
        }
    }
    /* the lookup table gives smj_part_of's answer: few and many parts, repeated and clustered
     * splitters, keys beyond max_key, table buckets of one key (shift 0) and of many */
    const uint64_t maxk[] = {50, (uint64_t)1 << 20, (uint64_t)1 << 30};
    const int many[] = {2, 3, 4, 7, 16, 40, 1000, 5000};
    for (int m = 0; m < 3; m++)
        for (int pi = 0; pi < (int)(sizeof many / sizeof many[0]); pi++) {
            const int parts = many[pi];
            uint64_t *sp = malloc((size_t)parts * sizeof *sp);
            for (int t = 0; t + 1 < parts; t++) /* half the ranks within the first 1/64 of the keys: skew */
                sp[t] = t % 2 ? rnd() % (maxk[m] / 64 + 1) : rnd() % (maxk[m] + 1);
            qsort(sp, (size_t)(parts - 1), 8, cmp_u64);
            smj_range_lut lut;
            CHECK(smj_range_lut_init(&lut, sp, parts, maxk[m]) == 0);
            CHECK((lut.first != NULL) == (parts >= SMJ_LUT_MIN_PARTS));
            for (int i = 0; i < 20000; i++) {
                const uint64_t key = i < 100 ? (uint64_t)i : i < 200 ? maxk[m] + (uint64_t)(i - 100) * 1000 : rnd() % (maxk[m] + 1);
                CHECK_EQ_U64(smj_part_lut(key, sp, parts, &lut), smj_part_of(key, sp, parts));
            }
            /* the counting lanes sum to one count per part, whatever n mod SMJ_COUNT_LANES */
            for (uint64_t n = 0; n < 10; n += 3) {
                const uint64_t tn = 997 + n;
                tuple_t *t = malloc(tn * sizeof *t);
                uint64_t *cnt = malloc((size_t)parts * sizeof *cnt), *ref = calloc((size_t)parts, sizeof *ref);
                uint64_t *lanes = malloc(SMJ_COUNT_LANES * (size_t)parts * sizeof *lanes);
                for (uint64_t i = 0; i < tn; i++) {
                    t[i].key = i % 5 ? rnd() % (maxk[m] + 1) : sp[(i * 7) % (uint64_t)(parts - 1)]; /* boundaries too */
                    t[i].rid = i;
                    ref[smj_part_of(t[i].key, sp, parts)]++;
                }
                for (size_t w = 0; w < SMJ_COUNT_LANES * (size_t)parts; w++) lanes[w] = w + 1; /* not zeroed */
                smj_count_ranges(t, tn, sp, parts, &lut, lanes, cnt);
                int same = 1;
                for (int q = 0; q < parts; q++) same &= cnt[q] == ref[q];
                CHECK(same);
                free(t);
                free(cnt);
                free(ref);
                free(lanes);
            }
            smj_range_lut_free(&lut);
            free(sp);
        }
    /* equal widths over [1, 10] in 3 parts: 4, 4, 2 keys */
    smj_equal_splitters(10, 3, spl);
    for (uint64_t key = 1; key <= 10; key++) CHECK_EQ_U64(smj_part_of(key, spl, 3), (key - 1) / 4);
    free(u);
    free(k);
}

/* Clamped boundaries: monotone, no part wider than max_width (the last up to max_key), moved only
 * where needed; with parts * max_width == max_key only equal widths remain. */
static void test_clamp(void)
{
    uint64_t spl[64];
    for (int trial = 0; trial < 200; trial++) {
        int parts = 2 + (int)(rnd() % 60);
        uint64_t max_key = (uint64_t)parts + rnd() % 100000;
        uint64_t min_width = max_key / (uint64_t)parts + (max_key % (uint64_t)parts != 0);
        uint64_t max_width = min_width + (trial % 4 ? rnd() % (min_width + 1) : 0);
        for (int t = 0; t + 1 < parts; t++) spl[t] = trial % 3 ? rnd() % (max_key + 1) : (uint64_t)t; /* skewed */
        qsort(spl, (size_t)parts - 1, 8, cmp_u64);
        uint64_t before[64];
        memcpy(before, spl, sizeof before);
        int moved = smj_clamp_splitters(spl, parts, max_key, max_width);
        int changed = 0;
        for (int t = 0; t < parts; t++) {
            uint64_t lo = smj_part_base(spl, t), hi = t + 1 < parts ? spl[t] : max_key;
            CHECK(hi + 1 >= lo);             /* monotone */
            CHECK(hi + 1 - lo <= max_width); /* keys [lo, hi] */
            if (t + 1 < parts) changed += spl[t] != before[t];
        }
        CHECK_EQ_U64(moved, changed);
        if (max_width * (uint64_t)parts == max_key)
            for (int t = 0; t + 1 < parts; t++) CHECK_EQ_U64(spl[t], max_width * (uint64_t)(t + 1));
    }
    /* boundaries within the limit stay */
    smj_equal_splitters(1000, 8, spl);
    CHECK_EQ_U64(smj_clamp_splitters(spl, 8, 1000, 125), 0);
}

static int cmp_tuple(const void *a, const void *b)
{
    const tuple_t *x = a, *y = b;
    return x->key != y->key ? (x->key > y->key) - (x->key < y->key) : (x->rid > y->rid) - (x->rid < y->rid);
}

/* sorted by key, and the same tuples (rids travel with their keys) */
static int same_sorted(const tuple_t *got, const tuple_t *in, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (got[i - 1].key > got[i].key) return 0;
    tuple_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
    memcpy(a, got, n * sizeof *a);
    memcpy(b, in, n * sizeof *b);
    qsort(a, n, sizeof *a, cmp_tuple);
    qsort(b, n, sizeof *b, cmp_tuple);
    int ok = memcmp(a, b, n * sizeof *a) == 0;
    free(a);
    free(b);
    return ok;
}

/* Keys over spans from one key to all 64 bits (one digit, several, skipped digits). */
static void fill_wide(tuple_t *t, size_t n, uint64_t base, uint64_t span)
{
    for (size_t i = 0; i < n; i++) t[i] = (tuple_t){base + (span ? rnd() % span : 0), rnd()};
}

static void test_wide_sort(void)
{
    const size_t sizes[] = {0, 1, 2, 3, 17, 64, 1000, 4097, 40000};
    const uint64_t spans[] = {0, 1, 2, 255, 256, 4096, 1u << 22, UINT64_C(1) << 40, UINT64_MAX};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
        for (size_t q = 0; q < sizeof spans / sizeof *spans; q++) {
            size_t n = sizes[z];
            tuple_t *src = malloc((n + 1) * 16), *dst = malloc((n + 1) * 16), *tmp = malloc((n + 1) * 16),
                    *in = malloc((n + 1) * 16);
            fill_wide(src, n, spans[q] == UINT64_MAX ? 0 : UINT64_C(1) << 50, spans[q]);
            memcpy(in, src, n * 16);
            smj_wide_sort_run(src, n, dst, tmp);
            int ok = same_sorted(dst, in, n);
            smj_wide_sort_run(src, n, src, tmp); /* in place */
            ok &= same_sorted(src, in, n);
            if (!ok) fprintf(stderr, "wide sort n=%zu span=%llu wrong\n", n, (unsigned long long)spans[q]);
            CHECK(ok);
            free(src);
            free(dst);
            free(tmp);
            free(in);
        }
}

/* 37 or 38 runs (one empty) at fan-in 4: ceil(log4 runs) = 3 passes, as the packed merge. */
static void test_wide_merge_passes(int runs)
{
    size_t starts[38], lens[38], n = 0;
    for (int i = 0; i < runs; i++) {
        starts[i] = n;
        lens[i] = i == 5 ? 0 : 100 + rnd() % 900;
        n += lens[i];
    }
    tuple_t *data = malloc(n * 16), *scratch = malloc(n * 16), *in = malloc(n * 16), *tmp = malloc(n * 16);
    fill_wide(data, n, 1, 5000); /* duplicates across runs */
    for (int i = 0; i < runs; i++) smj_wide_sort_run(data + starts[i], lens[i], data + starts[i], tmp);
    memcpy(in, data, n * 16);
    int passes = -1;
    tuple_t *res = smj_wide_merge_passes(data, scratch, starts, lens, runs, NULL, 1, 4, &passes);
    CHECK(res == data || res == scratch);
    CHECK_EQ_U64(passes, 3);
    CHECK(res && same_sorted(res, in, n));
    free(data);
    free(scratch);
    free(in);
    free(tmp);
}

/* Equal-key groups on both sides (N:M), keys only on one side, vs nested loops. */
static void test_wide_match(void)
{
    for (int trial = 0; trial < 20; trial++) {
        size_t rn = rnd() % 500, sn = rnd() % 2000;
        tuple_t *r = malloc((rn + 1) * 16), *s = malloc((sn + 1) * 16), *tmp = malloc((rn + sn + 1) * 16);
        uint64_t keys = 1 + rnd() % 300, base = trial % 2 ? UINT64_C(1) << 45 : 1;
        fill_wide(r, rn, base, keys);
        fill_wide(s, sn, base, 2 * keys);
        uint64_t m_ref = 0, c_ref = 0;
        for (size_t i = 0; i < rn; i++)
            for (size_t j = 0; j < sn; j++)
                if (r[i].key == s[j].key) {
                    m_ref++;
                    c_ref += match_term(r[i].rid, s[j].rid, r[i].key);
                }
        smj_wide_sort_run(r, rn, r, tmp);
        smj_wide_sort_run(s, sn, s, tmp);
        uint64_t m, c;
        smj_wide_match(r, rn, s, sn, &m, &c);
        CHECK_EQ_U64(m, m_ref);
        CHECK_EQ_U64(c, c_ref);
        free(r);
        free(s);
        free(tmp);
    }
}

int main(void)
{
    const int all[] = {SMJ_SIMD_AVX512, SMJ_SIMD_AVX2, SMJ_SIMD_SCALAR};
    for (int i = 0; i < 3; i++)
        if (smj_simd_available(all[i])) simd_paths[nsimd++] = all[i];
    printf("kernels tested:");
    for (int i = 0; i < nsimd; i++) printf(" %s", smj_simd_name(simd_paths[i]));
    printf("\n");
    CHECK(smj_simd_available(SMJ_SIMD_SCALAR));
    test_sort();
    test_radix_sort();
    test_merge2();
    test_merge_runs();
    test_merge_passes(37);
    test_merge_passes(38);
    test_merge_bands(0);
    test_band_pick();
    test_band_words();
    test_merge_bands(1);
    test_match();
    test_splitters();
    test_clamp();
    test_wide_sort();
    test_wide_merge_passes(37);
    test_wide_merge_passes(38);
    test_wide_match();
    CHECK_DONE();
}
