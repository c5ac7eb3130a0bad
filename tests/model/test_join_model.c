/* The join models against Table 4.2 (1024 ranks, 40M tuples per relation per rank), the
 * compute-/network-bound switch of eq. 3.3, one rank, and section 3.5's cores per host.
 *
 * What Table 4.2's parameters mean: P_net = 1560 Mtuples/s is the bandwidth of one host (eq. 3.2's
 * bw, in 8-byte compressed tuples: 12.5 GB/s, about an Aries NIC's PCIe 3 x16 injection rate), not of
 * one rank (8 ranks x 12.5 GB/s per node would be far beyond the hardware). The Cray XC30 has 8 cores
 * per node, so 1024 ranks = 128 hosts x 8 and P_network = 1560/8 = 195 Mtuples/s per rank: the
 * network pass is compute-bound ((127/128) * 120 = 119 <= 195), which is how Table 4.2 gets 0.67 s
 * for it. With 16 ranks per host it would be network-bound (97.5 < 119), consistent with the
 * thesis' observation that fewer ranks per node run faster. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "model/join_model.h"

static double round2(double x) { return round(x * 100) / 100; }

static void set(model_params *p, const char *a)
{
    char err[300];
    if (params_set(p, a, err, sizeof err)) { fprintf(stderr, "%s\n", err); check_failures++; }
}

static join_shape table42_shape(void)
{
    join_shape s = {.ranks = 1024, .ranks_per_host = 8, .r_tuples = 40e6 * 1024, .s_tuples = 40e6 * 1024,
                    .radix_local_passes = 1, .window_bytes_per_tuple = 8};
    return s;
}

static void radix_table42(void)
{
    model_params p;
    params_init(&p);
    set(&p, "P_scan=225"); set(&p, "P_partition=120"); set(&p, "P_partition_local=120");
    set(&p, "P_build=210"); set(&p, "P_probe=210"); /* Table 4.2's P_build-probe = 210 for both */
    set(&p, "bw_host=12.48"); set(&p, "wire_tuple_bytes=8"); /* P_net = 1560 Mtuples/s per host */
    join_shape s = table42_shape();
    join_prediction m;
    model_radix_join(&p, &s, &m);
    CHECK(round2(m.histogram) == 0.36);
    CHECK(round2(m.network_partition) == 0.67);
    CHECK(!m.network_bound);
    CHECK(fabs(m.P_network - 195e6) < 1);
    CHECK(round2(m.local_partition) == 0.67);
    CHECK(round2(m.build_probe) == 0.38);
    /* The table's total 2.08 s is the sum of its rounded rows (0.36 + 0.67 + 0.67 + 0.38); the exact
     * sum of eq. 3.11 is 2.0698 s, which prints as 2.07. We follow the arithmetic. */
    CHECK(round2(round2(m.histogram) + round2(m.network_partition) + round2(m.local_partition) + round2(m.build_probe)) == 2.08);
    CHECK(fabs(m.total - 2.0698) < 1e-4);
    CHECK(!m.alloc_modelled && m.total_with_alloc == m.total);
    /* with 16 ranks per host the same pass is network-bound */
    s.ranks_per_host = 16;
    model_radix_join(&p, &s, &m);
    CHECK(m.network_bound);
    CHECK(m.network_partition > 0.67);
    /* window allocation term, reported beside the thesis total */
    set(&p, "t_win_alloc_fixed=2"); set(&p, "t_win_alloc_per_byte=0.25");
    s.ranks_per_host = 8;
    model_radix_join(&p, &s, &m);
    CHECK(m.alloc_modelled);
    CHECK(fabs(m.window_alloc - (0.002 + 80e6 * 8 * 0.25e-9)) < 1e-12);
    CHECK(fabs(m.total_with_alloc - m.total - m.window_alloc) < 1e-12);
    /* both joins' window_alloc faults the windows in: the touch term is added per byte, alike */
    set(&p, "t_win_touch_per_byte=0.5");
    model_radix_join(&p, &s, &m);
    CHECK(fabs(m.window_alloc - (0.002 + 80e6 * 8 * 0.75e-9)) < 1e-12);
    set(&p, "P_partition_range=120"); set(&p, "P_sort_run=45"); set(&p, "P_merge=270"); set(&p, "P_match=370");
    set(&p, "merge_depth=3");
    join_prediction q;
    model_sortmerge_join(&p, &s, &q);
    CHECK(q.alloc_modelled && fabs(q.window_alloc - m.window_alloc) < 1e-12);
    CHECK(fabs(q.total_with_alloc - q.total - q.window_alloc) < 1e-12);
}

