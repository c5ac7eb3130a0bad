/* Lock table model, thesis 5.3 (eq. 5.1-5.4). */
#include "model/lock_model.h"

#include <math.h>

double model_t_comm(const model_params *p, int same_host)
{
    return params_get(p, same_host ? MP_t_local_comm : MP_t_remote_comm); /* eq. 5.1 */
}

double model_p_all_local(double p_local_lock, double n_locks) { return pow(p_local_lock, n_locks); } /* eq. 5.2 */

double model_t_tx(const model_params *p, double n_locks, double remote_prob)
{
    double p_local = 1.0 - remote_prob;
    double t_remote = remote_prob > 0 ? model_t_comm(p, 0) : 0; /* unused (and maybe unset) at 0% remote */
    return n_locks * 2 * (p_local * model_t_comm(p, 1) + remote_prob * t_remote) /* eq. 5.3 */
           + n_locks * params_get(p, MP_t_queue)
           + (remote_prob > 0 ? (1 - model_p_all_local(p_local, n_locks)) * params_get(p, MP_t_vote) : 0)
           + params_get(p, MP_t_clean_up);
}

double model_throughput(double agents, double t_tx) { return agents / t_tx; } /* eq. 5.4, erratum applied */

const int *model_lock_required(double remote_prob)
{
    static const int local_only[] = {MP_t_local_comm, MP_t_queue, MP_t_clean_up, -1}; /* no vote at 0% remote */
    static const int all[] = {MP_t_local_comm, MP_t_remote_comm, MP_t_queue, MP_t_vote, MP_t_clean_up, -1};
    return remote_prob > 0 ? all : local_only;
}

static double opt_param(const model_params *p, int i) { return p->set[i] ? params_get(p, i) : 0; }

/* Parameter i moved by d seconds, kept above a tenth of its value. */
static void shift(model_params *p, int i, double d)
{
    if (p->set[i]) params_put(p, i, fmax(params_get(p, i) + d, 0.1 * params_get(p, i)));
}

double model_lock_at_floor(model_params *p, const lock_shape *s)
{
    if (!p->set[MP_t_floor_rtt] || !(s->floor_us > 0) || params_ranks_per_core(p, s->ranks_per_host) > 1) return 0;
    const double d = s->floor_us * 1e-6 - params_get(p, MP_t_floor_rtt);
    shift(p, MP_t_local_comm, d / 2);
    shift(p, MP_t_ack, d / 2);
    shift(p, p->set[MP_t_clean_up_local] ? MP_t_clean_up_local : MP_t_clean_up, d / 4);
    shift(p, MP_t_server, d / 4);
    params_put(p, MP_t_floor_rtt, s->floor_us * 1e-6);
    return d / 2 * 1e6;
}

/* Queueing at the servers: A agents (one customer each) cycle through a delay station (`delay`)
 * and S servers. An agent's own server takes the share f_own of its demand t_service, each of the
 * S - 1 others (1 - f_own) / (S - 1) (the workloads' picks, wl_pick_server; one own server per
 * agent, agent % S: A % S servers own ceil(A / S) agents, the rest floor), so at no remote lock the
 * agents of different servers never meet, and at 2 servers and every lock remote neither. Mean
 * value analysis with one customer class per agent (Bard-Schweitzer: an arriving agent sees a
 * server's queue less its own share), by symmetry per kind of server (k: owning a[k] agents, n[k]
 * such servers). Returns the agents' throughput together. (Where the agents spread evenly, 2
 * agents at 1 server: waits within 1% of exact MVA's for the same demand.) */
