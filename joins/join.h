/* The join_algo contract: the interface between the join command (cmd/join/: options, generate,
 * run, verify, report, record) and the join algorithms (radix/, sortmerge/, reference/). To add a
 * join, copy joins/reference/ (the smallest complete one) and read the contract at join_algo below.
 */
#ifndef RMB_JOIN_H
#define RMB_JOIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/context.h"
#include "joins/generate.h"
#include "bench/phases.h"
#include "rma/flush.h"
#include "rma/window.h"

enum { ALGO_RADIX, ALGO_SORTMERGE, ALGO_BOTH, ALGO_REFERENCE }; /* --algo, cmd/join join_algo_names */
enum { ASSIGN_ROUND_ROBIN, ASSIGN_SIZED };
enum { RANGES_SPLITTERS, RANGES_EQUAL };
enum { SIMD_AUTO, SIMD_AVX512, SIMD_AVX2, SIMD_SCALAR };
/* --schedule: the order in which a rank visits its peers (the exchange designs that take one) */
enum { SCHEDULE_AS_IS, SCHEDULE_STAGGERED, SCHEDULE_RANDOM };

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
    int64_t queries;         /* joins back to back, each on fresh data of the same shape (seed + query) */
    const char *output;
    const char *model;         /* parameter file for --model */
    bool roofline;             /* --roofline: measure the memory roofline at startup (bench/membw.h) */
    int window;                /* win_flavor */
    int window_life;           /* win_life: windows per join, kept (pool) or attached per join (dynamic) */
    int flush;                 /* rma_flush_mode: how a reused send buffer's put is completed */
    /* radix hash join */
    int64_t radix_bits;        /* network fan-out bits; 0 = auto */
    int64_t local_bits;        /* fan-out bits per local pass; 0 = auto */
    int64_t passes;            /* local passes; -1 = derived from size */
    int assign;
    int scatter;               /* RADIX_SCATTER_*: the partitioning passes' direct or staged scatter (radix_kernels.h) */
    int64_t buffer_size;       /* bytes per send buffer, at most (--buffer-memory may give less) */
    int64_t buffers_per_partition;
    int exchange;              /* the network pass's design: index into radix_exchange_designs (joins/radix/exchange.h) */
    int schedule;              /* SCHEDULE_*: peer order of the designs that send or pull */
    bool list_exchanges;       /* --list-exchanges: print the designs and the schedules they take, run nothing */
    int64_t buffer_memory;     /* bytes: all send buffers of a rank together (sizes them at scale) */
    bool compress;             /* pack into 8 bytes when the format fits (default), else 16 bytes */
    bool compress_given;       /* --compress or --no-compress given: --compress refuses what does not fit */
    /* sort-merge join */
    int ranges;
    int64_t run_size;          /* tuples; 0 = fit the L2 cache */
    int64_t merge_fanin;
    int64_t merge_bands;       /* key bands per range (joins/sortmerge/smj_bands.h); 0 = auto (bands_pick.c) */
    int run_sort;              /* SMJ_RUN_SORT_*: network, radix, auto (timed once per process) */
    int band_count;            /* SMJ_BAND_COUNT_*: band pieces sized from a sample (slots) or by a counting pass */
    int simd;
    int numa;                  /* numa policy index (bench/numa_policy.h) */
    /* --plan: print what a run at this scale would do, without launching ranks (cmd/join/join_plan.c) */
    bool plan;
    int64_t plan_ranks, plan_ranks_per_host; /* --ranks, --ranks-per-host (0: all on one host) */
    int64_t host_memory;       /* --host-memory: bytes one host offers (0: this machine's, one-host plans only) */
    int64_t pack_bits;         /* test only: bits of a packed word, so that tests reach the formats'
                                * limits at small sizes; 0 = 64 (join_word_bits) */
    bool verbose;              /* --verbose: per-rank header lines (bench/options.h OPT_VERBOSE) */
    int64_t wait_bound_s;      /* --wait-bound: seconds one MPI call may wait on a peer (bench/wait_bound.h) */
} join_opts;

/* The width of a packed tuple word: 64 unless a test narrows it (--pack-bits). */
static inline int join_word_bits(const join_opts *o) { return o->pack_bits > 0 && o->pack_bits < 64 ? (int)o->pack_bits : 64; }

/* Window slots a join may acquire (rma/window.h RMA_POOL_SLOTS at most). */
enum { JOIN_WINDOW_SLOTS = 3 };

/* What an algorithm will do at a given scale, decided from the options and the global sizes alone
 * (no MPI, no data), so that the run and `rmabench join --plan` (any rank count, no ranks launched)
 * use the same rules. Sizes are this rank's upper bounds, beyond its slices of R and S. */
