/* Model versus measurement for one lock run (Table 5.1's layout). */
#include "cmd/lock/lock_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/lock_model.h"
#include "model/profile.h"
#include "model/shape.h"

void lock_compare_load(lock_model_ctx *m, const char *path, const params_overrides *sets, int env_rank)
{
    memset(m, 0, sizeof *m);
    if (!path) return;
    char err[700];
    params_init(&m->p);
    if (params_load(&m->p, path, err, sizeof err)) {
        if (env_rank == 0) fprintf(stderr, "rmabench: --model: %s\n", err);
        exit(2);
    }
    if (params_apply_sets(&m->p, sets, err, sizeof err)) { /* "--set: NAME: reason" */
        if (env_rank == 0) fprintf(stderr, "rmabench: %s\n", err);
        exit(2);
    }
    /* the rest depends on the run; a file without t_local_comm (a calibration with one rank per
     * host before it measured one to the rank itself) takes the default profile's, said in the run */
    const int need[] = {MP_t_local_comm, MP_t_queue, MP_t_clean_up, -1};
    model_params q = m->p;
    params_apply_profile(&q, need, err, sizeof err);
    memcpy(q.source, m->p.source, sizeof q.source); /* an error names the file */
    if (params_require(&q, need, err, sizeof err)) {
        if (env_rank == 0) fprintf(stderr, "rmabench: --model: %s\n", err);
        exit(2);
    }
    m->on = true;
}

double lock_compare(lock_model_ctx *m, const lock_model_input *in)
{
    m->t_tx = m->throughput = 0;
    if (!m->on) return 0;
    model_params p = m->p;
    const char *note = "";
    char err[700], profile[2][700] = {"", ""};
    /* On one host every lock server is a rank on this host: a "remote" lock costs t_local_comm
     * (model_lock, one_host). */
    if (in->single_host) {
        const int local[] = {MP_t_local_comm, -1};
        params_apply_profile(&p, local, profile[0], sizeof profile[0]); /* a file without one (lock_compare_load) */
        params_put(&p, MP_t_remote_comm, params_get(&p, MP_t_local_comm)); /* model_lock_required's */
        note = " (one host: remote servers reached at t_local_comm)";
    }
    const int *need = model_lock_required(in->remote_prob);
    params_apply_profile(&p, need, profile[1], sizeof profile[1]); /* what a one-host calibration lacks */
    if (params_require(&p, need, err, sizeof err)) {
        printf("model: not compared: %s\n", err);
        return 0;
    }
    for (int k = 0; k < 2; k++)
        if (profile[k][0]) printf("model: %s\n", profile[k]);
    lock_shape shape = {.agents = in->agents, .servers = in->servers, .n_locks = in->locks_per_txn,
                        .remote_prob = in->remote_prob, .ranks_per_host = in->ranks_per_host, .mpi_yields = in->mpi_yields,
                        .end_with_next = true, .one_host = in->single_host, .floor_us = in->measured_floor_us > 0 ? in->measured_floor_us : 0};
    model_lock(&p, &shape, &m->pred);
    m->shape = shape;
    const lock_prediction *pr = &m->pred;
    double t = pr->t_tx, tp = pr->throughput;
    printf("%-34s %12s %12s %10s\n", "model: lock table (Table 5.1)", "measured", "model", "model err");
    printf("%-34s %12.2f %12.2f\n", "remote lock probability [%]", 100 * in->remote_prob, 100 * in->remote_prob);
    if (in->measured_t_tx_us > 0)
        printf("%-34s %12.3f %12.3f %+9.1f%%\n", "exec. time per transaction [us]", in->measured_t_tx_us, t * 1e6,
               100 * (t * 1e6 - in->measured_t_tx_us) / in->measured_t_tx_us);
    else
        printf("%-34s %12s %12.3f\n", "exec. time per transaction [us]", "-", t * 1e6);
    if (in->measured_throughput > 0)
        printf("%-34s %12.4f %12.4f %+9.1f%%\n", "throughput [M tx/s]", in->measured_throughput / 1e6, tp / 1e6,
               100 * (tp - in->measured_throughput) / in->measured_throughput);
    else
        printf("%-34s %12s %12.4f\n", "throughput [M tx/s]", "-", tp / 1e6);
    char over[160];
    if (pr->t_shared_comm > 0)
        snprintf(over, sizeof over, "ranks share cores: messages at t_shared_comm %.3f us, own work x %.2f", pr->t_shared_comm * 1e6,
                 pr->oversubscription);
    else snprintf(over, sizeof over, "x %.2f oversubscription", pr->oversubscription);
    printf("model: t_tx = eq. 5.3 %.3f us + release ack %.3f (%.0f%% of ends with the next request) + agent %.3f + "
           "servers' service %.3f + waiting %.3f us, %s (%.2f servers contacted, server utilisation %.0f%%)\n",
           pr->t_thesis * 1e6, pr->t_end * 1e6, 100 * pr->ends_with_next, (p.set[MP_t_agent] ? params_get(&p, MP_t_agent) : 0) * 1e6, pr->t_service * 1e6,
           pr->t_wait * 1e6, over, pr->contacts, 100 * pr->server_util);
    printf("model: %.0f agents, %.0f servers, %.2f locks per transaction (MVA, model/lock_model.h), parameters %s%s\n", in->agents,
           in->servers, in->locks_per_txn, p.source, note);
    if (pr->t_shared_comm > 0 && in->mpi_yields)
        printf("model: note: the MPI library yields in its own progress here (Open MPI's mpi_yield_when_idle, on when mpirun "
               "oversubscribes): the servers serve one message per turn, and t_shared_comm holds only when calibrated with "
               "OMPI_MCA_mpi_yield_when_idle=1 too (model/lock_model.h)\n");
    /* the message times hold for the machine's state at calibration: a floor that moved (a virtual
     * machine's placement of its virtual CPUs) moves every round trip with it, and the model takes
     * the run's (model_lock_at_floor) */
    if (pr->floor_shift_us != 0)
        printf("model: the machine's floor is %.3f us in this run against %.3f us at calibration: the message times are "
               "taken at the run's (each message %+.3f us; model/lock_model.h)\n",
               in->measured_floor_us, params_get(&p, MP_t_floor_rtt) * 1e6, pr->floor_shift_us);
    m->measured_throughput = in->measured_throughput;
    m->t_tx = t;
    m->throughput = tp;
    snprintf(m->source, sizeof m->source, "%s", p.source);
    return t;
}

void lock_compare_record(const lock_model_ctx *m, record *rec)
{
    if (m->t_tx <= 0) return;
    record_set(rec, "model_t_tx_us", "%.4f", m->t_tx * 1e6);
    record_set(rec, "model_throughput", "%.1f", m->throughput);
    if (m->measured_throughput > 0)
        record_set(rec, "model_err_throughput", "%.4f", (m->throughput - m->measured_throughput) / m->measured_throughput);
    record_set(rec, "model_t_server_us", "%.4f", m->pred.t_service * 1e6);
    record_set(rec, "model_t_wait_us", "%.4f", m->pred.t_wait * 1e6);
    record_set(rec, "model_params", "%s", m->source); /* with the default profile when it was used */
    if (m->p.set[MP_t_floor_rtt]) record_set(rec, "model_floor_rtt_us", "%.4f", params_get(&m->p, MP_t_floor_rtt) * 1e6);
    char shape[400];
    if (!model_lock_shape_format(&m->shape, shape, sizeof shape)) record_set(rec, "model_shape", "%s", shape);
}