/* Table 4.2's sort-merge rates, at merge depth d (eq. 3.18). */
static void smj_table42_params(model_params *p, const char *depth)
{
    params_init(p);
    set(p, "P_scan=370"); set(p, "P_partition_range=120"); set(p, "P_sort_run=45");
    set(p, "P_merge=270"); set(p, "P_match=370"); set(p, depth);
}

static void sortmerge_table42(void)
{
    model_params p;
    smj_table42_params(&p, "merge_depth=3");
    set(&p, "bw_host=12.48"); set(&p, "wire_tuple_bytes=8");
    join_shape s = table42_shape();
    join_prediction m;
    model_sortmerge_join(&p, &s, &m);
    /* rows that agree with Table 4.2 */
    CHECK(round2(m.sort) == 1.78);
    CHECK(!m.network_bound);
    CHECK(round2(m.match) == 0.22);
    /* documented differences (model/sortmerge_model.c): "Partitioning" = histogram + partition is
     * 0.22 + 0.67 = 0.88 s (table: 1.00 s); merging with d = 3 is 0.89 s (table: 1.78 s, twice as much) */
    CHECK(round2(m.histogram + m.partition) == 0.88);
    /* a calibrated range count replaces P_scan in the histogram alone: 80M / 185M = 0.43 s */
    set(&p, "P_count_range=185");
    join_prediction c;
    model_sortmerge_join(&p, &s, &c);
    CHECK(round2(c.histogram) == 0.43 && fabs(c.partition - m.partition) < 1e-12);
    p.set[MP_P_count_range] = false;
    CHECK(round2(m.merge) == 0.89);
    CHECK(fabs(2 * m.merge - 1.7778) < 1e-3);
    CHECK(round2(m.total) == 3.77);
    /* the merge depth from eq. 3.17 instead: runs per rank 40M / 4096 = 9766 runs at fan-in 22 -> d = 3 */
    p.set[MP_merge_depth] = false;
    set(&p, "sort_run_length=4096"); set(&p, "merge_fanin=22");
    model_sortmerge_join(&p, &s, &m);
    CHECK(m.merge_depth_r == 3 && m.merge_depth_s == 3);
    CHECK(fabs(m.runs_r - 40e6 * 1024 / 4096) < 1);
}

static void merge_depth(void)
{
    /* the passes' work: full passes, plus the last pass's tree levels over a full tree's */
    CHECK(fabs(model_merge_work(31, 1, 16) - (1 + 1 / 4.0)) < 1e-12);  /* 16 + 15 -> 2 runs: 1 level of 4 */
    CHECK(fabs(model_merge_work(256, 1, 16) - 2) < 1e-12);             /* 16^2 exactly: two full passes */
    CHECK(fabs(model_merge_work(16.0 * 4, 4, 16) - 1) < 1e-12);
    CHECK(model_merge_work(1, 1, 16) == 0 && fabs(model_merge_work(2, 1, 16) - 0.25) < 1e-12);
    CHECK(fabs(model_merge_work(257, 1, 16) - (2 + log2(2) / 4)) < 1e-12);
    /* eq. 3.17 at exact powers and around them */
    CHECK(model_merge_depth(4096.0 * 8, 8, 16) == 3);  /* 4096 runs per rank, fan-in 16: 16^3 */
    CHECK(model_merge_depth(4097.0 * 8, 8, 16) == 4);
    CHECK(model_merge_depth(16.0, 1, 16) == 1);
    CHECK(model_merge_depth(1.0, 1, 16) == 0);          /* one run: nothing to merge */
    CHECK(model_merge_depth(17.0, 1, 16) == 2);
}

