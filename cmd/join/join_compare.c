/* Model versus measurement for one join run (Table 4.2's layout: phase, measured, model, diff).
 * One sign convention in both columns and in the report: diff = model - measured, model err =
 * diff / measured (positive when the model predicts too long a time). */
#include "cmd/join/join_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joins/sortmerge/smj_bands.h"
#include "model/profile.h"
#include "model/shape.h"
#include "rma/window.h"

_Static_assert((int)MODEL_LIFE_POOL == (int)WIN_LIFE_POOL && (int)MODEL_LIFE_DYNAMIC == (int)WIN_LIFE_DYNAMIC, "model and rma name the lifetimes alike");

void join_compare_load(join_model_ctx *m, const char *path, int algo)
{
    memset(m, 0, sizeof *m);
    if (!path) return;
    if (algo == ALGO_REFERENCE) {
        if (bench_env_rank() == 0) fprintf(stderr, "rmabench: --model: the reference join has no model (radix, sortmerge, both)\n");
        exit(2);
    }
    char err[700];
    params_init(&m->p);
    int bad = params_load(&m->p, path, err, sizeof err);
    /* one-host requirements now; bw_host is checked once the placement is known */
    if (!bad && (algo == ALGO_RADIX || algo == ALGO_BOTH)) bad = params_require(&m->p, model_radix_required(false), err, sizeof err);
    if (!bad && (algo == ALGO_SORTMERGE || algo == ALGO_BOTH))
        bad = params_require(&m->p, model_sortmerge_required(&m->p, false), err, sizeof err);
    if (bad) {
        if (bench_env_rank() == 0) fprintf(stderr, "rmabench: --model: %s\n", err);
        exit(2);
    }
    m->on = true;
}

typedef struct {
    const char *phase;
    double model;
} row;

static void print_row(const char *name, const double *measured, const double *model)
{
    char ms[16] = "-", md[16] = "-", df[16] = "", pc[16] = "";
    if (measured) snprintf(ms, sizeof ms, "%.4f", *measured);
    if (model) snprintf(md, sizeof md, "%.4f", *model);
    if (measured && model) {
        snprintf(df, sizeof df, "%+.4f", *model - *measured);
        if (*measured > 0) snprintf(pc, sizeof pc, "%+.1f%%", 100 * (*model - *measured) / *measured);
    } else if (measured) {
        snprintf(df, sizeof df, "%+.4f", -*measured); /* a phase the model does not predict: 0 */
    }
    printf("%-24s %12s %10s %10s %10s\n", name, ms, md, df, pc);
}

/* The totals' rows. Like with like: the measured total holds window_alloc, so it is compared with
 * the model's total that holds it too, and the thesis' total (eq. 3.11 / 3.20, no allocation) with
 * the measured total less its window_alloc. The measured total is the slowest rank's; the model's
 * holds the phases' waits for their slowest rank (rank_spread, the "wait" row) and the sort's
 * slowest rank (sort_wait): the mean total over ranks is shown beside the slowest rank's. */
static void print_totals(join_model_ctx *m, const phase_stats *st, const join_prediction *pr, const double *alloc_meas)
{
    print_row("imbalance", &st->imbalance, NULL);
    if (pr->sort_wait > 0)
        printf("%-24s the totals hold %.4f s: the slowest rank's sort puts beyond the mean's (bw_put_sort_slowest)\n",
               "model: slowest rank", pr->sort_wait);
    m->meas_total = st->total_max;
    m->meas_total_without_alloc = st->total_max - (alloc_meas ? *alloc_meas : 0);
    print_row("total", &st->total_max, pr->alloc_modelled ? &pr->total_with_alloc : NULL);
    print_row("total_without_alloc", &m->meas_total_without_alloc, &pr->total);
    if (pr->alloc_modelled) {
        double avg = st->total_avg;
        print_row("total_without_imbalance", &avg, &pr->total_with_alloc);
    }
}

