/* The equation families both joins share: scans (eq. 3.1/3.19), the network share of a pass
 * (eq. 3.2-3.7), window allocation (beyond the thesis) and section 3.5's cores-per-host answer. */
#include <math.h>
#include <stdlib.h>

#include "model/join_model.h"

double model_T_scan(double n_tuples, double ranks, double P) { return n_tuples / (ranks * P); }

double model_P_network(double bw_tuples, double ranks_per_host) { return bw_tuples / ranks_per_host; }

bool model_network_bound(double machines, double P, double P_network)
{
    if (machines <= 1) return false; /* nothing leaves the host */
    return (machines - 1) / machines * P > P_network;
}

double model_rate_net_bound(double machines, double P, double P_network)
{
    return machines * P * P_network / ((machines - 1) * P + P_network);
}

double model_rate_network_pass(double machines, double ranks_per_host, double P, double P_network, bool *network_bound)
{
    bool nb = model_network_bound(machines, P, P_network);
    if (network_bound) *network_bound = nb;
    double per_rank = nb ? model_rate_net_bound(machines, P, P_network) : P; /* eq. 3.6 : eq. 3.4 */
    return machines * ranks_per_host * per_rank;
}

double model_rate_network_pass_overlap(const model_params *p, double machines, double ranks_per_host, double P,
                                       double P_network, bool *network_bound)
{
    const double thesis = model_rate_network_pass(machines, ranks_per_host, P, P_network, network_bound);
    const double o = p->set[MP_net_overlap] ? params_get(p, MP_net_overlap) : 1;
    if (machines <= 1 || o >= 1) return thesis;
    const double per_rank = machines * ranks_per_host, t_thesis = per_rank / thesis;
    const double t_c = 1 / P, t_n = (machines - 1) / machines / P_network;
    const double t = t_c + t_n - o * fmin(t_c, t_n);
    return per_rank / fmax(t_thesis, t);
}

double model_rate_local(double ranks, double P) { return ranks * P; }

double model_T_put_intra(const model_params *p, const join_shape *s, double tuple_bytes, int bw)
{
    if (!p->set[bw]) bw = MP_bw_put_intra;
    if (!p->set[bw] || s->ranks_per_host <= 1) return 0;
    const double per_rank = (s->r_tuples + s->s_tuples) / s->ranks;
    return per_rank * (s->ranks_per_host - 1) / s->ranks * tuple_bytes / params_get(p, bw);
}

/* The scan curve's seconds per tuple at b bits (interpolated; -1 without the curve). */
static double scan_time_at(const model_params *p, double b)
{
    const int bits[SCAN_CURVE_N] = SCAN_CURVE_BITS;
    for (int k = 0; k < SCAN_CURVE_N; k++)
        if (!p->set[MP_P_scan_at_4 + k]) return -1;
    if (b <= bits[0]) return 1 / params_get(p, MP_P_scan_at_4);
    for (int k = 1; k < SCAN_CURVE_N; k++)
        if (b <= bits[k]) {
            const double t0 = 1 / params_get(p, MP_P_scan_at_4 + k - 1), t1 = 1 / params_get(p, MP_P_scan_at_4 + k);
            return t0 + (t1 - t0) * (b - bits[k - 1]) / (bits[k] - bits[k - 1]);
        }
    return 1 / params_get(p, MP_P_scan_at_4 + SCAN_CURVE_N - 1);
}

double model_scan_factor(const model_params *p, const join_shape *s)
{
    if (s->hist_bits <= 0 || !p->set[MP_scan_bits]) return 1;
    const double cal = scan_time_at(p, params_get(p, MP_scan_bits)), run = scan_time_at(p, s->hist_bits);
    return cal > 0 && run > 0 ? cal / run : 1;
}