static void bound_switch(void)
{
    /* eq. 3.3 switches where (N-1)/N * P = P_network: N = 4 hosts, P = 100 -> P_network = 75 */
    double N = 4, P = 100e6;
    bool nb;
    CHECK(!model_network_bound(N, P, 75e6));            /* equality is still compute-bound */
    CHECK(model_network_bound(N, P, 75e6 - 1));
    double below = model_rate_network_pass(N, 2, P, 75e6, &nb);
    CHECK(!nb && below == N * 2 * P);                    /* eq. 3.4 */
    double above = model_rate_network_pass(N, 2, P, 75e6 - 1e-3, &nb);
    CHECK(nb);
    /* eq. 3.5 just past the switch is N/(N+1) of eq. 3.4: the thesis' model jumps there */
    CHECK(fabs(above / below - N / (N + 1)) < 1e-6);
    /* eq. 3.5's two printed forms agree */
    double Pn = 30e6;
    double a = 1 / ((1 / N) / P + ((N - 1) / N) / Pn), b = model_rate_net_bound(N, P, Pn);
    CHECK(fabs(a - b) / a < 1e-12);
    /* deep in the network-bound regime the rate approaches N/(N-1) * P_network per rank */
    double far = model_rate_net_bound(N, 1e15, Pn);
    CHECK(fabs(far - N / (N - 1) * Pn) / far < 1e-6);
}

/* net_overlap: unset or 1 is the printed eq. 3.4-3.6; 0 adds the remote share's transfer to the
 * computation; in between, the time falls with the overlap; one host has nothing to overlap. */
static void network_overlap(void)
{
    model_params p;
    params_init(&p);
    const double N = 2, P = 100e6, Pn = 200e6, tc = 1 / P, tn = (N - 1) / N / Pn;
    bool nb;
    const double thesis = model_rate_network_pass(N, 2, P, Pn, &nb);
    CHECK(model_rate_network_pass_overlap(&p, N, 2, P, Pn, &nb) == thesis && !nb);
    set(&p, "net_overlap=1");
    CHECK(model_rate_network_pass_overlap(&p, N, 2, P, Pn, &nb) == thesis);
    set(&p, "net_overlap=0");
    const double none = model_rate_network_pass_overlap(&p, N, 2, P, Pn, &nb);
    CHECK(fabs(none - N * 2 / (tc + tn)) / none < 1e-12);
    set(&p, "net_overlap=0.5");
    const double half = model_rate_network_pass_overlap(&p, N, 2, P, Pn, &nb);
    CHECK(fabs(half - N * 2 / (tc + 0.5 * tn)) / half < 1e-12 && half > none && half < thesis);
    /* network-bound: never faster than the printed eq. 3.5 */
    const double slow = 20e6, bound = model_rate_network_pass(N, 2, P, slow, &nb);
    CHECK(nb && model_rate_network_pass_overlap(&p, N, 2, P, slow, &nb) <= bound);
    CHECK(model_rate_network_pass_overlap(&p, 1, 2, P, 0, &nb) == model_rate_network_pass(1, 2, P, 0, &nb));
    /* below 0: interleaved transfer and computation take longer than their sum (interference) */
    set(&p, "net_overlap=-0.5");
    const double worse = model_rate_network_pass_overlap(&p, N, 2, P, Pn, &nb);
    CHECK(fabs(worse - N * 2 / (tc + 1.5 * tn)) / worse < 1e-12 && worse < none);
    char err[200];
    CHECK(params_set(&p, "net_overlap=1.5", err, sizeof err) != 0 && strstr(err, "net_overlap"));
    CHECK(params_set(&p, "net_overlap=-1.5", err, sizeof err) != 0 && strstr(err, "[-1, 1]"));
}

