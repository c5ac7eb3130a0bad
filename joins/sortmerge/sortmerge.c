/* The distributed sort-merge join over MPI RMA (thesis 3.2.2, 4.2.2), phase by phase:
 *   partition     range.c       splitters, histogram, window sizes and offsets, local partitioning
 *                               (into key bands per range where they save merge passes: smj_bands.h)
 *   window_alloc  (here)        one window per relation, sized by MPI_Reduce_scatter_block
 *   sort          sort_phase.c  runs sorted in cache and MPI_Put to their range's rank (put, flush)
 *                 (sort_radix.c or sort_simd.c: the run sort, --run-sort)
 *   merge         merge.c       multi-way merge of the received runs, d passes
 *   match         match.c       one scan over the sorted R and S
 * Kernels: smj_kernels.h (sort_simd.c, sort_scalar.c, sort_radix.c, merge.c, match.c, splitters.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joins/join.h"
#include "bench/memory.h"
#include "bench/yield_wait.h"
#include "joins/sortmerge/smj_bands.h"
#include "joins/sortmerge/smj_format.h"
#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/smj_plan.h"

#define DEFAULT_FANIN 16 /* 8..32 measured alike with smj-sortbench; more passes cost memory traffic */

static const char *size_flag(const join_opts *o) { return o->r_total > 0 ? "--r-tuples" : "--tuples-per-rank"; }

/* Every size fits one of the two formats (smj_format.h): the checks are of the flags. */
static int check(const join_opts *o, char *err, size_t errlen)
{
    if (!smj_simd_available(o->simd)) {
        snprintf(err, errlen, "--simd: %s kernels are not available here (CPU without them, or built with -Dsimd=scalar)",
                 smj_simd_name(o->simd));
        return -1;
    }
    if (o->run_size != 0 && o->run_size < 64) {
        snprintf(err, errlen, "--run-size: must be 0 (fit the L2 cache) or at least 64 tuples");
        return -1;
    }
    if (o->run_size > (int64_t)1 << 28) {
        snprintf(err, errlen, "--run-size: at most 268435456 tuples (one MPI_Put per run)");
        return -1;
    }
    if (o->merge_fanin == 1) {
        snprintf(err, errlen, "--merge-fanin: must be 0 (auto) or at least 2");
        return -1;
    }
    if (o->merge_bands < 0 || o->merge_bands > SMJ_MAX_BANDS || (o->merge_bands & (o->merge_bands - 1)) != 0) {
        snprintf(err, errlen, "--merge-bands: must be 0 (auto) or a power of two up to %d", SMJ_MAX_BANDS);
        return -1;
    }
    return 0;
}

static size_t resolved_run_size(const join_opts *o) { return o->run_size ? (size_t)o->run_size : smj_default_run_size(); }

/* The tuple format (packed when the range offsets and record ids fit a word, else wide), the
 * partitioned copy of the input (later the merge scratch: at least the received share), the windows
 * (the received share: sampled ranges keep it near the average, smj_window_slack allows for sampling
 * error and key groups), send buffers, merge tree buffers; the splitter sample on rank 0. */
