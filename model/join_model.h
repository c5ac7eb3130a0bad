/* Analytical models of the distributed joins (thesis 3.3: eq. 3.1-3.20), plus two terms the
 * thesis leaves out (Table 4.2 rows without a Model value): a calibrated window-allocation time,
 * kept out of the thesis total so that the prediction can be compared with and without it, and
 * the phases' waits for their slowest rank from the ranks' spread on equal work (rank_spread,
 * model_join_finish; 0 without it, the thesis' ranks that finish together).
 *
 * Symbols: N_machines = hosts, N_threads/machine = ranks per host (one rank per core), so
 * N_machines * N_threads/machine = ranks. All rates are per rank in tuples/s, times in seconds,
 * sizes in tuples of the whole system (|R|, |S|), as in the thesis. MPI-free. */
#ifndef RMB_MODEL_JOIN_MODEL_H
#define RMB_MODEL_JOIN_MODEL_H
#include <stdbool.h>

#include "model/params.h"

/* --- equation families shared by both joins ------------------------------------------------- */

/* eq. 3.1 (and eq. 3.19, same form): a scan of n tuples by every rank at rate P. */
double model_T_scan(double n_tuples, double ranks, double P);
/* eq. 3.2: P_network = bw / N_threads/machine; bw in tuples/s. */
double model_P_network(double bw_tuples, double ranks_per_host);
/* eq. 3.3: true when the network pass is network-bound: (N_machines-1)/N_machines * P > P_network. */
bool model_network_bound(double machines, double P, double P_network);
/* eq. 3.5 (radix, P = P_partition) and eq. 3.14 (sort-merge, P = P_sort_run): the per-rank rate of
 * a pass whose remote share is limited by the network:
 *     1 / ((1/N)/P + ((N-1)/N)/P_network) = N*P*P_network / ((N-1)*P + P_network).
 * Note: at the switch of eq. 3.3 ((N-1)/N*P = P_network) this gives P*N/(N+1), not P: the thesis'
 * model is discontinuous there by the factor N/(N+1) (tests/model checks this). */
double model_rate_net_bound(double machines, double P, double P_network);
/* eq. 3.4 / 3.6 (and 3.13 / 3.15): the whole system's rate of the pass that crosses the network,
 * compute-bound (N*T*P) or network-bound (N*T*eq. 3.5), as decided by eq. 3.3. */
double model_rate_network_pass(double machines, double ranks_per_host, double P, double P_network, bool *network_bound);
/* Beyond the thesis: eq. 3.4-3.6 hide a compute-bound pass's transfer behind its computation. Where
 * the transfer needs the CPU (TCP between hosts that share cores, or a target that only progresses
 * inside MPI calls) it does not: with o = net_overlap (calibrated; unset = 1, the printed form) and
 * per tuple t_c = 1/P and t_n = ((N-1)/N)/P_network, the time per tuple is
 *     max(thesis, t_c + t_n - o * min(t_c, t_n)),
 * so o = 1 is model_rate_network_pass exactly and o = 0 adds transfer and computation; o < 0 (down
 * to -1) is interference: interleaved, they take longer than their sum (as MPICH between namespace
 * hosts that share cores can, (docs/measurements.md, "From code comments")). */
double model_rate_network_pass_overlap(const model_params *p, double machines, double ranks_per_host, double P,
                                       double P_network, bool *network_bound);
/* eq. 3.7: local passes run at every rank's full rate. */
double model_rate_local(double ranks, double P);

/* The state of a virtual machine's fresh memory a join's windows met (a regime the run measures, not the
 * calibration's): pages the kernel reused at once (t_win_touch_per_byte), or pages that came back
 * through the host after its free page reporting took them (t_win_touch_returned_per_byte). */
enum { MODEL_ALLOC_REUSED = 0, MODEL_ALLOC_RETURNED = 1 };
extern const char *const model_alloc_regime_names[]; /* "reused", "returned" */
/* Beyond the thesis: T_window_alloc = (t_fixed + bytes_per_rank * (t_per_byte + t_touch)) * over
 * (calibrated; t_touch where set, of the regime), over = ranks per core (1: a core each); with ranks
 * sharing cores and t_win_alloc_shared set, t_win_alloc_shared / 2 in place of t_fixed
 * (network_model.c). -1 for the returned regime when t_win_touch_returned_per_byte is not set. */
double model_T_window_alloc(const model_params *p, double bytes_per_rank, double over, int regime);
/* The windows' lifetime (--window-life; the same order as rma/window.h's win_life). */
enum { MODEL_LIFE_JOIN, MODEL_LIFE_POOL, MODEL_LIFE_DYNAMIC };
/* Beyond the thesis: window_alloc of a join under a lifetime. A process's first join pays
 * model_T_window_alloc of the regime whatever the lifetime (allocation, first touch; a dynamic one
 * also its first attachment). A later join: JOIN the same again; POOL t_win_pool_fixed * over
 * (nothing allocated nor touched); DYNAMIC (t_win_dynamic_fixed + bytes_per_rank *
 * t_win_dynamic_per_byte) * over. -1 where a parameter it needs (or the regime) is not calibrated. */
