/* A model of the star query (rmabench query, joins/query/) in its two designs, beside the joins'
 * models (join_model.h), MPI-free: what the pull design and the shuffling engine move and compute,
 * from the calibrated primitives (P_scan, P_probe, P_build, P_partition, bw_put_intra, bw_host) and
 * the block reads' round trip and bandwidth (t_get_block, bw_get: rmabench query --micro prefetch).
 * Per rank, times in seconds; sizes of the whole system.
 *
 * Pull, with C compute and M memory ranks on H hosts (R = ranks / H a host; a rank's share of its
 * host's link L = bw_link / R; the share of a transfer to other ranks that crosses hosts
 * x = (P - R) / (P - 1), the other ranks on other hosts; 0 on one host):
 *   blocks   n_F = ceil(|F| / floor((B - 16) / w_F)) fact blocks, n_D dimension blocks, bytes n B
 *   stream   T = max(n_F B / C / bw_in,            a compute rank's reads (bw_in = bw_get, or
 *                                                  min(bw_get, L / x) across hosts)
 *                    n_F B x / M / L,              a memory rank's link (every block once)
 *                    n_F B / M / bw_serve,         a memory rank serving reads, where calibrated
 *                                                  (RMA carried by messages needs its CPU; hosts
 *                                                  that share one machine's cores serve bw_serve
 *                                                  together, whatever M)
 *                    n_F / C * (t_get + B / bw_in) / d,  a block's round trip t_get beyond its bytes,
 *                                                  d = --prefetch reads in flight
 *                    |F| / C * k / P_probe)        the pipeline: k probes a fact row
 *            with d = 1 nothing overlaps: n_F / C * (t_get + B / bw_in) + |F| / C * k / P_probe
 *   replicate (read)  the same bounds for n_D blocks read by every compute rank (a memory rank's
 *            link sends each C times) and sum |D_j| / P_build building the tables;
 *            (bcast)  every byte leaves its memory rank once and is forwarded: 2 n_D B / L_eff
 *            (a large broadcast's scatter and allgather), beside the build
 * Shuffle, k joins over P ranks, S_0 = |F|, S_(j+1) = S_j * selectivity_j, rows of w_F:
 *   histogram    (S_j + |D_j|) / (P P_scan), and the filter's scan of D_j when it filters
 *   exchange     pack: (S_j w_F + |D_j| s_j w_j) / P / bw_copy (bw_mem_copy, else 16 P_partition);
 *                transfer: a rank's bytes to other ranks, the share x across its link L and the rest
 *                at bw_put_intra, or, where calibrated, at bw_alltoallv if that is slower (the
 *                collective's own rate on these ranks: rmabench query --micro alltoallv)
 *   build_probe  |D_j| s_j / (P P_build) + S_j / (P P_probe) + S_(j+1) w_F / P / bw_copy (materialise)
 * The crossovers (model_query_crossover): the fewest joins at which pull is faster, the dimension
 * scale and the link rate at which both take the same time. */
#ifndef RMB_MODEL_QUERY_MODEL_H
#define RMB_MODEL_QUERY_MODEL_H
#include <stdbool.h>

#include "model/params.h"

#define MODEL_QUERY_MAX_DIMS 3

typedef struct {
    double ranks, memory_ranks, hosts;
    int dims;
    double fact_rows, fact_bytes;                        /* rows; bytes a row */
    double dim_rows[MODEL_QUERY_MAX_DIMS], dim_bytes[MODEL_QUERY_MAX_DIMS], selectivity[MODEL_QUERY_MAX_DIMS];
    double block_bytes, prefetch;
    bool bcast;                                          /* --replicate bcast */
    bool alltoallv;                                      /* the shuffle's --exchange alltoallv (bw_alltoallv applies) */
    bool one_machine;                                    /* the hosts share one machine's cores (network namespaces):
                                                          * the memory ranks serve at most bw_serve together */
    double link_bw;                                      /* bytes/s of a host's link; 0: bw_host */
} query_shape;

typedef struct {
    double replicate, stream, pull;                      /* the pull design's phases and total */
    const char *stream_bound, *replicate_bound;          /* the term that decided each */
    double histogram, exchange, build_probe, shuffle;    /* the shuffle design's, summed over the joins */
    const char *exchange_bound;                          /* the transfer's bound in the first join */
    double pull_bytes, shuffle_bytes;                    /* bytes moved between ranks, all ranks */
} query_prediction;

/* Parameters the model needs, terminated by -1: multi_host, bw_host too; without shared_host (one
 * rank a host) no bw_put_intra. */
const int *model_query_required(bool multi_host, bool shared_host);
void model_query(const model_params *p, const query_shape *s, query_prediction *out);

typedef struct {
    int joins;            /* the fewest dimensions (1..3) at which pull is faster; 0: at none */
    double dim_scale;     /* the factor on every dimension's rows at which both take the same time (0: none in 1/1024..1024) */
    double link_bw;       /* bytes/s of a host's link at which both take the same time (0: none in 1 Mbit/s..1 Tbit/s, or one host) */
} query_crossover;
/* The shape's crossovers, its other values held. */
void model_query_crossover(const model_params *p, const query_shape *s, query_crossover *out);

#endif