static int plan(const join_opts *o, const workload *w, int ranks, join_plan *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check(o, err, errlen)) return -1;
    smj_format f = smj_format_for(w, ranks, join_word_bits(o));
    const uint64_t item = f.packed ? 8 : 16, run = resolved_run_size(o);
    /* --run-size auto measures whether twice the L2 run pays when it starts (smj_run_resolve): the
     * memory of the larger; the rest as the L2 run leaves it */
    uint64_t runs[SMJ_MAX_RUN_CANDIDATES] = {run, run};
    const int nr = o->run_size == 0 && f.packed
                       ? smj_run_candidates(w->r_total, w->s_total, ranks, run, o->merge_fanin ? (int)o->merge_fanin : DEFAULT_FANIN,
                                            (int)o->merge_bands, runs)
                       : 1;
    const uint64_t run_most = runs[nr - 1];
    uint64_t share = (w->r_total + w->s_total) / (uint64_t)ranks;
    uint64_t recv = (uint64_t)((double)share * smj_window_slack(ranks)) + 1, mine = w->r_n + w->s_n;
    uint64_t sample = o->ranges == RANGES_EQUAL ? 0 : 16 * (uint64_t)smj_samples_per_rank(ranks) * (uint64_t)ranks;
    const uint64_t P = (uint64_t)ranks;
    out->tuple_bytes = (int)item;
    out->window_bytes = (int64_t)(item * recv);
    /* each relation's window: its part of the received share (ranges split both relations alike) */
    out->window_slot_bytes[REL_R] = (int64_t)(item * (uint64_t)((double)recv * (double)w->r_total / (double)(w->r_total + w->s_total)));
    out->window_slot_bytes[REL_S] = out->window_bytes - out->window_slot_bytes[REL_R];
    out->buffer_bytes = (int64_t)(SMJ_SEND_BUFFERS * item * run_most);
    /* merge depth for uniform keys: every source's piece of a relation (about total / ranks^2) is
     * cut into key bands and each band piece into runs; fan-in runs of a band merge per pass */
    const int fanin = o->merge_fanin ? (int)o->merge_fanin : DEFAULT_FANIN;
    const int bands = smj_merge_bands(w->r_total, w->s_total, ranks, run, fanin, (int)o->merge_bands);
    /* --merge-bands auto measures its candidates when the run starts (bands_pick.c): the memory of
     * the most bands it may take (the merge passes are the rule's for every candidate) */
    int candidates[SMJ_MAX_BAND_CANDIDATES], nc = 1, most = bands;
    for (int i = 0; i < nr && o->merge_bands == 0 && f.packed; i++) {
        const int n = smj_band_candidates(w->r_total, w->s_total, ranks, runs[i], fanin, candidates);
        if (n > nc) nc = n;
        if (candidates[n - 1] > most) most = candidates[n - 1];
    }
    /* partitioned copy, then merge scratch; with bands sized from a sample, the slots' slack too */
    if (most > 1 && o->band_count == SMJ_BAND_COUNT_SAMPLE)
        mine += smj_slot_slack_max(w->r_n, P * (uint64_t)most) + smj_slot_slack_max(w->s_n, P * (uint64_t)most);
    out->copy_bytes = (int64_t)(item * (mine > recv ? mine : recv));
    int depth = 0;
    for (int rel = 0; rel < 2; rel++) {
        int d = smj_passes_for(smj_band_runs(rel ? w->s_total : w->r_total, P, run, (uint64_t)bands), fanin);
        if (d > depth) depth = d;
    }
    /* merge tree buffer, the splitter sample (bounded: smj_samples_per_rank), 16 words per rank and
     * band (counts, offsets, splitters: O(P) words), the range lookup table (fixed: at most 2^16 + 1
     * 4-byte entries), 4 MiB of bookkeeping */
    out->other_bytes = (int64_t)(item * run_most + sample + 16 * 8 * P * (uint64_t)most + ((((int64_t)1 << SMJ_LUT_BITS) + 1) * 4) +
                                 (4 << 20));
    out->partitions = ranks;
    out->run_size = (int64_t)run;
    out->merge_fanin = fanin;
    out->merge_passes = depth;
    out->merge_bands = bands;
    out->buffer_size = (int64_t)(item * run_most);
    out->buffers = SMJ_SEND_BUFFERS;
    smj_format_describe(&f, out->format, sizeof out->format);
    char ranges[96];
    if (o->ranges == RANGES_EQUAL) snprintf(ranges, sizeof ranges, "equal widths");
    else snprintf(ranges, sizeof ranges, "splitters from %d sampled keys per rank", smj_samples_per_rank(ranks));
    static const char *const run_sorts[] = {"the faster of network and radix here", "network", "radix"};
    char band_text[96];
    if (nc > 1) snprintf(band_text, sizeof band_text, "%d-%d key bands per range (measured when it starts)", bands, most);
    else snprintf(band_text, sizeof band_text, "%d key band(s) per range", bands);
    char run_text[80];
    if (nr > 1) snprintf(run_text, sizeof run_text, "%zu or %zu tuples (measured when it starts)", (size_t)run, (size_t)run_most);
    else snprintf(run_text, sizeof run_text, "%zu tuples", (size_t)run);
    snprintf(out->detail, sizeof out->detail, "%d ranges (%s; windows of up to %.2fx the average share), runs of %s "
             "sorted by %s, %s, merge fan-in %d, merge depth %d as the sizes tell", ranks, ranges,
             smj_window_slack(ranks), run_text, f.packed ? run_sorts[o->run_sort] : "wide radix", band_text, fanin, depth);
    return 0;
}

/* Runs of one relation in this rank's window, band by band: each source's piece holds its bands
 * one after another, each band piece cut into runs from its start (as the sort phase cut them).
 * band_runs[b]: the runs of band b. */
