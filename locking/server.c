/* The lock server loop (thesis §5.2.2): takes messages from its mailbox, decides lock requests in
 * its lock table, votes and releases on behalf of transactions, and, while idle, refuses requests
 * that waited too long (--deadlock timeout). It takes no part in data access: agents read and write
 * its data window directly. Runs until every agent has said it is done. Every grant it sends, every
 * vote and every end of transaction also goes to the oracle (locking/lock_oracle.h). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/fastclock.h"
#include "locking/lock.h"
#include "bench/phases.h"
#include "locking/rdmo_link.h"
#include "locking/twopc.h"
#include "locking/workloads/registry.h"

/* The oracle and the grants sent in the current step, not yet shown to it: it sees them once the
 * step's answers and acknowledgement left (and after the step's release), so no agent waits for
 * the check. */
typedef struct server_audit {
    lock_oracle oracle;
    struct sent_grant {
        uint64_t lock_id, txn;
        uint32_t agent;
        lock_mode mode;
    } *sent;
    size_t nsent, cap;
} server_audit;

size_t lock_server_bytes_per_agent(void)
{
    /* the step's grants: one per agent at most, as each agent waits for one answer at a time */
    return sizeof(struct sent_grant) + lt_bytes_per_txn() + lock_oracle_bytes_per_agent();
}

static void audit_later(server_audit *au, uint32_t agent, uint64_t lock_id, uint64_t txn, lock_mode mode)
{
    if (!au->oracle.ledger) return;
    if (au->nsent == au->cap) {
        au->cap = au->cap ? 2 * au->cap : 64;
        au->sent = realloc(au->sent, au->cap * sizeof *au->sent);
        if (!au->sent) abort();
    }
    au->sent[au->nsent++] = (struct sent_grant){lock_id, txn, agent, mode};
}

static void audit_now(server_audit *au)
{
    for (size_t i = 0; i < au->nsent; i++)
        lock_oracle_grant(&au->oracle, au->sent[i].agent, au->sent[i].lock_id, au->sent[i].txn, au->sent[i].mode);
    au->nsent = 0;
}

static void send_answer(lock_run *run, uint32_t agent, uint64_t txn, uint64_t lock_id, lock_mode mode, bool granted,
                        double queue_s, double server_s)
{
    lock_msg m = {MSG_RESPONSE, (uint8_t)mode, granted, 0, agent, txn, lock_id, {0}};
    m.u.t.queue_ns = (uint32_t)(queue_s > 0 ? queue_s * 1e9 : 0);
    m.u.t.server_ns = (uint32_t)(server_s > 0 ? server_s * 1e9 : 0);
    if (run->rdmo) lock_rdmo_answer(run, agent, &m); /* with the row when granted */
    else notify_send(run->ep, run->roles->agent_rank[agent], 0, &m);
    if (granted) audit_later(run->audit, agent, lock_id, txn, mode);
}

/* A grant or refusal decided after the request waited (release of another transaction, timeout).
 * Its server processing: the handling step that decided it (from taking the END message, or from
 * the timeout check, to this answer); its time in the waiting group: from entering it to now. */
static void emit_answer(void *arg, const lt_answer *a)
{
    lock_run *run = arg;
    double now = rmb_fast_now();
    send_answer(run, a->req.agent, a->req.txn, a->req.lock_id, a->req.mode, a->granted, now - a->since,
                a->proc0 + (now - run->step_start));
}

static void expire(lock_run *run, lock_table *lt, double now)
{
    run->step_start = now;
    lt_expire(lt, now, emit_answer, run);
    audit_now(run->audit);
}

/* The end of transaction m->txn: all its locks released (the waiters they held up answered), and
 * the acknowledgement where the agent waits for one (MSG_END). */
static void end_txn(lock_run *run, lock_table *lt, const lock_msg *m, double t0, server_stats *st, bool ack)
{
    st->ends++;
    lt_release_all(lt, m->txn, t0, emit_answer, run);
    if (ack && run->rdmo) lock_rdmo_ack(run, m->agent); /* the end's answer is its acknowledgement */
    else if (ack) twopc_ack(run, run->roles->agent_rank[m->agent]);
}

/* ... and the oracle told, after the answers left (before it sees the grants the release handed out) */
static void audit_end(lock_run *run, const lock_msg *m)
{
    lock_oracle_end(&run->audit->oracle, m->agent, m->txn, m->commit);
    lock_oracle_release(&run->audit->oracle, m->agent, m->txn);
}

static void end_with_request(lock_run *run, lock_table *lt, const lock_msg *m, double t0, server_stats *st)
{
    end_txn(run, lt, m, t0, st, false);
}

/* A lock request (MSG_LOCK, or the one in MSG_END_LOCK) of transaction txn: granted or refused at
 * once, or into the lock's waiting group, whose answer comes later (the processing time so far
 * stays with the waiter). */
static void request(lock_run *run, lock_table *lt, const lock_msg *m, uint64_t txn, double t0)
{
    lt_request r = {txn, m->u.age, m->lock_id, m->agent, (lock_mode)m->mode};
    lt_reason why;
    lt_outcome out = lt_request_lock(lt, &r, t0, 0, &why);
    if (out != LT_WAITING)
        send_answer(run, m->agent, txn, m->lock_id, (lock_mode)m->mode, out == LT_GRANTED, 0, rmb_fast_now() - t0);
}