static void one_rank(void)
{
    model_params p;
    params_init(&p);
    set(&p, "P_scan=200"); set(&p, "P_partition=100"); set(&p, "P_partition_local=50");
    set(&p, "P_build=80"); set(&p, "P_probe=40");
    join_shape s = {.ranks = 1, .ranks_per_host = 1, .r_tuples = 1e6, .s_tuples = 2e6, .radix_local_passes = 2,
                    .window_bytes_per_tuple = 16};
    join_prediction m;
    model_radix_join(&p, &s, &m); /* bw_host not set: one host needs no network parameters */
    CHECK(!m.network_bound && m.P_network == 0);
    CHECK(fabs(m.histogram - 3e6 / 200e6) < 1e-15);
    CHECK(fabs(m.network_partition - 3e6 / 100e6) < 1e-15);
    CHECK(fabs(m.local_partition - 2 * 3e6 / 50e6) < 1e-15);
    CHECK(fabs(m.build_probe - (1e6 / 80e6 + 2e6 / 40e6)) < 1e-15);
    CHECK(fabs(m.total - (0.015 + 0.03 + 0.12 + 0.0625)) < 1e-12);
    CHECK(fabs(m.throughput - 3e6 / m.total) < 1e-6);
}

/* Made-up rates of both joins' primitives (no window allocation, network or alone rates). */
static void both_joins_params(model_params *p)
{
    params_init(p);
    set(p, "P_scan=200"); set(p, "P_partition=100"); set(p, "P_partition_local=50");
    set(p, "P_build=80"); set(p, "P_probe=40");
    set(p, "P_partition_range=60"); set(p, "P_sort_run=30"); set(p, "P_merge=90"); set(p, "P_match=300");
    set(p, "sort_run_length=65536"); set(p, "merge_fanin=16");
}

/* The run sort (eq. 3.13's P_sort): the shares the radix and the network sort took, each tuple at
 * its kernel's rate; without P_sort_radix or with no radix runs the thesis' P_sort_run alone. */
static void run_sort_share(void)
{
    model_params p;
    both_joins_params(&p);
    join_shape s = {.ranks = 2, .ranks_per_host = 2, .r_tuples = 4e6, .s_tuples = 4e6, .window_bytes_per_tuple = 8};
    join_prediction net, none, all, half;
    model_sortmerge_join(&p, &s, &net);
    CHECK(fabs(net.sort - 8e6 / (2 * 30e6)) < 1e-15); /* eq. 3.13, 3.16 on one host */
    s.sort_radix_share = 1;
    model_sortmerge_join(&p, &s, &none); /* P_sort_radix unset */
    CHECK(none.sort == net.sort);
    set(&p, "P_sort_radix=90");
    model_sortmerge_join(&p, &s, &all);
    CHECK(fabs(all.sort - 8e6 / (2 * 90e6)) < 1e-15);
    s.sort_radix_share = 0.5;
    model_sortmerge_join(&p, &s, &half);
    CHECK(fabs(half.sort - (4e6 / 90e6 + 4e6 / 30e6) / 2) < 1e-15);
    CHECK(half.merge == net.merge && half.match == net.match);
}