typedef struct {
    int tuple_bytes;       /* 8: packed, 16: key and rid 8 B each; run() uses this format */
    char format[160];      /* the tuple format of windows and transfers, e.g. "8 B packed (key 23 + rid 38 bits)"
                            * or "16 B (...): keys of K and rids of R bits need N > 64" */
    char detail[512];      /* what else it resolved: partitions, passes, buffers; run length, merge depth */
    int64_t window_bytes;  /* this rank's windows: the sum of window_slot_bytes (or receive space) */
    int64_t window_slot_bytes[JOIN_WINDOW_SLOTS]; /* each window at most, by its rma_window_acquire
                            * slot: 0 R, 1 S, 2 the radix get design's flags and pack; what a kept
                            * window is made at (--window-life pool, dynamic) */
    int64_t copy_bytes;    /* copies of this rank's share of the data (a partition for the local
                            * passes, a packed relation, merge scratch): they grow with the data per
                            * rank, never with the rank count */
    int64_t buffer_bytes;  /* send buffers (bounded by --buffer-memory where they grow with P) */
    int64_t other_bytes;   /* tables, per-rank arrays (O(P) words), bookkeeping */
    /* what it resolved, as numbers for --plan and its test (0 where they do not apply) */
    int64_t partitions;    /* radix: network partitions; sort-merge: ranges */
    int64_t radix_bits, passes, local_bits; /* radix: local passes as far as the sizes tell (uniform keys) */
    int64_t buffer_size, buffers; /* each send buffer's bytes (what one put moves at most), their number */
    int64_t run_size, merge_fanin, merge_passes; /* sort-merge: tuples per run; merge depth (uniform keys) */
    int64_t merge_bands;   /* sort-merge: key bands per range (smj_bands.h) */
} join_plan;

static inline int64_t join_plan_bytes(const join_plan *p)
{
    return p->window_bytes + p->copy_bytes + p->buffer_bytes + p->other_bytes;
}

/* What run() gets: this rank's slices of R and S, generated once and reused by every --warmup and
 * --repeat run, or generated again (same sizes, other keys) before each query of --queries
 * (read-only through r and s: never reorder them in place; copy what the algorithm rearranges;
 * after the last read, their memory may be reused through reusable). */
typedef struct {
    const bench_ctx *ctx;   /* ctx->comm: the ranks of the join; rank, size, hosts (bench/context.h) */
    const join_opts *opt;   /* every flag, parsed and checked (read what applies, ignore the rest) */
    const workload *wl;     /* this rank's slice: global indices r_off.., s_off.., global sizes */
    const tuple_t *r, *s;   /* this rank's tuples, in generator order */
    uint64_t r_n, s_n;
    const join_plan *plan;    /* what the algorithm's plan() decided for this run */
    /* R's and S's memory (r_n and s_n tuples), writable once run() has read R and S for the last
     * time: dead input is reused instead of fresh pages. run() reports in
     * join_output.reused how many tuples from the start of each it wrote over; the command
     * regenerates them before the next run, untimed. NULL: nothing to reuse (allocate). */
    tuple_t *reusable[2];
} join_input;

/* What run() fills (the driver zeroes it and declares the phases before the call). */
typedef struct {
    /* This rank's share of the result: every matching (r, s) pair counted on exactly one rank;
     * checksum = sum (mod 2^64) of match_term(r.rid, s.rid, key) over those pairs (joins/generate.h). */
    uint64_t matches, checksum;
    phase_set phases;       /* seconds per declared phase: phases_add(&out->phases, "name", t) */
    /* Parameters as the algorithm resolved them ("auto" made explicit) for the report and the CSV
     * row; set those that apply, leave the rest 0 / NULL. */
    int64_t radix_bits, local_bits, passes, run_size, merge_fanin;
    int64_t merge_bands;    /* sort-merge: key bands per range */
    const char *merge_bands_how; /* sort-merge, --merge-bands auto where it measured: the costs it chose by */
    const char *run_size_how;    /* sort-merge, --run-size auto where it measured: the costs it chose by */
    int64_t local_counted;  /* radix: local passes that counted their items (not the histogram phase);
                             * sort-merge: 1 when the partition counted its input in a pass of its own */
    int64_t tuple_bytes;    /* 8 packed, 16 not: what the windows and transfers held */
    const char *simd_used;
    const char *scatter_used;  /* radix: the partitioning passes' scatter (radix_scatter_name) */
    const char *run_sort_used; /* sort-merge: "network", "radix", or "radix+network" (runs too wide for radix) */
    const char *band_count_used; /* sort-merge: "sample" (slots) or "exact" (a counting pass: one band, --band-count
                                  * exact, or a slot of this rank overflowed) */
    double radix_share;        /* sort-merge: of this rank's sorted tuples, the share the radix sort took */
    uint64_t reused[2];     /* tuples of R, S (from their start) written over through in->reusable */
} join_output;

