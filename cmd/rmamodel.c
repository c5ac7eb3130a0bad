/* rmamodel: the thesis' performance models without MPI.
 *   rmamodel join --algo radix|sortmerge --params FILE --ranks N --ranks-per-host N --tuples-per-rank N [--ratio N] [--merge-bands N]
 *   rmamodel join --algo radix|sortmerge --params FILE --shape TEXT   (a run's model_shape column)
 *   rmamodel lock --params FILE --agents N --locks-per-txn N --remote-prob P
 *   rmamodel lock --params FILE --shape TEXT
 *   rmamodel cores-per-host --params FILE [--algo radix|sortmerge] [--hosts N]
 *   rmamodel query --params FILE [--ranks N] [--ranks-per-host N] [--memory-ranks M] [--tables N] [...]
 *   rmamodel rdmo --params FILE --design verbs|rdmo|rpc (--rounds C,F,G,P,A | --rts R) [--msgs M] [--handler-us H] [--remote]
 *   rmamodel pool --output FILE CALIBRATION...          (cmd/rmamodel_pool.c)
 *   rmamodel thesis --params FILE                       (cmd/rmamodel_thesis.c)
 * Every command but pool takes --set NAME=VALUE (repeatable, the file's units) to override a
 * parameter. Bad input: one line naming the flag or FILE:LINE, exit 2. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/rmamodel.h"
#include "joins/sortmerge/smj_bands.h"
#include "joins/sortmerge/smj_kernels.h"
#include "model/join_model.h"
#include "model/lock_model.h"
#include "bench/options.h"
#include "cmd/query/query_flags.h"
#include "model/params.h"
#include "model/profile.h"
#include "model/rdmo_model.h"
#include "model/shape.h"

#define fail rmamodel_fail
#define parse rmamodel_parse
#define require rmamodel_require

_Noreturn void rmamodel_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    opt_print_usage_error(fmt, ap); /* "rmamodel: MSG", one line */
    va_end(ap);
    exit(2);
}

void rmamodel_parse(const char *usage, const opt_spec *const *tables, int argc, char **argv, const char **params_path,
                    model_params *p)
{
    params_overrides sets;
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest), err[600];
    if (!rest) fail("out of memory");
    int n = params_take_sets(argc, argv, 2, rest, &sets, err, sizeof err);
    if (n < 0) fail("%s", err);
    int rc = opt_parse(tables, n, rest, 2, err, sizeof err);
    if (rc == OPT_HELP) {
        opt_usage(usage, tables);
        printf("  --%-24s %s\n", "set NAME=VALUE", "override a parameter (repeatable; units as in the file)");
        printf("  A needed bw_host, t_remote_comm or t_local_comm that the file and --set leave unset (a one-host\n"
               "  calibration cannot measure the first two) comes from the default profile '" PARAMS_PROFILE_NAME
               "' (model/profile.h),\n  named in the output.\n");
        exit(0);
    }
    free(rest); /* opt_parse kept pointers to argv's strings, not to rest */
    if (rc == OPT_ERROR) fail("%s", err);
    params_init(p);
    if (*params_path && params_load(p, *params_path, err, sizeof err)) fail("--params: %s", err);
    if (params_apply_sets(p, &sets, err, sizeof err)) fail("%s", err);
}

void rmamodel_require(model_params *p, const int *which)
{
    char err[700], note[700];
    model_params q = *p;
    int filled = params_apply_profile(&q, which, note, sizeof note);
    if (params_require(&q, which, err, sizeof err)) {
        memcpy(q.source, p->source, sizeof q.source); /* the message names the file, not the profile */
        params_require(&q, which, err, sizeof err);
        fail("%s", err);
    }
    if (filled) printf("# %s\n", note);
    *p = q;
}

static const char *const algo_names[] = {"radix", "sortmerge", NULL};

