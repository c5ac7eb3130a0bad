/* `rmabench aggregate`: distributed hash aggregation (aggregate/agg.h) in one design of composite
 * remote operations, every rank an origin and an owner, read as its phases:
 *   aggregate_opts.c  the flags and their checks, the plan (--plan); MPI-free
 *   aggregate_main.c  MPI, the endpoint and the tables, the aggregation and the probes, the check of
 *                     every table against the generator, the report and the CSV row */
#ifndef RMB_AGGREGATE_CMD_H
#define RMB_AGGREGATE_CMD_H
#include <stdbool.h>
#include <stdint.h>

#include "aggregate/agg.h"

typedef struct {
    int design, handler, poll;
    int64_t tuples_per_rank, group_size, batch, chain, probes, slot_bytes, seed, wait_bound_s;
    bool plan, verbose;
    int64_t plan_ranks, plan_ranks_per_host;
    const char *output;
} aggregate_opts;

/* Exits 0 after --help, 2 on bad input. MPI-free. */
void aggregate_parse_opts(aggregate_opts *o, int argc, char **argv);
rdmo_config aggregate_config(const aggregate_opts *o, bool yield);
/* Every rank's bytes at `ranks` ranks: window, batches, the check; 0 and err on a bad size. MPI-free. */
uint64_t aggregate_rank_bytes(const aggregate_opts *o, int ranks, char *err, size_t len);
/* --plan: the exit code. */
int aggregate_plan_print(const aggregate_opts *o);

#endif