/* The terms beyond the thesis: each absent without its parameter, each adding what it says. */
static void beyond_thesis(void)
{
    model_params p;
    both_joins_params(&p);
    join_shape s = {.ranks = 4, .ranks_per_host = 4, .r_tuples = 4e6, .s_tuples = 8e6, .radix_local_passes = 1,
                    .window_bytes_per_tuple = 8};
    join_prediction r0, r1, m0, m1;
    model_radix_join(&p, &s, &r0);
    model_sortmerge_join(&p, &s, &m0);
    CHECK(fabs(r0.network_partition - 12e6 / (4 * 100e6)) < 1e-15); /* thesis: eq. 3.4 alone */
    /* intra-host puts: 3/4 of a rank's 3M tuples, 8 bytes each, at 2 GB/s; the packed arrays are
     * kept from run to run (range.c), so first touch is not in the partition */
    set(&p, "bw_put_intra=2"); set(&p, "t_touch_per_byte=0.5");
    model_radix_join(&p, &s, &r1);
    model_sortmerge_join(&p, &s, &m1);
    CHECK(fabs(r1.network_partition - r0.network_partition - 3e6 * 3 / 4 * 8 / 2e9) < 1e-15);
    CHECK(fabs(m1.sort - m0.sort - 3e6 * 3 / 4 * 8 / 2e9) < 1e-15);
    CHECK(m1.partition == m0.partition);
    /* 4 ranks on 2 cores: every phase twice as long; enough cores: unchanged */
    set(&p, "cores_per_host=4");
    model_radix_join(&p, &s, &r0);
    set(&p, "cores_per_host=2");
    model_radix_join(&p, &s, &r1);
    CHECK(fabs(r1.total - 2 * r0.total) < 1e-12 && fabs(r1.build_probe - 2 * r0.build_probe) < 1e-15);
    /* and the windows' allocation and first touch: clearing pages is the cores' work as well */
    set(&p, "t_win_alloc_fixed=2"); set(&p, "t_win_alloc_per_byte=0.25"); set(&p, "t_win_touch_per_byte=0.5");
    set(&p, "cores_per_host=4");
    model_radix_join(&p, &s, &r0);
    set(&p, "cores_per_host=2");
    model_radix_join(&p, &s, &r1);
    CHECK(r0.window_alloc > 0 && fabs(r1.window_alloc - 2 * r0.window_alloc) < 1e-12);
    /* the fixed part measured with the ranks sharing cores replaces the stretched one there (at 2
     * ranks per core: as measured), and nowhere else */
    set(&p, "t_win_alloc_shared=90");
    join_prediction w1, w0;
    model_radix_join(&p, &s, &w1);
    CHECK(fabs(w1.window_alloc - (r1.window_alloc - 2 * 2e-3 + 90e-3)) < 1e-12);
    CHECK(fabs(w1.total_with_alloc - w1.total - w1.window_alloc) < 1e-12);
    set(&p, "cores_per_host=1"); /* 4 ranks per core: twice the 2-per-core wait */
    model_radix_join(&p, &s, &w1);
    CHECK(fabs(w1.window_alloc - (2 * r1.window_alloc - 4 * 2e-3 + 2 * 90e-3)) < 1e-12);
    set(&p, "cores_per_host=4");
    model_radix_join(&p, &s, &w0);
    CHECK(w0.window_alloc == r0.window_alloc);
    p.set[MP_t_win_alloc_shared] = false;
    set(&p, "cores_per_host=2");
    /* 2 namespace hosts of 2 ranks on one 2-core machine: the stretch of 4 ranks on 2 cores */
    join_shape ns = s;
    ns.ranks_per_host = 2;
    ns.ranks_on_cores = 4;
    join_prediction n1, n0;
    model_radix_join(&p, &ns, &n1);
    CHECK(fabs(model_oversubscription(&p, &ns) - 2) < 1e-12);
    ns.ranks_on_cores = 0; /* not given: the host's ranks, 2 on 2 cores */
    model_radix_join(&p, &ns, &n0);
    CHECK(model_oversubscription(&p, &ns) == 1 && fabs(n1.build_probe - 2 * n0.build_probe) < 1e-15);
}

/* Rates with fewer ranks of a host running than at calibration (P_*_alone), and the sort-merge
 * partition of one rank (P_pack, no histogram). */