/* The join as the parameter file describes it: its local passes, its tuples' window bytes. */
static join_shape shape_of(const model_params *p, int64_t ranks, int64_t rph, int64_t tpr, int64_t ratio, int64_t bands)
{
    join_shape s = {.ranks = (double)ranks, .ranks_per_host = (double)rph,
                    .r_tuples = (double)tpr * (double)ranks, .s_tuples = (double)tpr * (double)ranks * (double)ratio};
    s.radix_local_passes = p->set[MP_radix_local_passes] ? (int)params_get(p, MP_radix_local_passes) : 1;
    /* a calibrated file (P_count_local set) describes rmabench's passes: the histogram phase counts
     * the first, the others count for themselves (at thesis scale the first does too: not modelled) */
    s.radix_local_counted = p->set[MP_P_count_local] && s.radix_local_passes > 1 ? s.radix_local_passes - 1 : 0;
    s.window_bytes_per_tuple = p->set[MP_wire_tuple_bytes] ? params_get(p, MP_wire_tuple_bytes) : 16;
    /* the sort-merge run sort as --run-sort auto picks it: the radix sort where it was calibrated
     * faster and a range's keys (dense keys: |R| / ranks of them) span at most its two digits */
    const double width = s.r_tuples / s.ranks;
    if (p->set[MP_P_sort_radix] && p->set[MP_P_sort_run] && params_get(p, MP_P_sort_radix) > params_get(p, MP_P_sort_run) &&
        width <= (double)(INT64_C(1) << (2 * SMJ_RADIX_DIGIT_BITS)))
        s.sort_radix_share = 1;
    /* the key bands: --merge-bands, else the rule's count at these sizes (smj_bands.h), where the
     * join's auto starts before it measures whether more pay on its CPU (bands_pick.c) */
    if (p->set[MP_sort_run_length] && p->set[MP_merge_fanin] && params_get(p, MP_sort_run_length) >= 1)
        s.merge_bands = smj_merge_bands((uint64_t)s.r_tuples, (uint64_t)s.s_tuples, (int)ranks,
                                        (uint64_t)params_get(p, MP_sort_run_length), (int)params_get(p, MP_merge_fanin),
                                        (int)bands);
    s.count_share = smj_count_share(s.merge_bands > 1); /* --band-count sample, the default */
    return s;
}

/* The totals' rows of `rmamodel join`: the waits, the thesis' total, window allocation. */
static void print_join_totals(join_prediction m, join_shape s, int algo)
{
    if (m.wait > 0)
        printf("%-22s %10.4f  the phases' waits for their slowest rank: rank_spread x E[max of %.0f normals] (%.4f), in the total\n",
               "wait", m.wait, s.ranks, model_max_normal(s.ranks));
    printf("%-22s %10.4f  %s\n", "total", m.total, algo == 0 ? "eq. 3.11" : "eq. 3.20");
    if (m.alloc_modelled) {
        printf("%-22s %10.4f  calibrated, not in the thesis (%.0f bytes of window per rank)\n", "window_alloc", m.window_alloc,
               (s.r_tuples + s.s_tuples) / s.ranks * s.window_bytes_per_tuple);
        printf("%-22s %10.4f\n", "total_with_alloc", m.total_with_alloc);
    } else {
        printf("%-22s %10s  t_win_alloc_* not given\n", "window_alloc", "-");
    }
    if (m.wait == 0) printf("%-22s %10s  not modelled (rank_spread not given; measured runs report it separately)\n", "imbalance", "-");
}

/* The phase rows of `rmamodel join`, each with its equation; the network pass says which bound holds. */
static void print_join_phases(const model_params *pp, const join_shape *sp, const join_prediction *mp, int algo, int64_t ranks,
                              int64_t rph)
{
    const join_prediction m = *mp;
    const join_shape s = *sp;
    printf("%-22s %10s  %s\n", "phase", "model [s]", "equation");
    printf("%-22s %10.4f  %s\n", "histogram", m.histogram, "eq. 3.1");
    const char *bound = m.network_bound ? "network-bound" : "compute-bound";
    char why[200];
    double machines = (double)ranks / (double)rph;
    double P = params_get(pp, algo == 0 ? MP_P_partition : MP_P_sort_run);
    if (machines > 1)
        snprintf(why, sizeof why, "%s: (N-1)/N * %s = %.1f %s P_network = bw/%" PRId64 " = %.1f Mtuples/s (eq. 3.3)", bound,
                 algo == 0 ? "P_partition" : "P_sort_run", (machines - 1) / machines * P / 1e6, m.network_bound ? ">" : "<=", rph,
                 m.P_network / 1e6);
    else
        snprintf(why, sizeof why, "%s: one host, no tuple crosses the network (eq. 3.3)", bound);
    if (algo == 0) {
        printf("%-22s %10.4f  %s; %s\n", "network_partition", m.network_partition, m.network_bound ? "eq. 3.5, 3.6" : "eq. 3.4", why);
        printf("%-22s %10.4f  eq. 3.7, %d pass(es) (d = %d in eq. 3.8)\n", "local_partition", m.local_partition,
               s.radix_local_passes, s.radix_local_passes + 1);
        printf("%-22s %10.4f  %s\n", "build_probe", m.build_probe, "eq. 3.9 + 3.10");
    } else {
        printf("%-22s %10.4f  %s\n", "partition", m.partition, "eq. 3.7 with P_partition_range");
        printf("%-22s %10.4f  %s; %s\n", "sort", m.sort, m.network_bound ? "eq. 3.14-3.16" : "eq. 3.13, 3.16", why);
        if (m.runs_r > 0)
            printf("%-22s %10.4f  eq. 3.17-3.18: N_R = %.4g, N_S = %.4g runs (eq. 3.12), d_R = %d, d_S = %d\n", "merge", m.merge,
                   m.runs_r, m.runs_s, m.merge_depth_r, m.merge_depth_s);
        else
            printf("%-22s %10.4f  eq. 3.18 with d_R = d_S = %d (merge_depth)\n", "merge", m.merge, m.merge_depth_r);
        printf("%-22s %10.4f  %s\n", "match", m.match, "eq. 3.19");
        if (m.sort_wait > 0)
            printf("%-22s %10.4f  the slowest rank's sort puts beyond the mean's (bw_put_sort_slowest), in the total\n",
                   "sort_wait", m.sort_wait);
    }
}

