/* The model pieces model/validate.sh's protocol rests on, on made-up parameters whose answers follow
 * from their numbers: how calibrations pool (the fastest of a timed rate or time, the median of a
 * derived parameter, the first of a shape), the statistics calibrate keeps (the least disturbed
 * repetition, a second state of a bimodal timing), a run's model inputs as text and back (with bad
 * text refused), the states a run measures taken as inputs (the floor: a message moves by half the
 * floor's change; fresh memory reused or returned), the radix network pass beside its puts within a
 * host, and the histogram's rate at its bins. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "bench/stats.h"
#include "model/join_model.h"
#include "model/lock_model.h"
#include "model/shape.h"

static void set(model_params *p, const char *a)
{
    char err[300];
    if (params_set(p, a, err, sizeof err)) { fprintf(stderr, "%s\n", err); check_failures++; }
}

static void pooling(void)
{
    double rate[] = {300e6, 420e6, 390e6}, time[] = {0.5e-6, 0.2e-6, 0.3e-6}, slope[] = {150e6, 90e6, 120e6}, bits[] = {4, 5};
    CHECK(params_pool_kind(MP_P_scan) == PARAMS_POOL_FASTEST && params_pool_value(MP_P_scan, rate, 3) == 420e6);
    CHECK(params_pool_kind(MP_t_local_comm) == PARAMS_POOL_FASTEST && params_pool_value(MP_t_local_comm, time, 3) == 0.2e-6);
    CHECK(params_pool_kind(MP_t_win_touch_per_byte) == PARAMS_POOL_FASTEST);
    CHECK(params_pool_kind(MP_P_probe) == PARAMS_POOL_MEDIAN && params_pool_value(MP_P_probe, slope, 3) == 120e6);
    CHECK(params_pool_kind(MP_P_merge) == PARAMS_POOL_MEDIAN && params_pool_kind(MP_net_overlap) == PARAMS_POOL_MEDIAN);
    CHECK(params_pool_kind(MP_net_contention) == PARAMS_POOL_MEDIAN && params_pool_kind(MP_rank_spread) == PARAMS_POOL_MEDIAN);
    CHECK(params_pool_kind(MP_t_floor_rtt) == PARAMS_POOL_MEDIAN);
    CHECK(params_pool_kind(MP_partition_bits) == PARAMS_POOL_SAME && params_pool_value(MP_partition_bits, bits, 2) == 4);

    double t[] = {0.031, 0.020, 0.024, 0.180, 0.150, 0.022};
    CHECK(stats_min(t, 6) == 0.020 && stats_argmin(t, 6) == 1);
    CHECK(stats_second_mode(t, 6, 2.0) == 0.150);                /* 0.15 s/GB and 1.1-1.7: the second state */
    double one[] = {0.020, 0.031, 0.035};
    CHECK(stats_second_mode(one, 3, 2.0) == -1);                 /* within 2x of the fastest: one state */
}