static void ranks_sharing(void)
{
    model_params p;
    both_joins_params(&p);
    join_shape one = {.ranks = 1, .ranks_per_host = 1, .r_tuples = 1e6, .s_tuples = 2e6, .radix_local_passes = 1,
                      .window_bytes_per_tuple = 8};
    join_shape two = one, three = one;
    two.ranks = two.ranks_per_host = 2;
    three.ranks = three.ranks_per_host = 3;
    join_prediction a, b;
    /* no P_partition_alone, or no calibration ranks per host: P_partition as it is */
    model_radix_join(&p, &one, &a);
    CHECK(fabs(a.network_partition - 3e6 / 100e6) < 1e-15);
    set(&p, "P_partition_alone=200");
    model_radix_join(&p, &one, &b);
    CHECK(fabs(b.network_partition - a.network_partition) < 1e-15);
    /* calibrated with 3 ranks per host: alone at 1, all at 3, halfway in time per tuple at 2 */
    snprintf(p.info[MI_ranks_per_host], sizeof p.info[MI_ranks_per_host], "3");
    CHECK(fabs(model_rate(&p, MP_P_partition, &one) - 200e6) < 1e-3);
    CHECK(fabs(model_rate(&p, MP_P_partition, &two) - 1 / (0.5 / 200e6 + 0.5 / 100e6)) < 1e-3);
    CHECK(fabs(model_rate(&p, MP_P_partition, &three) - 100e6) < 1e-3);
    CHECK(fabs(model_rate(&p, MP_P_scan, &one) - 200e6) < 1e-3); /* no P_scan_alone */
    model_radix_join(&p, &one, &b);
    CHECK(fabs(b.network_partition - 3e6 / 200e6) < 1e-15 && fabs(b.histogram - a.histogram) < 1e-15);
    /* sort-merge on one rank: without P_pack the thesis' histogram + partition; with it a pack alone */
    model_sortmerge_join(&p, &one, &a);
    CHECK(fabs(a.histogram - 3e6 / 200e6) < 1e-15 && fabs(a.partition - 3e6 / 60e6) < 1e-15);
    set(&p, "P_pack=500");
    model_sortmerge_join(&p, &one, &b);
    CHECK(b.histogram == 0 && fabs(b.partition - 3e6 / 500e6) < 1e-15);
    model_sortmerge_join(&p, &two, &b); /* two ranks: ranges again */
    CHECK(b.histogram > 0 && fabs(b.partition - 3e6 / (2 * 60e6)) < 1e-15);
    /* the matching scan per R and per S tuple, when both are given (else eq. 3.19 with P_match) */
    CHECK(fabs(b.match - 3e6 / (2 * 300e6)) < 1e-15);
    set(&p, "P_match_r=100");
    model_sortmerge_join(&p, &two, &a);
    CHECK(fabs(a.match - b.match) < 1e-15);
    set(&p, "P_match_s=400");
    model_sortmerge_join(&p, &two, &a);
    CHECK(fabs(a.match - (1e6 / (2 * 100e6) + 2e6 / (2 * 400e6))) < 1e-15);
    /* beyond 2 S tuples per R tuple the pair measured there, when both are given */
    set(&p, "P_match_r_many=50");
    set(&p, "P_match_s_many=800");
    model_sortmerge_join(&p, &two, &b); /* 1:2: still the first pair */
    CHECK(fabs(b.match - a.match) < 1e-15);
    join_shape wide = two;
    wide.s_tuples = 3 * wide.r_tuples;
    model_sortmerge_join(&p, &wide, &b);
    CHECK(fabs(b.match - (1e6 / (2 * 50e6) + 3e6 / (2 * 800e6))) < 1e-15);
}

