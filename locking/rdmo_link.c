#include "locking/rdmo_link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locking/workloads/registry.h"
#include "locking/workloads/tpcc.h"
#include "rma/notify.h"

const char *const lock_transport_names[] = {"rma", "msg", "rdmo", NULL};

enum { HEAD = (int)sizeof(lock_msg) + 6, ITEM = 10 }; /* message, read size, rows; per row: id, bytes */

rdmo_config lock_rdmo_config(const lock_opts *o, bool server, int calls, bool yield)
{
    return (rdmo_config){
        .design = RDMO_DESIGN_RDMO,
        .handler = RDMO_HANDLER_POLL,
        .poll = notify_poll_resolve((notify_poll_mode)o->notify_poll),
        .slot_bytes = LOCK_RDMO_SLOT_BYTES,
        .queue_depth = 1, /* the server holds no request: each is answered or waits in the lock table */
        .tries = 1,
        .gather_bound = 1,
        .wait_bound_s = (double)o->wait_bound_s + o->lock_timeout, /* a lock answer may wait in a waiting group */
        .serve = server,
        .yield = yield,
        .calls = calls,
    };
}

int lock_rdmo_calls(int nservers, int max_locks_per_txn) { return nservers < max_locks_per_txn ? nservers : max_locks_per_txn; }

void lock_rdmo_space(rdmo_space *s)
{
    rdmo_space_init(s);
    rdmo_space_add_custom(s);
}

void lock_rdmo_open(lock_run *run, int calls)
{
    rdmo_space sp;
    lock_rdmo_space(&sp);
    const bool server = run->roles->i_am_server;
    rdmo_config cfg = lock_rdmo_config(run->o, server, calls, run->ctx->poll_yield);
    /* a server holds every agent's request that waits in its lock table */
    if (server) cfg.queue_depth = run->roles->nagents;
    run->rdmo = rdmo_open(run->ctx->comm, &cfg, &sp);
    run->rdmo_obj = sp.obj[0].id;
    if (server) {
        run->tokens = calloc((size_t)run->roles->nagents, sizeof *run->tokens);
        run->reads = calloc((size_t)run->roles->nagents, sizeof *run->reads);
        if (!run->tokens || !run->reads) {
            fprintf(stderr, "rmabench: rank %d: out of memory for the agents' tokens\n", run->ctx->rank);
            MPI_Abort(run->ctx->comm, 3);
        }
    }
}

void lock_rdmo_close(lock_run *run)
{
    rdmo_close(run->rdmo);
    run->rdmo = NULL;
    free(run->tokens);
    free(run->reads);
    run->tokens = NULL;
    run->reads = NULL;
}

unsigned lock_rdmo_read_bytes(const lock_run *run, const lock_request *r)
{
    if (lock_workload_of(run->o)->data == WL_DATA_BALANCES) return sizeof(int64_t);
    if (lock_workload_of(run->o)->data == WL_DATA_ROWS && (r->mode == LOCK_S || r->mode == LOCK_X)) return tpcc_row_bytes(r->lock_id);
    return 0;
}

/* The bytes of lock id's row on its server: a bank balance or a TPC-C row image. */
static unsigned row_bytes_of(const lock_run *run, uint64_t lock_id)
{
    const wl_data d = lock_workload_of(run->o)->data;
    return d == WL_DATA_BALANCES ? sizeof(int64_t) : d == WL_DATA_ROWS ? tpcc_row_bytes(lock_id) : 0;
}

/* Rows of w on `server` from *next on into out (at most cap bytes): returns the bytes, advances *next
 * past what fitted, counts them in *rows. */
static int pack_rows(const lock_run *run, const lock_rdmo_writes *w, int server, int *next, unsigned char *out, int cap,
                     uint16_t *rows, uint64_t *written)
{
    int used = 0;
    for (; w && *next < w->n; ++*next) {
        const int i = *next;
        if (!w->staged[i] || lock_server_of(run->roles, w->reqs[i].lock_id) != server) continue;
        const uint16_t bytes = (uint16_t)row_bytes_of(run, w->reqs[i].lock_id);
        if (used + ITEM + bytes > cap) break;
        memcpy(out + used, &w->reqs[i].lock_id, 8);
        memcpy(out + used + 8, &bytes, 2);
        memcpy(out + used + ITEM, run->rows + (size_t)i * TPCC_ROW_STRIDE, bytes);
        used += ITEM + bytes;
        ++*rows;
        if (written) *written += bytes;
    }
    return used;
}

