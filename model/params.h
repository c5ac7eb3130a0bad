/* Model parameters: one documented key=value file shared by `rmabench calibrate` (writes it),
 * `rmamodel` and `rmabench join|lock --model` (read it).
 *
 * File format, one parameter per line:
 *     name = value  # unit  free comment
 *     # a comment line          (blank lines are ignored too)
 * The unit after '#' is optional, but when given it must be the parameter's unit (so that a file
 * written in other units is refused rather than misread). Values are given in the file's units
 * (rates in million tuples per second, as in the thesis); internally everything is SI (tuples/s,
 * bytes/s, seconds). Unknown names, duplicates, malformed lines, bad numbers, values out of
 * their bound (PB_*) or out of the plausible range of their unit (params.c's plausibility table;
 * counts of things whole), lines over 2047 characters, binary data (NUL or control bytes), a last
 * line without its newline (a file cut short) and an input that is not a regular file are errors
 * reported as "FILE:LINE: reason" (or "FILE: reason"). `--set NAME=VALUE` overrides use the same units and
 * bounds. A parameter the file does not give stays unset; the model functions' callers check with
 * params_require() before using it. MPI-free. */
#ifndef RMB_MODEL_PARAMS_H
#define RMB_MODEL_PARAMS_H
#include <stdbool.h>
#include <stddef.h>

/* The values a parameter takes (in the file's unit). Rates and the times the equations divide by
 * (directly, or through t_tx = ... + t_clean_up) must be positive: zero would predict infinite
 * throughput or a negative rank count. Pass counts become ints: 0..64. Fractions: 0..1. */
enum { PB_NONNEG, PB_POSITIVE, PB_AT_LEAST_1, PB_AT_LEAST_2, PB_PASSES, PB_FRACTION, PB_SIGNED_FRACTION };

/* One size of the MPI_Put bandwidth curve: bw_put_<bytes> to a rank on the same host, bw_put_host_<bytes>
 * to a rank on another host. */
