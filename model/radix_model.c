/* Radix hash join model, thesis 3.3.1 (eq. 3.1-3.11). */
#include "model/join_model.h"

const int *model_radix_required(bool multi_host)
{
    static const int one_host[] = {MP_P_scan, MP_P_partition, MP_P_partition_local, MP_P_build, MP_P_probe, -1};
    static const int hosts[] = {MP_P_scan, MP_P_partition, MP_P_partition_local, MP_P_build, MP_P_probe,
                                MP_bw_host, MP_wire_tuple_bytes, -1};
    return multi_host ? hosts : one_host;
}

double model_T_build(double r_tuples, double ranks, double P_build) { return r_tuples / (ranks * P_build); }
double model_T_probe(double s_tuples, double ranks, double P_probe) { return s_tuples / (ranks * P_probe); }

void model_radix_join(const model_params *p, const join_shape *s, join_prediction *o)
{
    *o = (join_prediction){0};
    double n = s->r_tuples + s->s_tuples, machines = s->ranks / s->ranks_per_host;
    o->histogram = model_T_scan(n, s->ranks, model_rate(p, MP_P_scan, s) * model_scan_factor(p, s)); /* eq. 3.1, at its bins */
    /* eq. 3.2; with one host nothing crosses the network and bw is not needed */
    if (machines > 1)
        o->P_network = model_P_network(params_get(p, MP_bw_host) / params_get(p, MP_wire_tuple_bytes), s->ranks_per_host);
    /* eq. 3.8, split into its network pass (eq. 3.3-3.6) and its d-1 local passes (eq. 3.7) */
    o->rate_network_pass =
        model_rate_network_pass_overlap(p, machines, s->ranks_per_host, model_rate(p, MP_P_partition, s), o->P_network, &o->network_bound);
    o->network_partition = n / o->rate_network_pass * (1 + model_net_contention(p, s)) +
                           model_T_put_intra(p, s, s->window_bytes_per_tuple, MP_bw_put_net);
    o->local_partition = s->radix_local_passes * n / model_rate_local(s->ranks, model_rate(p, MP_P_partition_local, s));
    /* beside eq. 3.7: a pass whose counts the histogram phase did not deliver reads its items once
     * more to count them (joins/radix/local_partition.c); without P_count_local, at eq. 3.1's scan rate */
    if (s->radix_local_counted > 0)
        o->local_partition += s->radix_local_counted * n /
                              model_rate_local(s->ranks, model_rate(p, p->set[MP_P_count_local] ? MP_P_count_local : MP_P_scan, s));
    /* eq. 3.9 + 3.10: one row in Table 4.2 ("Build-Probe") */
    o->build_probe = model_T_build(s->r_tuples, s->ranks, model_rate(p, MP_P_build, s)) +
                     model_T_probe(s->s_tuples, s->ranks, model_rate(p, MP_P_probe, s));
    o->total = o->histogram + o->network_partition + o->local_partition + o->build_probe; /* eq. 3.11 */
    /* radix.c counts the first touch of the windows (network_partition.c) and their MPI_Win_free
     * as window_alloc */
    model_join_finish(p, s, o);
}

