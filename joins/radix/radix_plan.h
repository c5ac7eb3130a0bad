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
/* Sub-partition bins (per relation) up to which the histogram phase counts the first local pass
 * for the owners (radix_histogram_phase): 2^16, 512 KiB a relation, whatever the rank count (at
 * thesis scale, 2^15 partitions, only a 2-way first pass fits; the pass then counts for itself). */
#define RADIX_SUB_BINS_MAX (UINT64_C(1) << 16)
/* The first local pass's fan-out bits that the histogram phase counts, 0 for none: the plan's
 * first pass for a largest R partition of ceil(|R| / 2^bits) (R's keys are a permutation of 1..|R|),
 * when its bins fit RADIX_SUB_BINS_MAX. The join uses the counts only if the plan it makes from
 * the global histogram begins with a pass of these bits. */
int radix_plan_sub_bits(const join_opts *o, uint64_t r_total, int bits, const radix_format *f);
/* The join's plan (join_algo.plan, MPI-free): the options checked against the workload and the rank
 * count, the tuple format, the partitions and passes, and the memory a rank needs. */
int radix_plan(const join_opts *o, const workload *w, int ranks, join_plan *out, char *err, size_t errlen);

#endif