/* The join's header, phase rows and totals of `rmamodel join`. */
static void print_join(const model_params *p, const join_shape *s, const join_prediction *m, int algo)
{
    const int64_t ranks = (int64_t)s->ranks, rph = (int64_t)s->ranks_per_host;
    char tp[32];
    opt_format_count((int64_t)(s->r_tuples / s->ranks), tp, sizeof tp);
    printf("# rmamodel join --algo %s: %" PRId64 " ranks = %" PRId64 " host(s) x %" PRId64 ", %s tuples of R per rank, 1:%.4g\n",
           algo_names[algo], ranks, ranks / rph, rph, tp, s->s_tuples / s->r_tuples);
    printf("# parameters: %s%s%s\n", p->source[0] ? p->source : "(none)", p->info[MI_mpi_library][0] ? "; calibrated with " : "",
           p->info[MI_mpi_library]);
    print_join_phases(p, s, m, algo, ranks, rph);
    print_join_totals(*m, *s, algo);
    printf("bound: %s\n", m->network_bound ? "network-bound" : "compute-bound");
    printf("throughput: %.2f M input tuples/s (thesis total: %.2f M input tuples/s)\n", m->throughput / 1e6,
           m->throughput_thesis / 1e6);
}

/* --csv: the phases as the join's CSV rows name them (the sort-merge partition holds its histogram,
 * as sortmerge.c's partition phase does), at full precision; window_alloc only where it is predicted. */
static void print_join_csv(const join_prediction *m, int algo)
{
    printf("quantity,seconds\n");
    const struct {
        const char *name;
        double v;
        bool has;
    } rows[] = {{"histogram", m->histogram, algo == 0}, {"network_partition", m->network_partition, algo == 0},
                {"local_partition", m->local_partition, algo == 0}, {"build_probe", m->build_probe, algo == 0},
                {"partition", m->histogram + m->partition, algo == 1}, {"sort", m->sort, algo == 1}, {"merge", m->merge, algo == 1},
                {"match", m->match, algo == 1}, {"wait", m->wait, true}, {"total", m->total, true},
                {"window_alloc", m->window_alloc, m->alloc_modelled}, {"total_with_alloc", m->total_with_alloc, m->alloc_modelled}};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        if (rows[k].has) printf("%s,%.9g\n", rows[k].name, rows[k].v);
}