static void cores_per_host(void)
{
    /* thesis 3.5: P_partition = 110 Mtuples/s; QDR 3.6 GB/s and FDR 6.0 GB/s of 8-byte tuples give
     * 4.09 and 6.82 ranks; the thesis answers 4 (QDR) and 7 (FDR): the nearest integer. */
    cores_answer q = model_cores_per_host(3.6e9 / 8, 110e6, 0), f = model_cores_per_host(6.0e9 / 8, 110e6, 0);
    CHECK(q.nearest == 4 && f.nearest == 7);
    CHECK(q.compute_bound_max == 4 && q.saturating_min == 5);
    /* consistency with eq. 3.3: one more rank than compute_bound_max makes the pass network-bound */
    CHECK(!model_network_bound(1e9, 110e6, 3.6e9 / 8 / q.compute_bound_max));
    CHECK(model_network_bound(1e9, 110e6, 3.6e9 / 8 / (q.compute_bound_max + 1)));
    /* finite hosts: (N-1)/N shrinks the remote share, so more ranks fit */
    CHECK(model_cores_per_host(3.6e9 / 8, 110e6, 2).exact > q.exact * 1.99);
}

/* The slowest rank's sort (bw_put_sort_slowest): the total grows by exactly the time its puts take
 * beyond the mean rank's, the sort row (the mean over ranks) does not; a slowest rate at or above the
 * mean adds nothing; without it the total is eq. 3.20's. 2 ranks on one host, 8M tuples each. */
static void sort_slowest_rank(void)
{
    model_params p;
    smj_table42_params(&p, "merge_depth=1");
    set(&p, "bw_put_intra=4"); set(&p, "bw_put_sort=0.5");
    join_shape s = {.ranks = 2, .ranks_per_host = 2, .r_tuples = 16e6, .s_tuples = 16e6, .window_bytes_per_tuple = 8};
    join_prediction a, b, c;
    model_sortmerge_join(&p, &s, &a);
    CHECK(a.sort_wait == 0);
    set(&p, "bw_put_sort_slowest=0.25");
    model_sortmerge_join(&p, &s, &b);
    /* a rank's remote share: 16M tuples x 1/2 x 8 B = 64 MB; at 0.25 against 0.5 GB/s: 0.128 s more */
    CHECK(fabs(b.sort_wait - 0.128) < 1e-9);
    CHECK(fabs(b.total - a.total - 0.128) < 1e-9 && b.sort == a.sort);
    /* 2 ranks on 1 core: the term is scaled with the rest of the total, and reported scaled */
    set(&p, "cores_per_host=1");
    model_sortmerge_join(&p, &s, &c);
    CHECK(fabs(c.sort_wait - 2 * 0.128) < 1e-9 && fabs(c.total - 2 * b.total) < 1e-9);
    p.set[MP_cores_per_host] = false;
    set(&p, "bw_put_sort_slowest=0.6");
    model_sortmerge_join(&p, &s, &c);
    CHECK(c.sort_wait == 0 && c.total == a.total);
}

/* The phases' waits for their slowest rank (rank_spread): E[max of n normals] against values known
 * independently (1/sqrt(pi) at 2, 3/(2 sqrt(pi)) at 3; tables: 1.0294 at 4, 1.5388 at 10), the wait
 * sigma x that x the phases (sort_wait excluded), nothing at one rank, nothing without the parameter,
 * the phase rows themselves unchanged. */
