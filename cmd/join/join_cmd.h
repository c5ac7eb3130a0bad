/* `rmabench join`, read as its phases (Graph500's generate, construct, run, validate):
 *   join_opts.c    the flags (common, radix, sort-merge) and their checks; MPI-free
 *   join_setup.c   MPI, the workload, the algorithms' checks and memory estimate, placement, and
 *                  the generate phase (R and S, the expected result)
 *   join_main.c    each selected algorithm --warmup + --repeat times on the same data, or once
 *                  per query of --queries, each query on fresh data (join_next_query)
 *   join_run.c     one run: the algorithm (joins/join.h), its verification (joins/verify.h), the
 *                  phase table reduced over ranks
 *   join_report.c  the run header, each run's table, the summary
 *   join_record.c  one CSV row per run (cmd/results_schema.h)
 *   join_compare.c --model: predicted beside measured */
#ifndef RMB_JOIN_CMD_H
#define RMB_JOIN_CMD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/numa_topology.h"
#include "cmd/join/join_compare.h"
#include "joins/join.h"
#include "rma/window_auto.h"

extern const char *const join_algo_names[];   /* "radix", "sortmerge", "both", "reference", NULL (ALGO_*) */
extern const char *const join_assign_names[]; /* ASSIGN_* */
extern const char *const join_scatter_names[]; /* RADIX_SCATTER_* (joins/radix/radix_kernels.h) */
extern const char *const join_schedule_names[]; /* SCHEDULE_* */
extern const char *const join_ranges_names[]; /* RANGES_* */
extern const char *const join_run_sort_names[]; /* SMJ_RUN_SORT_* (joins/sortmerge/smj_kernels.h) */
extern const char *const join_band_count_names[]; /* SMJ_BAND_COUNT_* (joins/sortmerge/smj_bands.h) */
extern const char *const join_simd_names[];   /* SIMD_* */

/* --buffer-memory's default: the radix send buffers of a rank, whatever the rank count (joins/radix/radix.c
 * says why 128 MiB). */
#define JOIN_DEFAULT_BUFFER_MEMORY ((int64_t)128 << 20)

/* --window-life's default: pool, measured against join and dynamic (docs/window-lifetimes.md): it
 * pays the allocation once, in the first join, and leaves the later ones without it. */
#define JOIN_DEFAULT_WINDOW_LIFE WIN_LIFE_POOL

/* The join command's default options (join_parse_opts only overwrites what argv gives). */
void join_default_opts(join_opts *o);
/* Parses argv[2..] into o, MPI-free (the fuzz tests call it): OPT_OK, OPT_HELP (usage printed on
 * rank 0) or OPT_ERROR with "--flag: reason" in err. */
int join_parse_opts(join_opts *o, int argc, char **argv, char *err, size_t errlen);

/* The memory roofline the phase table compares each phase with (cmd/join/join_roofline.c):
 * bandwidths per rank in B/s, from --model's bw_mem_* when it has them, else measured at startup
 * with --roofline (bench/membw.h), else none (the table shows GB/s and faults only). */
typedef struct {
    bool on;
    double read, write, copy; /* B/s per rank */
    double write_plain, write_nt; /* measured only (0 from a parameter file) */
    int64_t bytes;            /* measured on buffers of this size (0 from a parameter file) */
    char source[560];         /* "model FILE", "membw ..." (ranks, buffer size, its ratio to the cache), "none" (CSV roofline_source) */
} join_roofline;

/* Everything the runs share: the options, the ranks, the data and what the generator expects. */
typedef struct {
    join_opts o;
    bench_ctx ctx;
    workload wl;
    tuple_t *r, *s;
    uint64_t expected[2];     /* matches, checksum over all ranks (joins/verify.h) */
    double t_generate;        /* slowest rank */
    int query;                /* the --queries index whose data R and S hold (seed --seed + query) */
    int64_t window_kept_plan; /* this rank's window bytes as planned under its --window-life */
    numa_report numa;
    join_model_ctx model;     /* --model */
    join_roofline roof;       /* the phases' memory roofline */
    bool window_auto;         /* --window auto: o.window is what the pick chose (window_pick) */
    rma_window_pick window_pick;
    bool flush_auto;          /* --flush auto: o.flush is what it resolved to (rma_flush_resolve) */
    const char *flush_why;    /* and why */
    const join_algo *algos[2];
    join_plan plans[2];       /* what each algorithm planned (join_algo.plan) */
    int nalgos;
    /* --algo both: the algorithms whose plan() refused this run, and why ("--flag: reason") */
    const join_algo *refused[2];
    char refusal[2][512];
    int nrefused;
    char command[1024];
    bool own_mpi; /* this command initialised MPI (not a driver that runs several commands) */
    double floor_us; /* the machine's cache-line floor between rank 0 and the next rank of its host
                      * (rma/floor.h), measured before the runs; -1: not measured */
    int floor_peer;
} join_session;

/* One run of one algorithm, reduced over ranks. */
typedef struct {
    const join_algo *algo;
    int algo_id;              /* ALGO_RADIX, ALGO_SORTMERGE or ALGO_REFERENCE */
    int index;                /* 0-based; negative: a warm-up run */
    int query;                /* the --queries index of its data */
    bool first;               /* the algorithm's first run in this process: it paid what later runs reuse */
    int64_t window_held;      /* window memory held at once so far, largest rank (rma_window_held_peak) */
    int64_t window_regrown;   /* kept windows grown beyond their plan so far, largest rank */
    join_output out;
    phase_stats st;
    uint64_t got[2];          /* matches, checksum over all ranks */
    bool pass;
    double throughput;        /* input tuples (|R| + |S|) per second of the slowest rank's total */
    /* per phase (st's order): GB/s per rank from the bytes the plan says it moves over its average
     * time, and the fraction of the roofline; -1 where no bytes are counted or no roofline */
    double gbs[PHASES_MAX], frac[PHASES_MAX];
    bool has_bytes;           /* the algorithm gives byte formulas (join_algo.bytes) */
    /* the seconds the counted phases' bytes take at the roofline, summed (the whole join at the
     * machine's streaming bandwidth; CSV membw_bound_s); -1 without a roofline */
    double bound_s;
    double steal;             /* hypervisor steal during the run, worst host (bench/host_steal.h); -1 unknown */
    double run_delay;         /* share of the run the busiest rank waited for a CPU (bench/host_steal.h); -1 unknown */
} join_run_result;