static int run_table(const smj_plan *pl, int rel, size_t run_size, size_t **starts, size_t **lens, int **band_runs)
{
    const int P = pl->parts, B = pl->bands;
    int runs = 0;
    for (int f = 0; f < P * B; f++) runs += (int)((pl->band_in[rel][f] + run_size - 1) / run_size);
    *starts = malloc(((size_t)runs + 1) * sizeof **starts);
    *lens = malloc(((size_t)runs + 1) * sizeof **lens);
    *band_runs = malloc((size_t)B * sizeof **band_runs);
    size_t *at = malloc((size_t)P * sizeof *at); /* each source's next band piece */
    if (!*starts || !*lens || !*band_runs || !at) {
        free(at);
        return -1;
    }
    for (int j = 0; j < P; j++) at[j] = j ? at[j - 1] + pl->incoming[rel][j - 1] : 0;
    int r = 0;
    for (int b = 0; b < B; b++) {
        const int first = r;
        for (int j = 0; j < P; j++) {
            const size_t n = pl->band_in[rel][j * B + b];
            for (size_t off = 0; off < n; off += run_size) {
                (*starts)[r] = at[j] + off;
                (*lens)[r] = n - off < run_size ? n - off : run_size;
                r++;
            }
            at[j] += n;
        }
        (*band_runs)[b] = r - first;
    }
    free(at);
    return runs;
}

void smj_windows_alloc(const join_input *in, const smj_plan *pl, rma_window win[RELS])
{
    const bench_ctx *ctx = in->ctx;
    const join_opts *o = in->opt;
    for (int rel = 0; rel < RELS; rel++)
        rma_window_acquire(&win[rel], pl->window[rel] * (size_t)pl->words * sizeof(uint64_t), (win_flavor)o->window,
                           (win_life)o->window_life, ctx->comm, rel);
    /* first touch belongs to getting the window (as in the radix join), not to the sort phase */
    for (int rel = 0; rel < RELS; rel++) rma_window_prefault(&win[rel]);
    MPI_CHECK(ctx->rank, rmb_barrier(ctx->comm)); /* nobody puts into pages their owner is still touching */
    for (int rel = 0; rel < RELS; rel++) /* and the peers' pages this rank's runs go to (rma/window.h) */
        rma_window_map_runs(&win[rel], ctx, (uint64_t)pl->parts, NULL, pl->remote[rel], NULL, pl->count[rel],
                            (size_t)pl->words * sizeof(uint64_t));
}

/* The phases in display order; put and flush are time inside the sort phase. */
static const phase_decl sortmerge_phases[] = {
    {"partition", false}, {"window_alloc", false}, {"sort", false}, {"put", true}, {"flush", true},
    {"merge", false}, {"match", false}, {"wait", false}, {NULL, false},
};

/* --run-sort resolved: auto is timed once per process by rank 0 (smj_run_sort_faster, a few
 * milliseconds before any timed phase) and broadcast, so that every rank and every later run sorts
 * alike and the report names one kernel. */
static int resolve_run_sort(const bench_ctx *ctx, int choice, size_t run_size, int simd)
{
    static int picked = SMJ_RUN_SORT_AUTO;
    if (choice != SMJ_RUN_SORT_AUTO) return choice;
    if (picked == SMJ_RUN_SORT_AUTO) {
        int mine = ctx->rank == 0 ? smj_run_sort_faster(run_size, simd) : 0;
        MPI_CHECK(ctx->rank, rmb_bcast(&mine, 1, MPI_INT, 0, ctx->comm));
        picked = mine;
    }
    return picked;
}

/* The merge phase: each relation's runs merged into one sorted array (in the send buffers, sorted
 * and sent by now, or R's memory beyond them); returns the deepest merge's passes. */
static int merge_phase(const join_input *in, smj_plan *pl, rma_window win[RELS], uint64_t run_size, int fanin,
                       int kernels, uint64_t *sorted[RELS])
{
    int passes = 0;
    for (int rel = 0; rel < RELS; rel++) {
        size_t *starts, *lens;
        int *band_runs;
        int runs = run_table(pl, rel, (size_t)run_size, &starts, &lens, &band_runs);
        uint64_t *scratch = pl->packed[rel]; /* sorted and sent: free to reuse */
        int d = 0;
        if (runs < 0 || !scratch) sorted[rel] = NULL;
        else if (pl->words == 1) /* the send buffers are done with: R's memory holds the tree's FIFOs */
            sorted[rel] = smj_merge_passes_in(win[rel].base, scratch, starts, lens, runs, band_runs, pl->bands, fanin,
                                              kernels, &d, smj_spare(pl, smj_merge_tree_words(fanin)));
        else
            sorted[rel] = (uint64_t *)(void *)smj_wide_merge_passes(win[rel].base, (tuple_t *)(void *)scratch, starts, lens,
                                                                    runs, band_runs, pl->bands, fanin, &d);
        if (!sorted[rel]) {
            fprintf(stderr, "rmabench: rank %d: sortmerge: out of memory in the merge phase\n", in->ctx->rank);
            MPI_Abort(in->ctx->comm, 2);
        }
        if (d > passes) passes = d;
        free(starts);
        free(lens);
        free(band_runs);
    }
    return passes;
}