/* The join as it ran, the model's inputs (model/join_model.h). */
static join_shape run_shape(const bench_ctx *ctx, const join_opts *o, const model_params *p, const workload *w, int algo,
                            const join_output *out, bool first)
{
    /* namespace hosts of one machine share its cores and memory (bench_ctx.ranks_per_machine); what
     * this run sent and kept in its windows: 8 bytes packed or 16 (the format its plan chose) */
    join_shape s = {.ranks = ctx->size, .ranks_per_host = (double)ctx->size / ctx->hosts, .ranks_on_cores = ctx->ranks_per_machine,
                    .r_tuples = (double)w->r_total, .s_tuples = (double)w->s_total, .window_bytes_per_tuple = (double)out->tuple_bytes,
                    .window_life = o->window_life, .first_run = first}; /* MODEL_LIFE_* = win_life */
    /* d - 1 of eq. 3.8: as the radix join resolved it (none where its partitions fit the cache), else
     * as asked, else the parameter file's, else 1 */
    s.radix_local_passes = algo == ALGO_RADIX || out->local_bits ? (int)out->passes
                           : o->passes >= 0 ? (int)o->passes
                           : p->set[MP_radix_local_passes] ? (int)params_get(p, MP_radix_local_passes)
                                                           : 1;
    /* the passes that counted their items as the join resolved it (the first is counted by the
     * histogram phase where its bins fit) */
    s.radix_local_counted = out->local_bits ? (int)out->local_counted : 0;
    /* the histogram's bins: the network fan-out, and the first local pass's where it counted that */
    if (algo == ALGO_RADIX) s.hist_bits = (int)(out->radix_bits + (out->local_bits && out->passes > out->local_counted ? out->local_bits : 0));
    s.sort_radix_share = out->radix_share; /* the runs this rank's sort phase gave the radix sort */
    s.merge_bands = (double)out->merge_bands; /* as the join resolved them (from the sizes: smj_bands.h) */
    /* the run length the join sorted (--run-size auto may take twice the calibrated L2 run) */
    if (algo == ALGO_SORTMERGE && out->run_size >= 1) s.sort_run_length = (double)out->run_size;
    s.count_share = smj_count_share(algo == ALGO_SORTMERGE && out->merge_bands > 1 && !out->local_counted);
    return s;
}

void join_compare(join_model_ctx *m, const bench_ctx *ctx, const join_opts *o, const workload *w, int algo,
                  const join_output *out, const phase_stats *st, bool first)
{
    if (!m->on || algo == ALGO_REFERENCE) return;
    model_params p = m->p;
    bool multi = ctx->hosts > 1;
    params_put(&p, MP_wire_tuple_bytes, (double)out->tuple_bytes); /* the format its plan chose */
    char err[700], note[700];
    const int *need = algo == ALGO_RADIX ? model_radix_required(multi) : model_sortmerge_required(&p, multi);
    params_apply_profile(&p, need, note, sizeof note); /* bw_host on several hosts after a one-host calibration */
    if (params_require(&p, need, err, sizeof err)) {
        if (ctx->rank == 0) printf("model: not compared: %s\n", err);
        return;
    }
    if (note[0] && ctx->rank == 0) printf("model: %s\n", note);
    snprintf(m->source, sizeof m->source, "%s", p.source);
    join_shape s = run_shape(ctx, o, &p, w, algo, out, first);
    model_join_shape_params(&p, &s);
    /* the state of fresh memory this run's windows met, from what its window_alloc took (a later run
     * under --window-life pool or dynamic allocates none: reused) */
    const double *alloc_run = phase_stats_find(st, "window_alloc", 0);
    const bool allocated = first || o->window_life == WIN_LIFE_JOIN;
    s.alloc_regime = model_alloc_regime(&p, &s, alloc_run && allocated ? *alloc_run : 0);
    m->shape = s;
    join_prediction *pr = &m->pred;
    if (algo == ALGO_RADIX) model_radix_join(&p, &s, pr);
    else model_sortmerge_join(&p, &s, pr);
    if (ctx->rank != 0) return;

    const row radix_rows[] = {{"histogram", pr->histogram}, {"window_alloc", pr->window_alloc},
                              {"network_partition", pr->network_partition}, {"local_partition", pr->local_partition},
                              {"build_probe", pr->build_probe}, {pr->wait > 0 ? "wait" : NULL, pr->wait}, {NULL, 0}};
    /* sortmerge.c's "partition" phase includes its range histogram: eq. 3.1 + eq. 3.7 in one row */
    const row smj_rows[] = {{"window_alloc", pr->window_alloc}, {"partition", pr->histogram + pr->partition},
                            {"sort", pr->sort}, {"merge", pr->merge}, {"match", pr->match},
                            {pr->wait > 0 ? "wait" : NULL, pr->wait}, {NULL, 0}};
    const row *rows = algo == ALGO_RADIX ? radix_rows : smj_rows;
    printf("%-24s %12s %10s %10s %10s\n", algo == ALGO_RADIX ? "model: radix hash join" : "model: sort-merge join",
           "measured [s]", "model [s]", "diff [s]", "model err");
    printf("%-24s (diff = model - measured; model err = diff / measured)\n", "");
    m->nphases = 0;
    const double *alloc_meas = phase_stats_find(st, "window_alloc", 0);
    for (const row *r = rows; r->phase; r++) {
        const double *meas = phase_stats_find(st, r->phase, 0);
        bool alloc = strcmp(r->phase, "window_alloc") == 0;
        print_row(r->phase, meas, alloc && !pr->alloc_modelled ? NULL : &r->model);
        if (alloc && !pr->alloc_modelled) continue;
        m->phase[m->nphases] = r->phase;
        m->model[m->nphases] = r->model;
        m->measured[m->nphases++] = meas ? *meas : -1;
    }
    /* measured phases the model does not cover */
    for (int i = 0; i < st->n; i++) {
        if (st->detail[i]) continue;
        bool known = false;
        for (const row *r = rows; r->phase; r++) known |= strcmp(r->phase, st->name[i]) == 0;
        if (!known) print_row(st->name[i], &st->avg[i], NULL);
    }
    print_totals(m, st, pr, alloc_meas);
    if (pr->total_first >= 0 && pr->total_steady >= 0)
        printf("%-24s first join %.4f s (window_alloc %.4f), later joins %.4f s (window_alloc %.4f), --window-life %s\n",
               "model: first, steady", pr->total_first, pr->window_alloc_first, pr->total_steady, pr->window_alloc_steady,
               win_life_names[o->window_life]);
    printf("model: %s (eq. 3.3; %d host(s) x %.0f ranks), parameters %s%s%s\n",
           pr->network_bound ? "network-bound" : "compute-bound", ctx->hosts, s.ranks_per_host, p.source,
           p.info[MI_mpi_library][0] ? ", calibrated with " : "", p.info[MI_mpi_library]);
    if (p.set[MP_t_win_alloc_fixed])
        printf("model: window allocation met the %s state of fresh memory%s\n", model_alloc_regime_names[s.alloc_regime],
           pr->alloc_modelled ? "" : s.alloc_regime == MODEL_ALLOC_RETURNED ? " (not calibrated: window_alloc not predicted)" : "");
    fflush(stdout);
}