static double own_other_mva(double delay, double t_service, double S, double A, double f_own)
{
    const int na = (int)(A + 0.5), ns = (int)(S + 0.5);
    const double a[2] = {na / ns, na / ns + 1}, n[2] = {ns - na % ns, na % ns};
    const double d_own = f_own * t_service, d_oth = ns > 1 ? (1 - f_own) * t_service / (ns - 1) : 0;
    /* q_own[k]: an agent of a kind-k server at it; q_to[k][j]: at one other server of kind j */
    double q_own[2] = {0, 0}, q_to[2][2] = {{0, 0}, {0, 0}}, x[2] = {0, 0};
    for (int it = 0; it < 100000; it++) {
        double Q[2], moved = 0;
        for (int j = 0; j < 2; j++) /* customers at one server of kind j: its own agents and the others' */
            Q[j] = a[j] * q_own[j] + (n[j] - 1) * a[j] * q_to[j][j] + n[!j] * a[!j] * q_to[!j][j];
        for (int k = 0; k < 2; k++) {
            if (n[k] == 0 || a[k] == 0) continue;
            const double r_own = d_own * (1 + Q[k] - q_own[k]);
            double r_to[2], cycle = delay + r_own;
            for (int j = 0; j < 2; j++) {
                r_to[j] = d_oth * (1 + Q[j] - q_to[k][j]);
                cycle += (n[j] - (j == k)) * r_to[j];
            }
            x[k] = 1 / cycle;
            const double nq = 0.5 * (q_own[k] + x[k] * r_own); /* damped */
            moved = fmax(moved, fabs(nq - q_own[k]));
            q_own[k] = nq;
            for (int j = 0; j < 2; j++) {
                const double nt = 0.5 * (q_to[k][j] + x[k] * r_to[j]);
                moved = fmax(moved, fabs(nt - q_to[k][j]));
                q_to[k][j] = nt;
            }
        }
        if (moved <= 1e-14) break;
    }
    return n[0] * a[0] * x[0] + n[1] * a[1] * x[1];
}

