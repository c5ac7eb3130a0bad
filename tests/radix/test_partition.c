/* Radix partitioning kernels: histogram sums, every item lands in the partition its bits say, the
 * bounds are the histogram's prefix sums, nothing is lost or duplicated (multiset equality), the
 * layout is byte for byte a stable counting scatter's (also when one partition takes every item,
 * the most staged lines at once), for packed (1-word) and plain (2-word) items, misaligned
 * outputs, and multi-pass local partitioning. */
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "joins/radix/local_partition.h"

static unsigned long long rng = 88172645463325252ull;
/* the scatter loop under test: staged (use_direct 0) with the scalar (use_simd 0) or AVX-512 loop, or
 * direct at every fan-out (use_direct 1); main runs everything with each this CPU has */
static int use_simd, use_direct;
static void pick_loop(radix_swwc *ws)
{
    ws->simd = use_simd;
    ws->direct_bits = radix_direct_bits(use_direct ? RADIX_SCATTER_DIRECT : RADIX_SCATTER_STAGED);
}
static uint64_t next_rand(void) { return check_rand(&rng); }

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* sorted copy of word-0 ^ word-1 mix, for multiset comparison */
static uint64_t *signature(const uint64_t *items, uint64_t n, int W)
{
    uint64_t *sig = malloc((n ? n : 1) * sizeof *sig);
    for (uint64_t i = 0; i < n; i++) sig[i] = W == 1 ? items[i] : items[2 * i] * 0x9E3779B97F4A7C15ull ^ items[2 * i + 1];
    qsort(sig, n, sizeof *sig, cmp_u64);
    return sig;
}

/* one_part: every item in partition 0 (the most lines staged at once in one partition) */
static void test_pass_in(uint64_t n, int W, int shift, int bits, int misalign, int one_part)
{
    uint64_t *in = malloc((n * W + 1) * sizeof *in);
    uint64_t *outbuf = aligned_alloc(64, ((n + 16) * W * 8 + 64 + 63) / 64 * 64);
    uint64_t *out = outbuf + misalign * W; /* item-aligned but not line-aligned */
    uint64_t fan = 1ull << bits, mask = fan - 1;
    for (uint64_t i = 0; i < n * W; i++) in[i] = next_rand() & (one_part && i % W == 0 ? ~(mask << shift) : ~0ull);
    uint64_t *hist = calloc(fan, sizeof *hist), *bounds = malloc((fan + 1) * sizeof *bounds);
    radix_histogram_items(in, n, W, shift, bits, hist);
    uint64_t sum = 0;
    for (uint64_t p = 0; p < fan; p++) sum += hist[p];
    CHECK_EQ_U64(sum, n);
    radix_swwc ws;
    CHECK(radix_swwc_init(&ws, bits) == 0);
    pick_loop(&ws);
    radix_partition_pass(in, n, W, shift, bits, out, bounds, &ws);
    CHECK_EQ_U64(bounds[0], 0);
    CHECK_EQ_U64(bounds[fan], n);
    int wrong = 0;
    for (uint64_t p = 0; p < fan; p++) {
        if (bounds[p + 1] - bounds[p] != hist[p]) wrong++;
        for (uint64_t i = bounds[p]; i < bounds[p + 1]; i++)
            if (((out[i * W] >> shift) & mask) != p) wrong++;
    }
    if (wrong) fprintf(stderr, "pass n=%llu W=%d shift=%d bits=%d misalign=%d: %d misplaced\n", (unsigned long long)n, W,
                       shift, bits, misalign, wrong);
    CHECK(wrong == 0);
    uint64_t *a = signature(in, n, W), *b = signature(out, n, W);
    CHECK(memcmp(a, b, n * sizeof *a) == 0);
    /* stable: byte for byte the output of a plain counting scatter (the layout the joins rely on) */
    uint64_t *ref = malloc((n * W + 1) * sizeof *ref), *next = malloc(fan * sizeof *next);
    memcpy(next, bounds, fan * sizeof *next);
    for (uint64_t i = 0; i < n; i++) memcpy(ref + next[(in[i * W] >> shift) & mask]++ * W, in + i * W, W * sizeof *ref);
    CHECK(memcmp(ref, out, n * W * sizeof *ref) == 0);
    /* the scatter alone with the bounds counted apart (the network pass; calibrate's P_partition) */
    uint64_t *b2 = malloc((fan + 1) * sizeof *b2);
    radix_pass_bounds(in, n, W, shift, bits, b2);
    CHECK(memcmp(b2, bounds, (fan + 1) * sizeof *b2) == 0);
    memset(out, 0, n * W * sizeof *out);
    radix_scatter_pass(in, n, W, shift, bits, out, b2, &ws);
    CHECK(memcmp(ref, out, n * W * sizeof *ref) == 0);
    free(b2);
    free(ref), free(next);
    free(a), free(b), free(in), free(outbuf), free(hist), free(bounds);
    radix_swwc_free(&ws);
}

