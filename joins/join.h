/* The interface between the join driver (join_main.c: options, generate, run, verify, record) and
 * the algorithms (radix/, sortmerge/). */
#ifndef RMB_JOIN_H
#define RMB_JOIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/context.h"
#include "joins/generate.h"
#include "bench/phases.h"
#include "rma/window.h"

enum { ALGO_RADIX, ALGO_SORTMERGE, ALGO_BOTH };
enum { ASSIGN_ROUND_ROBIN, ASSIGN_SIZED };
enum { FLUSH_WINDOW, FLUSH_REQUEST };
enum { RANGES_SPLITTERS, RANGES_EQUAL };
enum { SIMD_AUTO, SIMD_AVX512, SIMD_AVX2, SIMD_SCALAR };

typedef struct {
    /* workload */
    int algo;
    int64_t tuples_per_rank;   /* |R| per rank; |S| per rank = ratio * this */
    int64_t r_total;           /* when given: global |R|, overrides tuples_per_rank */
    bool uneven;
    int64_t ratio;
    double selectivity, skew;
    int64_t seed;
    /* harness */
    int64_t repeat;
    int64_t warmup;          /* untimed runs before the --repeat runs (verified, not recorded) */
    const char *output;
    const char *model;         /* parameter file for --model */
    int window;                /* win_flavor */
    bool window_pool;          /* keep windows across --repeat runs (rma_window_get slots 0, 1) */
    /* radix hash join */
    int64_t radix_bits;        /* network fan-out bits; 0 = auto */
    int64_t local_bits;        /* fan-out bits per local pass; 0 = auto */
    int64_t passes;            /* local passes; -1 = derived from size */
    int assign;
    int flush;
    int64_t buffer_size;       /* bytes */
    int64_t buffers_per_partition;
    bool compress;
    /* sort-merge join */
    int ranges;
    int64_t run_size;          /* tuples; 0 = fit the L2 cache */
    int64_t merge_fanin;
    int simd;
    int numa;                  /* numa policy index (bench/numa), see issue 8 */
} join_opts;

/* What an algorithm gets: this rank's slices of R and S (read-only: repeats reuse them). */
typedef struct {
    const bench_ctx *ctx;
    const join_opts *opt;
    const workload *wl;
    const tuple_t *r, *s;
    uint64_t r_n, s_n;
} join_input;

typedef struct {
    uint64_t matches, checksum;   /* over this rank's matched pairs: sum of match_term(r_rid, s_rid, key) */
    phase_set phases;
    /* parameters as the algorithm resolved them ("auto" made explicit), for the CSV row */
    int64_t radix_bits, local_bits, passes, run_size, merge_fanin;
    const char *simd_used;
} join_output;

typedef struct {
    const char *name;  /* "radix", "sortmerge" */
    const phase_decl *phases; /* every phase run() adds time to, in display order */
    /* Option checks that depend on the rank count: 0, or -1 with "--flag: reason" in err. */
    int (*check)(const join_opts *o, const workload *w, int ranks, char *err, size_t errlen);
    /* This rank's memory need beyond the input relations (windows, buffers, scratch), in bytes. */
    int64_t (*memory_bytes)(const join_opts *o, const workload *w, int ranks);
    /* Collective: run the join once. */
    void (*run)(const join_input *in, join_output *out);
} join_algo;

extern const join_algo radix_join_algo;
extern const join_algo sortmerge_join_algo;

#endif
