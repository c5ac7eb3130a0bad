/* The compute ranks' pipelines over a block (MPI-free; the layout of a block: layout.h):
 *   query_build_block     dimension j's rows into the table of the block's partition, those that
 *                         pass the query's filter (the seed: compute servers filter while building)
 *   query_pipeline_block  every fact row of the block probed through each dimension's table of the
 *                         block's cell, the term of the result row accumulated as it goes; a row
 *                         that misses a table leaves the pipeline (no intermediate is materialised)
 * The block header's row count is capped at the rows a block holds, so that a wrong header gives a
 * wrong result (verification), never a read beyond the block. */
#ifndef RMB_QUERY_PIPELINE_H
#define RMB_QUERY_PIPELINE_H
#include <stdint.h>

#include "joins/query/star.h"
#include "joins/query/table.h"

/* Returns 0, or -1 when a table is full (more rows in the partition than its counts said). */
int query_build_block(const star_schema *s, int j, query_table *tables, const uint64_t *block, uint64_t rows_per_block);
/* Adds the block's result rows to out[0] and their terms to out[1]. */
void query_pipeline_block(const star_schema *s, query_table *const *tables, const uint64_t *block,
                          uint64_t rows_per_block, uint64_t out[2]);

#endif
