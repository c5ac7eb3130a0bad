/* The star query's model (query_model.h). */
#include "model/query_model.h"

#include <math.h>

const int *model_query_required(bool multi_host, bool shared_host)
{
    static const int one[] = {MP_P_scan, MP_P_partition, MP_P_build, MP_P_probe, MP_bw_put_intra, MP_t_get_block,
                              MP_bw_get, -1};
    static const int many[] = {MP_P_scan, MP_P_partition, MP_P_build, MP_P_probe, MP_bw_put_intra, MP_t_get_block,
                               MP_bw_get, MP_bw_host, -1};
    /* a rank alone on its host sends nothing within it: no bw_put_intra */
    static const int alone[] = {MP_P_scan, MP_P_partition, MP_P_build, MP_P_probe, MP_t_get_block, MP_bw_get, MP_bw_host, -1};
    return !multi_host ? one : shared_host ? many : alone;
}

static double blocks_of(double rows, double row_bytes, double block_bytes)
{
    const double per = floor((block_bytes - 16) / row_bytes);
    return per >= 1 ? ceil(rows / per) : rows;
}

typedef struct {
    double link;       /* a rank's share of its host's link, bytes/s (0 on one host) */
    double cross;      /* the share of a transfer that crosses hosts */
    double bw_in;      /* a compute rank's block reads, bytes/s */
} net;

static net net_of(const model_params *p, const query_shape *s)
{
    net n = {0, 0, params_get(p, MP_bw_get)};
    if (s->hosts <= 1) return n;
    const double bw = s->link_bw > 0 ? s->link_bw : params_get(p, MP_bw_host), R = s->ranks / s->hosts;
    n.link = bw / R;
    n.cross = (s->ranks - R) / (s->ranks - 1); /* of the other ranks, those on other hosts */
    if (n.link / n.cross < n.bw_in) n.bw_in = n.link / n.cross;
    return n;
}

/* The largest of the bounds, and its name. */
static double bound(const double *t, const char *const *names, int n, const char **which)
{
    int k = 0;
    for (int i = 1; i < n; i++)
        if (t[i] > t[k]) k = i;
    *which = names[k];
    return t[k];
}

/* n blocks read by each of `readers` ranks from M memory ranks, with `work` seconds of pipeline
 * per reader. */
static double stream_time(const model_params *p, const query_shape *s, const net *nt, double n, double readers,
                          double work, const char **which)
{
    const double B = s->block_bytes, t_get = params_get(p, MP_t_get_block);
    /* what the memory ranks send: every block once per reader; through their links and, where
     * calibrated, at most at the rate a memory rank serves reads (bw_serve) */
    const double sent = n * B * readers / s->memory_ranks;
    const double serve = p->set[MP_bw_serve] ? sent * (s->one_machine ? s->memory_ranks : 1) / params_get(p, MP_bw_serve) : 0;
    if (s->prefetch <= 1) {
        *which = "no prefetch: round trips, transfers and the pipeline add up";
        return n * (t_get + B / nt->bw_in) + work;
    }
    const double t[5] = {n * B / nt->bw_in, nt->cross > 0 ? sent * nt->cross / nt->link : 0,
                         n * (t_get + B / nt->bw_in) / s->prefetch, work, serve};
    static const char *const names[5] = {"a compute rank's reads", "the memory ranks' links", "the round trips",
                                         "the pipeline", "the memory ranks serving reads"};
    return bound(t, names, 5, which);
}

static void model_pull(const model_params *p, const query_shape *s, query_prediction *o)
{
    const net nt = net_of(p, s);
    const double C = s->ranks - s->memory_ranks, B = s->block_bytes;
    const double nf = blocks_of(s->fact_rows, s->fact_bytes, B);
    double nd = 0, build = 0;
    for (int j = 0; j < s->dims; j++) {
        nd += blocks_of(s->dim_rows[j], s->dim_bytes[j], B);
        build += s->dim_rows[j] / params_get(p, MP_P_build);
    }
    const double probe = s->fact_rows / C * s->dims / params_get(p, MP_P_probe);
    o->stream = stream_time(p, s, &nt, nf / C, C, probe, &o->stream_bound);
    if (s->bcast) {
        const double eff = nt.link > 0 ? nt.link : nt.bw_in, t[2] = {2 * nd * B / eff, build};
        static const char *const names[2] = {"the broadcast", "building the tables"};
        o->replicate = bound(t, names, 2, &o->replicate_bound);
    } else {
        o->replicate = stream_time(p, s, &nt, nd, C, build, &o->replicate_bound);
    }
    o->pull = o->replicate + o->stream;
    o->pull_bytes = (nf + nd * C) * B;
}

