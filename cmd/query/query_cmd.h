/* `rmabench query`, read as its phases (Graph500's generate, construct, run, validate):
 *   query_opts.c    the flags and their checks; MPI-free (query_flags.h, which rmamodel shares)
 *   query_plan.c    what a run needs per rank and host, judged alike by a run and by --plan
 *                   (any rank count, nothing launched); the checks that need the rank count
 *   query_setup.c   MPI, the checks, the memory estimate, then generate and load (pull: the tables
 *                   into the memory ranks, timed apart; shuffle: every rank's slices)
 *   query_main.c    each design --warmup + --repeat times, each run verified
 *   query_report.c  the header, each run's phase table and verification, the summary
 *   query_record.c  one CSV row per run (cmd/results_schema.h)
 *   query_micro.c   --micro: the seed's section 5.2 micro-benchmarks (joins/query/micro.h) */
#ifndef RMB_QUERY_CMD_H
#define RMB_QUERY_CMD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/query/query_flags.h"
#include "joins/query/pull.h"
#include "joins/query/shuffle.h"
#include "bench/record.h"
#include "model/params.h"
#include "model/query_model.h"

/* What one rank needs, by kind of rank (query_plan.c): the pull design's memory and compute ranks,
 * a shuffling rank; a run of --design both holds both designs' data at once. */
typedef struct {
    int64_t memory_rank, compute_rank, shuffle_rank; /* bytes, each as the run may peak */
    int64_t window_bytes;      /* a memory rank's window */
    int64_t tables_bytes;      /* a compute rank's dimension tables */
    int64_t load_bytes;        /* a rank's slices and their sorted copy during the load */
    int64_t shuffle_data;      /* a shuffling rank's slices, intermediates, received rows */
    int64_t arrays_bytes;      /* per-rank arrays: cells, radix histograms and plan: O(P) words */
} query_need;

/* The checks that need the rank count (no compute rank, no memory rank, a table that does not fit
 * its memory ranks, a micro-benchmark's readers) and the need per rank, MPI-free. Returns 0, or -1
 * with "--flag: reason" in err. */
int query_check_ranks(const query_opts *o, const star_schema *s, int ranks, query_need *need, char *err, size_t errlen);
/* The need of the rank `rank` of `ranks` (0: none of the design's kind). */
int64_t query_rank_need(const query_opts *o, const query_need *n, int rank);
/* rmabench query --plan: prints the plan at --ranks (--ranks-per-host), O(1) lines; exit status. */
int query_plan_main(const query_opts *o);

/* --model: the parameter file, read before MPI_Init. */
typedef struct {
    bool on;
    model_params p;
} query_model_ctx;

typedef struct {
    query_opts o;
    bench_ctx ctx;
    star_schema s;
    bool pull_on, shuffle_on;
    pull_state pull;
    shuffle_state sh;
    query_need need;
    query_model_ctx model;
    uint64_t expected[2];
    char command[1024];
    bool own_mpi;
} query_session;

typedef struct {
    int design;              /* QUERY_PULL or QUERY_SHUFFLE */
    int index;               /* 0-based; negative: a warm-up */
    query_output out;
    phase_stats st;
    uint64_t got[2];
    bool pass;
    uint64_t blocks, moved_bytes; /* over all ranks: fact blocks fetched; bytes replicated + fetched, or shuffled */
    double model_s;          /* --model's prediction of the total; < 0 without */
} query_run_result;

/* Parses the flags (exit 2 on bad input, 0 after --help), starts MPI, checks the run, then
 * generates and loads what the designs need. Collective. */
void query_setup(query_session *qs, int argc, char **argv);
void query_teardown(query_session *qs);
/* Collective: one run of a design, verified, its phases reduced. */
void query_run_once(query_session *qs, int design, int index, query_run_result *res);

void query_report_header(const query_session *qs);
void query_report_run(const query_session *qs, const query_run_result *res);
void query_report_summary(const query_session *qs, int design, double *totals, int n);
/* Rank 0 appends the run's row when --output is given; collective: 0, or 2 when it failed. */
int query_record_run(const query_session *qs, const query_run_result *res);
/* The columns every row of the command has (provenance, the design, the split when pull), and the
 * append of a row rank 0 made (rec NULL elsewhere; freed): collective, 0 or 2. */
void query_record_common(const query_session *qs, record *rec, const char *design, bool pull);
int query_record_append(const query_session *qs, record *rec);

/* The model's prediction of a design's total (model/query_model.h), or -1 without --model. */
double query_model_predict(const query_session *qs, int design);

/* --micro: the micro-benchmarks instead of the query; the exit status. */
int query_micro_main(query_session *qs);

enum { QUERY_EXIT_OK = 0, QUERY_EXIT_FAILED = 1, QUERY_EXIT_USAGE = 2 };

#endif
