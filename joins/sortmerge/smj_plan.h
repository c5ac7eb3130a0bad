/* State the sort-merge join's phases hand on to each other (one run, one rank). */
#ifndef RMB_SMJ_PLAN_H
#define RMB_SMJ_PLAN_H
#include <stdint.h>

#include "joins/join.h"
#include "joins/sortmerge/smj_format.h"

enum { REL_R, REL_S, RELS };

/* bench/memory.h: packed R in slot 1, packed S in slot 2, the splitters' sample in slot 3 */
enum { SMJ_KEPT_SLOT = 1, SMJ_KEPT_SAMPLE_SLOT = 3 };

typedef struct {
    int parts;               /* = ranks: range t goes to rank t */
    smj_format format;       /* packed or wide, as the plan decided (smj_format.h) */
    int words;               /* 64-bit words per tuple: 1 packed, 2 wide (tuple_t) */
    int rid_bits;            /* packing: (key - range base) << rid_bits | (rid - rid_base[rel]) */
    uint64_t rid_base[RELS]; /* first record id of each relation (joins/generate.h) */
    uint64_t key_base;       /* the lowest key of this rank's range (packed keys are offsets from it) */
    int values_u64;          /* packed words may reach 2^63 (AVX2 needs its _u64 kernels) */
    int run_sort;            /* SMJ_RUN_SORT_NETWORK or _RADIX (resolved): the packed runs' sort */
    double radix_share;      /* after the sort phase: of this rank's tuples, the share the radix sort took */
    int clamped;             /* sampled boundaries moved to keep ranges within the packed width */
    uint64_t *splitters;     /* parts - 1 range boundaries (range t: splitters[t-1] < key <= splitters[t]) */
    /* per relation */
    uint64_t *packed[RELS];  /* this rank's tuples (words per tuple each), grouped by target range;
                              * after the sort phase the merge's scratch (capacity: max of n and window) */
    int packed_in_r[RELS];   /* packed[] lives in R's memory (join_input.reusable), not allocated */
    uint64_t packed_bytes[RELS]; /* else: the bytes of its kept block (bench/memory.h mem_kept_get) */
    uint64_t capacity[RELS]; /* tuples packed[] holds */
    uint64_t n[RELS];        /* this rank's tuple count */
    uint64_t *count[RELS];   /* [parts] tuples for each target */
    uint64_t *local[RELS];   /* [parts] where each target's group starts in packed */
    uint64_t *remote[RELS];  /* [parts] where this rank's piece starts in each target's window (tuples) */
    uint64_t *incoming[RELS];/* [parts] size of the piece every source sends here */
    uint64_t window[RELS];   /* tuples this rank receives */
    /* merge bands (smj_bands.h): each target's group in `bands` key bands, each band's runs cut on
     * their own; with one band these are count[] and incoming[] themselves (no words beyond them) */
    int bands;
    uint64_t *band_count[RELS]; /* [parts * bands] tuples of band b for target t, at t * bands + b */
    uint64_t *band_in[RELS];    /* [parts * bands] tuples of band b that source j sends, at j * bands + b */
    /* with bands, each band piece is in a slot of its own in packed (smj_bands.h: slots sized from a
     * sample, not a counting pass): band_at[rel][t * bands + b] is where it starts; with one band
     * (or after the exact count) the pieces follow one another. counted: the partition read rel
     * once more to count it (one band, --band-count exact, or a slot overflowed) */
    uint64_t *band_at[RELS];
    int counted[RELS];
    /* R's memory, dead once partitioned (join_input.reusable): the sort phase's send buffers and
     * the merge tree's FIFOs live there instead of in fresh pages; NULL: allocate. spare_used: the
     * most words of it written; spare_from: the words of R's memory before it, which S's packed
     * copy holds when it fits there (the run reports both as join_output.reused). */
    uint64_t *spare;
    uint64_t spare_words, spare_used, spare_from;
    double t_wait;           /* seconds waited for the other ranks' counts before the collectives */
} smj_plan;

/* words of pl->spare for a buffer of that many words (noting them in spare_used), or NULL when it
 * is too small (the caller allocates). */
uint64_t *smj_spare(smj_plan *pl, uint64_t words);

/* range.c: splitters (sampled or equal), histograms, window sizes, offsets, local partitioning
 * into the format the plan chose (in->plan->tuple_bytes), each target's group in `bands` bands. */
void smj_range_partition(const join_input *in, smj_plan *pl, int bands);
void smj_plan_free(smj_plan *pl);
/* range.c, for --merge-bands auto (bands_pick.c): the partition's band scatter alone, seconds per
 * tuple, over the n tuples t into P equal-width ranges of [1, max_key] x B bands of the packed
 * format (rid_bits), as the join runs it with simd's kernels (resolved: the two-step AVX-512
 * scatter, else the two-rank loop at P = 2); out: n words; the best of `rounds`. Negative without
 * memory. */
double smj_band_scatter_seconds(const tuple_t *t, uint64_t n, int P, int B, uint64_t max_key, int rid_bits, uint64_t *out,
                                int rounds, int simd);

/* bands_pick.c: the key bands of this run: --merge-bands where given, else the rule's
 * (smj_merge_bands) or, where more bands may pay (smj_band_candidates), the cheapest as rank 0
 * measured them once per process (collective then). *how: NULL, or the measurement in words. */
int smj_bands_resolve(const join_input *in, uint64_t run, int fanin, int simd, const char **how);
/* bands_pick.c: the run size of this run: --run-size where given (or the 16-byte format: `run`),
 * else `run` (the L2 run) or twice it (smj_run_candidates), the cheaper as rank 0 measured the run
 * sort and a merge level once per process (collective then). *how: NULL, or the measurement. */
uint64_t smj_run_resolve(const join_input *in, uint64_t run, int fanin, int simd, const char **how);

/* sortmerge.c: the window_alloc phase. Collective: one window per relation of the received size,
 * its pages faulted in, and the peers' pages this rank's runs go to mapped (rma_window_map_runs). */
void smj_windows_alloc(const join_input *in, const smj_plan *pl, rma_window win[RELS]);

enum { SMJ_SEND_BUFFERS = 2 }; /* the sort phase's send buffers, one run each */
/* sort_phase.c: cut each target's tuples into runs, sort each in cache, MPI_Put it into the
 * target's window while sorting the next. simd: the packed format's kernel set (unused when wide).
 * Adds "put" and "flush" detail time; returns the seconds it waited at its closing barrier for
 * the other ranks (the phase's imbalance: the join's "wait", not its sort). */
double smj_sort_phase(const join_input *in, smj_plan *pl, rma_window win[RELS], size_t run_size, int simd,
                      phase_set *ph);

#endif