#define PUT_CURVE(X, b)                                                                                          \
    X(bw_put_##b, "GB/s", 1e9, PB_POSITIVE, "MPI_Put bandwidth per rank at " #b "-byte messages to a rank on the same host") \
    X(bw_put_host_##b, "GB/s", 1e9, PB_POSITIVE, "MPI_Put bandwidth per rank at " #b "-byte messages to a rank on another host")
/* The message sizes of the curve (bytes), in the order of the parameters. */
#define PUT_CURVE_SIZES {64, 256, 1024, 4096, 16384, 65536, 262144, 1048576}
enum { PUT_CURVE_N = 8 };

/* The histogram scan's rate at 2^b bins (all ranks running): its counters outgrow a cache level as
 * the bins grow, and the joins' histograms take 2^5 to 2^12 of them over the sizes one machine runs. */
#define SCAN_CURVE(X, b) X(P_scan_at_##b, "Mtuples/s", 1e6, PB_POSITIVE, "histogram scan rate at 2^" #b " bins, all ranks running (the join's bins between the curve's points: model_scan_factor)")
#define SCAN_CURVE_BITS {4, 8, 12, 16}
enum { SCAN_CURVE_N = 4 };

/* A rate measured with one rank of each host running while the host's other ranks wait: a host's
 * ranks share its memory bandwidth (and, on SMT siblings, its cores), so a rank running alone is
 * faster than the rate measured with all of them (ranks_per_host of the file) running at once. */
#define ALONE(X, n) X(n##_alone, "Mtuples/s", 1e6, PB_POSITIVE, #n " with one rank of the host running")

/* The round trip of one RMA operation and the MPI_Win_flush that completes it (the verbs design's
 * rounds, model/rdmo_model.h): t_rma_<kind>_local to a rank on the same host, _remote on another. */
#define RMA_ROUND(X, k, what)                                                                                    \
    X(t_rma_##k##_local, "us", 1e-6, PB_POSITIVE, what " and the MPI_Win_flush that completes it, to a rank on the same host") \
    X(t_rma_##k##_remote, "us", 1e-6, PB_POSITIVE, what " and the MPI_Win_flush that completes it, to a rank on another host")

/* X(name, unit, scale-to-SI, bound, description). Names follow the thesis' symbols where there is one. */
#define MODEL_PARAMS(X)                                                                                          \
    /* join compute rates, per rank (thesis: per thread) */                                                      \
    X(P_scan, "Mtuples/s", 1e6, PB_POSITIVE, "histogram scan rate (eq. 3.1)")                                                 \
    X(P_partition, "Mtuples/s", 1e6, PB_POSITIVE, "radix partitioning rate of the network pass, partition_bits fan-out (eq. 3.3-3.6)") \
    X(P_partition_local, "Mtuples/s", 1e6, PB_POSITIVE, "radix partitioning rate of a local pass whose counts are known (the scatter), partition_local_bits fan-out (eq. 3.7; the thesis' rate includes the count)") \
    X(P_count_local, "Mtuples/s", 1e6, PB_POSITIVE, "counting a local pass's 8-byte items (its histogram), where the pass counts them itself: beside eq. 3.7 (unset: P_scan)") \
    X(P_build, "Mtuples/s", 1e6, PB_POSITIVE, "in-cache hash table build rate (eq. 3.9)")                                     \
    X(P_probe, "Mtuples/s", 1e6, PB_POSITIVE, "in-cache hash table probe rate (eq. 3.10)")                                    \
    X(P_partition_range, "Mtuples/s", 1e6, PB_POSITIVE, "sort-merge range partitioning rate (eq. 3.7 for the sort-merge join)") \
    X(P_sort_run, "Mtuples/s", 1e6, PB_POSITIVE, "in-cache sort rate for runs of sort_run_length tuples (eq. 3.13)")          \
    X(P_sort_radix, "Mtuples/s", 1e6, PB_POSITIVE, "in-cache sort rate of runs by LSD radix over their key bits (--run-sort radix; eq. 3.13's P_sort for the runs it sorts; unset: P_sort_run)") \
    X(P_merge, "Mtuples/s", 1e6, PB_POSITIVE, "multi-way merge rate at merge_fanin (eq. 3.18)")                               \
    X(P_match, "Mtuples/s", 1e6, PB_POSITIVE, "matching scan over both sorted relations (eq. 3.19's P_scan)")                 \
    X(P_partition_incache, "Mtuples/s", 1e6, PB_POSITIVE, "radix partitioning rate at the network fan-out on blocks in cache (informational: P_partition out of cache)") \
    X(P_match_r, "Mtuples/s", 1e6, PB_POSITIVE, "matching scan, per R tuple (the groups), up to 2 S tuples per R tuple: T = |R|/P_match_r + |S|/P_match_s, beside eq. 3.19") \
    X(P_match_s, "Mtuples/s", 1e6, PB_POSITIVE, "matching scan, per S tuple (the pairs): see P_match_r") \
    X(P_match_r_many, "Mtuples/s", 1e6, PB_POSITIVE, "P_match_r beyond 2 S tuples per R tuple, where the join may take another kernel (unset: P_match_r)") \
    X(P_match_s_many, "Mtuples/s", 1e6, PB_POSITIVE, "P_match_s beyond 2 S tuples per R tuple (unset: P_match_s)") \
    X(P_pack, "Mtuples/s", 1e6, PB_POSITIVE, "sort-merge partitioning on one rank: every tuple packed into one array, no ranges (no histogram either)") \
    X(P_count_range, "Mtuples/s", 1e6, PB_POSITIVE, "sort-merge histogram: tuples counted per key range (a range lookup per tuple; eq. 3.1's P_scan for the sort-merge join, which falls back to P_scan without it)") \
    /* the same primitives with one rank of each host running and the others idle (model_rate) */              \
    ALONE(X, P_scan) ALONE(X, P_partition) ALONE(X, P_partition_local) ALONE(X, P_build) ALONE(X, P_probe)     \
    ALONE(X, P_partition_range) ALONE(X, P_pack) ALONE(X, P_sort_run) ALONE(X, P_sort_radix) ALONE(X, P_merge) ALONE(X, P_match)      \
    ALONE(X, P_match_r) ALONE(X, P_match_s) ALONE(X, P_match_r_many) ALONE(X, P_match_s_many) ALONE(X, P_count_range) ALONE(X, P_count_local)                     \
    X(t_touch_per_byte, "s/GB", 1e-9, PB_NONNEG, "first touch of fresh private memory per byte (what a first run pays for the sort-merge join's packed arrays; later runs reuse them, so the models leave it out)") \
    X(cores_per_host, "cores", 1, PB_NONNEG, "cores of a host; ranks beyond them share cores (oversubscription); 0 = unknown") \
    /* the kernels' shape when the rates were measured / assumed by the model */                                 \
    X(tuples_per_rank, "tuples", 1, PB_NONNEG, "R tuples per rank of the joins the rates were measured for (radix local plan)") \
    X(partition_bits, "bits", 1, PB_NONNEG, "fan-out bits at which P_partition was measured")                               \
    X(scan_bits, "bits", 1, PB_NONNEG, "histogram bins (log2) at which P_scan was measured: the join's at tuples_per_rank")  \
    SCAN_CURVE(X, 4) SCAN_CURVE(X, 8) SCAN_CURVE(X, 12) SCAN_CURVE(X, 16)                                        \
    X(partition_local_bits, "bits", 1, PB_NONNEG, "fan-out bits at which P_partition_local was measured")                   \
    X(radix_local_passes, "passes", 1, PB_PASSES, "local partitioning passes d-1 of eq. 3.8 (rmamodel; rmabench uses the join's)") \
    X(sort_run_length, "tuples", 1, PB_AT_LEAST_1, "run length l of eq. 3.12")                                                  \
    X(merge_fanin, "runs", 1, PB_AT_LEAST_2, "merge fan-in N_fan-in of eq. 3.17")                                               \
    X(merge_depth, "passes", 1, PB_PASSES, "merge depth d of eq. 3.18; 0 = derive from eq. 3.17")                           \
    X(wire_tuple_bytes, "B", 1, PB_AT_LEAST_1, "bytes per tuple sent over the network (8 with compression)")                    \
    /* network */                                                                                                \
    X(bw_host, "GB/s", 1e9, PB_POSITIVE, "eq. 3.2's bw: MPI_Put bandwidth out of one host with all its ranks sending to other hosts") \
    X(rank_spread, "fraction", 1, PB_NONNEG, "relative standard deviation of one rank's time for the same work (all ranks running): a phase that ends in a synchronisation waits for its slowest rank, rank_spread x E[max of ranks standard normals] of its time (the join's wait)") \
    X(net_overlap, "fraction", 1, PB_SIGNED_FRACTION, "how much of a network pass's transfer between hosts hides behind its computation: 1 = all (eq. 3.4-3.6 as printed), 0 = none (transfer and computation add up), below 0 = they slow each other down (the transfer's CPU work competes with the computation, or each waits for the other's MPI calls)") \
    X(bw_put_intra, "GB/s", 1e9, PB_POSITIVE, "MPI_Put bandwidth per rank to a rank on the same host, all ranks sending")      \
    X(bw_put_net, "GB/s", 1e9, PB_POSITIVE, "what the radix network pass's puts add to its work, per rank and byte: the time in its put and completion calls, one 64 KiB send buffer's put after each buffer's worth of partitioning, to its remote partitions in turn on a rank of the same host, all ranks at once (unset: bw_put_intra)") \
    X(net_contention, "fraction", 1, PB_NONNEG, "how much longer the radix network pass's partitioning takes beside its puts to the other ranks of its host, whose copies share the host's memory with it: (time beside the puts - in the put calls) / the same work alone - 1, at the file's ranks per host (the model scales it by the share of tuples put within the host; unset: 0)") \
    X(bw_put_sort, "GB/s", 1e9, PB_POSITIVE, "what the sort phase's puts add to its work, per rank and byte: one run's put after each run's in-cache work, to a rank on the same host, all ranks at once (unset: bw_put_intra)") \
    X(bw_put_sort_slowest, "GB/s", 1e9, PB_POSITIVE, "as bw_put_sort, on the rank whose puts added the most (where the target progresses RMA only in its own MPI calls one rank waits for the other's: the sort-merge model's total, the slowest rank's, adds the difference)") \
    /* the star query's pull design (model/query_model.h; rmabench query --micro prefetch measures both) */ \
    X(t_get_block, "us", 1e-6, PB_NONNEG, "a block read's round trip beyond its bytes (MPI_Rget and its wait, one read in flight): a block of B bytes takes t_get_block + B / bw_get, the part of it prefetching hides") \
    X(bw_get, "GB/s", 1e9, PB_POSITIVE, "a compute rank's block reads from one memory rank with many in flight (bytes a second)") \
    X(bw_alltoallv, "GB/s", 1e9, PB_POSITIVE, "the bytes a rank sends to the other ranks a second inside MPI_Alltoallv, all ranks exchanging large even shares (rmabench query --micro alltoallv): the shuffle's transfer (unset: bw_put_intra within a host, the links between hosts)") \
    X(bw_serve, "GB/s", 1e9, PB_POSITIVE, "the block reads one memory rank serves, all its readers together (where a read needs the memory rank's CPU: RMA carried by messages, as over TCP; unset: no bound beyond the links)") \
    /* thesis Fig. 3.7: MPI_Put bandwidth against message size, per rank, all ranks of a host sending */        \
    PUT_CURVE(X, 64) PUT_CURVE(X, 256) PUT_CURVE(X, 1024) PUT_CURVE(X, 4096) PUT_CURVE(X, 16384) PUT_CURVE(X, 65536)  \
    PUT_CURVE(X, 262144) PUT_CURVE(X, 1048576)                                                                    \
    /* memory (the phases' roofline, bench/membw.h; optional) */                                               \
    X(bw_mem_read, "GB/s", 1e9, PB_POSITIVE, "streaming read bandwidth per rank, all ranks of a host reading (rmabench membw)") \
    X(bw_mem_write, "GB/s", 1e9, PB_POSITIVE, "streaming write bandwidth per rank, all ranks writing: the better of ordinary and non-temporal stores") \
    X(bw_mem_copy, "GB/s", 1e9, PB_POSITIVE, "streaming copy bandwidth per rank, bytes read + written, all ranks copying") \
    /* window allocation (beyond the thesis: Table 4.2 leaves it unmodelled) */                                 \
    X(t_win_alloc_fixed, "ms", 1e-3, PB_NONNEG, "window_alloc time independent of size: both windows' allocation, first-touch setup, barrier and MPI_Win_free")                                \
    X(t_win_alloc_shared, "ms", 1e-3, PB_NONNEG, "t_win_alloc_fixed with the ranks sharing cores (2 ranks per core): what the library's blocking collectives in MPI_Win_create/_allocate/_free cost when a rank waits for one that is not running (MPICH spins: 0.09 s a join here; Open MPI oversubscribed yields)") \
    X(t_win_alloc_per_byte, "s/GB", 1e-9, PB_NONNEG, "MPI_Win_allocate time per byte of window")                            \
    X(t_win_touch_per_byte, "s/GB", 1e-9, PB_NONNEG, "first touch of window pages (own, and the peers' pages put into on the host) and MPI_Win_free, per byte beyond the allocation's: in both joins' window_alloc; pages the kernel reuses at once (the fastest repetitions)") \
    X(t_win_touch_returned_per_byte, "s/GB", 1e-9, PB_NONNEG, "t_win_touch_per_byte where the pages come back through the host (a VM's free page reporting: repetitions at least twice the fastest; unset: calibration saw only one state)") \
    X(t_win_cost_allocate, "s/GB", 1e-9, PB_POSITIVE, "--window auto: the CPU time of MPI_Win_allocate + first touch + peers' mapping + free, per byte of window") \
    X(t_win_cost_create, "s/GB", 1e-9, PB_POSITIVE, "--window auto: the CPU time of MPI_Alloc_mem + MPI_Win_create + first touch + free, per byte of window") \
    X(t_win_cost_create_huge, "s/GB", 1e-9, PB_POSITIVE, "--window auto: the CPU time of MPI_Win_create on huge-page-able memory + first touch + free, per byte") \
    /* window lifetimes (--window-life): what a join after a process's first pays for its windows */            \
    X(t_win_pool_fixed, "ms", 1e-3, PB_NONNEG, "--window-life pool: window_alloc of a later join: both kept windows handed out (an MPI_Allreduce each), a barrier, released") \
    X(t_win_dynamic_fixed, "ms", 1e-3, PB_NONNEG, "--window-life dynamic: window_alloc of a later join independent of size: MPI_Win_attach of the arena, an MPI_Allgather of addresses per window, a barrier, MPI_Win_detach") \
    X(t_win_dynamic_per_byte, "s/GB", 1e-9, PB_NONNEG, "--window-life dynamic: window_alloc of a later join per byte of the attached arena (registration, where the network pins memory)") \
    /* lock table (thesis 5.3) */                                                                                \
    X(t_local_comm, "us", 1e-6, PB_POSITIVE, "one message between ranks on one host: half a notified-put round trip (eq. 5.1)") \
    X(t_remote_comm, "us", 1e-6, PB_POSITIVE, "one message between hosts: half a notified-put round trip (eq. 5.1)")          \
    X(t_shared_comm, "us", 1e-6, PB_POSITIVE, "one message between two ranks sharing one core (oversubscribed): half a notified-put round trip, polling with yields and sleeps") \
    X(t_shared_remote_comm, "us", 1e-6, PB_POSITIVE, "one message between hosts with sender and receiver sharing one core: half the notified-put round trip of rank 0 and its peer on the next host pinned to one CPU (namespace hosts on one machine), polling with yields and sleeps (MPICH's flush spins until the receiver gets the core)") \
    X(t_queue, "us", 1e-6, PB_NONNEG, "time a lock request waits in the queue (workload-dependent, eq. 5.3)")               \
    X(t_vote, "us", 1e-6, PB_POSITIVE, "2PC vote: MPI_Fetch_and_op SUM round trip (eq. 5.3)")                                 \
    X(t_clean_up, "us", 1e-6, PB_POSITIVE, "end of transaction: one notified put to a lock server (eq. 5.3)")      \
    X(t_clean_up_local, "us", 1e-6, PB_POSITIVE, "t_clean_up to a lock server on the sender's host (a lock at the agent's own server; unset: t_clean_up): with other hosts t_clean_up is the put to one of them") \
    X(comm_ranks_per_core, "ranks", 1, PB_NONNEG, "ranks per core of the busiest machine when the lock's message times were measured (1 or unset: none shared a core); a lock run stretches them only by its own ranks per core beyond this") \
    /* lock table beyond eq. 5.3 (0 or unset: the thesis' form) */                                              \
    X(t_server, "us", 1e-6, PB_NONNEG, "lock server service time per request: take a message, decide it in the lock table, answer") \
    X(t_ack, "us", 1e-6, PB_NONNEG, "end-of-transaction acknowledgement: the server's MPI_Fetch_and_op to the agent, seen by its poll") \
    X(t_agent, "us", 1e-6, PB_NONNEG, "agent's own work per transaction (generate, bookkeeping), without messages") \
    X(t_fao_local, "us", 1e-6, PB_POSITIVE, "MPI_Fetch_and_op SUM + flush round trip to a rank on the same host") \
    X(t_fao_remote, "us", 1e-6, PB_POSITIVE, "MPI_Fetch_and_op SUM + flush round trip to a rank on another host") \
    X(t_floor_rtt, "us", 1e-6, PB_POSITIVE, "the machine's state at calibration: a cache-line round trip between two ranks of a host through shared memory (rma/floor.h), in no equation; a lock run whose floor differs says so") \
    /* composite remote operations (model/rdmo_model.h): the rounds of each design */                             \
    RMA_ROUND(X, cas, "a 32-bit MPI_Compare_and_swap") RMA_ROUND(X, fao, "a 64-bit MPI_Fetch_and_op") \
    RMA_ROUND(X, get, "an 8-byte MPI_Get") RMA_ROUND(X, put, "a 64-byte MPI_Put") \
    RMA_ROUND(X, acc, "an 8-byte MPI_Accumulate(MPI_REPLACE)") \
    X(t_rma_op_local, "us", 1e-6, PB_NONNEG, "one more operation of that mix in a round of them to a rank on the same host, the round ending in one MPI_Win_flush: the per-message term of the verbs design") \
    X(t_rma_op_remote, "us", 1e-6, PB_NONNEG, "t_rma_op_local to a rank on another host") \
    X(t_rdmo_call_local, "us", 1e-6, PB_POSITIVE, "an RDMO call of an empty method to a rank on the same host that polls its queue: one notified put there, one back (rdmo design)") \
    X(t_rdmo_call_remote, "us", 1e-6, PB_POSITIVE, "t_rdmo_call_local to a rank on another host") \
    X(t_rdmo_word_local, "us", 1e-6, PB_NONNEG, "what 8 more bytes of request or answer add to an RDMO call to a rank on the same host (the stamped words, rdmo/wire.h)") \
    X(t_rdmo_word_remote, "us", 1e-6, PB_NONNEG, "t_rdmo_word_local to a rank on another host") \
    X(t_rpc_call_local, "us", 1e-6, PB_POSITIVE, "the same call as MPI_Isend and a posted MPI_Irecv each way (rpc design), to a rank on the same host") \
    X(t_rpc_call_remote, "us", 1e-6, PB_POSITIVE, "t_rpc_call_local to a rank on another host") \
    X(t_rpc_word_local, "us", 1e-6, PB_NONNEG, "what 8 more bytes of request or answer add to an rpc call to a rank on the same host") \
    X(t_rpc_word_remote, "us", 1e-6, PB_NONNEG, "t_rpc_word_local to a rank on another host")

/* Text fields: where and how the parameters were measured. */
#define MODEL_INFO(X)                                                                                            \
    X(mpi_library) X(mpi_version) X(hosts) X(ranks) X(ranks_per_host) X(hostnames) X(calibrated_at) X(git_commit) X(kernels) \
        X(interference)

enum {
#define P_ENUM(n, u, s, b, d) MP_##n,
    MODEL_PARAMS(P_ENUM)
#undef P_ENUM
    MP_COUNT
};
enum {
#define I_ENUM(n) MI_##n,
    MODEL_INFO(I_ENUM)
#undef I_ENUM
    MI_COUNT
};

/* A measured parameter's values across its calibration rounds (SI units): how far one calibration
 * can be trusted. rounds < 2: not recorded. Written into the file as a comment, not read back. */
typedef struct {
    double min, median, max;
    int rounds;
} params_spread;

typedef struct {
    double v[MP_COUNT];     /* SI units */
    bool set[MP_COUNT];
    bool defaulted[MP_COUNT]; /* filled from the default profile (model/profile.h), not measured */
    params_spread spread[MP_COUNT];
    const char *how[MP_COUNT]; /* calibrate: a static note on how it was measured when not as described */
    char bench[MP_COUNT][240]; /* calibrate: the micro-benchmark and its size (a comment in the file) */
    char warnings[16384];      /* calibrate: implausible rates and wide spreads, one "# warning: ..." line each in the file */
    char info[MI_COUNT][256];
    char source[512];       /* file name (and "+ --set", "+ profile ..."), for messages and the CSV */
} model_params;

void params_init(model_params *p);
/* 0, or -1 with "FILE:LINE: reason" in err. */
int params_load(model_params *p, const char *path, char *err, size_t errlen);
/* Parse a string "NAME=VALUE" (value in the file's unit); 0 or -1 with "NAME: reason". */
int params_set(model_params *p, const char *assignment, char *err, size_t errlen);
/* Write the file: a header comment, then every set parameter with its unit and description. Whole or
 * not at all (bench/output_path.h); an existing file is refused unless `replace` (--force). */
int params_write(const model_params *p, const char *path, bool replace, char *err, size_t errlen);

int params_index(const char *name);          /* MP_x or -1 */
const char *params_name(int i);
const char *params_unit(int i);
double params_scale(int i);
/* 0 when v (in the file's unit) is a value parameter i can take (finite, within its bound and the
 * plausible range of its unit, whole where it counts things), else -1 with "NAME: reason" in why. */
int params_check_value(int i, double v, char *why, size_t whylen);
const char *params_describe(int i);
/* Ranks per core of a host running ranks_per_host ranks, when they outnumber its cores
 * (cores_per_host); 1 when they do not, or the cores are not known. Both models' oversubscription. */
double params_ranks_per_core(const model_params *p, double ranks_per_host);
/* P_x_alone's index for a rate P_x that has one (ALONE), else -1. */
int params_alone_of(int i);
/* Value in SI units; the parameter must be set (checked by params_require). */
static inline double params_get(const model_params *p, int i) { return p->v[i]; }
void params_put(model_params *p, int i, double value); /* value in SI units */

/* How several measurements of one parameter combine: the rounds of one calibration, and
 * `rmamodel pool` over calibrations (model/validate.sh measures them between its rounds). A timed
 * quantity can only be lengthened by the machine's other work, so of a rate or bandwidth the
 * largest is kept and of a time the smallest (PARAMS_POOL_FASTEST: the least disturbed); a parameter
 * derived from a difference or a fit of timings (a slope, an overlap, a spread) can be pushed
 * either way by noise in one of its terms, and is kept at the median (its terms are each the
 * fastest of their repetitions inside one calibration); a shape (bits, run length, cores) must be
 * the same in all and the first is kept. */
enum { PARAMS_POOL_FASTEST, PARAMS_POOL_MEDIAN, PARAMS_POOL_SAME };
int params_pool_kind(int i);
/* v[0..n) (n >= 1, SI units; reordered) combined as params_pool_kind(i) says. */
double params_pool_value(int i, double *v, int n);

/* Relative spread above which calibration warns (stderr and a comment in the file). */
#define PARAMS_SPREAD_WARN 0.10
/* Records v[0..n) (SI units, any order, not modified) as parameter i's values across its rounds. */
void params_put_spread(model_params *p, int i, const double *v, int n);
/* (max - min) / median of parameter i's rounds; -1 when not recorded. */
double params_spread_rel(const model_params *p, int i);
/* "spread X% over N rounds (min A, median B, max C)" in the file's unit, or "" when not recorded. */
void params_spread_text(const model_params *p, int i, char *buf, size_t len);
/* 1 with "NAME varied X% across N rounds (...): above 10%, ..." in buf when parameter i's spread
 * exceeds PARAMS_SPREAD_WARN; else 0 and buf "". */
int params_spread_warning(const model_params *p, int i, char *buf, size_t len);

/* `--set NAME=VALUE` (repeatable) of every command that reads a parameter file (rmamodel,
 * rmabench lock --model): opt_parse keeps only a flag's last value, so these are taken out first. */
enum { PARAMS_SETS_MAX = 64 };
typedef struct {
    const char *v[PARAMS_SETS_MAX]; /* "NAME=VALUE", pointing into argv */
    int n;
} params_overrides;
/* Copies argv[0..argc) into rest without every "--set X" / "--set=X" at or after `first` (rest has
 * room for argc + 1 pointers, NULL-terminated); returns rest's count, or -1 with "--set: reason". */
int params_take_sets(int argc, char **argv, int first, char **rest, params_overrides *sets, char *err, size_t errlen);
/* Applies the overrides in order: 0, or -1 with "--set: NAME: reason" in err. */
int params_apply_sets(model_params *p, const params_overrides *sets, char *err, size_t errlen);

/* 0 when all listed parameters (terminated by -1) are set; else -1 with
 * "SOURCE: NAME (what) is not set; give it in the file or with --set NAME=VALUE". */
int params_require(const model_params *p, const int *which, char *err, size_t errlen);

#endif