static void rank_wait(void)
{
    CHECK(model_max_normal(1) == 0);
    const double inv_sqrt_pi = 0.5641895835477563;
    CHECK(fabs(model_max_normal(2) - inv_sqrt_pi) < 1e-6);
    CHECK(fabs(model_max_normal(3) - 1.5 * inv_sqrt_pi) < 1e-6);
    CHECK(fabs(model_max_normal(4) - 1.02938) < 1e-4 && fabs(model_max_normal(10) - 1.53875) < 1e-4);
    CHECK(model_max_normal(4096) > 3.4 && model_max_normal(4096) < 3.7); /* about sqrt(2 ln n) - its correction */
    model_params p;
    params_init(&p);
    set(&p, "P_scan=225"); set(&p, "P_partition=120"); set(&p, "P_partition_local=120");
    set(&p, "P_build=210"); set(&p, "P_probe=210"); set(&p, "t_win_alloc_fixed=2"); set(&p, "t_win_alloc_per_byte=0.25");
    join_shape s = {.ranks = 4, .ranks_per_host = 4, .r_tuples = 64e6, .s_tuples = 64e6, .radix_local_passes = 1,
                    .window_bytes_per_tuple = 16};
    join_prediction a, b;
    model_radix_join(&p, &s, &a);
    CHECK(a.wait == 0);
    set(&p, "rank_spread=0.1");
    model_radix_join(&p, &s, &b);
    CHECK(fabs(b.wait - 0.1 * model_max_normal(4) * a.total) < 1e-12 * a.total);
    CHECK(fabs(b.total - a.total - b.wait) < 1e-12 && b.build_probe == a.build_probe && b.histogram == a.histogram);
    CHECK(fabs(b.total_with_alloc - a.total_with_alloc - b.wait) < 1e-12);
    s.ranks = s.ranks_per_host = 1;
    model_radix_join(&p, &s, &b);
    CHECK(b.wait == 0);
}

/* --window-life: the first join pays the join lifetime's allocation whatever the lifetime; a later
 * one the lifetime's own term (pool: its fixed time; dynamic: fixed + per byte of window), none
 * (-1, not modelled) where its parameter is missing; the run's window_alloc is its state's. */
static void window_lifetimes(void)
{
    model_params p;
    params_init(&p);
    set(&p, "P_scan=225"); set(&p, "P_partition=120"); set(&p, "P_partition_local=120");
    set(&p, "P_build=210"); set(&p, "P_probe=210"); set(&p, "bw_host=12.48"); set(&p, "wire_tuple_bytes=8");
    set(&p, "t_win_alloc_fixed=2"); set(&p, "t_win_alloc_per_byte=0.25");
    join_shape s = table42_shape();
    const double bytes = 80e6 * 8, first = 0.002 + bytes * 0.25e-9;
    join_prediction m;
    s.window_life = MODEL_LIFE_POOL;
    s.first_run = false;
    model_radix_join(&p, &s, &m);
    CHECK(fabs(m.window_alloc_first - first) < 1e-12 && m.window_alloc_steady == -1 && m.total_steady == -1);
    CHECK(!m.alloc_modelled && m.total_with_alloc == m.total);
    set(&p, "t_win_pool_fixed=0.5");
    model_radix_join(&p, &s, &m);
    CHECK(fabs(m.window_alloc_steady - 0.0005) < 1e-12 && m.alloc_modelled && fabs(m.window_alloc - 0.0005) < 1e-12);
    CHECK(fabs(m.total_steady - m.total - 0.0005) < 1e-12 && fabs(m.total_first - m.total - first) < 1e-12);
    s.first_run = true;
    model_radix_join(&p, &s, &m);
    CHECK(fabs(m.window_alloc - first) < 1e-12);
    s.window_life = MODEL_LIFE_DYNAMIC;
    s.first_run = false;
    set(&p, "t_win_dynamic_fixed=1"); set(&p, "t_win_dynamic_per_byte=0.01");
    model_radix_join(&p, &s, &m);
    CHECK(fabs(m.window_alloc_steady - (0.001 + bytes * 0.01e-9)) < 1e-12 && fabs(m.window_alloc_first - first) < 1e-12);
    s.window_life = MODEL_LIFE_JOIN;
    model_radix_join(&p, &s, &m);
    CHECK(fabs(m.window_alloc_steady - first) < 1e-12 && fabs(m.window_alloc - first) < 1e-12);
}

int main(void)
{
    window_lifetimes();
    radix_table42();
    sortmerge_table42();
    sort_slowest_rank();
    rank_wait();
    merge_depth();
    bound_switch();
    one_rank();
    beyond_thesis();
    run_sort_share();
    ranks_sharing();
    cores_per_host();
    network_overlap();
    CHECK_DONE();
}