static int cmd_join(int argc, char **argv)
{
    const char *path = NULL, *shape = NULL;
    int algo = 0;
    bool csv = false;
    int64_t ranks = 0, rph = 0, tpr = 0, ratio = 1, bands = 0;
    bool seen_ranks = false, seen_rph = false, seen_tpr = false;
    opt_spec specs[] = {
        {"algo", OPT_CHOICE, &algo, "join algorithm", 0, 0, algo_names, NULL},
        {"params", OPT_STRING, &path, "model parameter file (rmabench calibrate --output)", 0, 0, NULL, NULL},
        {"ranks", OPT_INT, &ranks, "ranks (N_machines * N_threads/machine)", 1, 1e9, NULL, &seen_ranks},
        {"ranks-per-host", OPT_INT, &rph, "ranks per host (N_threads/machine)", 1, 1e6, NULL, &seen_rph},
        {"tuples-per-rank", OPT_COUNT, &tpr, "tuples of R per rank (S: ratio times as many)", 1, 1e13, NULL, &seen_tpr},
        {"ratio", OPT_INT, &ratio, "|S| / |R|", 1, 64, NULL, NULL},
        {"shape", OPT_STRING, &shape,
         "a run's model inputs, its CSV column model_shape (instead of --ranks, --ranks-per-host, --tuples-per-rank, --ratio, --merge-bands): "
         "the prediction rmabench join --model made for that run, from this file's parameters", 0, 0, NULL, NULL},
        {"csv", OPT_BOOL, &csv, "print quantity,seconds lines (the phases as the join's rows name them, the totals) at full precision", 0, 0, NULL, NULL},
        OPT_END,
    };
    /* the flags of one algorithm: refused with the other (they would change nothing) */
    opt_spec sortmerge[] = {
        {"sort-merge join (--algo sortmerge)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"merge-bands", OPT_INT, &bands,
         "key bands per range (0: the rule's count, where rmabench join's auto starts before it measures "
         "whether more pay on its CPU; the join's resolved line names what it took)",
         0, SMJ_MAX_BANDS, NULL, NULL},
        OPT_END,
    };
    const opt_spec *tables[] = {specs, sortmerge, NULL};
    model_params p;
    parse("rmamodel join --algo radix|sortmerge --params FILE (--ranks N --ranks-per-host N --tuples-per-rank N [--ratio N] "
          "[--merge-bands N] | --shape TEXT) [--csv] [--set NAME=VALUE]",
          tables, argc, argv, &path, &p);
    const opt_spec *other = algo == 0 ? opt_given(tables, sortmerge, argc, argv, 2) : NULL;
    if (other) fail("--%s: a flag of the sort-merge join; --algo radix does not take it", other->name);
    join_shape s;
    char err[300];
    if (shape) {
        if (seen_ranks || seen_rph || seen_tpr) fail("--shape: gives the ranks and sizes itself (without --ranks, --ranks-per-host, --tuples-per-rank)");
        if (model_join_shape_parse(shape, &s, err, sizeof err)) fail("--%s", err);
        model_join_shape_params(&p, &s);
    } else {
        if (!seen_ranks) fail("--ranks: required");
        if (!seen_rph) fail("--ranks-per-host: required");
        if (!seen_tpr) fail("--tuples-per-rank: required");
        if (ranks % rph) fail("--ranks-per-host: does not divide --ranks (every host runs the same number of ranks)");
        if (bands & (bands - 1)) fail("--merge-bands: must be 0 (the rule's count) or a power of two up to %d", SMJ_MAX_BANDS);
    }
    const bool multi = shape ? s.ranks / s.ranks_per_host > 1 : ranks / rph > 1;
    require(&p, algo == 0 ? model_radix_required(multi) : model_sortmerge_required(&p, multi));
    if (!shape) s = shape_of(&p, ranks, rph, tpr, ratio, bands);
    join_prediction m;
    if (algo == 0) model_radix_join(&p, &s, &m);
    else model_sortmerge_join(&p, &s, &m);
    if (csv) print_join_csv(&m, algo);
    else print_join(&p, &s, &m, algo);
    return 0;
}

/* `rmamodel lock --shape`: the full model of a run (model_lock), as rmabench lock --model gave it. */
static int lock_of_shape(model_params *p, const char *text, bool csv)
{
    lock_shape s;
    char err[300];
    if (model_lock_shape_parse(text, &s, err, sizeof err)) fail("--%s", err);
    if (s.one_host) { /* every server on the agents' host (a file without t_local_comm: the profile's) */
        const int local[] = {MP_t_local_comm, -1};
        require(p, local);
        params_put(p, MP_t_remote_comm, params_get(p, MP_t_local_comm));
    }
    require(p, model_lock_required(s.remote_prob));
    lock_prediction m;
    model_lock(p, &s, &m);
    if (csv) {
        printf("quantity,value\nt_tx_us,%.9g\nthroughput,%.9g\nfloor_shift_us,%.9g\n", m.t_tx * 1e6, m.throughput, m.floor_shift_us);
        return 0;
    }
    printf("# rmamodel lock: %.0f agents, %.0f servers, %.4g locks per transaction, remote probability %.4g%s\n", s.agents,
           s.servers, s.n_locks, s.remote_prob, s.one_host ? ", one host" : "");
    printf("# parameters: %s\n", p->source[0] ? p->source : "(none)");
    if (m.floor_shift_us != 0)
        printf("floor: the run's %.3f us against the calibration's: each message %+.4f us\n", s.floor_us, m.floor_shift_us);
    printf("t_thesis: %.4f us (eq. 5.3)\n", m.t_thesis * 1e6);
    printf("t_tx: %.4f us (eq. 5.3 + release ack %.4f + servers' service %.4f + waiting %.4f; model/lock_model.h)\n", m.t_tx * 1e6,
           m.t_end * 1e6, m.t_service * 1e6, m.t_wait * 1e6);
    printf("throughput: %.6f M tx/s (agents / t_tx: eq. 5.4 with the erratum)\n", m.throughput / 1e6);
    return 0;
}