/* The bytes a phase moves through memory on one rank (the roofline's), from the sizes and the
 * resolved plan alone, never from counters: what the phase's code must read and write at the least
 * (input, windows, scratch, send buffers), per rank on average over ranks (uniform keys). Data that
 * stay in the caches (a run being sorted, a hash table, a staging line) are not counted. */
typedef struct {
    double read, written;
} join_phase_bytes;

typedef struct {
    int ranks;
    uint64_t r_total, s_total; /* global |R|, |S| */
    int tuple_bytes;           /* 8 packed or 16: the format that ran (join_output.tuple_bytes) */
    int passes;                /* radix: local passes; sort-merge: merge passes (join_output.passes) */
    int counted;               /* radix: local passes that read their items once more to count them;
                                * sort-merge: 1 when the partition read its input once more to count it */
    int direct_ranks;          /* ranks whose windows a rank stores into itself (0 or 1: its own; --window
                                * shared: those of its host), the others' tuples go through send buffers */
} join_bytes_shape;

/* A join algorithm. The command calls, on every rank of ctx->comm:
 *   plan                  once, after MPI_Init and before R and S are allocated (a run that would
 *                         fail, or not fit, exits 2 before anything large is allocated);
 *   run                   --warmup + --repeat times on the same R and S, or once per query of
 *                         --queries on that query's R and S, after a barrier; each run is
 *                         verified and recorded.
 * Rules:
 * - phases: every phase run() adds time to, declared once here in display order (a NULL-terminated
 *   list; detail rows, time inside another phase such as "put", are shown but not summed into the
 *   total). The total of a run is the sum of its main phases, so they cover run() from start to
 *   end. Each name needs its CSV columns t_<name>_avg and t_<name>_max in docs/columns.md
 *   (tests/common/test_phase_columns.c checks); phases_add with an undeclared name aborts.
 * - plan: fills *out and returns 0, or returns -1 with "--flag: reason" in err (printed as
 *   "rmabench: --flag: reason", exit 2). Refusals must be decided alike on every rank: judge global
 *   values (the options, ranks, w->r_total, w->s_total), not this rank's slice. The sizes are an
 *   upper bound of this rank's peak memory beyond R and S; the command sums them over each host
 *   and refuses runs above 90% of the available memory. Say what data-dependent cases (skew) may
 *   need. run() gets the same plan (in->plan).
 * - run is collective over ctx->comm: every rank calls the same collectives in the same order
 *   and none returns early. An MPI error aborts (MPI_CHECK); a failed allocation prints
 *   "rmabench: rank N: ..." and calls MPI_Abort; a limit only known from the data (say, receive
 *   counts above INT_MAX) is agreed over the ranks first and then refused with bench_usage_error
 *   on every rank. Windows come from rma_window_acquire (opt->window_life; slot = the relation, or
 *   a slot of its own below JOIN_WINDOW_SLOTS with its bound in plan->window_slot_bytes) and go back
 *   with rma_window_release before run() returns. A kept window holds what an earlier join (or
 *   query) wrote: a join must not rely on its contents, nor on its size beyond what it asked for.
 * - verification is the command's: it sums matches and checksum over the ranks and compares them
 *   with what the generator alone expects (joins/verify.h); a pair found twice or missed fails.
 * Registering a new join: its extern below and an ALGO_ id; its name in join_algo_names
 * (cmd/join/join_opts.c) at that id; its selection in cmd/join/join_setup.c; its phase columns in
 * docs/columns.md; its resolved parameters in cmd/join/join_record.c and join_report.c; its
 * source in joins/meson.build; MPI tests at 1-4 ranks (tests/reference/meson.build). */
typedef struct {
    const char *name;         /* "radix", "sortmerge", "reference": the --algo value */
    const phase_decl *phases; /* every phase run() adds time to, in display order */
    int (*plan)(const join_opts *o, const workload *w, int ranks, join_plan *out, char *err, size_t errlen);
    void (*run)(const join_input *in, join_output *out);
    /* bytes read and written per rank by a declared phase ({0, 0}: not a streaming phase, e.g.
     * window_alloc, or time inside another phase); NULL: the algorithm gives none */
    join_phase_bytes (*bytes)(const char *phase, const join_bytes_shape *s);
} join_algo;

/* The byte formulas (joins/radix/radix_bytes.c, joins/sortmerge/smj_bytes.c), MPI-free. */
join_phase_bytes radix_phase_bytes(const char *phase, const join_bytes_shape *s);
join_phase_bytes sortmerge_phase_bytes(const char *phase, const join_bytes_shape *s);

extern const join_algo radix_join_algo;
extern const join_algo sortmerge_join_algo;
extern const join_algo reference_join_algo;

#endif