static void test_pass(uint64_t n, int W, int shift, int bits, int misalign)
{
    test_pass_in(n, W, shift, bits, misalign, 0);
}

static void test_tuple_histogram(void)
{
    enum { N = 1000 };
    tuple_t t[N];
    uint64_t hist[16] = {0}, ref[16] = {0};
    for (int i = 0; i < N; i++) {
        t[i].key = next_rand();
        t[i].rid = (uint64_t)i;
        ref[t[i].key & 15]++;
    }
    radix_histogram_tuples(t, N, 4, hist);
    CHECK(memcmp(hist, ref, sizeof hist) == 0);
}

/* two local passes over a region at an offset, packed format: leaves hold the right bits, in order */
static void test_local_passes(void)
{
    const uint64_t n = 50000, off = 37;
    radix_format f = {.words = 1, .radix_bits = 3, .rid_bits = 20};
    radix_local_plan plan = {2, {4, 3, 0, 0}, 7};
    uint64_t *a = calloc(n + off, 8), *b = calloc(n + off, 8);
    for (uint64_t i = 0; i < n; i++) a[off + i] = radix_pack(next_rand() >> 24, i, f.radix_bits, f.rid_bits);
    uint64_t *orig = signature(a + off, n, 1);
    radix_local_ws ws;
    CHECK(radix_local_ws_init(&ws, &plan) == 0);
    pick_loop(&ws.swwc);
    uint64_t *leaf = malloc(((1u << 7) + 1) * sizeof *leaf);
    uint64_t *fin = radix_local_partition(a + off, b + off, n, &f, &plan, leaf, &ws, NULL);
    fin -= off;
    CHECK(fin == a); /* two passes end where they started */
    CHECK_EQ_U64(leaf[0], 0);
    CHECK_EQ_U64(leaf[1u << 7], n);
    int wrong = 0;
    for (uint64_t k = 0; k < (1u << 7); k++) {
        if (leaf[k + 1] < leaf[k]) wrong++;
        for (uint64_t i = off + leaf[k]; i < off + leaf[k + 1]; i++) {
            /* key bits 3..9 (above the network bits): first pass bits 3..6 = high part of k */
            uint64_t key_rest = fin[i] >> f.rid_bits;
            uint64_t p1 = key_rest & 15, p2 = (key_rest >> 4) & 7;
            if (p1 * 8 + p2 != k) wrong++;
        }
    }
    CHECK(wrong == 0);
    uint64_t *got = signature(fin + off, n, 1);
    CHECK(memcmp(orig, got, n * 8) == 0);
    radix_local_ws_free(&ws);
    free(a), free(b), free(orig), free(got), free(leaf);
}

/* The first pass's counts given (the histogram phase's, radix.c): the same leaves as counting them
 * here; counts that disagree with the items, in their sum or only in how they split it, leave every
 * leaf empty. */
static void test_local_passes_counted(void)
{
    const uint64_t n = 30011;
    radix_format f = {.words = 1, .radix_bits = 3, .rid_bits = 20};
    radix_local_plan plan = {2, {4, 3, 0, 0}, 7};
    uint64_t *src = malloc(n * 8), *a = malloc(n * 8), *b = malloc(n * 8), *a2 = malloc(n * 8), *b2 = malloc(n * 8);
    for (uint64_t i = 0; i < n; i++) src[i] = radix_pack(next_rand() >> 24, i, f.radix_bits, f.rid_bits);
    uint64_t counts[16] = {0};
    radix_histogram_items(src, n, 1, radix_key_shift(&f, f.radix_bits), 4, counts);
    radix_local_ws ws;
    CHECK(radix_local_ws_init(&ws, &plan) == 0);
    pick_loop(&ws.swwc);
    uint64_t *leaf = malloc(129 * 8), *leaf2 = malloc(129 * 8);
    memcpy(a, src, n * 8);
    memcpy(a2, src, n * 8);
    uint64_t *fin = radix_local_partition(a, b, n, &f, &plan, leaf, &ws, NULL);
    uint64_t *fin2 = radix_local_partition(a2, b2, n, &f, &plan, leaf2, &ws, counts);
    CHECK(memcmp(leaf, leaf2, 129 * 8) == 0);
    CHECK(memcmp(fin, fin2 - (a2 - a), n * 8) == 0);
    for (int wrong = 0; wrong < 3; wrong++) {
        uint64_t bad[16];
        memcpy(bad, counts, sizeof bad);
        if (wrong == 0) bad[5]++;                 /* one too many in all */
        else if (wrong == 1) bad[0]--, bad[15]++; /* the sum right, two partitions not */
        else bad[7] += 2, bad[8]--, bad[9]--;
        memcpy(a2, src, n * 8);
        radix_local_partition(a2, b2, n, &f, &plan, leaf2, &ws, bad);
        int empty = 1;
        for (int k = 0; k <= 128; k++) empty &= leaf2[k] == n;
        CHECK(empty);
    }
    radix_local_ws_free(&ws);
    free(src), free(a), free(b), free(a2), free(b2), free(leaf), free(leaf2);
}