static int cmd_lock(int argc, char **argv)
{
    const char *path = NULL, *shape = NULL;
    bool csv = false;
    int64_t agents = 0, locks = 0;
    double remote = 0;
    bool seen_agents = false, seen_locks = false, seen_remote = false;
    opt_spec specs[] = {
        {"params", OPT_STRING, &path, "model parameter file (rmabench calibrate --output)", 0, 0, NULL, NULL},
        {"agents", OPT_INT, &agents, "concurrent transaction agents (one transaction each)", 1, 1e9, NULL, &seen_agents},
        {"locks-per-txn", OPT_INT, &locks, "N_locks: locks per transaction", 1, 1e6, NULL, &seen_locks},
        {"remote-prob", OPT_DOUBLE, &remote, "probability that a lock is on another host (0..1)", 0, 1, NULL, &seen_remote},
        {"shape", OPT_STRING, &shape,
         "a run's model inputs, its CSV column model_shape (instead of the three above): the full model (servers' service, "
         "queueing, the run's floor) as rmabench lock --model gave it for that run, from this file's parameters",
         0, 0, NULL, NULL},
        {"csv", OPT_BOOL, &csv, "with --shape: print quantity,value lines (t_tx_us, throughput in tx/s) at full precision", 0, 0, NULL, NULL},
        OPT_END,
    };
    model_params p;
    const opt_spec *tables[] = {specs, NULL};
    parse("rmamodel lock --params FILE (--agents N --locks-per-txn N --remote-prob P | --shape TEXT) [--csv] [--set NAME=VALUE]",
          tables, argc, argv, &path, &p);
    if (shape && (seen_agents || seen_locks || seen_remote)) fail("--shape: gives the agents, locks and remote probability itself");
    if (csv && !shape) fail("--csv: with --shape only");
    if (shape) return lock_of_shape(&p, shape, csv);
    if (!seen_agents) fail("--agents: required");
    if (!seen_locks) fail("--locks-per-txn: required");
    if (!seen_remote) fail("--remote-prob: required");
    require(&p, model_lock_required(remote));
    double t = model_t_tx(&p, (double)locks, remote);
    printf("# rmamodel lock: %" PRId64 " agents, %" PRId64 " locks per transaction, remote probability %g\n", agents, locks, remote);
    printf("# parameters: %s\n", p.source[0] ? p.source : "(none)");
    printf("P_all_local: %.4f (eq. 5.2)\n", model_p_all_local(1 - remote, (double)locks));
    printf("t_tx: %.3f us (eq. 5.3)\n", t * 1e6);
    printf("throughput: %.4f M tx/s (agents / t_tx: eq. 5.4 with the erratum)\n", model_throughput((double)agents, t) / 1e6);
    return 0;
}

static int cmd_cores(int argc, char **argv)
{
    const char *path = NULL;
    int algo = 0;
    int64_t hosts = 0;
    opt_spec specs[] = {
        {"params", OPT_STRING, &path, "model parameter file (rmabench calibrate --output)", 0, 0, NULL, NULL},
        {"algo", OPT_CHOICE, &algo, "radix (partitioning ranks) or sortmerge (sorting ranks)", 0, 0, algo_names, NULL},
        {"hosts", OPT_INT, &hosts, "N_machines for eq. 3.3's (N-1)/N (0 = many; 1 host sends nothing over the network)", 0,
         1e9, NULL, NULL},
        OPT_END,
    };
    model_params p;
    const opt_spec *tables[] = {specs, NULL};
    parse("rmamodel cores-per-host --params FILE [--algo radix|sortmerge] [--hosts N] [--set NAME=VALUE]", tables, argc, argv,
          &path, &p);
    if (hosts == 1)
        fail("--hosts: 1 host sends no tuple over the network, so no rank count saturates it; give 2 or more (0 = many)");
    int rate = algo == 0 ? MP_P_partition : MP_P_sort_run;
    const int need[] = {MP_bw_host, MP_wire_tuple_bytes, rate, -1};
    require(&p, need);
    double bw = params_get(&p, MP_bw_host) / params_get(&p, MP_wire_tuple_bytes);
    cores_answer a = model_cores_per_host(bw, params_get(&p, rate), (double)hosts);
    printf("# rmamodel cores-per-host --algo %s (thesis 3.5): bw = %.1f Mtuples/s per host, %s = %.1f Mtuples/s per rank, %s\n",
           algo_names[algo], bw / 1e6, params_name(rate), params_get(&p, rate) / 1e6,
           hosts > 1 ? "(N-1)/N from --hosts" : "many hosts ((N-1)/N = 1)");
    printf("saturating ranks per host: %.2f (eq. 3.2 = eq. 3.3 at equality)\n", a.exact);
    printf("compute-bound up to: %d ranks per host; network-bound from: %d\n", a.compute_bound_max, a.compute_bound_max + 1);
    printf("recommended: %d %s ranks per host (nearest integer, as the thesis' 4 on QDR and 7 on FDR)\n", a.nearest,
           algo == 0 ? "partitioning" : "sorting");
    return 0;
}