int lock_rdmo_send(lock_run *run, int server_rank, const lock_msg *m, unsigned read_bytes, const lock_rdmo_writes *w,
                   uint64_t *written)
{
    unsigned char req[LOCK_RDMO_SLOT_BYTES];
    const int cap = rdmo_payload_capacity(&(rdmo_config){.slot_bytes = LOCK_RDMO_SLOT_BYTES}) - HEAD;
    const int server = run->roles->role_index[server_rank];
    int next = 0;
    for (;;) {
        uint16_t rows = 0;
        const int at = next;
        const int used = pack_rows(run, w, server, &next, req + HEAD, cap, &rows, written);
        bool more = false; /* rows left for this server: this request is only a write */
        for (int i = next; w && i < w->n && !more; i++)
            more = w->staged[i] && lock_server_of(run->roles, w->reqs[i].lock_id) == server;
        lock_msg head = *m;
        const uint32_t rb = more ? 0 : read_bytes;
        if (more) head.type = MSG_WRITE;
        memcpy(req, &head, sizeof head);
        memcpy(req + sizeof head, &rb, 4);
        memcpy(req + sizeof head + 4, &rows, 2);
        const int call = rdmo_start(run->rdmo, server_rank, run->rdmo_obj, LOCK_RDMO_METHOD, req, HEAD + used);
        if (!more) return call;
        if (next == at) { /* one row larger than a request: cannot happen with the workloads' rows */
            fprintf(stderr, "rmabench: rank %d: a row larger than an RDMO request\n", run->ctx->rank);
            MPI_Abort(run->ctx->comm, 3);
        }
        lock_rdmo_wait(run, call, NULL, NULL, 0);
    }
}

void lock_rdmo_wait(lock_run *run, int call, lock_msg *resp, unsigned char *row, unsigned row_cap)
{
    unsigned char ans[sizeof(lock_msg) + TPCC_ROW_STRIDE];
    int len = 0;
    const int st = rdmo_wait(run->rdmo, call, ans, &len, (int)sizeof ans);
    if (st != RDMO_OK || (resp && len < (int)sizeof *resp)) {
        fprintf(stderr, "rmabench: rank %d: the lock server answered '%s' (%d bytes)\n", run->ctx->rank,
                st < RDMO_STATUSES ? rdmo_status_names[st] : "?", len);
        MPI_Abort(run->ctx->comm, 3);
    }
    if (!resp) return;
    memcpy(resp, ans, sizeof *resp);
    const int got = len - (int)sizeof *resp;
    if (row && got > 0) memcpy(row, ans + sizeof *resp, (size_t)(got < (int)row_cap ? got : (int)row_cap));
}

/* Where lock id's row lives on this server. */
static unsigned char *row_at(lock_run *run, uint64_t lock_id)
{
    const uint64_t x = lock_id - lock_range_lo(run->roles, run->roles->my_index);
    if (lock_workload_of(run->o)->data == WL_DATA_BALANCES) return (unsigned char *)(run->data_base + x);
    return run->data_mem + x % TPCC_ROW_SLOTS * TPCC_ROW_STRIDE;
}

_Noreturn static void malformed(lock_run *run, int origin)
{
    fprintf(stderr, "rmabench: rank %d: a malformed lock request from rank %d\n", run->ctx->rank, origin);
    MPI_Abort(run->ctx->comm, 3);
    exit(3);
}

bool lock_rdmo_take(lock_run *run, const rdmo_token *t, const unsigned char *req, int len, lock_msg *m)
{
    uint32_t rb;
    uint16_t rows;
    if (len < HEAD) malformed(run, t->origin);
    memcpy(m, req, sizeof *m);
    memcpy(&rb, req + sizeof *m, 4);
    memcpy(&rows, req + sizeof *m + 4, 2);
    if (m->agent >= (uint32_t)run->roles->nagents) malformed(run, t->origin);
    run->tokens[m->agent] = *t;
    run->reads[m->agent] = rb;
    const uint64_t lo = lock_range_lo(run->roles, run->roles->my_index), hi = lo + lock_server_range(run->roles);
    int at = HEAD;
    for (uint16_t r = 0; r < rows; r++) {
        uint64_t id;
        uint16_t bytes;
        if (at + ITEM > len) malformed(run, t->origin);
        memcpy(&id, req + at, 8);
        memcpy(&bytes, req + at + 8, 2);
        if (id < lo || id >= hi || bytes != row_bytes_of(run, id) || at + ITEM + bytes > len) malformed(run, t->origin);
        memcpy(row_at(run, id), req + at + ITEM, bytes);
        at += ITEM + bytes;
    }
    if (m->type != MSG_WRITE) return true;
    lock_rdmo_ack(run, m->agent);
    return false;
}

void lock_rdmo_answer(lock_run *run, uint32_t agent, const lock_msg *resp)
{
    unsigned char ans[sizeof *resp + TPCC_ROW_STRIDE];
    memcpy(ans, resp, sizeof *resp);
    unsigned n = 0;
    if (resp->granted && run->reads[agent]) {
        n = row_bytes_of(run, resp->lock_id);
        memcpy(ans + sizeof *resp, row_at(run, resp->lock_id), n);
    }
    run->reads[agent] = 0;
    rdmo_answer(run->rdmo, &run->tokens[agent], RDMO_OK, ans, (int)(sizeof *resp + n));
}

void lock_rdmo_ack(lock_run *run, uint32_t agent) { rdmo_answer(run->rdmo, &run->tokens[agent], RDMO_OK, NULL, 0); }