double model_net_contention(const model_params *p, const join_shape *s)
{
    const double c_cal = atof(p->info[MI_ranks_per_host]);
    if (!p->set[MP_net_contention] || c_cal <= 1 || s->ranks_per_host <= 1) return 0;
    /* the share of a rank's tuples put to the other ranks of its host, the run's against the
     * calibration's (one host of c_cal ranks) */
    const double run = (s->ranks_per_host - 1) / s->ranks, cal = (c_cal - 1) / c_cal;
    return params_get(p, MP_net_contention) * run / cal;
}

double model_rate(const model_params *p, int i, const join_shape *s)
{
    const double all = params_get(p, i), c = atof(p->info[MI_ranks_per_host]), r = model_ranks_on_cores(s);
    const int a = params_alone_of(i);
    if (a < 0 || !p->set[a] || c <= 1 || r >= c) return all;
    /* time per tuple from alone (r = 1) to all ranks running (r = c), linear in the ranks sharing */
    const double t1 = 1 / params_get(p, a), tc = 1 / all, t = t1 + (tc - t1) * (r < 1 ? 0 : (r - 1) / (c - 1));
    return 1 / t;
}

double model_ranks_on_cores(const join_shape *s) { return s->ranks_on_cores > 0 ? s->ranks_on_cores : s->ranks_per_host; }

double model_oversubscription(const model_params *p, const join_shape *s)
{
    return params_ranks_per_core(p, model_ranks_on_cores(s));
}

const char *const model_alloc_regime_names[] = {"reused", "returned", NULL};

double model_T_window_alloc(const model_params *p, double bytes_per_rank, double over, int regime)
{
    const int touch = regime == MODEL_ALLOC_RETURNED ? MP_t_win_touch_returned_per_byte : MP_t_win_touch_per_byte;
    if (regime == MODEL_ALLOC_RETURNED && !p->set[touch]) return -1;
    /* with ranks sharing cores, the fixed part is what the library's collectives cost then (measured
     * at 2 ranks per core; MPICH's spin: 15x the fixed part on a core each), not the fixed part
     * stretched */
    const bool shared = over > 1 && p->set[MP_t_win_alloc_shared];
    const double fixed = shared ? params_get(p, MP_t_win_alloc_shared) / 2 : params_get(p, MP_t_win_alloc_fixed);
    double per_byte = params_get(p, MP_t_win_alloc_per_byte);
    if (p->set[touch]) per_byte += params_get(p, touch);
    /* first touch is the CPU clearing pages: ranks sharing a core share that work too, while the
     * intercept does not grow (docs/measurements.md, "From code comments") */
    return (fixed + bytes_per_rank * per_byte) * over;
}

double model_T_window_alloc_life(const model_params *p, double bytes_per_rank, double over, int life, bool first, int regime)
{
    const bool alloc = p->set[MP_t_win_alloc_fixed] && p->set[MP_t_win_alloc_per_byte];
    if (first || life == MODEL_LIFE_JOIN) return alloc ? model_T_window_alloc(p, bytes_per_rank, over, regime) : -1;
    if (life == MODEL_LIFE_POOL) return p->set[MP_t_win_pool_fixed] ? params_get(p, MP_t_win_pool_fixed) * over : -1;
    if (!p->set[MP_t_win_dynamic_fixed] || !p->set[MP_t_win_dynamic_per_byte]) return -1;
    return (params_get(p, MP_t_win_dynamic_fixed) + bytes_per_rank * params_get(p, MP_t_win_dynamic_per_byte)) * over;
}

double model_max_normal(double n)
{
    if (n < 2) return 0;
    /* E[max] = integral of x n phi(x) Phi(x)^(n-1) over x: Simpson's rule on [-8, 12] (beyond, the
     * integrand is below 1e-13 for every n up to 10^9) */
    enum { STEPS = 4000 };
    const double a = -8, h = 20.0 / STEPS;
    double sum = 0;
    for (int i = 0; i <= STEPS; i++) {
        const double x = a + i * h, cdf = 0.5 * erfc(-x / sqrt(2.0));
        const double f = cdf > 0 ? x * n * exp(-0.5 * x * x + (n - 1) * log(cdf)) * 0.3989422804014327 /* 1 / sqrt(2 pi) */ : 0;
        sum += f * (i == 0 || i == STEPS ? 1 : i % 2 ? 4 : 2);
    }
    return sum * h / 3;
}

