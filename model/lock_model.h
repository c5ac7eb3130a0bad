/* Lock table model, thesis 5.3 (eq. 5.1-5.4). Symbols: N_locks = locks per transaction,
 * P_local_lock = 1 - remote probability, t_local_comm / t_remote_comm = one message (a lock request
 * needs two: request and response), t_queue, t_vote, t_clean_up. MPI-free. */
#ifndef RMB_MODEL_LOCK_MODEL_H
#define RMB_MODEL_LOCK_MODEL_H
#include "model/params.h"

/* eq. 5.1: one message between ranks on the same host (local) or on different hosts. */
double model_t_comm(const model_params *p, int same_host);
/* eq. 5.2: P_all_local = P_local_lock ^ N_locks (independent accesses). */
double model_p_all_local(double p_local_lock, double n_locks);
/* eq. 5.3: t_tx = N_locks * 2 * (P_local * t_local + (1 - P_local) * t_remote) + N_locks * t_queue
 *                 + (1 - P_all_local) * t_vote + t_clean_up.  Seconds. */
double model_t_tx(const model_params *p, double n_locks, double remote_prob);
/* eq. 5.4 with the printed erratum: Tp = agents / t_tx (the thesis prints 1 / (N_tx_core * t_tx),
 * whose ratio is upside down; Table 5.1's numbers follow agents / t_tx: 1260 / 67.5 us = 18.67 M/s).
 * Transactions per second. */
double model_throughput(double agents, double t_tx);

/* Parameters eq. 5.3 needs, terminated by -1 (t_remote_comm and t_vote only when remote_prob > 0). */
const int *model_lock_required(double remote_prob);

#endif