static void set_err(record *rec, const char *col, double model, double measured)
{
    if (measured > 0) record_set(rec, col, "%.4f", (model - measured) / measured);
}

void join_compare_record(const join_model_ctx *m, record *rec)
{
    if (!m->on || m->pred.total <= 0) return;
    const join_prediction *pr = &m->pred;
    const struct {
        const char *col;
        double v;
        bool has;
    } cols[] = {
        {"model_histogram", pr->histogram, pr->network_partition > 0}, /* sort-merge: inside partition */
        {"model_window_alloc", pr->window_alloc, pr->alloc_modelled},
        {"model_network_partition", pr->network_partition, pr->network_partition > 0},
        {"model_local_partition", pr->local_partition, pr->network_partition > 0},
        {"model_build_probe", pr->build_probe, pr->build_probe > 0},
        {"model_partition", pr->histogram + pr->partition, pr->sort > 0}, /* as the row above */
        {"model_sort", pr->sort, pr->sort > 0},
        {"model_merge", pr->merge, pr->sort > 0},
        {"model_match", pr->match, pr->sort > 0},
        {"model_wait", pr->wait, pr->wait > 0},
        {"model_total", pr->total, true},
        {"model_total_with_alloc", pr->total_with_alloc, pr->alloc_modelled},
        {"model_total_first", pr->total_first, pr->total_first >= 0},
        {"model_total_steady", pr->total_steady, pr->total_steady >= 0},
    };
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if (cols[i].has) record_set(rec, cols[i].col, "%.6f", cols[i].v);
    char col[64];
    for (int i = 0; i < m->nphases; i++) {
        snprintf(col, sizeof col, "model_err_%s", m->phase[i]);
        set_err(rec, col, m->model[i], m->measured[i]);
    }
    if (pr->alloc_modelled) set_err(rec, "model_err_total", pr->total_with_alloc, m->meas_total);
    record_set(rec, "model_total_without_alloc", "%.6f", pr->total);
    set_err(rec, "model_err_total_without_alloc", pr->total, m->meas_total_without_alloc);
    record_set(rec, "model_bound", "%s", pr->network_bound ? "network" : "compute");
    record_set(rec, "alloc_regime", "%s", model_alloc_regime_names[m->shape.alloc_regime]);
    char shape[600];
    if (!model_join_shape_format(&m->shape, shape, sizeof shape)) record_set(rec, "model_shape", "%s", shape);
    record_set(rec, "model_params", "%s", m->source); /* with the default profile when it was used */
}
