/* The transaction agent loop (thesis §5.2.1): one transaction at a time; locks one after the other
 * (each request waits for its answer); data access with MPI_Get/MPI_Put once all are granted (bank:
 * the two balances; tpcc: the row image of every row it locked, on the server that owns the lock); 2PC
 * when a lock of an exclusive-type mode was taken on a non-local server; end of transaction
 * (commit or abort) to every server contacted, which releases all locks there (strict 2PL) and
 * acknowledges. A transaction that stayed at one server sends its end with the next transaction's
 * first request when that goes to the same server (MSG_END_LOCK): the server releases before it
 * decides the request, whose answer is then the acknowledgement, and one round trip a transaction
 * is saved.
 * Aborted transactions are not retried: the workload moves on to its next transaction. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/fastclock.h"
#include "locking/lock.h"
#include "bench/phases.h"
#include "locking/rdmo_link.h"
#include "locking/twopc.h"
#include "locking/workloads/registry.h"
#include "locking/workloads/tpcc.h"

typedef struct {
    int server;
    bool exclusive;  /* an IX, SIX or X lock is held there */
} contact;

_Noreturn static void wait_failed(lock_run *run, const poll_bound *b)
{
    poll_report_timeout(b);
    MPI_Abort(run->ctx->comm, 3);
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
                   (double)run->o->wait_bound_s + run->o->lock_timeout, run->ctx->poll_yield);
        if (!notify_wait(run->ep, &slot, resp, &b)) wait_failed(run, &b);
    }
    if (resp->type != MSG_RESPONSE) {
        fprintf(stderr, "rmabench: rank %d: expected a lock response, got message type %d\n", run->ctx->rank, resp->type);
        MPI_Abort(run->ctx->comm, 3);
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

size_t lock_agent_bytes_per_server(void) { return sizeof(contact) + 2 * sizeof(int); }

/* One agent's state across its transactions: the servers contacted by the running transaction. */
typedef struct {
    lock_run *run;
    uint32_t agent;
    agent_stats *st;
    uint64_t *rtt_hist;
    int64_t *bank_delta;
    contact *contacts;
    int *contact_rank;  /* world rank of contacts[c] */
    int *contact_of;    /* server -> index in contacts, -1 when not contacted */
    uint64_t acks;      /* end-of-transaction acknowledgements owed so far */
    int *calls;         /* --transport rdmo: the call to each contacted server in flight (votes, ends) */
    /* an end not sent yet: it goes with the next transaction's first request (MSG_END_LOCK) */
    struct {
        bool pending, commit;
        uint64_t txn;
        const struct agent_txn *t; /* rdmo: the transaction, whose written rows go with it */
    } end;
    /* the next transaction, drawn while the current one's first request travels (prefetch_next,
     * acquire_locks): the workload's draw is then off the critical path */
    struct lock_workload *wl;
    struct agent_txn *next;
    uint32_t next_local;
    bool more, drawn; /* drawn: a->next holds transaction next_local (or more is false) */
    double start;
} agent_loop;

/* The running transaction. */
typedef struct agent_txn {
    uint64_t txn, age;
    int n, ncontacts;
    lock_request reqs[LOCK_TXN_MAX];
    wl_txn info;
    bool granted_all, wrote, voted, commit;
    int64_t old[2];     /* bank: balances before the transfer (undo) */
    uint64_t vote_word; /* when voted */
    uint8_t staged[LOCK_TXN_MAX]; /* rdmo: request i's row is written at commit (its image in run->rows) */
} agent_txn;

static int contact_server(agent_loop *a, agent_txn *t, int s)
{
    int c = a->contact_of[s];
    if (c < 0) {
        c = a->contact_of[s] = t->ncontacts++;
        a->contacts[c] = (contact){s, false};
        a->contact_rank[c] = a->run->roles->server_rank[s];
    }
    return c;
}

/* The deadlock workload: both agents meet after their first request (even a refused one: the
 * other agent waits there), and one of them may wait a little longer. */
static void meet_after_first(agent_loop *a, const wl_txn *info)
{
    MPI_CHECK(a->run->ctx->rank, MPI_Barrier(a->run->agent_comm));
    if (info->delay_after_sync > 0) {
        struct timespec ts = {(time_t)info->delay_after_sync,
                              (long)((info->delay_after_sync - (double)(time_t)info->delay_after_sync) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* Phase 1, lock acquisition: one request at a time, each waiting for its answer; the first refusal
 * ends the phase (the transaction will abort). */
/* An agent's loop state for run (its roles and options): the contact tables, nobody contacted.
 * false when out of memory (whatever was allocated is freed by agent_loop_close). */
static bool agent_loop_open(agent_loop *a, lock_run *run, agent_stats *st, uint64_t *rtt_hist, int64_t *bank_delta)
{
    size_t ns = (size_t)run->roles->nservers;
    *a = (agent_loop){.run = run, .agent = (uint32_t)run->roles->my_index, .st = st, .rtt_hist = rtt_hist,
                      .bank_delta = bank_delta, .contacts = calloc(ns, sizeof(contact)),
                      .contact_rank = calloc(ns, sizeof(int)), .contact_of = malloc(ns * sizeof(int)),
                      .calls = calloc(ns, sizeof(int))};
    if (!a->contacts || !a->contact_rank || !a->contact_of || !a->calls) return false;
    for (size_t s = 0; s < ns; s++) a->contact_of[s] = -1;
    return true;
}

static void agent_loop_close(agent_loop *a)
{
    free(a->contacts);
    free(a->contact_rank);
    free(a->contact_of);
    free(a->calls);
}

/* The end of a transaction's bookkeeping: no server is contacted any more. */
static void forget_contacts(agent_loop *a, const agent_txn *t)
{
    for (int c = 0; c < t->ncontacts; c++) a->contact_of[a->contacts[c].server] = -1;
}

/* The agent's own work around request i (no message): its server, the contact, the message. */
static void request_prepare(agent_loop *a, agent_txn *t, int i, lock_msg *m, int *s)
{
    *s = lock_server_of(a->run->roles, t->reqs[i].lock_id);
    int c = contact_server(a, t, *s);
    if (lock_mode_exclusive_type(t->reqs[i].mode)) a->contacts[c].exclusive = true;
    *m = (lock_msg){MSG_LOCK, (uint8_t)t->reqs[i].mode, 0, 0, a->agent, t->txn, t->reqs[i].lock_id, {.age = t->age}};
    if (i == 0 && a->end.pending) { /* end_txn checked: the same server, and t follows that transaction */
        m->type = MSG_END_LOCK;
        m->commit = a->end.commit;
        m->txn = a->end.txn;
        a->end.pending = false;
    }
}

/* ... and after its answer came, dt seconds after the send: the statistics. */
static void request_record(agent_loop *a, int s, double dt, const lock_msg *resp)
{
    agent_stats *st = a->st;
    st->lock_requests++;
    if (!lock_server_is_local(a->run->roles, (int)a->agent, s)) st->remote_requests++;
    st->t_req_total += dt;
    st->t_req_queue += resp->u.t.queue_ns * 1e-9;
    st->t_req_server += resp->u.t.server_ns * 1e-9;
    a->rtt_hist[lat_bucket(dt)]++;
}

static void prefetch_next(agent_loop *a);

/* --transport rdmo: lock request i of t as one call that brings its row (and, for MSG_END_LOCK, the
 * previous transaction's end with the rows it wrote on that server, when it committed). */
static int rdmo_request(agent_loop *a, const agent_txn *t, int i, const lock_msg *m, int srank)
{
    const agent_txn *prev = a->end.t;
    const lock_rdmo_writes w = {prev ? prev->reqs : NULL, prev ? prev->staged : NULL, prev ? prev->n : 0};
    const bool writes = m->type == MSG_END_LOCK && m->commit && prev;
    a->end.t = NULL;
    return lock_rdmo_send(a->run, srank, m, lock_rdmo_read_bytes(a->run, &t->reqs[i]), writes ? &w : NULL, NULL);
}

static void acquire_locks(agent_loop *a, agent_txn *t)
{
    t->granted_all = true;
    lock_msg resp;
    int s_prev = -1;
    double dt_prev = 0;
    for (int i = 0; i < t->n; i++) {
        lock_msg m;
        int s;
        request_prepare(a, t, i, &m, &s);
        int srank = a->run->roles->server_rank[s];
        double tr = rmb_fast_now();
        const int call = a->run->rdmo ? rdmo_request(a, t, i, &m, srank) : -1;
        if (!a->run->rdmo) notify_send(a->run->ep, srank, (int)a->agent, &m);
        /* the previous request's statistics while this one is in flight */
        if (s_prev >= 0) request_record(a, s_prev, dt_prev, &resp);
        /* the next transaction drawn while the first request travels: the one whose answer takes
         * longest, as it may carry the previous end (MSG_END_LOCK) */
        if (i == 0) prefetch_next(a);
        if (a->run->rdmo) lock_rdmo_wait(a->run, call, &resp, a->run->rows + (size_t)i * TPCC_ROW_STRIDE, TPCC_ROW_STRIDE);
        else recv_response(a->run, &resp, srank);
        dt_prev = rmb_fast_now() - tr;
        s_prev = s;
        if (t->info.sync_after_first && i == 0) meet_after_first(a, &t->info);
        if (!resp.granted) {
            a->st->refused++;
            t->granted_all = false;
            break;
        }
    }
    if (s_prev >= 0) request_record(a, s_prev, dt_prev, &resp); /* the last (or refused) request's */
}

/* TPC-C data access: every row the transaction locked (tpcc_row_bytes > 0) is read from the server
 * that owns its lock (MPI_Get), rows locked X are then written back changed (MPI_Put): all reads in
 * flight at once, one flush per server contacted, then all writes and a flush each. Nodes and index
 * keys guard no row: their locks are only locks. */
static void tpcc_rows(agent_loop *a, agent_txn *t)
{
    lock_run *run = a->run;
    int me = run->ctx->rank;
    uint64_t nread = 0, nwritten = 0;
    for (int pass = 0; pass < 2; pass++) { /* 0: read every row, 1: write the X-locked ones */
        for (int i = 0; i < t->n; i++) {
            unsigned bytes = tpcc_row_bytes(t->reqs[i].lock_id);
            if (!bytes || (t->reqs[i].mode != LOCK_S && t->reqs[i].mode != LOCK_X)) continue;
            if (pass == 1 && t->reqs[i].mode != LOCK_X) continue;
            int s = lock_server_of(run->roles, t->reqs[i].lock_id);
            MPI_Aint disp = (MPI_Aint)((t->reqs[i].lock_id - lock_range_lo(run->roles, s)) % TPCC_ROW_SLOTS * TPCC_ROW_STRIDE);
            unsigned char *img = run->rows + (size_t)i * TPCC_ROW_STRIDE;
            if (pass == 0) {
                MPI_CHECK(me, MPI_Get(img, (int)bytes, MPI_BYTE, run->roles->server_rank[s], disp, (int)bytes, MPI_BYTE,
                                      run->data_win));
                nread += bytes;
            } else {
                memcpy(img, &t->txn, sizeof t->txn); /* the change: who wrote the row last */
                MPI_CHECK(me, MPI_Put(img, (int)bytes, MPI_BYTE, run->roles->server_rank[s], disp, (int)bytes, MPI_BYTE,
                                      run->data_win));
                nwritten += bytes;
            }
        }
        if (pass == 0 ? nread == 0 : nwritten == 0) continue;
        for (int c = 0; c < t->ncontacts; c++) {
            blocking_begin(pass == 0 ? "MPI_Win_flush of the row reads" : "MPI_Win_flush of the row writes", a->contact_rank[c]);
            MPI_CHECK(me, MPI_Win_flush(a->contact_rank[c], run->data_win));
            blocking_end();
        }
    }
    a->st->data_bytes_read += nread;
    a->st->data_bytes_written += nwritten;
}

/* --transport rdmo: the rows came with the grants; what the transaction writes waits for its commit
 * (staged, in run->rows), which carries it to the servers with the end (locking/rdmo_link.h). */
static void rdmo_data(agent_loop *a, agent_txn *t)
{
    lock_run *run = a->run;
    uint64_t nread = 0, nwritten = 0;
    for (int i = 0; i < t->n; i++) {
        const unsigned bytes = lock_rdmo_read_bytes(run, &t->reqs[i]);
        unsigned char *img = run->rows + (size_t)i * TPCC_ROW_STRIDE;
        if (!bytes || (t->info.transfer && i > 1)) continue;
        nread += bytes;
        if (t->info.transfer) { /* bank: the two balances, moved */
            int64_t v;
            memcpy(&v, img, sizeof v);
            t->old[i] = v;
            v += t->reqs[i].lock_id == t->info.from ? -t->info.amount : t->info.amount;
            memcpy(img, &v, sizeof v);
        } else if (t->reqs[i].mode == LOCK_X) {
            memcpy(img, &t->txn, sizeof t->txn); /* the change: who wrote the row last */
        } else {
            continue;
        }
        t->staged[i] = 1;
        nwritten += bytes;
    }
    a->st->data_bytes_read += nread;
    a->st->data_bytes_written += nwritten;
}

/* Phase 2, data access: under the granted locks. */
static void access_data(agent_loop *a, agent_txn *t)
{
    t->wrote = false;
    memset(t->staged, 0, (size_t)t->n);
    if (!t->granted_all || a->run->data_win == MPI_WIN_NULL) return;
    if (a->run->rdmo) {
        rdmo_data(a, t);
        return;
    }
    if (t->info.transfer) {
        bank_transfer(a->run, t->reqs, &t->info, t->old);
        a->st->data_bytes_read += 2 * sizeof(int64_t);
        a->st->data_bytes_written += 2 * sizeof(int64_t);
        t->wrote = true;
    } else if (lock_workload_of(a->run->o)->data == WL_DATA_ROWS) {
        tpcc_rows(a, t);
    }
}

/* Phase 3, 2PC when something was locked for writing on a non-local server: every contacted server
 * votes; a no undoes the writes (still under the X locks) and aborts. */
static void vote(agent_loop *a, agent_txn *t)
{
    lock_run *run = a->run;
    t->commit = t->granted_all;
    t->voted = false;
    for (int c = 0; c < t->ncontacts && t->granted_all; c++)
        if (a->contacts[c].exclusive && !lock_server_is_local(run->roles, (int)a->agent, a->contacts[c].server))
            t->voted = true;
    if (!t->voted) return;
    a->st->twopc++;
    a->st->twopc_participants += (uint64_t)t->ncontacts;
    if ((uint64_t)t->ncontacts > a->st->twopc_participants_max) a->st->twopc_participants_max = (uint64_t)t->ncontacts;
    twopc_reset(run);
    for (int c = 0; c < t->ncontacts; c++) {
        lock_msg m = {MSG_VOTE, 0, 0, 0, a->agent, t->txn, 0, {0}};
        if (run->rdmo) a->calls[c] = lock_rdmo_send(run, a->contact_rank[c], &m, 0, NULL, NULL);
        else notify_send(run->ep, a->contact_rank[c], (int)a->agent, &m);
    }
    t->vote_word = twopc_collect(run, (uint32_t)t->ncontacts, a->contact_rank);
    for (int c = 0; run->rdmo && c < t->ncontacts; c++) lock_rdmo_wait(run, a->calls[c], NULL, NULL, 0);
    t->commit = vote_commits(t->vote_word, (uint32_t)t->ncontacts);
    if (!t->commit) {
        a->st->votes_no++;
        if (t->wrote) bank_undo(run, t->reqs, t->old);
    }
}

/* Phase 4, end of transaction: every contacted server releases all locks of the transaction, then
 * acknowledges; or, where the transaction stayed at one server and the next starts there, the end
 * waits to go with that first request (acquire_locks: MSG_END_LOCK). A commit is checked against
 * the vote word first: no commit may follow a no. */
static void end_txn(agent_loop *a, agent_txn *t)
{
    lock_run *run = a->run;
    if (t->commit && t->voted && vote_no_count(t->vote_word) > 0) {
        if (a->st->commits_against_vote++ == 0)
            fprintf(stderr, "rmabench: rank %d: transaction %" PRIx64 " commits although %" PRIu32 " server(s) voted no\n",
                    run->ctx->rank, t->txn, vote_no_count(t->vote_word));
    }
    int nend = t->ncontacts; /* servers told of the end */
    if (!a->drawn) prefetch_next(a); /* acquire_locks drew it while the first request travelled */
    if (nend == 1) { /* one server: the end may travel with the next transaction's first request */
        a->end.pending = a->more && !a->next->info.sync_after_first &&
                         lock_server_of(run->roles, a->next->reqs[0].lock_id) == a->contacts[0].server;
        a->end.commit = t->commit;
        a->end.txn = t->txn;
        a->end.t = a->end.pending ? t : NULL;
    }
    if (!a->end.pending && run->rdmo) { /* WriteAndSeal: the rows a commit wrote, then the release; answered */
        const lock_rdmo_writes w = {t->reqs, t->staged, t->n};
        for (int c = 0; c < nend; c++) {
            lock_msg m = {MSG_END, 0, 0, (uint8_t)t->commit, a->agent, t->txn, 0, {0}};
            a->calls[c] = lock_rdmo_send(run, a->contact_rank[c], &m, 0, t->commit ? &w : NULL, NULL);
        }
        for (int c = 0; c < nend; c++) lock_rdmo_wait(run, a->calls[c], NULL, NULL, 0);
    } else if (!a->end.pending) {
        for (int c = 0; c < nend; c++) {
            lock_msg m = {MSG_END, 0, 0, (uint8_t)t->commit, a->agent, t->txn, 0, {0}};
            notify_send(run->ep, a->contact_rank[c], (int)a->agent, &m);
        }
        a->acks += (uint64_t)nend;
        twopc_wait_acks(run, a->acks, a->contact_rank, nend);
    }
    forget_contacts(a, t);
    bool typed = t->info.type >= 0 && t->info.type < lock_workload_of(run->o)->ntypes && t->info.type < LOCK_TXN_TYPES;
    if (typed) (t->commit ? a->st->committed_type : a->st->aborted_type)[t->info.type]++;
    if (t->commit) {
        a->st->committed++;
        if (a->bank_delta && t->info.transfer) {
            a->bank_delta[t->info.from] -= t->info.amount;
            a->bank_delta[t->info.to] += t->info.amount;
        }
    } else {
        a->st->aborted++;
    }
}

/* The next transaction of the workload; false at its end. */
static bool next_txn(agent_loop *a, lock_workload *wl, uint32_t local, agent_txn *t)
{
    char err[256];
    t->n = wl->desc->next(wl->state, t->reqs, LOCK_TXN_MAX, &t->info, err, sizeof err);
    if (t->n < 0) {
        fprintf(stderr, "rmabench: rank %d: workload: %s\n", a->run->ctx->rank, err);
        MPI_Abort(a->run->ctx->comm, 2);
    }
    t->txn = txn_global_id(a->agent, local);
    t->age = (uint64_t)local << 32 | a->agent; /* fewer transactions started: older */
    t->ncontacts = 0;
    return t->n > 0;
}

/* Whether the agent goes on after transaction a->next_local - 1, and if so transaction a->next_local
 * drawn into a->next: by end_txn, or by lock_agent_run for the first one. */
static void prefetch_next(agent_loop *a)
{
    const lock_opts *o = a->run->o;
    uint32_t local = a->next_local;
    a->more = (o->transactions_per_agent > 0 ? (int64_t)local < o->transactions_per_agent
                                             : rmb_fast_now() - a->start < o->duration) &&
              next_txn(a, a->wl, local, a->next);
    a->drawn = true;
}

static void run_txn(agent_loop *a, agent_txn *t)
{
    agent_stats *st = a->st;
    double t0 = rmb_fast_now();
    acquire_locks(a, t);
    double t1 = rmb_fast_now();
    access_data(a, t);
    double t2 = rmb_fast_now();
    vote(a, t);
    double t3 = rmb_fast_now();
    end_txn(a, t);
    double t4 = rmb_fast_now();
    st->t_lock += t1 - t0;
    st->t_data += t2 - t1;
    st->t_vote += t3 - t2;
    st->t_end += t4 - t3;
}

void lock_agent_run(lock_run *run, lock_workload *wl, agent_stats *st, uint64_t *rtt_hist, int64_t *bank_delta)
{
    const lock_roles *roles = run->roles;
    agent_loop a;
    agent_txn *buf[2] = {malloc(sizeof(agent_txn)), malloc(sizeof(agent_txn))};
    if (!agent_loop_open(&a, run, st, rtt_hist, bank_delta) || !buf[0] || !buf[1]) {
        fprintf(stderr, "rmabench: rank %d: out of memory in the transaction agent\n", run->ctx->rank);
        MPI_Abort(run->ctx->comm, 3);
    }
    memset(st, 0, sizeof *st);

    a.wl = wl;
    a.start = rmb_fast_now();
    a.next = buf[0];
    prefetch_next(&a); /* transaction 0 */
    for (uint32_t local = 0; a.more; local++) {
        agent_txn *t = a.next;
        a.next = buf[(local + 1) % 2];
        a.next_local = local + 1;
        a.drawn = false;
        run_txn(&a, t); /* draws transaction local + 1 (acquire_locks or end_txn) */
    }
    st->elapsed = rmb_fast_now() - a.start;
    /* tell every server this agent is done (no answer: the slot is never written again) */
    for (int s = 0; s < roles->nservers; s++) {
        lock_msg m = {MSG_DONE, 0, 0, 0, a.agent, 0, 0, {0}};
        if (run->rdmo) lock_rdmo_wait(run, lock_rdmo_send(run, roles->server_rank[s], &m, 0, NULL, NULL), NULL, NULL, 0);
        else notify_send(run->ep, roles->server_rank[s], (int)a.agent, &m);
    }
    free(buf[0]);
    free(buf[1]);
    agent_loop_close(&a);
}

/* The agent loop's own work with every request granted at once and no message (calibrate's t_agent,
 * model/lock_model.h): per request the same preparation and clock reads as acquire_locks, and the
 * end's contact bookkeeping. The workload's draw of the next transaction and each request's
 * statistics are done but not timed: the real loop does them while a message travels
 * (prefetch_next, acquire_locks), so that they add nothing to a transaction's time. */
double lock_agent_own_work(const lock_opts *o, const lock_roles *roles, struct lock_workload *wl, int txns)
{
    lock_run run = {.o = o, .roles = roles};
    agent_stats st = {0};
    uint64_t hist[LAT_BUCKETS] = {0};
    agent_loop a;
    rmb_fast_clock_init(); /* the clock of a lock run's agents (lock_run_role) */
    agent_txn *t = malloc(sizeof *t);
    double per = -1, timed = 0, dt[LOCK_TXN_MAX];
    int server[LOCK_TXN_MAX];
    if (agent_loop_open(&a, &run, &st, hist, NULL) && t) {
        const lock_msg granted = {.granted = 1};
        int done = 0;
        for (uint32_t local = 0; (int)local < txns; local++) {
            if (!next_txn(&a, wl, local, t)) break;
            const double t0 = rmb_fast_now();
            for (int i = 0; i < t->n; i++) {
                lock_msg m;
                request_prepare(&a, t, i, &m, &server[i]);
                double tr = rmb_fast_now();
                __asm__ volatile("" : : "r"(&m) : "memory"); /* the message is built, as for notify_send */
                dt[i] = rmb_fast_now() - tr;
            }
            forget_contacts(&a, t);
            timed += rmb_fast_now() - t0;
            for (int i = 0; i < t->n; i++) request_record(&a, server[i], dt[i], &granted);
            st.committed++;
            done++;
        }
        per = done > 0 ? timed / done : -1;
    }
    free(t);
    agent_loop_close(&a);
    return per;
}
