/* Merge bands: every rank's key range cut into B equal-width bands in the partition phase (one
 * scatter over ranks x B destinations instead of ranks), so that a run never spans two bands and
 * each band's runs merge on their own. A band holds about 1/B of a range's runs: with 245 runs of a
 * relation at fan-in 16 (2 ranks, 16M tuples per rank, runs of 65536), 16 bands make one pass of 16
 * runs out of two passes, and the merge does 4 levels of 2-way merges per value instead of 8. A
 * band cannot hold fewer runs than there are sources (each sends at least one), so at thesis scale
 * (pieces shorter than a run) the rule keeps one band and the plan is unchanged. MPI-free, and
 * shared with the model's callers (rmamodel predicts the bands the join will take). */
#ifndef RMB_SMJ_BANDS_H
#define RMB_SMJ_BANDS_H
#include <math.h>
#include <stdint.h>

enum { SMJ_MAX_BANDS = 64 };

/* Merge passes (the thesis' d, eq. 3.17) for `runs` runs at fan-in `fanin`: 0 for one run. */
static inline int smj_passes_for(uint64_t runs, int fanin)
{
    int d = 0;
    for (uint64_t reach = 1; reach < runs; d++) reach *= (uint64_t)fanin;
    return d;
}

/* Runs of one band at one rank: each of `ranks` sources sends a piece of total / ranks^2 tuples of
 * the relation, cut into `bands` band pieces, each cut into runs of `run` tuples. A band piece of
 * uniform keys holds x = piece / bands tuples give or take a few sqrt(x) (binomial), and a sampled
 * range's share varies by a few per cent (smj_window_slack): counted at x + 4 sqrt(x) + x / 32, so
 * that a piece just above a whole number of runs does not add a run per source and a pass (8K
 * tuples per rank, runs of 64, 8 bands: 512 expected, up to 9 runs a piece, 2 passes). */
static inline uint64_t smj_band_runs(uint64_t total, uint64_t ranks, uint64_t run, uint64_t bands)
{
    const uint64_t whole = total / ranks / ranks;
    if (whole == 0) return 0; /* as good as no runs: pieces of under a tuple */
    const double x = (double)whole / (double)bands, most = x + 4 * sqrt(x) + x / 32;
    return ranks * (uint64_t)ceil(most / (double)run);
}

/* The bands for a join of relations of r_total and s_total tuples over `ranks` ranks (uniform
 * keys): the fewest (a power of two, at most SMJ_MAX_BANDS) that reach the fewest merge passes of
 * the larger relation. `forced` (--merge-bands, > 0) wins. */
static inline int smj_merge_bands(uint64_t r_total, uint64_t s_total, int ranks, uint64_t run, int fanin, int forced)
{
    if (forced > 0) return forced;
    const uint64_t total = r_total > s_total ? r_total : s_total, P = ranks > 0 ? (uint64_t)ranks : 1;
    if (run < 1 || fanin < 2) return 1;
    int best = 1, fewest = smj_passes_for(smj_band_runs(total, P, run, 1), fanin);
    for (int b = 2; b <= SMJ_MAX_BANDS && fewest > 1; b *= 2) {
        const int d = smj_passes_for(smj_band_runs(total, P, run, (uint64_t)b), fanin);
        if (d < fewest) {
            fewest = d;
            best = b;
        }
    }
    return best;
}

/* --merge-bands auto (bands_pick.c): beyond the rule's count, each doubling of the bands halves a
 * band's runs and saves a level of 2-way merging in its pass, and makes the partition's scatter
 * write to twice the places, at a cost that depends on the CPU. The levels a band's runs take
 * (uniform keys, pieces of their expected size, at least one run per source): ceil(log2(runs)). */
static inline int smj_band_levels(uint64_t total, uint64_t ranks, uint64_t run, uint64_t bands)
{
    const uint64_t whole = total / ranks / ranks;
    if (whole == 0 || run == 0 || bands == 0) return 0;
    const uint64_t per = (whole / bands + run - 1) / run, runs = ranks * (per ? per : 1);
    int levels = 0;
    while ((UINT64_C(1) << levels) < runs) levels++;
    return levels;
}

enum { SMJ_MAX_BAND_CANDIDATES = 7 }; /* 1, 2, 4, ..., SMJ_MAX_BANDS */

/* The counts auto chooses among: the rule's (smj_merge_bands), and while bands are in use (the rule
 * took 2 or more; at thesis scale it takes one and so does auto) each doubling up to SMJ_MAX_BANDS
 * that leaves the larger relation fewer levels than the count before it. Returns how many. */
static inline int smj_band_candidates(uint64_t r_total, uint64_t s_total, int ranks, uint64_t run, int fanin, int *bands)
{
    const uint64_t total = r_total > s_total ? r_total : s_total, P = ranks > 0 ? (uint64_t)ranks : 1;
    int n = 0, b = smj_merge_bands(r_total, s_total, ranks, run, fanin, 0);
    bands[n++] = b;
    if (b < 2) return n;
    for (; b * 2 <= SMJ_MAX_BANDS && n < SMJ_MAX_BAND_CANDIDATES; b *= 2) {
        if (smj_band_levels(total, P, run, (uint64_t)b * 2) >= smj_band_levels(total, P, run, (uint64_t)b)) break;
        bands[n++] = b * 2;
    }
    return n;
}

