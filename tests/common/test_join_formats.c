/* The joins' tuple formats as plan() decides them (MPI-free, any rank count): at the thesis' largest
 * runs (4096 ranks x 40M tuples of R per rank), at the exact limits of each packed format, and at
 * the small sizes the MPI tests force across those limits with --pack-bits. The expected formats
 * follow from the bit arithmetic in each comment, not from a run. */
#include <stdio.h>
#include <string.h>

#include "cmd/join/join_cmd.h"
#include "joins/sortmerge/smj_format.h"
#include "tests/check.h"

static char err[512];

/* The plan of algorithm a for |R| = r_total at 1:ratio over `ranks` ranks: its tuple bytes, 0 when
 * refused (err holds why). */
static int tuple_bytes(const join_algo *a, const join_opts *o, uint64_t r_total, int ratio, double sel, int ranks,
                       join_plan *p)
{
    workload w;
    workload_init(&w, r_total, ratio, sel, 0, 42, 0, ranks, false);
    err[0] = 0;
    if (a->plan(o, &w, ranks, p, err, sizeof err)) return 0;
    return p->tuple_bytes;
}

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static void thesis(void)
{
    join_opts o;
    join_default_opts(&o);
    join_plan p;
    const uint64_t r = UINT64_C(4096) * 40000000; /* 163,840,000,000 < 2^38: keys and R rids of 38 bits */
    /* 1:1. Sort-merge: ranges of 40M keys < 2^26 - 1, offsets of 26 bits + rids of 38 = 64. Radix:
     * 4096 ranks take 12 + 3 = 15 radix bits, 38 - 15 + 38 = 61. */
    CHECK_EQ_U64(tuple_bytes(&sortmerge_join_algo, &o, r, 1, 1.0, 4096, &p), 8);
    CHECK(starts(p.format, "8 B packed (key offset in its range 26 + rid 38 bits"));
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, r, 1, 1.0, 4096, &p), 8);
    CHECK(starts(p.format, "8 B packed (key 38 - 15 radix bits + rid 38 bits"));
    /* 1:8: S rids below 8 |R| < 2^41 take 41 bits. Sort-merge: 26 + 41 = 67 > 64, wide. Radix:
     * 23 + 41 = 64, packed. */
    CHECK_EQ_U64(tuple_bytes(&sortmerge_join_algo, &o, r, 8, 1.0, 4096, &p), 16);
    CHECK(starts(p.format, "16 B (") && strstr(p.format, "of 26 and rids of 41 bits need 67 > 64"));
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, r, 8, 1.0, 4096, &p), 8);
    /* selectivity < 1: keys up to 2 |R| (39 bits). Sort-merge: ranges of 80M keys need 27 bits,
     * 27 + 38 = 65, wide; radix: 39 - 15 + 38 = 62, packed. */
    CHECK_EQ_U64(tuple_bytes(&sortmerge_join_algo, &o, r, 1, 0.5, 4096, &p), 16);
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, r, 1, 0.5, 4096, &p), 8);
}

