/* smj-sortbench: the sort-merge join's kernels timed alone on one core, MPI-free: the sort phase's
 * in-cache run sort (without the network), the merge phase's passes, the matching scan (a self-join
 * of the sorted tuples, and the joins' 1:1 and 1:4 shapes with a primary key).
 *   smj-sortbench [tuples (default 16M)] [run size (0 = fit L2)] [simd: auto|avx512|avx2|scalar] [fan-in (16)]
 * Times are CPU seconds of this process (the sort also in wall seconds). The sort line is the reference for the join's sort phase (same tuples per rank, same run size). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/options.h"
#include "joins/sortmerge/smj_kernels.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* CPU time of this process: on a shared machine, wall time also counts other jobs' slices */
static double now(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }
static double wall(void) { return clock_s(CLOCK_MONOTONIC); }

/* The matching scan on the joins' shapes: a primary key R (keys 1..|R| in order) and S with exactly
 * q tuples per R key, sorted (1:1 and 1:4, |R| + |S| = n), in pk (n words). Returns 1 on a wrong
 * count. */
static int time_pk_shapes(uint64_t *pk, size_t n, int simd, double t[2], uint64_t m[2])
{
    const uint64_t rid_base[2] = {0, 0};
    for (int shape = 0; shape < 2; shape++) {
        const size_t q = shape ? 4 : 1, rn = n / (q + 1), sn = rn * q;
        for (size_t i = 0; i < rn; i++) pk[i] = (uint64_t)(i + 1) << 25 | (i & ((1u << 25) - 1));
        for (size_t j = 0; j < sn; j++) pk[rn + j] = (uint64_t)(j / q + 1) << 25 | (j & ((1u << 25) - 1));
        uint64_t c;
        double t0 = now();
        smj_match(pk, rn, pk + rn, sn, 25, 0, rid_base, simd, &m[shape], &c);
        t[shape] = now() - t0;
        if (m[shape] != sn) {
            fprintf(stderr, "smj-sortbench: the 1:%zu match found %llu pairs, not %zu\n", q, (unsigned long long)m[shape], sn);
            return 1;
        }
    }
    return 0;
}

static const char *const usage_line =
    "usage: smj-sortbench [tuples >= 1] [run size] [auto|avx512|avx2|scalar (available)] [fan-in >= 2]\n";

/* Positional argument `what` as a count (16M, 4096) in [min, max]: exit 2 naming it otherwise. */
static size_t count_arg(const char *s, const char *what, int64_t min, int64_t max)
{
    int64_t v;
    const char *why = NULL;
    if (opt_parse_count(s, &v, &why)) opt_usage_error("%s: '%s' %s", what, s, why);
    if (v < min || v > max) opt_usage_error("%s: '%s' must be %lld to %lld", what, s, (long long)min, (long long)max);
    return (size_t)v;
}

static int simd_arg(const char *s)
{
    for (int i = SMJ_SIMD_AUTO; i <= SMJ_SIMD_SCALAR; i++)
        if (strcmp(s, smj_simd_name(i)) == 0) {
            if (!smj_simd_available(i)) opt_usage_error("simd: %s kernels are not available on this CPU or build", s);
            return i;
        }
    opt_usage_error("simd: '%s' is not one of auto, avx512, avx2, scalar", s);
}

int main(int argc, char **argv)
{
    opt_program = "smj-sortbench";
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage_line, stdout);
        puts("Times the sort-merge join's sort, merge and match kernels alone on one core (CPU seconds).");
        return 0;
    }
    if (argc > 5) opt_usage_error("at most 4 arguments (%d given)", argc - 1);
    size_t n = argc > 1 ? count_arg(argv[1], "tuples", 1, INT64_C(1) << 36) : 16000000;
    size_t run = argc > 2 ? count_arg(argv[2], "run size", 0, INT64_C(1) << 36) : 0;
    int simd = argc > 3 ? simd_arg(argv[3]) : SMJ_SIMD_AUTO;
    int fanin = argc > 4 ? (int)count_arg(argv[4], "fan-in", 2, 1 << 16) : 16; /* the join's default */
    simd = smj_simd_resolve(simd);
    if (run == 0) run = smj_default_run_size();
    uint64_t *src = malloc(n * 8), *dst = malloc(n * 8), *tmp = malloc(run * 8), *out = malloc(n * 8);
    size_t runs = (n + run - 1) / run;
    size_t *starts = malloc(runs * sizeof *starts), *lens = malloc(runs * sizeof *lens);
    const size_t tree_words = smj_merge_tree_words(fanin) + 1;
    uint64_t *tree = malloc(tree_words * 8);
    if (!src || !dst || !tmp || !out || !starts || !lens || !tree) {
        fprintf(stderr, "smj-sortbench: out of memory\n");
        return 2;
    }
    /* packed tuples: 25-bit keys, 25-bit rids, random order */
    uint64_t z = 42;
    for (size_t i = 0; i < n; i++) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        src[i] = ((z >> 39) + 1) << 25 | (i & ((1u << 25) - 1));
    }
    /* fault the pages in before timing, as the join's windows are; not with zeros: GCC turns
     * malloc + memset(0) into calloc, which leaves fresh pages untouched, and their first stores
     * (costly under a hypervisor, PLATFORM-NOTES) would land in the timed sort and merge */
    memset(dst, 0xff, n * 8);
    memset(out, 0xff, n * 8);
    memset(tree, 0xff, tree_words * 8); /* the merge tree's FIFOs: the join's live in mapped memory too */
    double t0 = now(), w0 = wall();
    for (size_t r = 0; r < runs; r++) {
        starts[r] = r * run;
        lens[r] = n - starts[r] < run ? n - starts[r] : run;
        smj_sort_run(src + starts[r], lens[r], dst + starts[r], tmp, simd);
    }
    double t_sort = now() - t0, w_sort = wall() - w0;
    int passes;
    t0 = now();
    uint64_t *sorted = smj_merge_passes_in(dst, out, starts, lens, (int)runs, NULL, 1, fanin, simd, &passes, tree);
    double t_merge = now() - t0;
    for (size_t i = 1; i < n; i++)
        if (sorted[i - 1] > sorted[i]) {
            fprintf(stderr, "smj-sortbench: result not sorted at %zu\n", i);
            return 1;
        }
    uint64_t m, c;
    t0 = now();
    const uint64_t rid_base[2] = {0, 0}; /* a self-join: both sides are the same offsets */
    smj_match(sorted, n, sorted, n, 25, 0, rid_base, simd, &m, &c);
    double t_match = now() - t0;
    double t_pk[2];
    uint64_t m_pk[2];
    if (time_pk_shapes(sorted == dst ? out : dst, n, simd, t_pk, m_pk)) return 1;
    printf("smj-sortbench: %zu tuples, run %zu, %s, fan-in %d\n", n, run, smj_simd_name(simd), fanin);
    printf("sort  %.4f s  %7.1f M tuples/s  (%zu runs; wall %.4f s)\n", t_sort, n / t_sort / 1e6, runs, w_sort);
    printf("merge %.4f s  %7.1f M tuples/s  (%d passes)\n", t_merge, n / t_merge / 1e6, passes);
    printf("match %.4f s  %7.1f M tuples/s  (self-join, %llu matches)\n", t_match, 2 * n / t_match / 1e6,
           (unsigned long long)m);
    for (int shape = 0; shape < 2; shape++)
        printf("match %.4f s  %7.1f M tuples/s  (1:%d, a primary key R: %llu matches)\n", t_pk[shape], n / t_pk[shape] / 1e6,
               shape ? 4 : 1, (unsigned long long)m_pk[shape]);
    return 0;
}