/* The star query's schema as `rmabench query` resolves it (its defaults: SSB's shapes), with every
 * dimension's rows scaled by dim_scale. */
static void query_shape_of(const query_opts *o, int ranks, int hosts, double dim_scale, query_shape *q)
{
    star_schema s;
    query_schema(o, 0, ranks, &s);
    query_model_shape(o, &s, ranks, hosts, q);
    for (int j = 0; j < q->dims; j++) q->dim_rows[j] *= dim_scale;
}

static void print_query_row(const model_params *p, const query_opts *o, int ranks, int hosts, double scale, double link,
                            bool one_machine)
{
    query_shape q;
    query_shape_of(o, ranks, hosts, scale, &q);
    q.link_bw = link;
    q.one_machine = one_machine;
    query_prediction m;
    model_query(p, &q, &m);
    printf("%-7d %10.4f %10.4f %10.4f %10.4f %10.4f %10.4f  %-7s %.2f  pull: %s; shuffle: %s\n", q.dims + 1, m.replicate,
           m.stream, m.pull, m.exchange, m.shuffle, m.histogram + m.build_probe, m.pull < m.shuffle ? "pull" : "shuffle",
           m.shuffle / m.pull, m.stream_bound, m.exchange_bound);
}

static void print_query_crossover(const model_params *p, const query_opts *o, int ranks, int hosts, double scale,
                                  double link, bool one_machine)
{
    query_opts all = *o;
    all.tables = 1 + STAR_MAX_DIMS; /* the fewest joins at which pull wins: dimensions 1..3 */
    query_shape q;
    query_shape_of(&all, ranks, hosts, scale, &q);
    q.link_bw = link;
    q.one_machine = one_machine;
    q.dims = (int)o->tables - 1;
    query_crossover c;
    model_query_crossover(p, &q, &c);
    if (c.joins) printf("crossover joins: pull is faster from %d table(s) on (%d join(s))\n", c.joins + 1, c.joins);
    else printf("crossover joins: shuffle is faster at 2, 3 and 4 tables\n");
    if (c.dim_scale > 0)
        printf("crossover dimensions: at %.3g x these dimensions' rows both take the same time (%d tables)\n", c.dim_scale,
               (int)o->tables);
    else printf("crossover dimensions: none between 1/1024 and 1024 x these dimensions' rows (%d tables)\n", (int)o->tables);
    if (hosts <= 1) printf("crossover link rate: one host, no link\n");
    else if (c.link_bw > 0)
        printf("crossover link rate: %.3g Gbit/s a host's link: both take the same time (%d tables)\n", c.link_bw * 8 / 1e9,
               (int)o->tables);
    else printf("crossover link rate: none between 0.001 and 1000 Gbit/s (%d tables)\n", (int)o->tables);
}

