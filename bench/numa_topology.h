/* Where every rank runs and where its memory went, for the run header, the phase table and the CSV
 * row: the binding as the launcher set it (sched_getaffinity), the current core (sched_getcpu) and
 * its NUMA node, gathered per host; warnings when two bound ranks share a core, a host runs more
 * ranks than it has cores, or a rank is unbound on a multi-node host; and the worst rank's
 * placement fraction (bench/numa_policy.h) reduced over ranks. */
#ifndef RMB_NUMA_TOPOLOGY_H
#define RMB_NUMA_TOPOLOGY_H
#include "bench/context.h"
#include "bench/numa_policy.h"
#include "bench/record.h"

#include <stdint.h>
#include <stdio.h>

#define NUMA_MASK_WORDS 16 /* 1024 cores per host */

/* One rank's place, gathered to rank 0. */
typedef struct {
    int host, core, node;
    int nallowed;       /* cores the rank may run on */
    int online;         /* cores of its host */
    int nodes_spanned;  /* NUMA nodes its allowed cores cover (0 when unknown) */
    int host_nodes;     /* nodes libnuma reports on its host */
    uint64_t allowed[NUMA_MASK_WORDS];
} numa_rank_place;
void numa_mask_set(uint64_t *mask, int core);

/* The binding warnings of host h (pure, for tests): a group of ranks all confined to a set of
 * fewer cores than ranks shares cores (this covers two ranks bound to one core and oversubscribed
 * unbound ranks, but not ranks bound to a socket with enough cores); ranks whose allowed cores
 * span several nodes are unbound. Appends "host NAME: ..." to w, "; "-separated, counting in *nwarn. */
void numa_host_warnings(FILE *w, int *nwarn, const numa_rank_place *pl, int size, int h, const char *hname);

/* The run header's binding line (pure, for tests): the most common binding (unbound, or bound to
 * k cores) with the union of their cores and nodes, then at most max_exceptions ranks bound
 * otherwise; its length does not grow with the rank count. */
void numa_binding_summary(FILE *f, const numa_rank_place *pl, int size, int max_exceptions);

typedef struct {
    int policy;              /* effective (numa.h) */
    bool available;
    int nodes;
    /* rank 0 only (NULL elsewhere): */
    char *header;            /* "# ..." lines: numa state, binding summary (per host with verbose), warnings */
    char *rank_cores;        /* "0;1;..." current core of every rank, in rank order */
    char *rank_nodes;        /* "0;0;..." its node ("?" when unknown) */
    char *warning;           /* "" or "...; ..." */
    /* after numa_report_run: */
    double worst;            /* lowest placement fraction over ranks, -1 when nothing was checked */
    int worst_rank;
} numa_report;

/* Collective, after bench_ctx_init and before any large allocation: resolves and applies the
 * requested policy (numa_setup) on every rank, warns once (rank 0) when it cannot be honoured,
 * and gathers the binding. verbose: every rank's binding and every warning in the header (else a
 * summary of bounded length; the CSV columns hold every rank either way). */
void numa_report_init(const bench_ctx *ctx, int requested, bool verbose, numa_report *rep);
void numa_report_free(numa_report *rep);
/* Rank 0: print the header lines. */
void numa_report_print_header(const numa_report *rep);
/* Collective, after a run: the worst rank's placement fraction over all checks so far. */
void numa_report_run(const bench_ctx *ctx, numa_report *rep);
/* Rank 0: one line for the phase table ("numa placement: ..."). */
void numa_report_print_run(const numa_report *rep);
/* Rank 0: the CSV columns numa, numa_policy, numa_placement_worst, rank_cores, rank_numa_nodes,
 * binding_warning. */
void numa_report_columns(const numa_report *rep, record *rec);

#endif