void model_join_shape_params(model_params *p, const join_shape *s)
{
    if (s->window_bytes_per_tuple >= 1) params_put(p, MP_wire_tuple_bytes, s->window_bytes_per_tuple);
    if (s->sort_run_length >= 1) params_put(p, MP_sort_run_length, s->sort_run_length);
}

int model_alloc_regime(const model_params *p, const join_shape *s, double measured)
{
    if (!(measured > 0) || !p->set[MP_t_win_alloc_fixed] || !p->set[MP_t_win_alloc_per_byte]) return MODEL_ALLOC_REUSED;
    const double over = model_oversubscription(p, s), bytes = (s->r_tuples + s->s_tuples) / s->ranks * s->window_bytes_per_tuple;
    const double reused = model_T_window_alloc(p, bytes, over, MODEL_ALLOC_REUSED);
    const double returned = model_T_window_alloc(p, bytes, over, MODEL_ALLOC_RETURNED);
    /* the geometric mean of the two predictions divides them (their ratio is what tells them apart) */
    const double boundary = returned > reused ? sqrt(reused * returned) : 2 * reused;
    return measured > boundary ? MODEL_ALLOC_RETURNED : MODEL_ALLOC_REUSED;
}

void model_join_finish(const model_params *p, const join_shape *s, join_prediction *o)
{
    const double over = model_oversubscription(p, s);
    double *phase[] = {&o->histogram, &o->network_partition, &o->local_partition, &o->build_probe,
                       &o->partition, &o->sort, &o->merge, &o->match, &o->sort_wait, &o->total};
    for (size_t i = 0; i < sizeof phase / sizeof phase[0]; i++) *phase[i] *= over;
    /* every phase ends in a synchronisation of all ranks (a collective, a flush's epoch, the final
     * barrier): each waits there for the slowest, whose time is rank_spread x E[max of ranks
     * normals] above the mean the phases predict */
    if (p->set[MP_rank_spread]) o->wait = (o->total - o->sort_wait) * params_get(p, MP_rank_spread) * model_max_normal(s->ranks);
    o->total += o->wait;
    double bytes = (s->r_tuples + s->s_tuples) / s->ranks * s->window_bytes_per_tuple;
    o->window_alloc_first = model_T_window_alloc_life(p, bytes, over, s->window_life, true, s->alloc_regime);
    o->window_alloc_steady = model_T_window_alloc_life(p, bytes, over, s->window_life, false, s->alloc_regime);
    o->total_first = o->window_alloc_first < 0 ? -1 : o->total + o->window_alloc_first;
    o->total_steady = o->window_alloc_steady < 0 ? -1 : o->total + o->window_alloc_steady;
    const double run = s->first_run ? o->window_alloc_first : o->window_alloc_steady;
    o->alloc_modelled = run >= 0; /* -1: a parameter, or the regime, not calibrated */
    if (o->alloc_modelled) o->window_alloc = run;
    o->total_with_alloc = o->total + o->window_alloc;
    o->throughput = (s->r_tuples + s->s_tuples) / o->total_with_alloc;
    o->throughput_thesis = (s->r_tuples + s->s_tuples) / o->total;
}

cores_answer model_cores_per_host(double bw_tuples, double P, double machines)
{
    /* eq. 3.3 with P_network = bw / n (eq. 3.2): network-bound iff n > bw / ((N-1)/N * P). */
    double share = machines > 1 ? (machines - 1) / machines : 1.0;
    cores_answer a;
    a.exact = bw_tuples / (share * P);
    a.compute_bound_max = (int)floor(a.exact);
    a.saturating_min = (int)ceil(a.exact);
    a.nearest = (int)lround(a.exact);
    if (a.nearest < 1) a.nearest = 1;
    if (a.saturating_min < 1) a.saturating_min = 1;
    return a;
}