static int cmd_query(int argc, char **argv)
{
    const char *path = NULL;
    query_opts o;
    query_default_opts(&o);
    int64_t ranks = 4, rph = 0;
    double scale = 1, gbit = 0;
    bool one_machine = false;
    opt_spec specs[] = {
        {"params", OPT_STRING, &path, "model parameter file (rmabench calibrate --output, and t_get_block, bw_get)", 0, 0, NULL, NULL},
        {"ranks", OPT_INT, &ranks, "ranks of the run", 2, 1e9, NULL, NULL},
        {"ranks-per-host", OPT_INT, &rph, "ranks per host (0 = all on one host)", 0, 1e6, NULL, NULL},
        {"memory-ranks", OPT_INT, &o.memory_ranks, "the pull design's memory ranks", 1, 1e9, NULL, NULL},
        {"tables", OPT_INT, &o.tables, "tables of the query whose crossovers are printed", 2, 1 + STAR_MAX_DIMS, NULL, NULL},
        {"fact-rows", OPT_COUNT, &o.fact_rows, "rows of the fact table (dimensions: SSB's shares of it)", 1, 1e13, NULL, NULL},
        {"fact-width", OPT_BYTES, &o.fact_width, "bytes of a fact row", 8, 4096, NULL, NULL},
        {"dim-scale", OPT_DOUBLE, &scale, "factor on every dimension's rows", 1e-9, 1e9, NULL, NULL},
        {"dim-selectivity", OPT_DOUBLE, &o.selectivity[0], "fraction of every dimension's rows the filter keeps", 1e-9, 1, NULL, NULL},
        {"block-size", OPT_BYTES, &o.block_size, "bytes of a block", 64, 1 << 26, NULL, NULL},
        {"prefetch", OPT_INT, &o.prefetch, "block reads in flight", 1, 1024, NULL, NULL},
        {"replicate", OPT_CHOICE, &o.replicate, "dimensions by reads or by broadcast", 0, 0, query_replicate_names, NULL},
        {"link-rate", OPT_DOUBLE, &gbit, "Gbit/s of a host's link (0 = bw_host)", 0, 1e6, NULL, NULL},
        {"one-machine", OPT_BOOL, &one_machine, "the hosts share one machine's cores (network namespaces, jobs/netem.sh): the memory ranks serve reads at bw_serve together", 0, 0, NULL, NULL},
        OPT_END,
    };
    model_params p;
    const opt_spec *tables[] = {specs, NULL};
    parse("rmamodel query --params FILE [--ranks N] [--ranks-per-host N] [--memory-ranks M] [--tables N] [--fact-rows N] "
          "[--dim-scale F] [--link-rate GBIT] [--set NAME=VALUE]", tables, argc, argv, &path, &p);
    for (int j = 1; j < STAR_MAX_DIMS; j++) o.selectivity[j] = o.selectivity[0];
    if (rph == 0 || rph > ranks) rph = ranks;
    if (ranks % rph) fail("--ranks-per-host: does not divide --ranks (every host runs the same number of ranks)");
    if (o.memory_ranks >= ranks) fail("--memory-ranks: %" PRId64 " of %" PRId64 " ranks leave no compute rank", o.memory_ranks, ranks);
    const int hosts = (int)(ranks / rph);
    require(&p, model_query_required(hosts > 1, rph > 1));
    char c[32];
    opt_format_count(o.fact_rows, c, sizeof c);
    printf("# rmamodel query: %" PRId64 " ranks = %d host(s) x %" PRId64 ", pull: %" PRId64 " memory rank(s); lineorder %s rows x %"
           PRId64 " B, dimensions SSB's shares x %g; link %s\n", ranks, hosts, rph, o.memory_ranks, c, o.fact_width, scale,
           hosts <= 1 ? "none (one host)" : gbit > 0 ? "--link-rate" : "bw_host");
    printf("# parameters: %s\n", p.source[0] ? p.source : "(none)");
    printf("%-7s %10s %10s %10s %10s %10s %10s  %-7s %s\n", "tables", "replicate", "stream", "pull [s]", "exchange",
           "shuffle [s]", "local", "faster", "shuffle/pull  bounds");
    const double link = gbit * 1e9 / 8;
    for (int t = 2; t <= 1 + STAR_MAX_DIMS; t++) {
        query_opts a = o;
        a.tables = t;
        print_query_row(&p, &a, (int)ranks, hosts, scale, link, one_machine);
    }
    print_query_crossover(&p, &o, (int)ranks, hosts, scale, link, one_machine);
    return 0;
}

static const char *const rdmo_designs[] = {"verbs", "rdmo", "rpc", NULL};

/* --rounds C,F,G,P,A: the verbs design's round trips per operation by the kind that opened them. */
static void parse_rounds(const char *text, double *rounds)
{
    const char *q = text;
    for (int k = 0; k < MODEL_RMA_KINDS; k++) {
        char *end;
        rounds[k] = strtod(q, &end);
        if (end == q || rounds[k] < 0 || (k < MODEL_RMA_KINDS - 1 ? *end != ',' : *end != '\0'))
            fail("--rounds: '%s' is not five round trips per operation, cas,fao,get,put,acc (rmabench rdmo prints them)", text);
        q = end + 1;
    }
}