/* Collective, after bench_ctx_init and before generate: fills js->roof (the measurement, sized
 * beyond the last-level cache as rmabench membw's default, runs only with --roofline and no
 * bw_mem_* in --model's file). */
void join_roofline_init(join_session *js);
/* Fills res->gbs, res->frac from res->st and the algorithm's byte formulas (no MPI). */
void join_roofline_apply(const join_session *js, join_run_result *res);
/* The line of the whole join at the roofline (res->bound_s), when there is one. */
void join_roofline_print_bound(const join_session *js, const join_run_result *res);
/* The CSV columns t_<phase>_gbs, _roofline, _faults, roofline_source and membw_* of a run. */
void join_roofline_record(const join_session *js, const join_run_result *res, record *rec);
/* Rank 0: the in-cache phases (build_probe, sort) in tuples/s per core beside the kernel alone. */
void join_roofline_print_in_cache(const join_session *js, const join_run_result *res);

/* What one rank needs in memory, judged alike by a run (its own slice: join_setup.c) and by --plan
 * (the largest slice: join_plan.c): R and S, plus the larger of the algorithms' plans (they run one
 * after the other), and what to advise when a host cannot hold it. */
typedef struct {
    int64_t relations_bytes;  /* this rank's R and S (tuple_t) */
    int64_t plan_bytes;       /* the larger join_plan_bytes, or under a kept --window-life the larger
                               * plan beyond its windows plus the kept windows */
    int64_t rank_bytes;       /* relations + plan: what the host check sums */
    int64_t rank_bytes_join;  /* the same with --window-life join (every join frees its windows) */
    int64_t slot_bytes[JOIN_WINDOW_SLOTS]; /* each window slot's largest plan: a kept slot's size */
    int64_t kept_bytes;       /* their sum: what pool and dynamic hold from the first join on */
    int64_t join_window_bytes;/* the larger plan's windows: what --window-life join holds during a join */
    const char *flag;         /* --tuples-per-rank or --r-tuples */
    const char *advice;       /* bench/memory.h mem_advice */
} join_need;
void join_need_of(const join_opts *o, const workload *w, const join_plan *plans, int nplans, join_need *n);
/* The advice when a kept --window-life is what makes a run too large. */
#define JOIN_LIFE_ADVICE "--window-life join (each join frees its windows before the next one's)"

/* rmabench join --plan (MPI-free, no ranks launched): prints the plan of a run at --ranks with
 * --ranks-per-host, O(1) lines; returns the exit status (0, or 2 when it would not fit). */
int join_plan_main(const join_opts *o);

/* Parses the flags (exit 2 on bad input, 0 after --help), starts MPI, checks the run against the
 * algorithms and the memory, generates R and S. Collective. */
void join_setup(join_session *js, int argc, char **argv);
void join_teardown(join_session *js);
/* The --algo value (ALGO_*) whose name the algorithm carries. */
int join_algo_id(const join_algo *algo);
/* Collective: one run of the session's a-th algorithm on its data, verified. */
void join_run_once(join_session *js, int a, int index, join_run_result *res);
/* Collective: R and S of query q (seed --seed + q) and its expected result, untimed (join_setup.c). */
void join_next_query(join_session *js, int q);

/* An algorithm's measured runs, for the summary: the slowest rank's totals, the window_alloc phase
 * (mean over ranks) and the hypervisor steal of each, and whether the first of them was the
 * algorithm's first run in the process (no warm-up before it). */
typedef struct {
    int n;
    double *total, *alloc, *steal;
    bool first_measured;
} join_series;

/* Rank 0 prints. The header names the measurement configuration of every algorithm that runs (as
 * OSU's one-sided headers do); what an algorithm resolves only while running (radix bits, local
 * plan, run size, fan-in, kernels) is printed once, before its first run's lines. */
void join_report_header(const join_session *js);
void join_report_warmup(const join_session *js, const join_run_result *res);
void join_report_run(const join_session *js, const join_run_result *res);
/* The median total over the runs, and the most hypervisor steal any of them saw (steal < 0:
 * unknown); with two runs or more, the first and the steady state (the later runs) apart. */
void join_report_summary(const join_session *js, const join_algo *algo, const join_series *s);
/* Rank 0: the line before a query's runs (--queries). */
void join_report_query(const join_session *js, double t_generate);

/* Rank 0 appends the run's CSV row when --output is given; collective result: 0, or 2 when the
 * row could not be written (every rank learns it). */
int join_record_run(const join_session *js, const join_run_result *res);
/* The same for the i-th refused algorithm of --algo both: status refused, exit_code 2,
 * verification NONE. */
int join_record_refused(const join_session *js, int i);

/* The exit status of `rmabench join` (docs/joins.md, "Exit status"). */
enum { JOIN_EXIT_OK = 0, JOIN_EXIT_FAILED = 1, JOIN_EXIT_USAGE = 2, JOIN_EXIT_PARTLY_REFUSED = 4 };

#endif