static void shapes(void)
{
    join_shape s = {.ranks = 4, .ranks_per_host = 2, .ranks_on_cores = 4, .r_tuples = 8e6, .s_tuples = 3.2e7,
                    .radix_local_passes = 1, .radix_local_counted = 0, .window_bytes_per_tuple = 8, .sort_radix_share = 0.25,
                    .merge_bands = 4, .count_share = 1.0 / 3, .alloc_regime = MODEL_ALLOC_RETURNED, .sort_run_length = 131072,
                    .hist_bits = 11, .window_life = MODEL_LIFE_DYNAMIC, .first_run = true};
    char text[600], err[300];
    CHECK(model_join_shape_format(&s, text, sizeof text) == 0);
    CHECK(strstr(text, "alloc=returned") && strstr(text, "hist_bits=11"));
    join_shape back;
    CHECK(model_join_shape_parse(text, &back, err, sizeof err) == 0);
    char again[600];
    CHECK(model_join_shape_format(&back, again, sizeof again) == 0 && strcmp(text, again) == 0);
    CHECK(back.count_share == 1.0 / 3 && back.alloc_regime == MODEL_ALLOC_RETURNED && back.hist_bits == 11 && back.r_tuples == 8e6); /* 17 digits */
    CHECK(back.window_life == MODEL_LIFE_DYNAMIC && back.first_run); /* a later run's window_alloc is its lifetime's */
    CHECK(model_join_shape_format(&s, text, 40) == -1);
    CHECK(model_join_shape_parse("ranks=2 ranks_per_host=2 r_tuples=1e6 bogus=1", &back, err, sizeof err) == -1 && strstr(err, "unknown key"));
    CHECK(model_join_shape_parse("ranks=2 ranks=3 ranks_per_host=2 r_tuples=1", &back, err, sizeof err) == -1 && strstr(err, "repeated"));
    CHECK(model_join_shape_parse("ranks=x ranks_per_host=2 r_tuples=1", &back, err, sizeof err) == -1 && strstr(err, "not a number"));
    CHECK(model_join_shape_parse("ranks=2 ranks_per_host=2 r_tuples=1 alloc=maybe", &back, err, sizeof err) == -1);
    CHECK(model_join_shape_parse("ranks_per_host=2 r_tuples=1", &back, err, sizeof err) == -1); /* no ranks */
    lock_shape l = {.agents = 3, .servers = 1, .n_locks = 10.25, .remote_prob = 0.5, .ranks_per_host = 4, .mpi_yields = true,
                    .end_with_next = true, .one_host = true, .floor_us = 0.523};
    lock_shape lb;
    CHECK(model_lock_shape_format(&l, text, sizeof text) == 0 && model_lock_shape_parse(text, &lb, err, sizeof err) == 0);
    CHECK(lb.agents == 3 && lb.servers == 1 && lb.n_locks == 10.25 && lb.remote_prob == 0.5 && lb.ranks_per_host == 4 && lb.mpi_yields &&
          lb.end_with_next && lb.one_host && lb.floor_us == 0.523);
    CHECK(model_lock_shape_parse("agents=1 servers=0 locks_per_txn=10", &lb, err, sizeof err) == -1);
}

static void floor_state(void)
{
    model_params p;
    params_init(&p);
    set(&p, "t_local_comm=0.30"); set(&p, "t_clean_up=0.15"); set(&p, "t_server=0.18"); set(&p, "t_ack=0.45");
    set(&p, "t_vote=0.05"); set(&p, "t_queue=0"); set(&p, "t_floor_rtt=0.52"); set(&p, "cores_per_host=2");
    lock_shape s = {.agents = 1, .servers = 1, .n_locks = 10, .ranks_per_host = 2, .end_with_next = true, .one_host = true};
    model_params q = p;
    CHECK(model_lock_at_floor(&q, &s) == 0 && memcmp(&q.v, &p.v, sizeof p.v) == 0); /* no floor in the run */
    s.floor_us = 0.10; /* the fast state: d = -0.42 us */
    CHECK(fabs(model_lock_at_floor(&q, &s) - -0.21) < 1e-9);
    CHECK(fabs(params_get(&q, MP_t_local_comm) - 0.09e-6) < 1e-15);
    CHECK(fabs(params_get(&q, MP_t_ack) - 0.24e-6) < 1e-15);
    CHECK(fabs(params_get(&q, MP_t_clean_up) - 0.045e-6) < 1e-15);
    CHECK(fabs(params_get(&q, MP_t_server) - 0.075e-6) < 1e-15);
    CHECK(params_get(&q, MP_t_vote) == params_get(&p, MP_t_vote)); /* the fetch-and-op's word stays in cache */
    CHECK(fabs(params_get(&q, MP_t_floor_rtt) - 0.10e-6) < 1e-15);
    /* a floor far below the calibration's: each time kept above a tenth of its calibrated value */
    q = p, s.floor_us = 0.001;
    set(&q, "t_floor_rtt=2.0");
    model_lock_at_floor(&q, &s);
    CHECK(fabs(params_get(&q, MP_t_local_comm) - 0.03e-6) < 1e-15 && fabs(params_get(&q, MP_t_clean_up) - 0.015e-6) < 1e-15);
    /* the whole model takes the run's floor: faster in the fast state, as if calibrated there */
    lock_prediction slow, fast;
    s.floor_us = 0.52;
    model_lock(&p, &s, &slow);
    s.floor_us = 0.10;
    model_lock(&p, &s, &fast);
    CHECK(slow.floor_shift_us == 0 && fabs(fast.floor_shift_us - -0.21) < 1e-9 && fast.throughput > 1.5 * slow.throughput);
    /* ranks sharing cores wait for the scheduler, not for a cache line: no shift */
    s.ranks_per_host = 4;
    q = p;
    CHECK(model_lock_at_floor(&q, &s) == 0);
}