double model_T_window_alloc_life(const model_params *p, double bytes_per_rank, double over, int life, bool first, int regime);

/* --- one join ------------------------------------------------------------------------------- */

typedef struct {
    double ranks, ranks_per_host;   /* machines = ranks / ranks_per_host */
    double ranks_on_cores;          /* ranks sharing one machine's cores and memory: ranks_per_host, or
                                     * more where hosts are namespaces of one machine (0: ranks_per_host) */
    double r_tuples, s_tuples;      /* |R|, |S| over all ranks */
    int radix_local_passes;         /* d - 1 of eq. 3.8 */
    int radix_local_counted;        /* of those, passes that count their items first (at P_count_local);
                                     * 0: the thesis' eq. 3.7, its P_partition_local covering the count */
    double window_bytes_per_tuple;  /* bytes a received tuple takes in the window */
    double sort_radix_share;        /* sort-merge: the share of tuples whose runs the radix sort takes
                                     * (P_sort_radix), the rest the network sort (P_sort_run) */
    double merge_bands;             /* sort-merge: key bands per range, each merged on its own
                                     * (joins/sortmerge/smj_bands.h; 0 or 1: none, the thesis') */
    double count_share;             /* sort-merge: the share of eq. 3.1's scan the count reads (band pieces
                                     * sized from a sample: a line per 64th tuple, 1/16; 0 or 1: all) */
    int alloc_regime;               /* MODEL_ALLOC_*: the state of fresh memory the run's windows met */
    double sort_run_length;         /* sort-merge: the run length l the join sorted (0: the file's
                                     * sort_run_length; --run-size auto may take twice it) */
    int hist_bits;                  /* radix: the histogram phase's bins (log2: the network fan-out and, where
                                     * it counts it, the first local pass's; 0: P_scan as measured) */
    int window_life;                /* MODEL_LIFE_*: how long the windows live (0: JOIN, the thesis') */
    bool first_run;                 /* the run is its process's first join: window_alloc is the first's */
} join_shape;
/* The radix histogram's rate at the run's bins against P_scan's (scan_bits), from the scan curve
 * (P_scan_at_*): its time per tuple interpolated linearly in the bits between the curve's points
 * (flat beyond them); 1 without the curve, scan_bits or hist_bits. */
double model_scan_factor(const model_params *p, const join_shape *s);
/* The parameters a run's shape overrides in p: wire_tuple_bytes (the format the run's plan chose)
 * and sort_run_length (the run length it sorted), where the shape gives them. */
void model_join_shape_params(model_params *p, const join_shape *s);

typedef struct {
    /* phases (seconds); a phase the algorithm does not have stays 0 */
    double histogram, window_alloc, network_partition, local_partition, build_probe;
    double partition, sort, merge, match;
    double total;             /* eq. 3.11 / 3.20: the thesis' phases only */
    double total_with_alloc;  /* total + window_alloc */
    double sort_wait;         /* in total: the slowest rank's sort beyond the mean one (bw_put_sort_slowest) */
    double wait;              /* in total: the phases' waits for their slowest rank (rank_spread; 0 unset) */
    bool alloc_modelled;      /* t_win_alloc_* given (of the run's regime, and the lifetime's for a
                               * later run): window_alloc is a prediction, else 0 */
    double window_alloc_first, window_alloc_steady; /* the first join's and a later one's (-1: not given) */
    double total_first, total_steady; /* total + each of them (-1: not given) */
    bool network_bound;       /* eq. 3.3 for the pass that crosses the network */
    double P_network;         /* eq. 3.2, per rank (0 on one host: nothing crosses hosts) */
    double rate_network_pass; /* eq. 3.4/3.6 or 3.13/3.15, system-wide tuples/s */
    double runs_r, runs_s;    /* eq. 3.12: N_R, N_S */
    int merge_depth_r, merge_depth_s; /* eq. 3.17 (or merge_depth when set) */
    double throughput;        /* (|R|+|S|) / total_with_alloc, tuples/s */
    double throughput_thesis; /* (|R|+|S|) / total */
} join_prediction;

/* Beyond the thesis, terms the code has (each 0 when its parameter is not given, so that the
 * thesis' form, e.g. Table 4.2, is the special case):
 *  - the pass that crosses the network also puts to the other ranks of its own host:
 *    bytes_per_rank * (ranks_per_host - 1) / ranks of its tuples at bw_put_intra per rank (the
 *    radix network pass at bw_put_net, the sort-merge sort phase at bw_put_sort where calibrated:
 *    their puts go to targets busy partitioning or sorting, which MPICH 4.0 progresses only inside
 *    their MPI calls);
 *  - ranks beyond a machine's cores share them: every phase stretches by ranks_on_cores / cores_per_host. */
/* The rate P_x (MP_x) for a join with s->ranks_on_cores ranks of a machine running: P_x was measured
 * with all of the calibration's ranks_per_host (the file's) running, P_x_alone (when given) with one;
 * between them the time per tuple is interpolated linearly in the ranks sharing the host; at or
 * above the calibration's ranks per host, or without P_x_alone, P_x itself. */
