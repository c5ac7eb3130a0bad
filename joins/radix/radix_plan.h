/* What the radix join resolves from its options and sizes before it runs, MPI-free, so that the
 * join, its calibration and planning tools all use the same rules. */
#ifndef RMB_RADIX_PLAN_H
#define RMB_RADIX_PLAN_H
#include <stdint.h>

#include "joins/join.h"
#include "joins/radix/local_partition.h"

/* --radix-bits, resolved: enough partitions that every rank gets several (2^ceil(log2 ranks) x 8),
 * which also gives the sized assignment room to balance skew; at most 20 bits. */
int radix_plan_bits(const join_opts *o, int ranks);
/* The local passes for a largest R partition of max_r_part items: --passes / --local-bits as given,
 * else passes of at most 10 bits, spread evenly, until a partition and its hash table fit half the
 * L2 cache; never more key bits than 64 less the network bits. */
radix_local_plan radix_plan_local(const join_opts *o, uint64_t max_r_part, const radix_format *f);

#endif