static int cmd_rdmo(int argc, char **argv)
{
    const char *path = NULL, *rounds_text = NULL;
    int design = 0;
    double rts = 0, msgs = 0, bytes = 0, handler_us = 0, rounds[MODEL_RMA_KINDS] = {0};
    bool remote = false, seen_rts = false, seen_msgs = false;
    opt_spec specs[] = {
        {"params", OPT_STRING, &path, "model parameter file (rmabench calibrate --output)", 0, 0, NULL, NULL},
        {"design", OPT_CHOICE, &design, "the operation's design (rmabench rdmo --design)", 0, 0, rdmo_designs, NULL},
        {"rounds", OPT_STRING, &rounds_text, "verbs: round trips per operation by the kind that opened them, cas,fao,get,put,acc (rmabench rdmo prints them)", 0, 0, NULL, NULL},
        {"rts", OPT_DOUBLE, &rts, "rdmo, rpc: round trips (calls) per operation (rmabench rdmo: rts/op)", 0, 1e6, NULL, &seen_rts},
        {"msgs", OPT_DOUBLE, &msgs, "verbs: messages per operation (msgs/op; default: the round trips)", 0, 1e6, NULL, &seen_msgs},
        {"handler-us", OPT_DOUBLE, &handler_us, "rdmo, rpc: the handler's time per request, us (handler_us)", 0, 1e6, NULL, NULL},
        {"bytes", OPT_DOUBLE, &bytes, "rdmo, rpc: request and answer bytes per operation, headers included (default: an empty call's, 16 per round trip)", 0, 1e9, NULL, NULL},
        {"remote", OPT_BOOL, &remote, "the target on another host (the _remote parameters)", 0, 0, NULL, NULL},
        OPT_END,
    };
    model_params p;
    const opt_spec *tables[] = {specs, NULL};
    parse("rmamodel rdmo --params FILE --design verbs|rdmo|rpc (--rounds C,F,G,P,A | --rts R) [--msgs M] [--handler-us H] "
          "[--remote] [--set NAME=VALUE]", tables, argc, argv, &path, &p);
    if (design == MODEL_RDMO_VERBS) {
        if (!rounds_text) fail("--rounds: required for --design verbs (rmabench rdmo prints them)");
        parse_rounds(rounds_text, rounds);
        rts = 0;
        for (int k = 0; k < MODEL_RMA_KINDS; k++) rts += rounds[k];
    } else if (!seen_rts) {
        fail("--rts: required for --design %s (rmabench rdmo prints rts/op)", rdmo_designs[design]);
    }
    if (!seen_msgs) msgs = rts;
    if (msgs < rts) fail("--msgs: %g is fewer than the %g round trips (every round trip sends a message)", msgs, rts);
    require(&p, model_rdmo_required(design, remote));
    if (bytes == 0) bytes = rts * MODEL_RDMO_CALL_BYTES;
    const rdmo_prediction m = model_rdmo_latency(&p, design, remote, rounds, rts, msgs, bytes, handler_us * 1e-6);
    printf("# rmamodel rdmo: design %s, %g round trips and %g messages per operation, handler %g us, target %s\n",
           rdmo_designs[design], rts, msgs, handler_us, remote ? "on another host" : "on the origin's host");
    printf("# parameters: %s\n", p.source[0] ? p.source : "(none)");
    if (design == MODEL_RDMO_VERBS)
        printf("rounds: %.3f us (sum of round trips x t_rma_<kind>)\nmessages: %.3f us (%g x t_rma_op)\n", m.rounds * 1e6,
               m.messages * 1e6, msgs - rts);
    else
        printf("rounds: %.3f us (%g x t_%s_call)\nwords: %.3f us (%g bytes beyond the headers x t_%s_word / 8)\n"
               "handler: %.3f us (%g x %g us)\n", m.rounds * 1e6, rts, rdmo_designs[design], m.messages * 1e6,
               bytes - rts * MODEL_RDMO_CALL_BYTES, rdmo_designs[design], m.handler * 1e6, rts, handler_us);
    printf("latency: %.3f us (model/rdmo_model.h)\n", m.total * 1e6);
    return 0;
}

int main(int argc, char **argv)
{
    opt_program = "rmamodel";
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "usage: rmamodel join|lock|cores-per-host|query|rdmo|pool|thesis [flags]   (rmamodel <command> --help lists the flags)\n"
                   "  join            predicted phase times of the radix hash or sort-merge join (thesis 3.3)\n"
                   "  lock            predicted transaction time and throughput of the lock table (thesis 5.3)\n"
                   "  cores-per-host  ranks per host that saturate the network (thesis 3.5)\n"
                   "  query           the star query pulled (memory and compute ranks) against shuffled, and where each wins\n"
                   "  rdmo            an RDMO design's latency from its round trips and messages (model/rdmo_model.h)\n"
                   "  pool            one parameter file from several calibrations (the fastest of each timed one)\n"
                   "  thesis          the thesis' scale-out runs (Fig. 4.2, Table 4.2) predicted from a parameter file\n");
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "join") == 0) return cmd_join(argc, argv);
    if (strcmp(argv[1], "lock") == 0) return cmd_lock(argc, argv);
    if (strcmp(argv[1], "cores-per-host") == 0) return cmd_cores(argc, argv);
    if (strcmp(argv[1], "rdmo") == 0) return cmd_rdmo(argc, argv);
    if (strcmp(argv[1], "query") == 0) return cmd_query(argc, argv);
    if (strcmp(argv[1], "pool") == 0) return rmamodel_pool(argc, argv);
    if (strcmp(argv[1], "thesis") == 0) return rmamodel_thesis(argc, argv);
    char sh[OPT_SHOWN_MAX];
    fail("'%s': unknown command (join, lock, cores-per-host, query, rdmo, pool, thesis)", opt_shown(argv[1], sh));
}
