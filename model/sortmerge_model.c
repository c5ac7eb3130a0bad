/* Sort-merge join model, thesis 3.3.2 (eq. 3.12-3.20).
 *
 * Run count (eq. 3.12): N_R = |R| / l, N_S = |S| / l, with l = sort_run_length.
 * Merge depth (eq. 3.17): d_X = ceil(log_{N_fan-in}(N_X / (N_machines * N_threads/machine))), i.e. the
 * passes a rank needs to merge the runs it received into one; merge_depth > 0 overrides both.
 *
 * Table 4.2 (sort-merge column, 1024 ranks, 40M tuples per relation per rank, its parameters) does
 * not follow from these equations in two rows; we follow the equations:
 *  - "Partitioning" 1.00 s: the histogram (eq. 3.1, P_scan = 370) plus one local partitioning pass
 *    (eq. 3.7, P_part = 120) give 80M/370M + 80M/120M = 0.22 + 0.67 = 0.88 s (1.02 s if the radix
 *    join's P_scan = 225 were meant); no reading of the stated parameters gives 1.00 s.
 *  - "Merging" 1.78 s: eq. 3.18 with d_R = d_S = 3 gives 3*40M/270M + 3*40M/270M = 0.89 s; the table's
 *    1.78 s is exactly twice that, as if each depth were applied to |R| + |S| (or d = 6).
 * The other rows agree: sorting 80M/45M = 1.78 s (compute-bound: (127/128)*45 < 1560/8, eq. 3.3),
 * matching 80M/370M = 0.22 s. Our total is 0.22 + 0.67 + 1.78 + 0.89 + 0.22 = 3.77 s (table: 4.78 s).
 * tests/model/test_join_model.c checks both the agreeing rows and these differences. */
#include <math.h>

#include "model/join_model.h"

const int *model_sortmerge_required(const model_params *p, bool multi_host)
{
    static int list[16];
    int n = 0;
    const int base[] = {MP_P_scan, MP_P_partition_range, MP_P_sort_run, MP_P_merge, MP_P_match};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) list[n++] = base[i];
    if (!(p->set[MP_merge_depth] && params_get(p, MP_merge_depth) > 0)) {
        list[n++] = MP_sort_run_length;
        list[n++] = MP_merge_fanin;
    }
    if (multi_host) {
        list[n++] = MP_bw_host;
        list[n++] = MP_wire_tuple_bytes;
    }
    list[n] = -1;
    return list;
}

double model_runs(double tuples, double l) { return tuples / l; }

int model_merge_depth(double runs, double ranks, double fanin)
{
    double per_rank = runs / ranks;
    if (per_rank <= 1 || fanin < 2) return 0;
    /* the small epsilon keeps exact powers (e.g. 4096 runs, fan-in 16) from rounding up */
    return (int)ceil(log(per_rank) / log(fanin) - 1e-9);
}

double model_T_merge(int depth, double tuples, double ranks, double P_merge)
{
    return depth * tuples / (ranks * P_merge);
}

double model_merge_work(double runs, double ranks, double fanin)
{
    const int d = model_merge_depth(runs, ranks, fanin);
    if (d == 0) return 0;
    const double last = ceil(runs / ranks / pow(fanin, d - 1) - 1e-9); /* runs the last pass merges */
    return (d - 1) + (last > 1 ? log2(last) / log2(fanin) : 0);
}

/* eq. 3.13's P_sort over the runs as the join sorted them: the share f by the radix sort at
 * P_sort_radix, the rest by the network sort at P_sort_run, each tuple at its kernel's rate
 * (1/P = f/P_sort_radix + (1-f)/P_sort_run). f = 0 or P_sort_radix unset: the thesis' P_sort. */
static double sort_rate(const model_params *p, const join_shape *s)
{
    const double network = model_rate(p, MP_P_sort_run, s), f = s->sort_radix_share;
    if (f <= 0 || !p->set[MP_P_sort_radix]) return network;
    return 1.0 / (f / model_rate(p, MP_P_sort_radix, s) + (1 - f) / network);
}