/* The last |R| that packs and the first that does not, at 4096 ranks. */
static void limits(void)
{
    join_opts o;
    join_default_opts(&o);
    join_plan p;
    /* sort-merge 1:1: |R| in (2^37, 2^38] has 38-bit rids, so ranges may span 2^26 - 1 keys:
     * packed up to 4096 (2^26 - 1) = 2^38 - 4096 */
    const uint64_t smj_last = (UINT64_C(1) << 38) - 4096;
    CHECK_EQ_U64(tuple_bytes(&sortmerge_join_algo, &o, smj_last, 1, 1.0, 4096, &p), 8);
    CHECK_EQ_U64(tuple_bytes(&sortmerge_join_algo, &o, smj_last + 1, 1, 1.0, 4096, &p), 16);
    /* radix 1:1, 15 radix bits: |R| = 2^39 has 40-bit keys and 39-bit rids, 25 + 39 = 64;
     * one more tuple makes the rids 40 bits */
    const uint64_t rdx_last = UINT64_C(1) << 39;
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, rdx_last, 1, 1.0, 4096, &p), 8);
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, rdx_last + 1, 1, 1.0, 4096, &p), 16);
    CHECK(strstr(p.format, "keys of 40 bits less 15 radix bits and rids of 40 bits need 65 > 64") != NULL);
    /* radix 1:8: |R| = 2^38 - 1: 38-bit keys, S rids below 2^41: 23 + 41 = 64; |R| = 2^38: 39-bit keys */
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, (UINT64_C(1) << 38) - 1, 8, 1.0, 4096, &p), 8);
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, UINT64_C(1) << 38, 8, 1.0, 4096, &p), 16);
    /* an explicit --compress is refused where the default falls back; --no-compress is 16 B anywhere */
    o.compress_given = true;
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, rdx_last, 1, 1.0, 4096, &p), 8);
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, rdx_last + 1, 1, 1.0, 4096, &p), 0);
    CHECK(starts(err, "--compress: keys of 40 bits less 15 radix bits plus rids of 40 bits do not fit in 64 bits"));
    o.compress = false;
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, 1000, 1, 1.0, 4, &p), 16);
    CHECK(strstr(p.format, "--no-compress") != NULL);
}

/* The sizes the MPI tests use with --pack-bits 24 at 4 ranks. */
static void small_limits(void)
{
    join_opts o;
    join_default_opts(&o);
    o.pack_bits = 24;
    join_plan p;
    /* sort-merge: |R| <= 8192 has 13-bit rids, ranges of up to 2^11 - 1 = 2047 keys: 4 x 2047 = 8188 */
    CHECK_EQ_U64(tuple_bytes(&sortmerge_join_algo, &o, 8188, 1, 1.0, 4, &p), 8);
    CHECK_EQ_U64(tuple_bytes(&sortmerge_join_algo, &o, 8189, 1, 1.0, 4, &p), 16);
    /* radix, 2 + 3 radix bits: |R| = 2^14: 15-bit keys, 14-bit rids, 10 + 14 = 24 */
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, 16384, 1, 1.0, 4, &p), 8);
    CHECK_EQ_U64(tuple_bytes(&radix_join_algo, &o, 16385, 1, 1.0, 4, &p), 16);
    /* at the sort-merge limit every range is exactly the widest a word allows */
    workload w;
    workload_init(&w, 8188, 1, 1.0, 0, 42, 0, 4, false);
    smj_format f = smj_format_for(&w, 4, 24);
    CHECK(f.packed && f.rid_bits == 13 && f.max_width == 2047 && f.max_width * 4 == f.max_key);
}

/* The splitter sample: 4096 keys per rank, at most 2^21 in all from 512 ranks on, never fewer than
 * 64 per rank; the windows' slack covers 5 standard deviations of a range's share, at least 1.25. */
static void sample(void)
{
    CHECK_EQ_U64(smj_samples_per_rank(1), 4096);
    CHECK_EQ_U64(smj_samples_per_rank(512), 4096);
    CHECK_EQ_U64(smj_samples_per_rank(4096), 512);
    CHECK_EQ_U64(smj_samples_per_rank(1 << 16), 64);
    for (int ranks = 1; ranks <= 1 << 15; ranks *= 2) {
        int k = smj_samples_per_rank(ranks);
        CHECK((uint64_t)k * (uint64_t)ranks <= (1u << 21) || k == 64);
        CHECK(smj_window_slack(ranks) >= 1.25 && (smj_window_slack(ranks) - 1) * (smj_window_slack(ranks) - 1) * k >= 25 - 1e-9);
    }
    CHECK(smj_window_slack(4096) == 1.25); /* 1 + 5 / sqrt(512) = 1.22 */
}

int main(void)
{
    thesis();
    limits();
    small_limits();
    sample();
    CHECK_DONE();
}
