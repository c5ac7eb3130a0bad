#include "cmd/results_schema.h"

/* Phase names are the same words in code, phase tables, CSV columns and plot legends. The
 * modelled joins' phases (each with its model_ column), then the reference join's exchange and the
 * joins' wait at barriers for the slowest rank (rmb_wait_all; no model), then the totals. */
#define PHASES(X) X(histogram) X(window_alloc) X(network_partition) X(local_partition) X(build_probe) \
    X(partition) X(sort) X(merge) X(match) X(put) X(flush)
#define TOTALS(X) X(imbalance) X(total)
#define PHASE_COLS(p) "t_" #p "_avg", "t_" #p "_max",
#define MODEL_COLS(p) "model_" #p,
/* (model - measured) / measured per phase, and per total with the same terms on both sides */
#define MODEL_ERR_COLS(p) "model_err_" #p,
/* per phase against the memory roofline (issue 16): GB/s per rank from the bytes the plan says it
 * moves, the fraction of the roofline, the minor page faults summed over ranks */
#define ROOF_COLS(p) "t_" #p "_gbs", "t_" #p "_roofline", "t_" #p "_faults",

static const char *const columns[] = {
    /* what ran, and what makes it reproducible */
    "timestamp", "bench", "status", "exit_code", "job_id", "git_commit", "mpi_library", "mpi_version",
    "hosts", "ranks", "ranks_per_host", "hostnames", "seed", "repeat_index", "repeats", "warmups", "command",
    /* what changes performance beyond the flags (bench/context.h): fewest online cores of a host,
     * some host with more ranks than cores (yes/no), rmabench's polling loops yield (yes/no), the
     * MPI library's tuning variables "NAME=VALUE;..." (empty for a plain run); the share of the CPU
     * time the hypervisor gave to other guests during the run, worst host (bench/host_steal.h; empty
     * when unknown) */
    "host_cores", "oversubscribed", "poll_yield", "mpi_env", "host_steal",
    /* the share of the run the busiest rank spent runnable while another task held its CPU (the
     * scheduler's run delay, bench/host_steal.h; empty when unknown): the machine's other programs */
    "run_delay",
    /* join parameters (window: the flavour that ran; window_choice: "given", or what --window auto
     * chose it from) */
    "algo", "r_tuples", "s_tuples", "tuples_per_rank", "uneven", "ratio", "selectivity", "skew",
    "radix_bits", "local_fanout_bits", "passes", "scatter", "assign", "window", "window_choice", "flush", "buffer_size",
    "buffers_per_partition", "buffer_memory", "exchange", "schedule", "link_rate", "compress", "ranges", "run_size",
    "merge_fanin", "merge_bands", "band_count", /* sort-merge: how band pieces were sized (--band-count) */
    "simd", "run_sort", /* sort-merge: the run sort that ran (--run-sort) */
    /* memory of a rank: what the plan bounds it by (--plan prints the same), what the worst rank held */
    "mem_plan_rank", "mem_peak_rank",
    /* join results */
    PHASES(PHASE_COLS) PHASE_COLS(exchange) PHASE_COLS(wait) TOTALS(PHASE_COLS)
    PHASES(ROOF_COLS) ROOF_COLS(exchange) ROOF_COLS(wait)
    /* the roofline: where it came from (model file, membw at startup, none) and its bandwidths in
     * GB/s per rank (also `rmabench membw`'s results, with the buffer size it measured on) */
    "roofline_source", "membw_bytes", "membw_read", "membw_write", "membw_write_nt", "membw_copy",
    "membw_bound_s", /* the join's counted phases at the roofline, summed: seconds */
    "throughput", "matches", "checksum", "expected_matches", "expected_checksum", "verification",
    /* model predictions (rmabench --model) */
    PHASES(MODEL_COLS) MODEL_COLS(wait) TOTALS(MODEL_COLS)
    "model_total_with_alloc", "model_bound", "model_params",
    /* the run's model inputs as text (model/shape.h): rmamodel join|lock --shape predicts the run again
     * from any parameter file (model/validate.sh pools its calibrations after the runs) */
    "model_shape",
    /* join: the state of fresh memory its windows met (reused at once, or returned through the host:
     * model/join_model.h), judged from its window_alloc against --model's two calibrated costs; and
     * window_alloc's seconds per GB of this rank's planned windows */
    "alloc_regime", "alloc_s_per_gb",
    PHASES(MODEL_ERR_COLS) MODEL_ERR_COLS(wait) MODEL_ERR_COLS(total)
    /* the thesis' total (no window allocation) against the measured total less its window_alloc */
    "model_total_without_alloc", "model_err_total_without_alloc",
    /* lock parameters */
    "workload", "servers", "agents", "transport",
    "notify_shm", /* rma: shared-memory mailbox within a host: on, unavailable, unused, off (rma/notify.h) */
    "notify_shm_choice", /* "given", or "auto: " how --notify-shm auto chose (rma/notify_pick.h) */
    "deadlock", "lock_timeout", "remote_prob", "locks_per_txn",
    "isolation", "warehouses", "accounts", "duration", "transactions_per_agent", "vote_no_prob",
    "checked", /* every grant checked by the oracle (yes), or --no-check (no) */
    /* lock plan (locking/lock_plan.h, as --plan prints it): mailboxes as allocated, the planned peak */
    "mailbox_server_bytes", "mailbox_agent_bytes", "lock_table_pairs_max", "mem_rank_planned",
    "mem_rank_beyond_data_planned",
    /* lock results */
    "committed", "aborted", "commits_per_s", "aborts_per_s", "lock_requests_per_s", "locks_per_txn_measured",
    "remote_share", "twopc_txns", "lat_txn_lock_us", "lat_txn_data_us", "lat_txn_vote_us", "lat_txn_end_us",
    "lat_req_rtt_us", "lat_req_rtt_median_us",
    /* a cache-line round trip in shared memory (rma/floor.h), the machine's state: lock between server
     * 0 and agent 0, join between rank 0 and the next rank of its host; and the one the --model file
     * was calibrated at (its t_floor_rtt) */
    "floor_rtt_us", "model_floor_rtt_us",
    "lat_req_queue_us", "lat_req_server_us", "timeouts",
    /* 2PC participants (servers asked to vote) per 2PC transaction, mean and most; data access per
     * committed or aborted transaction (bytes read and written with MPI_Get/MPI_Put); TPC-C per
     * transaction type (tpcc only): commits and aborts over the run, new-order commits per second */
    "twopc_participants_mean", "twopc_participants_max", "data_bytes_read_per_txn", "data_bytes_written_per_txn",
    "committed_new_order", "committed_payment", "committed_order_status", "committed_delivery", "committed_stock_level",
    "aborted_new_order", "aborted_payment", "aborted_order_status", "aborted_delivery", "aborted_stock_level",
    "new_order_per_s",
    "model_t_tx_us", "model_throughput", "model_err_throughput", "model_t_server_us", "model_t_wait_us",
    /* placement */
    "numa", "numa_policy", "numa_placement_worst", "rank_cores", "rank_numa_nodes", "binding_warning",
};

const record_schema results_schema = {(int)(sizeof columns / sizeof columns[0]), columns};
