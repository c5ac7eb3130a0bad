/* `rmabench rdmo`: one composite operation (rdmo/rdmo.h) in one design, rank 0 the target and
 * ranks 1..N its origins, read as its phases:
 *   rdmo_opts.c    the flags and their checks (a payload larger than a slot, a handler the design
 *                  has none of: one line naming the flag, exit 2); MPI-free
 *   rdmo_plan.c    the objects of the run and what every rank allocates; --plan; MPI-free
 *   rdmo_setup.c   MPI (MPI_THREAD_MULTIPLE for the progress thread, refused with exit 2 where the
 *                  library lacks it), the memory check, the endpoint, the run header
 *   rdmo_bench.c   one step: the target's objects built, the origins' timed loop, the target's handler
 *   rdmo_verify.c  the step's counts reduced; the checker (rdmo/check.h) on the target's objects
 *   rdmo_report.c  the step's line, the verification line, the paper's claims beside the counts
 *   rdmo_record.c  the CSV row of a step (cmd/results_schema.h)
 *   rdmo_main.c    the steps: 1, 2, 4, ... origins with --sweep, else all of them */
#ifndef RMB_RDMO_CMD_H
#define RMB_RDMO_CMD_H
#include <stdbool.h>
#include <stdint.h>

#include "bench/context.h"
#include "model/params.h"
#include "rdmo/check.h"
#include "rdmo/rdmo.h"

typedef struct {
    int op, design, handler, poll;
    int64_t iterations, warmup, origins;
    int64_t payload_bytes, keys, matches, chain, batch, rows, row_words, tries;
    int64_t slot_bytes, queue_depth, seed, wait_bound_s;
    bool sweep, plan, verbose;
    bool remote_origins;      /* origins: the first ranks on other hosts than the target's */
    int64_t plan_ranks, plan_ranks_per_host;
    const char *output, *model;
} rdmo_opts;

/* Parses argv[2..]; exits 0 after --help, 2 on bad input (one line naming the flag). MPI-free. */
void rdmo_parse_opts(rdmo_opts *o, int argc, char **argv);
/* The endpoint's configuration for rank `rank` (rank 0 serves). MPI-free. */
rdmo_config rdmo_bench_config(const rdmo_opts *o, int rank, bool yield);

/* The run's objects (the same layout on every rank; only the target allocates them). */
typedef struct {
    rdmo_space space;
    uint16_t obj;
    uint64_t page_capacity;     /* slotted-append */
    uint64_t buckets, entries;  /* the table */
} rdmo_layout;
rdmo_layout rdmo_bench_layout(const rdmo_opts *o, int ranks);
/* Bytes rank `rank` of `ranks` holds: endpoint, histogram, checker (rank 0). MPI-free. */
uint64_t rdmo_bench_rank_bytes(const rdmo_opts *o, const rdmo_layout *l, int rank, int ranks);
/* --plan: prints the plan at o->plan_ranks; returns the exit code. MPI-free. */
int rdmo_plan_print(const rdmo_opts *o);

typedef struct {
    rdmo_opts o;
    bench_ctx ctx;
    rdmo_layout lay;
    rdmo_config cfg;
    rdmo_ep *ep;
    int thread_level;
    model_params model;       /* --model */
    bool remote;              /* the first origin on another host than the target: the model's _remote parameters */
    int my_origin;            /* this rank's place among the origins (0..), -1: none */
    char command[1024];
    bool own_mpi;
} rdmo_session;

void rdmo_setup(rdmo_session *s, int argc, char **argv);
void rdmo_teardown(rdmo_session *s);
void rdmo_report_header(const rdmo_session *s);

/* What one rank did in one step. */
typedef struct {
    rdmo_counts c;            /* the measured iterations only */
    uint64_t acked;           /* operations answered OK, warm-up included (what the checker expects) */
    uint64_t errors;          /* answers other than OK (BUSY of signaled-read excepted) */
    uint64_t bad_answers;     /* gathers with the wrong entries, reads of a torn row */
    double elapsed;           /* the measured iterations */
    double window_s;          /* median conflict window (verbs origins), or the op's method's median run (target); -1: none */
    uint64_t *hist;           /* [RDMO_LAT_BUCKETS] */
} rdmo_local;

/* A step's results at rank 0. */
typedef struct {
    int origins;
    double model_us, model_err;   /* --model: predicted latency and (model - median) / median; model_us < 0: none */
    rdmo_counts c;            /* origins' counts summed; the handler's (target) */
    uint64_t acked, errors, bad_answers;
    double elapsed, lat_median_us, lat_p99_us, ops_per_s;
    double handler_us, window_us; /* medians (rdmo/rdmo.h): the method's run, the conflict window; -1: none */
    rdmo_verdict verdict;
} rdmo_step;

/* Collective: one step with `origins` origins (ranks 1..origins); the others wait. */
void rdmo_bench_step(rdmo_session *s, int origins, rdmo_local *me);
/* Collective: reduces the step onto rank 0 and runs the checker there. */
void rdmo_verify_step(rdmo_session *s, int origins, const rdmo_local *me, rdmo_step *st);
void rdmo_report_step(const rdmo_session *s, const rdmo_step *st, bool first);
/* The method that runs op at the target (rdmo, rpc). */
int rdmo_method_of(int op);
/* --model: loads the file (exit 2 on a bad one, before MPI); after MPI, requires the design's
 * parameters (the same exit on every rank); per step, the prediction into st and its line. */
void rdmo_model_load(rdmo_session *s);
void rdmo_model_require(rdmo_session *s);
void rdmo_model_step(const rdmo_session *s, rdmo_step *st);
/* Rank 0: appends the step's CSV row; returns 2 when it cannot be written, else exit_code. */
int rdmo_record_step(const rdmo_session *s, const rdmo_step *st, int exit_code);

#endif