void model_lock(const model_params *p_in, const lock_shape *s, lock_prediction *o)
{
    *o = (lock_prediction){0};
    /* the run's state: its floor, and on one host every server reached at t_local_comm */
    model_params fp = *p_in;
    o->floor_shift_us = model_lock_at_floor(&fp, s);
    if (s->one_host && fp.set[MP_t_local_comm]) params_put(&fp, MP_t_remote_comm, params_get(&fp, MP_t_local_comm));
    const model_params *p = &fp;
    const double n = s->n_locks, S = s->servers > 1 ? s->servers : 1, A = s->agents > 1 ? s->agents : 1;
    /* The message times hold the sharing of the cores they were measured with (comm_ranks_per_core:
     * a calibration on as crowded namespace hosts as the run's); only the run's sharing beyond that
     * stretches them. */
    const double m_cal = p->set[MP_comm_ranks_per_core] && params_get(p, MP_comm_ranks_per_core) > 1 ? params_get(p, MP_comm_ranks_per_core) : 1;
    o->oversubscription = fmax(1, params_ranks_per_core(p, s->ranks_per_host) / m_cal);
    /* With other hosts t_clean_up is a put to one of them, and t_server holds one such put (the
     * answer); a lock at the agent's own server (probability 1 - remote_prob; one server per host)
     * is answered, and its end sent, on the host: t_clean_up_local, which is the shorter
     * (docs/measurements.md, "From code comments"). */
    model_params lp;
    if (p->set[MP_t_clean_up_local] && p->set[MP_t_clean_up]) {
        lp = *p;
        const double cu = params_get(p, MP_t_clean_up);
        const double mix = (1 - s->remote_prob) * params_get(p, MP_t_clean_up_local) + s->remote_prob * cu;
        params_put(&lp, MP_t_clean_up, mix);
        if (p->set[MP_t_server]) params_put(&lp, MP_t_server, fmax(0, params_get(p, MP_t_server) - cu + mix));
        p = &lp;
    }
    /* Ranks sharing cores with t_shared_comm known: a message waits for its receiver to be scheduled,
     * which t_shared_comm measured; the ranks' own times stretch by m. */
    const bool shared = o->oversubscription > 1 && p->set[MP_t_shared_comm];
    model_params sp;
    double remote_wait = 0; /* a remote flush's wait for its receiver's turn (MPICH; below) */
    if (shared) {
        const double m = o->oversubscription;
        sp = *p;
        const int own[] = {MP_t_queue, MP_t_vote, MP_t_clean_up, MP_t_server, MP_t_ack, MP_t_agent};
        for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
            if (p->set[own[k]]) params_put(&sp, own[k], params_get(p, own[k]) * m);
        /* a round trip costs a turn of every rank of a core (the calibration's pair: 2); a message
         * that takes longer to send (over a network) is the ranks' work, stretched like it */
        const double t_local = params_get(p, MP_t_local_comm);
        const double t_msg = fmax(params_get(p, MP_t_shared_comm) * m / 2, t_local * m);
        params_put(&sp, MP_t_local_comm, t_msg);
        if (p->set[MP_t_remote_comm]) {
            const double t_remote = params_get(p, MP_t_remote_comm);
            double t_rm = fmax(t_remote * m, t_remote + t_msg - t_local);
            /* A sender that spins in the flush of a remote message (MPICH) until its receiver runs:
             * the receiver is not running with probability (m - 1) / m, and then the sender spins
             * out its turn, t_shared_remote_comm (a pair on two namespace hosts pinned to one core:
             * 4 ms, the scheduler tick), half of it on average. The request waits, the answer finds
             * its agent polling: half the wait per message of the round trip; the 2PC vote, a
             * fetch-and-op flushed to the server, waits once; these waits dominate where ranks
             * share cores (docs/measurements.md, "From code comments"). The end of a transaction, a
             * message to its servers, waits once where it goes to another host: below. */
            if (p->set[MP_t_shared_remote_comm]) {
                remote_wait = (m - 1) / m * params_get(p, MP_t_shared_remote_comm) / 2;
                t_rm += remote_wait / 2;
                if (p->set[MP_t_vote]) params_put(&sp, MP_t_vote, params_get(&sp, MP_t_vote) + remote_wait);
            }
            params_put(&sp, MP_t_remote_comm, t_rm);
        }
        p = &sp;
        o->t_shared_comm = t_msg;
    }
    o->t_thesis = model_t_tx(p, n, s->remote_prob);
    const double t_comm = (1 - s->remote_prob) * model_t_comm(p, 1) + (s->remote_prob > 0 ? s->remote_prob * model_t_comm(p, 0) : 0);
    /* a library yielding in its own progress takes the server's core after every answer: one
     * message per turn, at least a message's time (model/lock_model.h) */
    const bool turn_each = shared && s->mpi_yields;
    const double t_server = turn_each ? fmax(o->t_shared_comm, opt_param(p, MP_t_server)) : opt_param(p, MP_t_server);
    const double t_ack = opt_param(p, MP_t_ack);
    /* the servers a transaction contacts, as the workloads pick them (wl_pick_server): each lock at
     * the agent's own server with probability 1 - remote_prob, else at one of the S - 1 others
     * (one local server per agent: one host, or one server per host) */
    const double rp = s->remote_prob;
    o->contacts = S <= 1 ? 1 : (1 - pow(rp, n)) + (S - 1) * (1 - pow(1 - rp / (S - 1), n));
    /* An end travels with the next transaction's first request where the transaction stayed at one
     * server and the next starts there: all of them with one server; with several, every lock and
     * the next transaction's first at the agent's own server (probability 1 - remote_prob each, as
     * the workloads pick servers: one local server per agent assumed) or all at the same other one
     * (remote_prob / (S - 1) each: at 2 servers and every lock remote, all ends). The rest wait for an
     * acknowledgement, which exists only where the code has one (t_ack given). The release itself
     * stays server work (t_service) either way. */
    o->ends_with_next = !s->end_with_next ? 0 : S <= 1 ? 1 : pow(1 - rp, n + 1) + (S - 1) * pow(rp / (S - 1), n + 1);
    o->t_end = t_ack > 0 ? (1 - o->ends_with_next) * (t_comm + t_ack + s->remote_prob * remote_wait / 2) : 0;
    /* A round trip (2 t_comm, eq. 5.3) includes the server's send of the answer, and so does its
     * service time t_server (lock table + the answer, calibrate_lock.c): the answer is server work,
     * so it leaves the agent's delay and counts once, where queueing sees it. */
    const double t_answer = turn_each ? fmax(o->t_shared_comm, opt_param(p, MP_t_clean_up)) : t_server > 0 ? opt_param(p, MP_t_clean_up) : 0;
    const double delay = o->t_thesis - n * t_answer + o->t_end + opt_param(p, MP_t_agent);
    /* service demand of one transaction at its own server and at each other one */
    o->t_service = (n + (t_ack > 0 ? o->contacts : 0)) * t_server;
    const double x = own_other_mva(delay, o->t_service, S, A, S > 1 ? 1 - rp : 1);
    const double resid = A / x - delay; /* t_tx = A / X (eq. 5.4) before the stretch */
    o->t_wait = resid - o->t_service;
    o->server_util = x * o->t_service / S;
    o->t_tx = (delay + resid) * (shared ? 1 : o->oversubscription);
    o->throughput = model_throughput(A, o->t_tx);
}
