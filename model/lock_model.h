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

/* --- beyond eq. 5.3: the terms the lock benchmark has, and queueing at the servers -------------
 * Per transaction an agent
 *   - asks for N_locks locks one after the other: request and answer messages (eq. 5.3's
 *     2 t_comm), plus the server's service of the request, t_server, plus the wait behind other
 *     agents' messages at that server (queueing, below); t_server includes sending the answer
 *     (t_clean_up, one notified put), which 2 t_comm also holds, so it is taken out of the agent's
 *     delay once per request (server work is counted where queueing sees it, not twice);
 *   - votes when a lock is remote (eq. 5.3's (1 - P_all_local) t_vote);
 *   - ends: t_clean_up (eq. 5.3) to send, then waits for the release acknowledgement: the END
 *     message's trip t_comm, the server's service t_server, the acknowledgement t_ack; except the
 *     ends that travel with the next request (end_with_next), which wait for nothing;
 *   - does its own work t_agent.
 * Queueing: a closed system of A agents (customers) cycling through one delay station (all of the
 * above but the servers' service) and S identical servers; a transaction's N_locks + C messages
 * (C = the servers it contacted, E[distinct servers of N_locks picks]: the agent's own with
 * probability 1 - remote_prob each, else one of the S - 1 others) go to its agent's own server
 * with share 1 - remote_prob, so agents owning different servers meet only through their remote
 * locks (at no remote lock, none); solved by mean value analysis with one customer class per agent
 * (Bard-Schweitzer, lock_model.c). Throughput = A / t_tx (eq. 5.4 with the
 * erratum). With t_server = t_ack = t_agent = 0 (or unset) the servers have no demand, nothing
 * queues and t_tx is eq. 5.3 (Table 5.1 is this case).
 * Oversubscription: ranks beyond the host's cores (cores_per_host) share them, m = ranks_per_host /
 * cores_per_host ranks per core. A rank sharing its core polls without spinning (yields, then
 * sleeps: rma/notify.h), so a message is seen only once its receiver is scheduled again: that
 * wait, not the cache-line transfer of t_local_comm, is a message's cost. t_shared_comm is half
 * the notified-put round trip of two ranks pinned to one core: one turn of a rank (switch, poll,
 * answer, yield). A round trip takes a turn of every rank of a core, m of them (the calibration's
 * pair: 2), so a message costs t_shared_comm m / 2 (between hosts: t_remote_comm plus the same
 * wait), or, when sending it takes longer (a network's messages, t_local_comm m or t_remote_comm m),
 * that: sending is the ranks' work, and their work (t_queue, t_vote, t_clean_up, t_server, t_ack,
 * t_agent) stretches by m; the MVA is unchanged: the server still serves its agents one message
 * after the other. (Where messages travel over a network, the stretch is the larger term and the
 * prediction is the one without t_shared_comm, docs/measurements.md, "From code comments". MPICH's
 * flush of a remote notified put spins until the receiver runs: where t_shared_remote_comm is
 * calibrated, the same ping-pong with a pair on two namespace hosts pinned to one core, a remote
 * round trip and a vote wait (m - 1) / m x t_shared_remote_comm / 2 more: lock_model.c.) This
 * assumes the cores take turns in parallel and no other program's tasks take turns (other jobs on
 * the host's cores make its ranks take turns as on fewer cores), and an MPI library that does not
 * yield in its own progress (Open MPI does when mpirun knows the host is oversubscribed,
 * mpi_yield_when_idle: each flush of a notified put gives the core away, several-fold fewer
 * transactions, docs/measurements.md, "From code comments"). With such a
 * library (mpi_yields) the server serves one message per turn: its service per message is a
 * message's time, which the answer's share of the round trip was; t_shared_comm must then be
 * calibrated with the library yielding too (OMPI_MCA_mpi_yield_when_idle=1), which lengthens it.
 * Without t_shared_comm every time stretches by m (a first-order term).
 * Message times calibrated on cores shared as the run's are (comm_ranks_per_core: namespace hosts
 * of one machine, every pair of ranks ping-ponging at once) hold the sharing already: m is the
 * run's ranks per core over the calibration's, at least 1. Where t_clean_up is a put to another
 * host, a lock at the agent's own server (probability 1 - remote_prob, one server per host) is
 * answered and ended on the host, t_clean_up_local: both, and t_server's answer, are the mix. */
typedef struct {
    double agents, servers, n_locks, remote_prob;
    double ranks_per_host; /* the ranks on the busiest machine's cores (a host's, or all of its namespace
                            * hosts'): oversubscription against cores_per_host */
    bool mpi_yields;       /* the MPI library yields in its own progress (with t_shared_comm only) */
    bool end_with_next;    /* an end whose transaction contacted one server travels with the next
                            * transaction's first request when that goes to the same server, and
                            * waits for no acknowledgement (locking/agent.c, MSG_END_LOCK) */
    bool one_host;         /* every server on the agents' host: a "remote" lock costs t_local_comm */
    double floor_us;       /* the run's cache-line floor between two of its cores (rma/floor.h; 0:
                            * not measured): the message times move with it (model_lock_at_floor) */
} lock_shape;

typedef struct {
    double t_tx;            /* seconds per transaction, queueing included */
    double throughput;      /* transactions per second: agents / t_tx */
    double t_thesis;        /* eq. 5.3 alone */
    double t_service;       /* the servers' service per transaction (all messages), no waiting */
    double t_wait;          /* waiting at the servers per transaction (MVA) */
    double t_end;           /* release acknowledgement beyond t_clean_up (the ends that wait for one) */
    double ends_with_next;  /* the share of ends that travel with the next request (end_with_next) */
    double contacts;        /* C: servers a transaction contacts */
    double server_util;     /* utilisation of one server */
    double oversubscription; /* ranks per core m (1: none): the stretch of all times, or with
                              * t_shared_comm of the ranks' own work only */
    double t_shared_comm;    /* a message's time when ranks share cores (0: not used) */
    double floor_shift_us;   /* what each message between two cores of a host moved by with the run's
                              * floor against the calibration's (model_lock_at_floor; 0: none) */
} lock_prediction;

/* The machine's state as an input: the lock's message times were measured at the calibration's
 * cache-line floor (t_floor_rtt), and a run measures its own (rma/floor.h; where a hypervisor places
 * the virtual CPUs puts it in one of two states). A message between two cores of a host waits for a
 * cache line to cross from one to the other, half the floor's round trip: with d = the run's floor -
 * the calibration's, t_local_comm (half a round trip) and t_ack move by d / 2; the sender's side of a
 * notified put (t_clean_up on one host, else t_clean_up_local, and t_server's answer) by d / 4, its
 * stores waiting out part of the transfer; the fetch-and-op round trips (t_vote, t_fao_local) not
 * at all, their word staying in the origin's cache (calibrations in both states:
 * docs/models-validation.md). Each is kept above a tenth of its calibrated value. Returns d / 2 in microseconds, a message's move (0: no floor in the file
 * or the shape, or ranks that share cores, whose messages wait for the scheduler instead). */
double model_lock_at_floor(model_params *p, const lock_shape *s);

void model_lock(const model_params *p, const lock_shape *s, lock_prediction *out);

/* Parameters eq. 5.3 needs, terminated by -1 (t_remote_comm and t_vote only when remote_prob > 0). */
const int *model_lock_required(double remote_prob);

#endif
