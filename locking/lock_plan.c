#include "locking/lock_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locking/rdmo_link.h"
#include "locking/twopc.h"
#include "locking/workloads/registry.h"
#include "locking/workloads/tpcc.h"

void lock_plan_placement(bench_ctx *ctx, int ranks, int ranks_per_host)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->size = ranks;
    ctx->ranks_per_host = ranks_per_host < ranks ? ranks_per_host : ranks;
    ctx->hosts = (ranks + ctx->ranks_per_host - 1) / ctx->ranks_per_host;
    ctx->rank_host = malloc(sizeof(int) * (size_t)(ranks > 0 ? ranks : 1));
    if (!ctx->rank_host) abort();
    for (int q = 0; q < ranks; q++) ctx->rank_host[q] = q / ctx->ranks_per_host;
}

void lock_plan_placement_free(bench_ctx *ctx)
{
    free(ctx->rank_host);
    ctx->rank_host = NULL;
}

const char *lock_plan_memory_flag(const lock_opts *o)
{
    const char *flag = lock_workload_of(o)->memory_flag;
    return flag ? flag : "--servers";
}

/* Most locks one transaction of the workload takes. */
static int max_locks_per_txn(const lock_opts *o)
{
    const wl_desc *d = lock_workload_of(o);
    return d->max_locks ? d->max_locks(o) : LOCK_TXN_MAX;
}

/* The servers' data window and what every rank holds of the workload's data (registry.h: wl_data). */
static void data_bytes(lock_plan *p, const lock_opts *o)
{
    switch (lock_workload_of(o)->data) {
    case WL_DATA_BALANCES:
        p->server_data = p->range_max * sizeof(int64_t);
        p->rank_data = 2 * (uint64_t)o->accounts * sizeof(int64_t); /* the agent's sums, their reduction */
        break;
    case WL_DATA_ROWS:
        /* the servers' row images; an agent's images of one transaction (counted on every rank) */
        p->server_data = (uint64_t)TPCC_ROW_SLOTS * TPCC_ROW_STRIDE;
        p->rank_data = (uint64_t)LOCK_TXN_MAX * TPCC_ROW_STRIDE;
        break;
    case WL_DATA_NONE: break;
    }
}

/* Servers and agents per host: the fewest and the most, and the host needing the most memory. */
static void per_host(lock_plan *p, const lock_roles *r, const bench_ctx *ctx)
{
    int *servers = calloc((size_t)ctx->hosts, sizeof(int)), *agents = calloc((size_t)ctx->hosts, sizeof(int));
    if (!servers || !agents) abort();
    for (int q = 0; q < ctx->size; q++) (r->is_server[q] ? servers : agents)[ctx->rank_host[q]]++;
    p->servers_per_host_min = p->agents_per_host_min = ctx->size;
    for (int h = 0; h < ctx->hosts; h++) {
        if (servers[h] < p->servers_per_host_min) p->servers_per_host_min = servers[h];
        if (servers[h] > p->servers_per_host_max) p->servers_per_host_max = servers[h];
        if (agents[h] < p->agents_per_host_min) p->agents_per_host_min = agents[h];
        if (agents[h] > p->agents_per_host_max) p->agents_per_host_max = agents[h];
        uint64_t host = (uint64_t)servers[h] * p->server_bytes + (uint64_t)agents[h] * p->agent_bytes;
        if (host > p->host_max) p->host_max = host;
    }
    free(servers);
    free(agents);
}