static void join_states(void)
{
    model_params p;
    params_init(&p);
    set(&p, "P_scan=500"); set(&p, "P_partition=400"); set(&p, "P_partition_local=700"); set(&p, "P_build=600"); set(&p, "P_probe=200");
    set(&p, "t_win_alloc_fixed=1"); set(&p, "t_win_alloc_per_byte=0"); set(&p, "t_win_touch_per_byte=0.15");
    snprintf(p.info[MI_ranks_per_host], sizeof p.info[MI_ranks_per_host], "2");
    join_shape s = {.ranks = 2, .ranks_per_host = 2, .r_tuples = 4e6, .s_tuples = 4e6, .radix_local_passes = 1, .window_bytes_per_tuple = 8};
    /* 32 MB of window per rank (8M tuples of 8 B over 2 ranks): reused 0.001 + 0.032 x 0.15 = 0.0058 s */
    const double reused = 0.001 + 32e6 * 0.15e-9;
    CHECK(fabs(model_T_window_alloc(&p, 32e6, 1, MODEL_ALLOC_REUSED) - reused) < 1e-12);
    CHECK(model_T_window_alloc(&p, 32e6, 1, MODEL_ALLOC_RETURNED) == -1); /* the returned state not calibrated */
    CHECK(model_alloc_regime(&p, &s, reused * 1.5) == MODEL_ALLOC_REUSED);
    CHECK(model_alloc_regime(&p, &s, reused * 2.5) == MODEL_ALLOC_RETURNED); /* beyond twice the reused state */
    join_prediction m;
    s.alloc_regime = MODEL_ALLOC_RETURNED;
    model_radix_join(&p, &s, &m);
    CHECK(!m.alloc_modelled && m.window_alloc == 0); /* a state the calibration did not see: not predicted */
    set(&p, "t_win_touch_returned_per_byte=1.2");
    const double returned = 0.001 + 32e6 * 1.2e-9;
    model_radix_join(&p, &s, &m);
    CHECK(m.alloc_modelled && fabs(m.window_alloc - returned) < 1e-12);
    /* between the two states: their geometric mean divides them */
    CHECK(model_alloc_regime(&p, &s, sqrt(reused * returned) * 0.99) == MODEL_ALLOC_REUSED);
    CHECK(model_alloc_regime(&p, &s, sqrt(reused * returned) * 1.01) == MODEL_ALLOC_RETURNED);

    /* the network pass beside its puts: +20% at the calibration's 2 ranks on one host, half of it
     * at 2 hosts x 2 (a quarter of the tuples put within the host against a half), none at 1 rank */
    s.alloc_regime = MODEL_ALLOC_REUSED;
    model_radix_join(&p, &s, &m);
    const double plain = m.network_partition;
    set(&p, "net_contention=0.2");
    CHECK(fabs(model_net_contention(&p, &s) - 0.2) < 1e-12);
    model_radix_join(&p, &s, &m);
    CHECK(fabs(m.network_partition - 1.2 * plain) < 1e-12);
    join_shape h = s;
    h.ranks = 4;
    CHECK(fabs(model_net_contention(&p, &h) - 0.1) < 1e-12);
    h.ranks = 1, h.ranks_per_host = 1;
    CHECK(model_net_contention(&p, &h) == 0);

    /* the histogram at its bins: the curve 800, 600, 400, 300 M/s at 2^4, 2^8, 2^12, 2^16 and
     * P_scan at 2^8: at 2^10 the time per tuple lies halfway between 1/600 and 1/400 */
    CHECK(model_scan_factor(&p, &s) == 1);
    set(&p, "P_scan_at_4=800"); set(&p, "P_scan_at_8=600"); set(&p, "P_scan_at_12=400"); set(&p, "P_scan_at_16=300"); set(&p, "scan_bits=8");
    s.hist_bits = 10;
    const double t10 = 0.5 / 600e6 + 0.5 / 400e6;
    CHECK(fabs(model_scan_factor(&p, &s) - (1 / 600e6) / t10) < 1e-12);
    s.hist_bits = 20; /* beyond the curve: flat */
    CHECK(fabs(model_scan_factor(&p, &s) - 300.0 / 600.0) < 1e-12);
    s.hist_bits = 10;
    model_radix_join(&p, &s, &m);
    CHECK(fabs(m.histogram - 8e6 / (2 * 500e6 * (1 / 600e6) / t10)) < 1e-12);
}

int main(void)
{
    pooling();
    shapes();
    floor_state();
    join_states();
    CHECK_DONE();
}
