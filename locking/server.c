/* The lock server loop (thesis §5.2.2): takes messages from its mailbox, decides lock requests in
 * its lock table, votes and releases on behalf of transactions, and, while idle, refuses requests
 * that waited too long (--deadlock timeout). It takes no part in data access: agents read and write
 * its data window directly. Runs until every agent has said it is done. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "locking/lock.h"
#include "bench/phases.h"
#include "locking/twopc.h"
#include "locking/workloads/registry.h"

static void send_answer(lock_run *run, uint32_t agent, uint64_t txn, uint64_t lock_id, lock_mode mode, bool granted,
                        double queue_s, double server_s)
{
    lock_msg m = {MSG_RESPONSE, (uint8_t)mode, granted, 0, agent, txn, lock_id, {0}};
    m.u.t.queue_ns = (uint32_t)(queue_s > 0 ? queue_s * 1e9 : 0);
    m.u.t.server_ns = (uint32_t)(server_s > 0 ? server_s * 1e9 : 0);
    notify_send(run->ep, run->roles->agent_rank[agent], 0, &m);
}

/* A grant or refusal decided after the request waited (release of another transaction, timeout).
 * Its server processing: the handling step that decided it (from taking the END message, or from
 * the timeout check, to this answer); its time in the waiting group: from entering it to now. */
static void emit_answer(void *arg, const lt_answer *a)
{
    lock_run *run = arg;
    double now = rmb_now();
    send_answer(run, a->req.agent, a->req.txn, a->req.lock_id, a->req.mode, a->granted, now - a->since,
                a->proc0 + (now - run->step_start));
}

void lock_server_run(lock_run *run, server_stats *st)
{
    const lock_opts *o = run->o;
    lock_table lt;
    lt_init(&lt, (deadlock_policy)o->deadlock, o->lock_timeout, o->check_invariants);
    uint64_t rng = (uint64_t)o->seed * 0x2545f4914f6cdd1dULL + (uint64_t)run->roles->my_index + 99;
    int done = 0, nagents = run->roles->nagents;
    unsigned spin = notify_spin_polls(run->poll, run->ctx->oversubscribed);
    unsigned idle = 0, backoff = 0, since_expire = 0;
    double last_msg = rmb_now();

    while (done < nagents) {
        int slot;
        lock_msg m;
        if (!notify_poll(run->ep, &slot, &m)) {
            /* Idle: check the waiting groups for timeouts (every 16 empty polls: reading the clock
             * on every poll would slow the answer to the next request). */
            if ((++idle & 15) == 0) {
                double now = rmb_now();
                run->step_start = now;
                if (lt_has_waiters(&lt)) lt_expire(&lt, now, emit_answer, run);
                if (now - last_msg > (double)o->wait_bound_s + o->lock_timeout) {
                    fprintf(stderr, "rmabench: rank %d: lock server heard nothing for %.0f s (%d of %d agents done)\n",
                            run->ctx->rank, now - last_msg, done, nagents);
                    MPI_Abort(run->ctx->world, 3);
                }
            }
            notify_idle(&backoff, spin);
            continue;
        }
        double t0 = rmb_now();
        run->step_start = last_msg = t0;
        idle = backoff = 0;
        st->messages++;
        switch (m.type) {
        case MSG_LOCK: {
            lt_request r = {m.txn, m.u.age, m.lock_id, m.agent, (lock_mode)m.mode};
            lt_reason why;
            lt_outcome out = lt_request_lock(&lt, &r, t0, 0, &why);
            if (out == LT_WAITING) {
                /* the answer comes later: keep the processing time so far with the waiter */
                break;
            }
            send_answer(run, m.agent, m.txn, m.lock_id, (lock_mode)m.mode, out == LT_GRANTED, 0, rmb_now() - t0);
            break;
        }
        case MSG_VOTE: {
            bool yes = !(o->vote_no_prob > 0 && wl_rand01(&rng) < o->vote_no_prob);
            if (yes) st->votes_yes++;
            else st->votes_no++;
            twopc_vote(run, run->roles->agent_rank[m.agent], yes);
            break;
        }
        case MSG_END:
            st->ends++;
            lt_release_all(&lt, m.txn, t0, emit_answer, run);
            twopc_ack(run, run->roles->agent_rank[m.agent]);
            break;
        case MSG_DONE: done++; break;
        default:
            fprintf(stderr, "rmabench: rank %d: unknown message type %d in slot %d\n", run->ctx->rank, m.type, slot);
            MPI_Abort(run->ctx->world, 3);
        }
        /* a server that is never idle still has to bound the waits */
        if (++since_expire >= 1024) {
            since_expire = 0;
            if (lt_has_waiters(&lt)) {
                run->step_start = rmb_now();
                lt_expire(&lt, run->step_start, emit_answer, run);
            }
        }
    }
    st->lt = lt.st;
    st->active_locks_end = lt_active_locks(&lt);
    st->active_txns_end = lt_active_txns(&lt);
    lt_free(&lt);
}
