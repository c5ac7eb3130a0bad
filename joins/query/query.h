/* Multi-way joins without a shuffle (the I-Store design, ../shared/seeds/001) against a shuffling
 * engine, over MPI: the contract between `rmabench query` (cmd/query/) and the operator.
 *
 * The star query (star.h) runs in one of two designs:
 *   pull     memory ranks (the first --memory-ranks) hold every table in a window, split at load
 *            time by every join key into cells and the cells into fixed-size blocks (layout.h,
 *            load.c); the other ranks compute: they take the dimensions whole (replicate.c: read
 *            with MPI_Rget, or broadcast by their memory ranks) into hash tables, then stream the
 *            fact table's blocks (fetch.c: MPI_Rget with --prefetch blocks in flight, blocks
 *            claimed from a shared counter with MPI_Fetch_and_op) through the whole join pipeline
 *            (pipeline.c): no shuffle.
 *   shuffle  every rank holds a slice of every table and the query runs as a sequence of binary
 *            joins (shuffle.c), each the radix join's shuffle (joins/radix/: its histograms,
 *            partition assignment and exchange plan, the rows moved by one MPI_Alltoallv) and a
 *            hash join per partition that materialises the intermediate for the next join.
 * Both are verified against the generator's count and checksum of the result (star.h). The
 * seed's micro-benchmarks of section 5.2 (blocks scanned against prefetch depth and block size;
 * compute ranks reading one memory rank, by reads or by a broadcast) are in micro.c. */
#ifndef RMB_QUERY_H
#define RMB_QUERY_H
#include <stdbool.h>
#include <stdint.h>

#include "bench/context.h"
#include "bench/phases.h"
#include "joins/query/query_opts.h"

/* What one run of a design gives (per rank; the command reduces it). */
typedef struct {
    uint64_t matches, checksum;
    phase_set phases;
    uint64_t blocks, bytes;                  /* pull: fact blocks this rank fetched and their bytes */
    uint64_t replicated_bytes;               /* pull: dimension bytes this rank received */
    uint64_t shuffled_bytes;                 /* shuffle: bytes this rank sent to other ranks */
} query_output;

/* The phases of each design, in display order (CSV columns t_<name>_avg/_max: cmd/results_schema.c).
 * pull: replicate (dimensions into the tables), probe (the fact blocks through the pipeline),
 * fetch_wait (time inside probe waiting for a block: detail), wait (the slowest rank);
 * shuffle: histogram, exchange, build_probe summed over the joins, wait. */
extern const phase_decl query_pull_phases[];
extern const phase_decl query_shuffle_phases[];

#endif
