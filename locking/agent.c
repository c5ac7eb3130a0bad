/* The transaction agent loop (thesis §5.2.1): one transaction at a time; locks one after the other
 * (each request waits for its answer); data access with MPI_Get/MPI_Put once all are granted; 2PC
 * when a lock of an exclusive-type mode was taken on a non-local server; end of transaction
 * (commit or abort) to every server contacted, which releases all locks there (strict 2PL).
 * Aborted transactions are not retried: the workload moves on to its next transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locking/lock.h"
#include "bench/phases.h"
#include "locking/twopc.h"
#include "locking/workloads/registry.h"

typedef struct {
    int server;
    bool exclusive;  /* an IX, SIX or X lock is held there */
} contact;

_Noreturn static void wait_failed(lock_run *run, const poll_bound *b)
{
    poll_report_timeout(b);
    MPI_Abort(run->ctx->world, 3);
    exit(3);
}

static void recv_response(lock_run *run, lock_msg *resp, int server_rank)
{
    poll_bound b;
    int slot;
    /* Most answers come within a microsecond: poll a little before starting the bounded wait
     * (whose clock read would add to every request). */
    bool got = false;
    for (int i = 0; i < 64 && !got; i++) got = notify_poll(run->ep, &slot, resp);
    if (!got) {
        poll_begin(&b, "lock response", run->ctx->rank, server_rank,
                   (double)run->o->wait_bound_s + run->o->lock_timeout, run->ctx->oversubscribed);
        if (!notify_wait(run->ep, &slot, resp, &b)) wait_failed(run, &b);
    }
    if (resp->type != MSG_RESPONSE) {
        fprintf(stderr, "rmabench: rank %d: expected a lock response, got message type %d\n", run->ctx->rank, resp->type);
        MPI_Abort(run->ctx->world, 3);
    }
}

/* Bank data access: read both balances, write the moved amounts; old values kept for undo. */
static void bank_transfer(lock_run *run, const lock_request *reqs, const wl_txn *info, int64_t old[2])
{
    int me = run->ctx->rank;
    uint64_t acct[2] = {reqs[0].lock_id, reqs[1].lock_id};
    int rank[2];
    MPI_Aint disp[2];
    for (int i = 0; i < 2; i++) {
        int s = lock_server_of(run->roles, acct[i]);
        rank[i] = run->roles->server_rank[s];
        disp[i] = (MPI_Aint)((acct[i] - lock_range_lo(run->roles, s)) * sizeof(int64_t));
        blocking_begin("MPI_Get + MPI_Win_flush of a balance", rank[i]);
        MPI_CHECK(me, MPI_Get(&old[i], 1, MPI_INT64_T, rank[i], disp[i], 1, MPI_INT64_T, run->data_win));
        MPI_CHECK(me, MPI_Win_flush(rank[i], run->data_win));
        blocking_end();
    }
    int64_t upd[2];
    for (int i = 0; i < 2; i++) {
        bool is_from = acct[i] == info->from;
        upd[i] = old[i] + (is_from ? -info->amount : info->amount);
        blocking_begin("MPI_Put + MPI_Win_flush of a balance", rank[i]);
        MPI_CHECK(me, MPI_Put(&upd[i], 1, MPI_INT64_T, rank[i], disp[i], 1, MPI_INT64_T, run->data_win));
        MPI_CHECK(me, MPI_Win_flush(rank[i], run->data_win));
        blocking_end();
    }
}

static void bank_undo(lock_run *run, const lock_request *reqs, const int64_t old[2])
{
    int me = run->ctx->rank;
    for (int i = 0; i < 2; i++) {
        int s = lock_server_of(run->roles, reqs[i].lock_id);
        int rank = run->roles->server_rank[s];
        MPI_Aint disp = (MPI_Aint)((reqs[i].lock_id - lock_range_lo(run->roles, s)) * sizeof(int64_t));
        blocking_begin("MPI_Put + MPI_Win_flush of a balance undo", rank);
        MPI_CHECK(me, MPI_Put(&old[i], 1, MPI_INT64_T, rank, disp, 1, MPI_INT64_T, run->data_win));
        MPI_CHECK(me, MPI_Win_flush(rank, run->data_win));
        blocking_end();
    }
}