/* One join of the shuffle: S rows of the fact table's width against dimension j. */
static void shuffle_join(const model_params *p, const query_shape *s, const net *nt, int j, double S, query_prediction *o,
                         const char **bound_name)
{
    const double P = s->ranks, sel = s->selectivity[j], Dr = s->dim_rows[j] * sel;
    const double copy = p->set[MP_bw_mem_copy] ? params_get(p, MP_bw_mem_copy) : 16 * params_get(p, MP_P_partition);
    o->histogram += (S + s->dim_rows[j] * (sel < 1 ? 2 : 1)) / (P * params_get(p, MP_P_scan));
    const double bytes = (S * s->fact_bytes + Dr * s->dim_bytes[j]) / P, away = bytes * (P - 1) / P;
    const double t[2] = {nt->cross > 0 ? away * nt->cross / nt->link : 0,
                         nt->cross < 1 ? away * (1 - nt->cross) / params_get(p, MP_bw_put_intra) : 0};
    static const char *const names[2] = {"the links between hosts", "the transfers within a host"};
    const char *which;
    /* calibrated on the ranks: MPI_Alltoallv's own rate, whatever carries it */
    const double measured = s->alltoallv && p->set[MP_bw_alltoallv] ? away / params_get(p, MP_bw_alltoallv) : 0;
    const char *names3[3] = {names[0], names[1], "MPI_Alltoallv (bw_alltoallv)"};
    const double t3[3] = {t[0], t[1], measured};
    o->exchange += bytes / copy + bound(t3, names3, 3, &which);
    if (!*bound_name) *bound_name = which;
    o->build_probe += Dr / (P * params_get(p, MP_P_build)) + S / (P * params_get(p, MP_P_probe)) +
                      (j + 1 < s->dims ? S * sel * s->fact_bytes / P / copy : 0);
    o->shuffle_bytes += away * P;
}

static void model_shuffle(const model_params *p, const query_shape *s, query_prediction *o)
{
    const net nt = net_of(p, s);
    double S = s->fact_rows;
    o->exchange_bound = NULL;
    for (int j = 0; j < s->dims; j++) {
        shuffle_join(p, s, &nt, j, S, o, &o->exchange_bound);
        S *= s->selectivity[j];
    }
    o->shuffle = o->histogram + o->exchange + o->build_probe;
}

void model_query(const model_params *p, const query_shape *s, query_prediction *out)
{
    *out = (query_prediction){0};
    model_pull(p, s, out);
    model_shuffle(p, s, out);
}

/* pull - shuffle at a shape */
static double gap(const model_params *p, const query_shape *s)
{
    query_prediction m;
    model_query(p, s, &m);
    return m.pull - m.shuffle;
}

enum { VARY_DIMS, VARY_LINK };
/* pull - shuffle with every dimension's rows times x, or with a link of x bytes/s */
static double gap_at(const model_params *p, const query_shape *s, int what, double x)
{
    query_shape a = *s;
    for (int j = 0; what == VARY_DIMS && j < a.dims; j++) a.dim_rows[j] = s->dim_rows[j] * x;
    if (what == VARY_LINK) a.link_bw = x;
    return gap(p, &a);
}

/* The x in [lo, hi] where the gap changes sign (bisection on a log scale), or 0 when it does not. */
static double solve(const model_params *p, const query_shape *s, int what, double lo, double hi)
{
    double g_lo = gap_at(p, s, what, lo);
    if ((g_lo < 0) == (gap_at(p, s, what, hi) < 0)) return 0;
    for (int i = 0; i < 60; i++) {
        const double mid = sqrt(lo * hi), g = gap_at(p, s, what, mid);
        if ((g < 0) == (g_lo < 0)) lo = mid, g_lo = g;
        else hi = mid;
    }
    return sqrt(lo * hi);
}

void model_query_crossover(const model_params *p, const query_shape *s, query_crossover *out)
{
    *out = (query_crossover){0};
    for (int k = 1; k <= MODEL_QUERY_MAX_DIMS && !out->joins; k++) {
        query_shape a = *s;
        a.dims = k;
        if (gap(p, &a) < 0) out->joins = k;
    }
    out->dim_scale = solve(p, s, VARY_DIMS, 1.0 / 1024, 1024);
    if (s->hosts > 1) out->link_bw = solve(p, s, VARY_LINK, 1e6 / 8, 1e12 / 8);
}