/* One message from an agent; returns true for the agent's last (MSG_DONE). */
static bool handle(lock_run *run, lock_table *lt, const lock_msg *m, int slot, double t0, uint64_t *rng,
                   server_stats *st)
{
    server_audit *au = run->audit;
    switch (m->type) {
    case MSG_LOCK: request(run, lt, m, m->txn, t0); break;
    case MSG_END_LOCK: {
        /* the end (no acknowledgement: the request's answer is one), then the request; but a lock
         * that nobody holds is granted first, which the release cannot change: its answer leaves
         * before the release's work */
        const bool lock_first = lt_lock_mode(lt, m->lock_id) == LOCK_NL;
        if (!lock_first) end_with_request(run, lt, m, t0, st);
        request(run, lt, m, txn_next_id(m->txn), t0);
        if (lock_first) end_with_request(run, lt, m, t0, st);
        st->ends_with_request++;
        audit_end(run, m);
        break;
    }
    case MSG_VOTE: {
        bool yes = !(run->o->vote_no_prob > 0 && wl_rand01(rng) < run->o->vote_no_prob);
        if (yes) st->votes_yes++;
        else st->votes_no++;
        lock_oracle_vote(&au->oracle, m->agent, m->txn, yes);
        twopc_vote(run, run->roles->agent_rank[m->agent], yes);
        if (run->rdmo) lock_rdmo_ack(run, m->agent); /* the vote is on the agent's word before this answer */
        break;
    }
    case MSG_END:
        end_txn(run, lt, m, t0, st, true);
        audit_end(run, m);
        break;
    case MSG_DONE:
        if (run->rdmo) lock_rdmo_ack(run, m->agent);
        return true;
    default:
        fprintf(stderr, "rmabench: rank %d: unknown message type %d in slot %d\n", run->ctx->rank, m->type, slot);
        MPI_Abort(run->ctx->comm, 3);
    }
    audit_now(au);
    return false;
}

/* The server loop's state: what a message's handling needs, from the mailbox's poll or from the
 * rdmo method below. */
typedef struct {
    lock_run *run;
    lock_table lt;
    uint64_t rng;
    server_stats *st;
    int done;
    unsigned since_expire;
    double last_msg;
} server_loop;

static void step(server_loop *s, const lock_msg *m, int slot)
{
    const double t0 = rmb_fast_now();
    s->run->step_start = s->last_msg = t0;
    s->st->messages++;
    if (handle(s->run, &s->lt, m, slot, t0, &s->rng, s->st)) s->done++;
    /* a server that is never idle still has to bound the waits */
    if (++s->since_expire >= 1024) {
        s->since_expire = 0;
        if (lt_has_waiters(&s->lt)) expire(s->run, &s->lt, rmb_fast_now());
    }
}

/* --transport rdmo: the lock object's method; every message is answered by its handling (or later,
 * a lock request that waits), never by the method's return. */
static int rdmo_method(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans,
                       int *anslen, int cap)
{
    (void)ans, (void)anslen, (void)cap;
    server_loop *s = arg;
    lock_msg m;
    if (lock_rdmo_take(s->run, t, req, len, &m)) step(s, &m, (int)m.agent);
    return RDMO_PENDING;
}

/* One poll of the mailbox or of the request queue; whether something came. */
static bool poll_once(server_loop *s)
{
    if (s->run->rdmo) return rdmo_serve(s->run->rdmo) > 0;
    int slot;
    lock_msg m;
    if (!notify_poll(s->run->ep, &slot, &m)) return false;
    step(s, &m, slot);
    return true;
}

void lock_server_run(lock_run *run, server_stats *st)
{
    const lock_opts *o = run->o;
    server_loop s = {.run = run, .st = st};
    lt_init(&s.lt, (deadlock_policy)o->deadlock, o->lock_timeout);
    server_audit au = {0};
    lock_oracle_init(&au.oracle, o->check, run->roles->nagents);
    run->audit = &au;
    s.rng = (uint64_t)o->seed * 0x2545f4914f6cdd1dULL + (uint64_t)run->roles->my_index + 99;
    if (run->rdmo) rdmo_register(run->rdmo, run->rdmo_obj, LOCK_RDMO_METHOD, rdmo_method, &s);
    const int nagents = run->roles->nagents;
    const unsigned spin = run->rdmo ? notify_spin_polls(run->poll, run->ctx->poll_yield)
                                    : notify_ep_spin_polls(run->ep, run->ctx->poll_yield);
    notify_pace rdmo_pace = {0, false};
    notify_pace *pace = run->rdmo ? &rdmo_pace : &run->ep->pace;
    unsigned idle = 0, backoff = 0;
    s.last_msg = rmb_fast_now();

    while (s.done < nagents) {
        if (poll_once(&s)) {
            idle = backoff = 0;
            continue;
        }
        /* Idle: check the waiting groups for timeouts (every 16 empty polls: reading the clock on
         * every poll would slow the answer to the next request). */
        if ((++idle & 15) == 0) {
            double now = rmb_fast_now();
            if (lt_has_waiters(&s.lt)) expire(run, &s.lt, now);
            if (now - s.last_msg > (double)o->wait_bound_s + o->lock_timeout) {
                fprintf(stderr, "rmabench: rank %d: lock server heard nothing for %.0f s (%d of %d agents done)\n",
                        run->ctx->rank, now - s.last_msg, s.done, nagents);
                MPI_Abort(run->ctx->comm, 3);
            }
        }
        notify_pace_idle(pace, &backoff, spin);
    }
    st->lt = s.lt.st;
    st->active_locks_end = lt_active_locks(&s.lt);
    st->active_txns_end = lt_active_txns(&s.lt);
    lt_free(&s.lt);
    lock_oracle_finish(&au.oracle);
    st->oracle = au.oracle.st;
    lock_oracle_free(&au.oracle);
    free(au.sent);
    run->audit = NULL;
}
