/* The MPI phases of the radix hash join (thesis 4.2.1), called in order by radix.c:
 *   histogram.c          local + global histograms, partition-to-rank assignment, write offsets
 *   network_partition.c  windows, the network-partitioning pass (local writes + putbuf)
 * then the MPI-free local_partition.c and build_probe.c. */
#ifndef RMB_RADIX_PHASES_H
#define RMB_RADIX_PHASES_H
#include "joins/join.h"
#include "joins/radix/radix_kernels.h"

enum { REL_R = 0, REL_S = 1 };

/* Where every network partition goes: the same on every rank except `prefix`. */
typedef struct {
    int bits, ranks, rank;
    uint64_t nparts;
    uint64_t *local[2];   /* [rel][p] this rank's tuples in partition p */
    uint64_t *global[2];  /* [rel][p] all ranks' tuples in partition p */
    uint64_t *prefix[2];  /* [rel][p] tuples of p on lower ranks: this rank's write offset within p */
    uint64_t *base[2];    /* [rel][p] first item of p in its owner's window */
    int *owner;           /* [p] */
    uint64_t win_items[2];/* items in this rank's window per relation */
    uint64_t max_r_part;  /* largest R partition this rank owns */
    int sub_bits;         /* > 0: sub holds the first local pass's counts (radix_sub_counts) */
    uint64_t *sub;        /* [k][rel][j] tuples of the k-th partition this rank owns (in partition
                           * order) in its sub-partition j of 2^sub_bits: key bits [bits, bits + sub_bits) */
    double t_wait;        /* seconds waited for the other ranks' scans before the collectives */
    unsigned simd;        /* the run's kernels (radix_simd_resolve): RADIX_SIMD_SCATTER, _PROBE */
    int direct_bits;      /* --scatter: passes of up to 2^direct_bits partitions scatter directly
                           * (radix_direct_bits), the network pass among them */
} radix_layout;

/* Collective: histograms over the low `bits` key bits, MPI_Allreduce, assignment, MPI_Scan. With
 * sub_bits > 0 the histograms count the next sub_bits key bits too (the first local pass's
 * fan-out: a finer histogram costs the memory-bound scan nothing), and MPI_Reduce_scatter gives each
 * owner its partitions' sub-partition sizes, so that the local pass need not count them. */
void radix_histogram_phase(const join_input *in, int bits, int sub_bits, int assign, radix_layout *lay);
/* The first local pass's counts of the k-th owned partition, relation rel (NULL without). */
static inline const uint64_t *radix_sub_counts(const radix_layout *lay, uint64_t k, int rel)
{
    return lay->sub_bits ? lay->sub + ((k * 2 + (uint64_t)rel) << lay->sub_bits) : NULL;
}
void radix_layout_free(radix_layout *lay);
/* Assignment of partitions to ranks from the global sizes (deterministic). */
void radix_assign(const uint64_t *size_r, const uint64_t *size_s, uint64_t nparts, int ranks, int assign, int *owner);

/* Collective, once per process: the radix join's kernels at --simd (RADIX_SIMD_* mask). avx512:
 * both AVX-512 kernels (check() refused it without them); avx2, scalar: none; auto: the ones that
 * ran faster than their scalar twins on rank 0 (radix_simd_faster, broadcast, so every rank and
 * every run of the process takes the same). */
unsigned radix_simd_resolve(const bench_ctx *ctx, const join_opts *o);

/* Collective: windows for R and S sized by the layout (window_alloc). */
void radix_windows_alloc(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2]);
/* Seconds of a network pass, in every --exchange design: issuing transfers (put) and waiting for
 * them (flush), both inside the pass, and waiting at the pass' closing barrier for the other ranks
 * (wait: the pass' imbalance, reported as the join's wait phase, not as the pass). */
typedef struct {
    double put, flush, wait;
} radix_pass_times;

/* Collective: network-partitioning pass of both relations into the windows. Ends with
 * MPI_Win_unlock_all + MPI_Barrier. */
void radix_network_partition(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                             radix_pass_times *t);

#endif
