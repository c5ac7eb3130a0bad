/* The seed's micro-benchmarks (section 5.2) in MPI terms: a table of 8-byte integers on memory
 * rank 0, in blocks, scanned by compute ranks with the simplest pipeline (the sum of the integers
 * of each block):
 *   prefetch (Fig. 7b)  one compute rank streams every block with N reads in flight (fetch.c):
 *                       blocks scanned per second against N and the block size
 *   readers  (Fig. 7c)  1..C compute ranks each scan every block at once, by reads (every reader
 *                       reads every block) or by a broadcast from the memory rank (MPI_Ibcast, the
 *                       seed's multicast): blocks per second per compute rank
 * The table's integers are their positions, so every reader's sum is known in advance
 * (micro_expected_sum): a block read twice, skipped or torn fails the check. */
#ifndef RMB_QUERY_MICRO_H
#define RMB_QUERY_MICRO_H
#include <stdbool.h>
#include <stdint.h>

#include "bench/context.h"
#include "rma/window.h"

typedef struct {
    const bench_ctx *ctx;
    uint64_t blocks, block_bytes;
    rma_window win;              /* blocks x block_bytes on rank 0, nothing elsewhere */
} micro_table;

typedef struct {
    bool reader;                 /* this rank scanned the table */
    double seconds;              /* its scan, from the barrier before it */
    uint64_t sum, blocks;
} micro_result;

/* Collective: the table (rank 0 fills it: no MPI transfer). */
void micro_table_open(micro_table *mt, const bench_ctx *ctx, uint64_t blocks, uint64_t block_bytes, int flavor);
void micro_table_close(micro_table *mt);
/* Collective: one scan by the compute ranks memory_ranks .. memory_ranks + readers - 1; bcast:
 * chunks of chunk_bytes (a multiple of the block size), else reads with `depth` in flight. */
void micro_scan(const micro_table *mt, int memory_ranks, int readers, bool bcast, int depth, uint64_t chunk_bytes,
                micro_result *res);
uint64_t micro_expected_sum(uint64_t blocks, uint64_t block_bytes);

/* Collective: the shuffle's transfer alone (the model's bw_alltoallv): every rank sends `bytes`, an
 * even share to every rank (its own included), in one MPI_Alltoallv of bytes; every byte is
 * checked where it lands. res: seconds inside MPI_Alltoallv, the bytes sent to other ranks (blocks),
 * reader true and sum 0 when every byte arrived right. */
void micro_alltoallv(const bench_ctx *ctx, uint64_t bytes, micro_result *res);

#endif