/* Mailboxes: every agent owns a slot at every server; a server answers an agent in its one slot. */
static void mailboxes(lock_plan *p, const lock_opts *o)
{
    notify_transport t = (notify_transport)o->transport;
    p->msg_bytes = (int)sizeof(lock_msg);
    p->server_slots = p->nagents;
    p->agent_slots = 1;
    /* the shared mailbox within a host, the RMA one across hosts: the most a rank of this placement allocates */
    int windows = notify_mailbox_windows(notify_shm_resolve((notify_shm_mode)o->notify_shm), p->hosts, p->ranks_per_host);
    if (o->notify_shm == NOTIFY_SHM_AUTO) { /* chosen by a measurement at run time (rma/notify_pick.h): the larger */
        int other = notify_mailbox_windows(!notify_shm_resolve(NOTIFY_SHM_AUTO), p->hosts, p->ranks_per_host);
        if (other > windows) windows = other;
    }
    p->server_mailbox = notify_mailbox_bytes(t, p->server_slots, p->server_slots, p->msg_bytes, windows);
    p->agent_mailbox = notify_mailbox_bytes(t, p->agent_slots, p->server_slots, p->msg_bytes, windows);
    p->server_mailbox_aux = notify_mailbox_aux_bytes(t, p->server_slots);
    p->agent_mailbox_aux = notify_mailbox_aux_bytes(t, p->agent_slots);
    p->vote_window = peer_words_bytes(TWOPC_WORDS, windows); /* lock_run_open */
    if (o->transport == LOCK_TRANSPORT_RDMO) { /* locking/rdmo_link.h: a request slot per rank at a server */
        rdmo_space sp;
        lock_rdmo_space(&sp);
        const int calls = lock_rdmo_calls(p->nservers, p->max_locks_per_txn);
        rdmo_config s = lock_rdmo_config(o, true, calls, false), a = lock_rdmo_config(o, false, calls, false);
        p->msg_bytes = LOCK_RDMO_SLOT_BYTES;
        p->agent_slots = calls;
        s.queue_depth = p->nagents;
        p->server_mailbox = rdmo_window_bytes(&s, &sp, p->ranks);
        p->agent_mailbox = rdmo_window_bytes(&a, &sp, p->ranks);
        p->server_mailbox_aux = rdmo_aux_bytes(&s, p->ranks) + (uint64_t)p->nagents * (sizeof(rdmo_token) + 4);
        p->agent_mailbox_aux = rdmo_aux_bytes(&a, p->ranks) + (uint64_t)p->nservers * sizeof(int);
    }
}

static void memory(lock_plan *p, const lock_opts *o)
{
    uint64_t per_pair = lt_bytes_per_lock() + (o->check ? lock_oracle_bytes_per_lock() : 0);
    p->table_pairs_max = (uint64_t)p->nagents * (uint64_t)p->max_locks_per_txn;
    p->server_table = p->table_pairs_max * per_pair;
    p->server_per_agent = lock_server_bytes_per_agent();
    p->agent_per_server = lock_agent_bytes_per_server();
    /* role_index, is_server and the context's rank_host per rank; server_rank and agent_rank */
    p->roles = (uint64_t)p->ranks * (2 * sizeof(int) + sizeof(bool)) + (uint64_t)p->ranks * sizeof(int);
    p->histograms = 2 * (uint64_t)LAT_BUCKETS * sizeof(uint64_t);
    data_bytes(p, o);
    uint64_t every = p->vote_window + p->roles + p->histograms + p->rank_data;
    p->server_bytes = every + p->server_mailbox + p->server_mailbox_aux + p->server_table +
                      (uint64_t)p->nagents * p->server_per_agent + p->server_data;
    p->agent_bytes = every + p->agent_mailbox + p->agent_mailbox_aux + (uint64_t)p->nservers * p->agent_per_server +
                     (uint64_t)LOCK_TXN_MAX * sizeof(lock_request);
    p->rank_max = p->server_bytes > p->agent_bytes ? p->server_bytes : p->agent_bytes;
    uint64_t server_rest = p->server_bytes - p->server_data - p->rank_data, agent_rest = p->agent_bytes - p->rank_data;
    p->rank_beyond_data = server_rest > agent_rest ? server_rest : agent_rest;
}

int lock_plan_make(lock_plan *p, lock_roles *roles, const lock_opts *o, const bench_ctx *ctx, char *err,
                   size_t errlen)
{
    memset(p, 0, sizeof *p);
    memset(roles, 0, sizeof *roles);
    if (ctx->size < 2) {
        snprintf(err, errlen, "lock: needs at least 2 ranks (one lock server and one agent)");
        return 2;
    }
    int nservers = o->servers ? (int)o->servers : ctx->size / 2;
    if (nservers >= ctx->size) {
        snprintf(err, errlen, "--servers: %d of %d ranks leaves no transaction agent", nservers, ctx->size);
        return 2;
    }
    lock_roles_init(roles, ctx, nservers);
    roles->lock_space = lock_workload_of(o)->lock_space(o, roles, err, errlen);
    if (roles->lock_space == 0) {
        lock_roles_free(roles);
        memset(roles, 0, sizeof *roles);
        return 2;
    }
    p->ranks = ctx->size;
    p->hosts = ctx->hosts;
    p->ranks_per_host = ctx->ranks_per_host;
    p->nservers = roles->nservers;
    p->nagents = roles->nagents;
    p->lock_space = roles->lock_space;
    for (int s = 0; s < nservers; s++) {
        uint64_t range = lock_range_lo(roles, s + 1) - lock_range_lo(roles, s);
        if (range > p->range_max) p->range_max = range;
    }
    p->max_locks_per_txn = max_locks_per_txn(o);
    mailboxes(p, o);
    memory(p, o);
    per_host(p, roles, ctx);
    return 0;
}