static void match_phase(const smj_plan *pl, uint64_t *sorted[RELS], int simd, join_output *out)
{
    if (pl->words == 1)
        smj_match(sorted[REL_R], pl->window[REL_R], sorted[REL_S], pl->window[REL_S], pl->rid_bits, pl->key_base,
                  pl->rid_base, simd, &out->matches, &out->checksum);
    else
        smj_wide_match((const tuple_t *)(void *)sorted[REL_R], pl->window[REL_R], (const tuple_t *)(void *)sorted[REL_S],
                       pl->window[REL_S], &out->matches, &out->checksum);
}

static void run(const join_input *in, join_output *out)
{
    const bench_ctx *ctx = in->ctx;
    const join_opts *o = in->opt;
    const int simd = smj_simd_resolve(o->simd);
    /* every rank must cut runs alike: senders cut, receivers find the boundaries */
    uint64_t run_local = resolved_run_size(o), run_size;
    MPI_CHECK(ctx->rank, MPI_Allreduce(&run_local, &run_size, 1, MPI_UINT64_T, MPI_MIN, ctx->comm));
    const int fanin = o->merge_fanin ? (int)o->merge_fanin : DEFAULT_FANIN;
    run_size = smj_run_resolve(in, run_size, fanin, simd, &out->run_size_how); /* --run-size auto: measured */
    const int run_sort = resolve_run_sort(ctx, o->run_sort, (size_t)run_size, simd);
    /* from the global sizes and rank 0's measurement: every rank takes the same */
    const int bands = smj_bands_resolve(in, run_size, fanin, simd, &out->merge_bands_how);

    phase_clock pc;
    phase_mark(&pc, &out->phases);
    smj_plan pl;
    smj_range_partition(in, &pl, bands);
    phase_end(&pc, "partition", pl.t_wait);
    pl.run_sort = run_sort;

    /* the windows follow the received share, known only now */
    mem_check_or_exit(ctx, (int64_t)(8 * (uint64_t)pl.words * (pl.window[REL_R] + pl.window[REL_S])), size_flag(o));
    const int kernels = smj_simd_for_values(simd, pl.values_u64);
    phase_mark(&pc, &out->phases);
    rma_window win[RELS];
    smj_windows_alloc(in, &pl, win);
    phase_end(&pc, "window_alloc", 0);

    const double waited = smj_sort_phase(in, &pl, win, (size_t)run_size, kernels, &out->phases);
    phase_end(&pc, "sort", waited);

    uint64_t *sorted[RELS];
    out->passes = merge_phase(in, &pl, win, run_size, fanin, kernels, sorted);
    phase_end(&pc, "merge", 0);
    match_phase(&pl, sorted, simd, out);
    phase_end(&pc, "match", 0);

    /* the slowest rank's merge and match: wait, not window_alloc (the release synchronises anyway) */
    rmb_wait_all(ctx->comm);
    phase_end(&pc, "wait", 0);
    /* releasing the windows is collective: window_alloc time, as in the radix join */
    for (int rel = 0; rel < RELS; rel++) rma_window_release(&win[rel]);
    phase_end(&pc, "window_alloc", 0);

    const uint64_t r_words = pl.spare_from + pl.spare_used; /* S's copy, then the buffers */
    out->reused[REL_R] = (r_words * sizeof(uint64_t) + sizeof(tuple_t) - 1) / sizeof(tuple_t);
    out->tuple_bytes = 8 * pl.words;
    if (pl.words != 1) out->simd_used = "scalar"; /* the wide kernels are scalar */
    else out->simd_used = smj_simd_name(simd);
    out->radix_share = pl.radix_share;
    out->local_counted = pl.counted[REL_R] || pl.counted[REL_S];
    out->band_count_used = out->local_counted ? "exact" : "sample";
    out->run_sort_used = pl.words != 1 ? "wide radix" : pl.radix_share >= 1 ? "radix" : pl.radix_share > 0 ? "radix+network" : "network";
    smj_plan_free(&pl);
    out->run_size = (int64_t)run_size;
    out->merge_fanin = fanin;
    out->merge_bands = bands;
}

const join_algo sortmerge_join_algo = {"sortmerge", sortmerge_phases, plan, run, sortmerge_phase_bytes};