double model_rate(const model_params *p, int i, const join_shape *s);
/* The radix network pass's partitioning beside its puts within the host, as a fraction of it
 * (net_contention, measured at the file's ranks per host), scaled by the share of a rank's tuples
 * the run puts to the other ranks of its host, (ranks_per_host - 1) / ranks, against the
 * calibration's; 0 without it or with one rank per host. The ranks of a host share its memory, and
 * the puts' copies stream through it while the pass partitions: the pass less its put calls is
 * slower at 2 ranks on one host than at 1, while the partitioning with both ranks running and no
 * puts is not (docs/models-validation.md). */
double model_net_contention(const model_params *p, const join_shape *s);
/* bw: the bandwidth parameter (MP_bw_put_net, MP_bw_put_sort; an unset one falls back to bw_put_intra). */
double model_T_put_intra(const model_params *p, const join_shape *s, double tuple_bytes, int bw);
double model_oversubscription(const model_params *p, const join_shape *s);
/* s->ranks_on_cores, or ranks_per_host where it is not given. */
double model_ranks_on_cores(const join_shape *s);

/* E[max of n independent standard normal draws] (0 for n < 2): 0.5642 at 2, 1.0294 at 4, 3.6 at 4096. */
double model_max_normal(double n);
/* The regime (MODEL_ALLOC_*) a join's measured window_alloc (seconds, the mean rank's) met: the
 * returned one where it is nearer (in ratio) to that regime's prediction than to the reused one's,
 * or, with only the reused one calibrated, where it took more than twice that. MODEL_ALLOC_REUSED
 * without t_win_alloc_* or a measurement. */
int model_alloc_regime(const model_params *p, const join_shape *s, double measured);
/* Window allocation (when calibrated), totals and throughput, from the phases already set. Both
 * joins' window_alloc phases allocate, fault in every window page (and the peers' pages they put
 * into, rma_window_map_runs) and free the windows: t_win_touch_per_byte, when given, is added. The
 * first join and the steady state under s->window_life (model_T_window_alloc_life) are predicted
 * apart; window_alloc and total_with_alloc are those of s->first_run's. */
void model_join_finish(const model_params *p, const join_shape *s, join_prediction *out);

/* Parameters each join needs, terminated by -1, for params_require(); `multi_host` adds bw_host
 * and wire_tuple_bytes (needed only when tuples cross hosts). */
const int *model_radix_required(bool multi_host);
const int *model_sortmerge_required(const model_params *p, bool multi_host); /* merge_depth > 0 replaces l and fan-in */

/* eq. 3.8-3.10 (T_partition, T_build, T_probe) and 3.11 (T_rhj). */
double model_T_build(double r_tuples, double ranks, double P_build);   /* eq. 3.9 */
double model_T_probe(double s_tuples, double ranks, double P_probe);   /* eq. 3.10 */
void model_radix_join(const model_params *p, const join_shape *s, join_prediction *out);

/* eq. 3.12: runs of length l. */
double model_runs(double tuples, double l);
/* eq. 3.17: d = ceil(log_fanin(N_runs / ranks)); 0 when a rank receives at most one run. */
int model_merge_depth(double runs, double ranks, double fanin);
/* eq. 3.18 for one relation: d * |X| / (ranks * P_merge). */
double model_T_merge(int depth, double tuples, double ranks, double P_merge);
/* Beyond eq. 3.18: the passes' work in full passes. A pass merges through a tree of log2(runs it
 * merges) levels (merge.c sizes the tree to them), so the last pass, merging runs / fanin^(d-1) <
 * fanin runs, costs log2(those) / log2(fanin) of a full pass: (d - 1) + that, 0 for one run per
 * rank (31 runs at fan-in 16: 1.24 passes, where eq. 3.17 counts 2; the join measured 1.2). The
 * model uses it when the depth is derived (eq. 3.17); a given merge_depth keeps eq. 3.18 as printed. */
double model_merge_work(double runs, double ranks, double fanin);
/* eq. 3.12-3.20 (T_smj). */
void model_sortmerge_join(const model_params *p, const join_shape *s, join_prediction *out);

/* --- section 3.5: ranks per host that saturate the host's network ----------------------------- */
typedef struct {
    double exact;    /* n* with (N-1)/N * n* * P = bw: the network is saturated exactly */
    int compute_bound_max; /* floor(n*): the most ranks per host that keep the pass compute-bound */
    int saturating_min;    /* ceil(n*): the fewest ranks per host that saturate the network */
    int nearest;     /* n* rounded: the thesis' answer (4 on QDR, 7 on FDR for the radix join) */
} cores_answer;
/* bw_tuples: eq. 3.2's bw in tuples/s; P: P_partition (radix) or P_sort_run (sort-merge);
 * machines <= 1 means "many" ((N-1)/N = 1). */
cores_answer model_cores_per_host(double bw_tuples, double P, double machines);

#endif
