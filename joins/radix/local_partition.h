/* Local partitioning phase of the radix join (MPI-free): a plan of passes and the recursion that
 * partitions one network partition until its pieces fit the L2 cache. */
#ifndef RMB_LOCAL_PARTITION_H
#define RMB_LOCAL_PARTITION_H
#include "joins/radix/radix_kernels.h"

#define RADIX_MAX_PASSES 4

typedef struct {
    int passes;                   /* 0 = build/probe the network partitions directly */
    int bits[RADIX_MAX_PASSES];   /* fan-out bits of each pass */
    int total_bits;
} radix_local_plan;

typedef struct {
    radix_swwc swwc;
    uint64_t *level_bounds[RADIX_MAX_PASSES];
} radix_local_ws;

int radix_local_ws_init(radix_local_ws *ws, const radix_local_plan *plan); /* 0 or -1 */
/* How the network pass (2^net_bits partitions) and the plan's local passes scatter with
 * direct_bits (radix_direct_bits): "direct", "staged" or "direct+staged" (passes of both fan-outs). */
const char *radix_scatter_name(int net_bits, const radix_local_plan *plan, int direct_bits);
void radix_local_ws_free(radix_local_ws *ws);

/* Partition the n items of a (out of place, ping-ponging between a and b, both n items);
 * leaf_bounds[0 .. 2^total_bits] receive the final partition starts (item indices into the
 * returned buffer, which is a for an even number of passes, else b). first_counts: the first
 * pass's 2^bits[0] partition sizes, counted before (the histogram phase: radix_sub_counts), or
 * NULL: the pass counts them (one more read of the items). Counts that disagree with the items
 * leave every leaf empty (stderr says so; the join's verification fails). */
uint64_t *radix_local_partition(uint64_t *a, uint64_t *b, uint64_t n, const radix_format *f,
                                const radix_local_plan *plan, uint64_t *leaf_bounds, radix_local_ws *ws,
                                const uint64_t *first_counts);

#endif