void model_sortmerge_join(const model_params *p, const join_shape *s, join_prediction *o)
{
    *o = (join_prediction){0};
    double n = s->r_tuples + s->s_tuples, machines = s->ranks / s->ranks_per_host;
    if (s->ranks <= 1 && p->set[MP_P_pack]) {
        /* one rank: one range, so range.c neither counts (no eq. 3.1 scan) nor looks up a range per
         * tuple; it packs every tuple into one array, at P_pack */
        o->partition = n / model_rate(p, MP_P_pack, s);
    } else {
        /* eq. 3.1: the sort-merge join counts per key range (a range lookup per tuple), slower than
         * the radix join's bit-mask scan: P_count_range where calibrated, else P_scan as printed */
        const int scan = p->set[MP_P_count_range] ? MP_P_count_range : MP_P_scan;
        const double share = s->count_share > 0 && s->count_share < 1 ? s->count_share : 1; /* a sampled count */
        o->histogram = model_T_scan(n * share, s->ranks, model_rate(p, scan, s));                      /* eq. 3.1 */
        o->partition = n / model_rate_local(s->ranks, model_rate(p, MP_P_partition_range, s));         /* eq. 3.7 */
    }
    /* no first-touch term: the packed arrays are kept mapped from one run to the next (range.c,
     * bench/memory.h mem_kept_get), so only a first run, which the model does not predict, maps them */
    if (machines > 1)
        o->P_network = model_P_network(params_get(p, MP_bw_host) / params_get(p, MP_wire_tuple_bytes), s->ranks_per_host);
    /* eq. 3.13-3.15: P_sort, compute- or network-bound; eq. 3.16: T_sort = (|R|+|S|) / P_sort */
    o->rate_network_pass =
        model_rate_network_pass_overlap(p, machines, s->ranks_per_host, sort_rate(p, s), o->P_network, &o->network_bound);
    o->sort = n / o->rate_network_pass + model_T_put_intra(p, s, 8, MP_bw_put_sort); /* packed runs */
    bool fixed_depth = p->set[MP_merge_depth] && params_get(p, MP_merge_depth) > 0;
    if (!fixed_depth || p->set[MP_sort_run_length]) {
        o->runs_r = model_runs(s->r_tuples, params_get(p, MP_sort_run_length)); /* eq. 3.12 */
        o->runs_s = model_runs(s->s_tuples, params_get(p, MP_sort_run_length));
    }
    /* beyond eq. 3.17: with B key bands per range, each band's runs (1/B of them) merge on their own */
    const double B = s->merge_bands > 1 ? s->merge_bands : 1;
    if (fixed_depth) {
        o->merge_depth_r = o->merge_depth_s = (int)params_get(p, MP_merge_depth);
    } else {
        o->merge_depth_r = model_merge_depth(o->runs_r / B, s->ranks, params_get(p, MP_merge_fanin)); /* eq. 3.17 */
        o->merge_depth_s = model_merge_depth(o->runs_s / B, s->ranks, params_get(p, MP_merge_fanin));
    }
    const double P_merge = model_rate(p, MP_P_merge, s);
    if (fixed_depth) {
        o->merge = model_T_merge(o->merge_depth_r, s->r_tuples, s->ranks, P_merge) + /* eq. 3.18 */
                   model_T_merge(o->merge_depth_s, s->s_tuples, s->ranks, P_merge);
    } else {
        /* eq. 3.18 with each relation's passes counted by their tree levels (model_merge_work) */
        const double F = params_get(p, MP_merge_fanin);
        o->merge = (model_merge_work(o->runs_r / B, s->ranks, F) * s->r_tuples +
                    model_merge_work(o->runs_s / B, s->ranks, F) * s->s_tuples) / (s->ranks * P_merge);
    }
    if (p->set[MP_P_match_r] && p->set[MP_P_match_s]) { /* beyond eq. 3.19: the scan's cost per R and per S tuple */
        /* beyond 2 S tuples per R tuple the pair measured there (the join's AVX2 scan takes its
         * scalar kernel there: joins/sortmerge/match.c) */
        const bool many = s->s_tuples > 2 * s->r_tuples && p->set[MP_P_match_r_many] && p->set[MP_P_match_s_many];
        o->match = model_T_scan(s->r_tuples, s->ranks, model_rate(p, many ? MP_P_match_r_many : MP_P_match_r, s)) +
                   model_T_scan(s->s_tuples, s->ranks, model_rate(p, many ? MP_P_match_s_many : MP_P_match_s, s));
    } else
        o->match = model_T_scan(n, s->ranks, model_rate(p, MP_P_match, s)); /* eq. 3.19 */
    /* beyond eq. 3.20: the total is the slowest rank's, and where one rank's put completions wait for
     * its target's progress (MPICH 4.0) that rank's sort takes longer than the mean one
     * (bw_put_sort_slowest); the others wait for it at the end of the epoch */
    if (p->set[MP_bw_put_sort_slowest] && p->set[MP_bw_put_sort]) {
        const double slowest = model_T_put_intra(p, s, 8, MP_bw_put_sort_slowest) - model_T_put_intra(p, s, 8, MP_bw_put_sort);
        o->sort_wait = slowest > 0 ? slowest : 0;
    }
    o->total = o->histogram + o->partition + o->sort + o->merge + o->match + o->sort_wait;           /* eq. 3.20 */
    /* sortmerge.c's window_alloc faults the windows in (own pages, and the peers' pages this rank
     * puts into) as the radix join's does: t_win_touch_per_byte; P_sort_run is calibrated on
     * windows already faulted in */
    model_join_finish(p, s, o);
}
