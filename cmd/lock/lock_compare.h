/* `rmabench lock --model FILE`: predicted transaction time (eq. 5.3, extended by the servers'
 * service, the release acknowledgement, the agent's work and queueing: model/lock_model.h) and
 * throughput (agents / t_tx)
 * beside the measured ones, in the layout of the thesis' Table 5.1, plus the CSV columns
 * model_t_tx_us and model_throughput. MPI-free: the lock benchmark passes what it measured.
 *   lock_compare_load  after option parsing, before MPI_Init (bad file: exit 2, "--model: FILE:LINE: ...")
 *   lock_compare       on rank 0 after the run (prints; keeps the prediction)
 *   lock_compare_record the model_* columns of the CSV row */
#ifndef RMB_MODEL_LOCK_COMPARE_H
#define RMB_MODEL_LOCK_COMPARE_H
#include <stdbool.h>

#include "model/lock_model.h"
#include "model/params.h"
#include "bench/record.h"

typedef struct {
    bool on;
    model_params p;
    double t_tx, throughput; /* of the last lock_compare call; 0: not compared */
    lock_prediction pred;    /* its terms */
    lock_shape shape;        /* its inputs (model/shape.h: CSV model_shape) */
    double measured_throughput;
    char source[512];        /* the parameters it used: file, --set, default profile (CSV model_params) */
} lock_model_ctx;

typedef struct {
    double agents;          /* transaction agents running at once */
    double servers;         /* lock servers */
    double ranks_per_host;  /* the most ranks on one machine's cores (oversubscription against cores_per_host) */
    double locks_per_txn;   /* N_locks(w) (the workload's mean) */
    double remote_prob;     /* probability a lock is on another server's host (1 - P_local_lock) */
    bool single_host;       /* all ranks on one host: "remote" servers are reached at t_local_comm */
    bool mpi_yields;        /* the MPI library yields in its own progress (bench_mpi_yields_when_idle) */
    double measured_t_tx_us;       /* <= 0: not measured */
    double measured_throughput;    /* committed transactions per second; <= 0: not measured */
    double measured_floor_us;      /* this run's floor (rma/floor.h); <= 0: not measured */
} lock_model_input;

/* Loads path, applies the --set overrides (sets may be NULL) and checks what every run needs
 * (a bad file or --set: one line, exit 2). */
void lock_compare_load(lock_model_ctx *m, const char *path, const params_overrides *sets, int env_rank);
/* Returns the predicted t_tx in seconds (0 when the comparison is off). */
double lock_compare(lock_model_ctx *m, const lock_model_input *in);
void lock_compare_record(const lock_model_ctx *m, record *rec);

#endif