void lock_agent_run(lock_run *run, lock_workload *wl, agent_stats *st, uint64_t *rtt_hist, int64_t *bank_delta)
{
    const lock_roles *roles = run->roles;
    const lock_opts *o = run->o;
    const uint32_t agent = (uint32_t)roles->my_index;
    lock_request reqs[LOCK_TXN_MAX];
    contact *contacts = calloc((size_t)roles->nservers, sizeof *contacts);
    int *contact_rank = calloc((size_t)roles->nservers, sizeof *contact_rank); /* world rank of contacts[c] */
    int *contact_of = malloc(sizeof(int) * (size_t)roles->nservers);
    for (int s = 0; s < roles->nservers; s++) contact_of[s] = -1;
    uint64_t acks = 0;
    memset(st, 0, sizeof *st);
    char err[256];

    double start = rmb_now();
    for (uint32_t local = 0;; local++) {
        if (o->transactions_per_agent > 0 ? (int64_t)local >= o->transactions_per_agent
                                          : rmb_now() - start >= o->duration)
            break;
        wl_txn info;
        int n = wl->ops->next(wl->state, reqs, LOCK_TXN_MAX, &info, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "rmabench: rank %d: workload: %s\n", run->ctx->rank, err);
            MPI_Abort(run->ctx->world, 2);
        }
        if (n == 0) break;
        uint64_t txn = txn_global_id(agent, local);
        uint64_t age = (uint64_t)local << 32 | agent; /* fewer transactions started: older */
        int ncontacts = 0;
        bool granted_all = true;

        /* lock acquisition: one request at a time */
        double t0 = rmb_now();
        for (int i = 0; i < n; i++) {
            int s = lock_server_of(roles, reqs[i].lock_id);
            int c = contact_of[s];
            if (c < 0) {
                c = contact_of[s] = ncontacts++;
                contacts[c] = (contact){s, false};
                contact_rank[c] = roles->server_rank[s];
            }
            if (lock_mode_exclusive_type(reqs[i].mode)) contacts[c].exclusive = true;
            lock_msg m = {MSG_LOCK, (uint8_t)reqs[i].mode, 0, 0, agent, txn, reqs[i].lock_id, {.age = age}};
            int srank = roles->server_rank[s];
            double tr = rmb_now();
            notify_send(run->ep, srank, (int)agent, &m);
            lock_msg resp;
            recv_response(run, &resp, srank);
            double dt = rmb_now() - tr;
            st->lock_requests++;
            if (!lock_server_is_local(roles, (int)agent, s)) st->remote_requests++;
            st->t_req_total += dt;
            st->t_req_queue += resp.u.t.queue_ns * 1e-9;
            st->t_req_server += resp.u.t.server_ns * 1e-9;
            rtt_hist[lat_bucket(dt)]++;
            if (info.sync_after_first && i == 0) { /* (even when refused: the other agent waits here) */
                MPI_CHECK(run->ctx->rank, MPI_Barrier(run->agent_comm));
                if (info.delay_after_sync > 0) {
                    struct timespec ts = {(time_t)info.delay_after_sync,
                                          (long)((info.delay_after_sync - (double)(time_t)info.delay_after_sync) * 1e9)};
                    nanosleep(&ts, NULL);
                }
            }
            if (!resp.granted) {
                st->refused++;
                granted_all = false;
                break;
            }
        }
        double t1 = rmb_now();
        st->t_lock += t1 - t0;

        /* data access */
        int64_t old[2] = {0, 0};
        bool wrote = false;
        if (granted_all && info.transfer && run->data_win != MPI_WIN_NULL) {
            bank_transfer(run, reqs, &info, old);
            wrote = true;
        }
        double t2 = rmb_now();
        st->t_data += t2 - t1;

        /* 2PC when something was locked for writing on a non-local server */
        bool commit = granted_all;
        bool vote = false;
        for (int c = 0; c < ncontacts && granted_all; c++)
            if (contacts[c].exclusive && !lock_server_is_local(roles, (int)agent, contacts[c].server)) vote = true;
        if (vote) {
            st->twopc++;
            twopc_reset(run);
            for (int c = 0; c < ncontacts; c++) {
                lock_msg m = {MSG_VOTE, 0, 0, 0, agent, txn, 0, {0}};
                notify_send(run->ep, roles->server_rank[contacts[c].server], (int)agent, &m);
            }
            uint64_t w = twopc_collect(run, (uint32_t)ncontacts, contact_rank);
            commit = vote_commits(w, (uint32_t)ncontacts);
            if (!commit) {
                st->votes_no++;
                if (wrote) bank_undo(run, reqs, old); /* still under the X locks */
            }
        }
        double t3 = rmb_now();
        st->t_vote += t3 - t2;

        /* end of transaction: every server contacted releases all locks of txn, then acknowledges */
        for (int c = 0; c < ncontacts; c++) {
            lock_msg m = {MSG_END, 0, 0, (uint8_t)commit, agent, txn, 0, {0}};
            notify_send(run->ep, roles->server_rank[contacts[c].server], (int)agent, &m);
            contact_of[contacts[c].server] = -1;
        }
        acks += (uint64_t)ncontacts;
        twopc_wait_acks(run, acks, contact_rank, ncontacts);
        double t4 = rmb_now();
        st->t_end += t4 - t3;

        if (commit) {
            st->committed++;
            if (bank_delta && info.transfer) {
                bank_delta[info.from] -= info.amount;
                bank_delta[info.to] += info.amount;
            }
        } else {
            st->aborted++;
        }
    }
    st->elapsed = rmb_now() - start;
    /* tell every server this agent is done (no answer: the slot is never written again) */
    for (int s = 0; s < roles->nservers; s++) {
        lock_msg m = {MSG_DONE, 0, 0, 0, agent, 0, 0, {0}};
        notify_send(run->ep, roles->server_rank[s], (int)agent, &m);
    }
    free(contacts);
    free(contact_rank);
    free(contact_of);
}