/* The scatter with bounds that disagree with the items: -1, nothing past the output (guard words)
 * and, staged, no item outside its partition's range as the bounds give it. */
static void test_scatter_wrong_bounds(int W, int misalign)
{
    const uint64_t n = 20000, fan = 16, G = 64;
    uint64_t *in = malloc(n * W * 8), *outbuf = aligned_alloc(64, (n + G + 8) * W * 8), *out = outbuf + misalign * W;
    for (uint64_t i = 0; i < n * W; i++) in[i] = next_rand();
    uint64_t bounds[17], good[17];
    radix_pass_bounds(in, n, W, 3, 4, good);
    radix_swwc ws;
    CHECK(radix_swwc_init(&ws, 4) == 0);
    pick_loop(&ws);
    for (int c = 0; c < 3; c++) {
        memcpy(bounds, good, sizeof bounds);
        if (c == 0) bounds[1] -= 9;      /* partition 0 gets 9 more than its range, partition 1 fewer */
        else if (c == 1) bounds[15] += 3; /* the last partition's range 3 short, the 15th 3 long */
        else for (uint64_t p = 1; p < fan; p++) bounds[p] -= p;
        const uint64_t sentinel = 0x5e5e5e5e5e5e5e5eull;
        for (uint64_t i = 0; i < (n + G) * W; i++) out[i] = sentinel;
        CHECK(radix_scatter_pass(in, n, W, 3, 4, out, bounds, &ws) == -1);
        int outside = 0;
        for (uint64_t p = 0; !use_direct && p < fan; p++) /* the direct loop may write into a neighbour's range */
            for (uint64_t i = bounds[p]; i < bounds[p + 1]; i++)
                if (out[i * W] != sentinel && ((out[i * W] >> 3) & 15) != p) outside++;
        for (uint64_t i = n * W; i < (n + G) * W; i++) outside += out[i] != sentinel;
        CHECK(outside == 0);
    }
    memcpy(bounds, good, sizeof bounds);
    CHECK(radix_scatter_pass(in, n, W, 3, 4, out, bounds, &ws) == 0);
    radix_swwc_free(&ws);
    free(in), free(outbuf);
}

/* Every pass test with the scatter loop given (scalar, or AVX-512 where the CPU has it). */
static void test_scatter_loops(void)
{
    for (int W = 1; W <= 2; W++)
        for (int mis = 0; mis < 4; mis++) {
            test_pass(0, W, 0, 3, mis);
            test_pass(1, W, 5, 4, mis);
            test_pass(7, W, 5, 1, mis);
            test_pass(1000, W, 9, 6, mis);
            test_pass(100003, W, 20, 10, mis);
            test_pass(100003, W, 20, 8, mis); /* the largest fan-out counted in lanes */
            test_pass(3, W, 20, 8, mis);      /* fewer items than lanes */
        }
    test_pass(5000, 1, 63, 1, 1); /* top bit */
    test_pass_in(5000, 1, 4, 3, 3, 1);
    test_pass_in(5000, 2, 4, 3, 1, 1);
    test_local_passes();
    test_local_passes_counted();
    for (int W = 1; W <= 2; W++) {
        test_scatter_wrong_bounds(W, 0);
        test_scatter_wrong_bounds(W, 3);
    }
}

int main(void)
{
    test_tuple_histogram();
    for (use_simd = 0; use_simd <= radix_avx512_available(); use_simd++) {
        printf("scatter loop: staged, %s\n", use_simd ? "AVX-512" : "scalar");
        test_scatter_loops();
    }
    use_simd = 0;
    use_direct = 1;
    printf("scatter loop: direct\n");
    test_scatter_loops();
    CHECK(radix_local_bits_needed(0, 8, 1 << 20) == 0);
    CHECK(radix_local_bits_needed(1 << 20, 8, 1 << 20) == 5); /* 16 MiB / 512 KiB = 32 */
    CHECK(radix_l2_bytes() >= 64 * 1024);
    CHECK_DONE();
}
