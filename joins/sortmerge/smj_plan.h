/* State the sort-merge join's phases hand on to each other (one run, one rank). */
#ifndef RMB_SMJ_PLAN_H
#define RMB_SMJ_PLAN_H
#include <stdbool.h>
#include <stdint.h>

#include "joins/join.h"

enum { REL_R, REL_S, RELS };

typedef struct {
    int parts;               /* = ranks: range t goes to rank t */
    int rid_bits;            /* packing: key << rid_bits | (rid - rid_base[rel]) */
    uint64_t rid_base[RELS]; /* first record id of each relation (joins/generate.h) */
    uint64_t *splitters;     /* parts - 1 range boundaries (range t: splitters[t-1] < key <= splitters[t]) */
    /* per relation */
    uint64_t *packed[RELS];  /* this rank's tuples, packed, grouped by target range; after the sort
                              * phase the merge's scratch (capacity: max of n and window) */
    uint64_t capacity[RELS]; /* values packed[] holds */
    uint64_t n[RELS];        /* this rank's tuple count */
    uint64_t *count[RELS];   /* [parts] tuples for each target */
    uint64_t *local[RELS];   /* [parts] where each target's group starts in packed */
    uint64_t *remote[RELS];  /* [parts] where this rank's piece starts in each target's window (values) */
    uint64_t *incoming[RELS];/* [parts] size of the piece every source sends here */
    uint64_t window[RELS];   /* values this rank receives */
} smj_plan;

/* range.c: splitters (sampled or equal), histograms, window sizes, offsets, local partitioning.
 * smj_rid_bits: the bits of the larger relation's record id offsets. */
int smj_rid_bits(const workload *w);
/* The partition phase's per-rank arrays at `ranks` ranks, O(P) words; gathers_sample: rank 0, which
 * also holds the whole splitter sample. */
uint64_t smj_rank_arrays_bytes(int ranks, bool gathers_sample);
void smj_range_partition(const join_input *in, smj_plan *pl);
void smj_plan_free(smj_plan *pl);

/* sortmerge.c: the window_alloc phase. Collective: one window per relation of the received size,
 * its pages faulted in, and the peers' pages this rank's runs go to mapped (rma_window_map_runs). */
void smj_windows_alloc(const join_input *in, const smj_plan *pl, rma_window win[RELS]);

enum { SMJ_SEND_BUFFERS = 2 }; /* the sort phase's send buffers, one run each */
/* sort_phase.c: cut each target's tuples into runs, sort each in cache, MPI_Put it into the
 * target's window while sorting the next. Adds "put" and "flush" detail time. */
void smj_sort_phase(const join_input *in, const smj_plan *pl, rma_window win[RELS], size_t run_size, int simd,
                    phase_set *ph);

#endif