/* --run-size auto (bands_pick.c): the run that fits L2 (`run`, smj_default_run_size), and twice it
 * where that leaves the larger relation fewer merge levels at the most bands auto may take with it
 * (`forced` > 0: those bands): band pieces of about two runs become one, and a band's merge one
 * level shorter (2 ranks, 16M tuples, 64 bands: runs of 131072 instead of 65536, 1 level instead
 * of 2). Where pieces are shorter than a run, thesis scale among them, the run is the only
 * candidate. Returns how many (1 or 2) in runs[]. */
enum { SMJ_MAX_RUN_CANDIDATES = 2 };
static inline int smj_run_levels(uint64_t r_total, uint64_t s_total, int ranks, uint64_t run, int fanin, int forced)
{
    int b[SMJ_MAX_BAND_CANDIDATES];
    const int n = smj_band_candidates(r_total, s_total, ranks, run, fanin, b);
    const uint64_t total = r_total > s_total ? r_total : s_total, P = ranks > 0 ? (uint64_t)ranks : 1;
    return smj_band_levels(total, P, run, (uint64_t)(forced > 0 ? forced : b[n - 1]));
}
static inline int smj_run_candidates(uint64_t r_total, uint64_t s_total, int ranks, uint64_t run, int fanin, int forced,
                                     uint64_t *runs)
{
    runs[0] = run;
    if (run < 1 || smj_run_levels(r_total, s_total, ranks, 2 * run, fanin, forced) >=
                       smj_run_levels(r_total, s_total, ranks, run, fanin, forced))
        return 1;
    runs[1] = 2 * run;
    return 2;
}

/* The cheapest of n candidates (bands[i]) for relations of r_total and s_total tuples over `ranks`
 * ranks, runs of `run`: every tuple scattered (scatter[i] seconds a tuple) and each relation's
 * values merged over its levels (`level` seconds a value and level). Returns its index: the first
 * of equal costs, so the fewer bands. */
static inline int smj_band_cheapest(int n, const int *bands, const double *scatter, double level, uint64_t r_total,
                                    uint64_t s_total, int ranks, uint64_t run)
{
    const uint64_t P = ranks > 0 ? (uint64_t)ranks : 1;
    int best = 0;
    double best_cost = 0;
    for (int i = 0; i < n; i++) {
        const uint64_t B = (uint64_t)bands[i];
        const double cost = ((double)r_total + (double)s_total) * scatter[i] +
                            level * ((double)r_total * smj_band_levels(r_total, P, run, B) +
                                     (double)s_total * smj_band_levels(s_total, P, run, B));
        if (i == 0 || cost < best_cost) {
            best = i;
            best_cost = cost;
        }
    }
    return best;
}

/* Slots instead of a counting pass (range.c): with bands, the partition phase counts every
 * SMJ_SLOT_STRIDE-th tuple of a relation only, gives each band piece a slot of its estimate and a
 * margin, scatters into the slots and takes the exact counts from where each slot's writing ended;
 * the input is read once, not twice (the count read all of it, a large share of the partition;
 * docs/measurements.md, "From code comments"). A band piece of which c tuples were sampled holds
 * about SMJ_SLOT_STRIDE x c, give or take SMJ_SLOT_STRIDE x sqrt(c) (the sampled positions are a
 * fixed subset of a random order); the slot allows 6 of those and one sample more. A slot that
 * would overflow (input ordered against the stride) sends the rank back to the exact count. */
enum { SMJ_SLOT_STRIDE = 64 };
/* --band-count: sample (the slots, default) or exact (the counting pass first: the input read twice) */
enum { SMJ_BAND_COUNT_SAMPLE = 0, SMJ_BAND_COUNT_EXACT = 1 };

/* The share of a counting pass's bytes the sampled count reads: a 64-byte line for every
 * SMJ_SLOT_STRIDE-th 16-byte input tuple (the model's join_shape.count_share). */
static inline double smj_count_share(int sampled) { return sampled ? 64.0 / (16.0 * SMJ_SLOT_STRIDE) : 1; }

static inline uint64_t smj_band_slot(uint64_t sampled)
{
    return SMJ_SLOT_STRIDE * (sampled + 1 + (uint64_t)ceil(6 * sqrt((double)sampled + 1)));
}

/* The most the `parts` slots of a relation of n tuples hold beyond n: m = ceil(n / stride) samples
 * in all, sum of the slots <= stride x (m + 2 parts + 6 sqrt(parts x (m + parts))) (Cauchy-Schwarz
 * over the square roots), and stride x m < n + stride. For the plan's memory. */
static inline uint64_t smj_slot_slack_max(uint64_t n, uint64_t parts)
{
    const double k = SMJ_SLOT_STRIDE, m = ceil((double)n / k), F = (double)parts;
    return (uint64_t)ceil(k * (1 + 2 * F + 6 * sqrt(F * (m + F))));
}

#endif
