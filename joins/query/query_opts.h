/* The options of a star query run (rmabench query, rmamodel query) and the schema they resolve to,
 * MPI-free (joins/query/query.h has the designs' contract). */
#ifndef RMB_QUERY_OPTS_H
#define RMB_QUERY_OPTS_H
#include <stdbool.h>
#include <stdint.h>

#include "joins/query/star.h"

enum { QUERY_PULL, QUERY_SHUFFLE, QUERY_BOTH };    /* --design */
enum { REPLICATE_READ, REPLICATE_BCAST };          /* --replicate */
enum { MICRO_NONE, MICRO_PREFETCH, MICRO_READERS, MICRO_ALLTOALLV }; /* --micro */
enum { QUERY_EXCHANGE_PUT, QUERY_EXCHANGE_ALLTOALLV };   /* --exchange: the shuffle's transfer */
#define QUERY_MAX_LIST 16                          /* values of a --micro sweep list */

typedef struct {
    int design;
    int64_t tables;                         /* 2..4: the fact table and tables - 1 dimensions */
    int64_t fact_rows;
    int64_t dim_rows[STAR_MAX_DIMS];        /* 0: SSB's share of fact_rows */
    int64_t fact_width, dim_width[STAR_MAX_DIMS]; /* bytes a row */
    double selectivity[STAR_MAX_DIMS];
    int64_t partitions;                     /* per join key (a power of two); 0 = star_auto_part_bits */
    int64_t seed, repeat, warmup;
    /* pull */
    int64_t memory_ranks, prefetch, block_size, claim;
    int replicate;
    int64_t bcast_chunk;                    /* bytes a broadcast moves at once */
    int64_t memory_capacity;                /* bytes one memory rank may hold; 0 = its host's share */
    int window;                             /* win_flavor of the memory ranks' window */
    /* shuffle */
    int64_t radix_bits;                     /* 0 = the radix join's rule (radix_plan_bits) */
    int exchange;                           /* QUERY_EXCHANGE_*: how the shuffle moves its rows */
    /* micro-benchmarks */
    int micro;
    int64_t micro_blocks;                   /* blocks of the scanned table */
    int64_t list_prefetch[QUERY_MAX_LIST], list_block[QUERY_MAX_LIST], list_readers[QUERY_MAX_LIST];
    int n_prefetch, n_block, n_readers;
    /* harness */
    const char *output, *model;
    bool plan;
    int64_t plan_ranks, plan_ranks_per_host, host_memory;
    bool verbose;
    int64_t wait_bound_s;                   /* --wait-bound: seconds one MPI call may wait on a peer */
} query_opts;

/* The resolved schema of these options at `ranks` ranks (this rank's slices): sizes, widths and
 * partition bits; part_bits by star_auto_part_bits unless --partitions. */
void query_schema(const query_opts *o, int rank, int ranks, star_schema *s);
/* Rows of a fact block of block_bytes (after its header), at least 1 when the options are valid. */
uint64_t query_rows_per_block(uint64_t block_bytes, uint64_t row_bytes);

#endif
