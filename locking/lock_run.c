#include "locking/lock_run.h"

#include "bench/fastclock.h"
#include "locking/rdmo_link.h"
#include "locking/twopc.h"
#include "locking/workloads/tpcc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lock_run_open(lock_run *run, const bench_ctx *ctx, const lock_opts *o, const lock_roles *roles,
                   const lock_plan *plan, notify_ep *ep, rma_window *data, lock_workload *wl)
{
    bool shm = notify_shm_resolve((notify_shm_mode)o->notify_shm);
    const bool rdmo = o->transport == LOCK_TRANSPORT_RDMO;
    if (!rdmo)
        notify_open(ep, ctx->comm, (notify_transport)o->transport, (notify_poll_mode)o->notify_poll, shm,
                    roles->i_am_server ? plan->server_slots : plan->agent_slots, plan->msg_bytes, ctx->poll_yield);
    *run = (lock_run){.ctx = ctx, .o = o, .roles = roles, .ep = rdmo ? NULL : ep, .data_win = MPI_WIN_NULL,
                      .poll = rdmo ? NOTIFY_POLL_AUTO : ep->poll, .agent_comm = MPI_COMM_NULL};
    if (o->transport != LOCK_TRANSPORT_RMA) run->poll = notify_poll_resolve((notify_poll_mode)o->notify_poll);
    if (rdmo) lock_rdmo_open(run, lock_rdmo_calls(roles->nservers, plan->max_locks_per_txn));
    peer_words_open(&run->votes, ctx->comm, TWOPC_WORDS, (notify_poll_mode)o->notify_poll, shm);
    const wl_data data_kind = lock_workload_of(o)->data;
    if (data_kind == WL_DATA_BALANCES) {
        uint64_t range = lock_server_range(roles);
        rma_window_alloc(data, range * sizeof(int64_t), WIN_ALLOCATE, ctx->comm);
        run->data_win = data->win;
        run->data_base = data->base;
        run->data_mem = data->base;
        for (uint64_t i = 0; i < range; i++) run->data_base[i] = BANK_INITIAL_BALANCE;
        rma_window_lock_all(data);
        MPI_CHECK(ctx->rank, MPI_Win_sync(data->win));
        /* rdmo: the balances come with the grants and go with the ends (locking/rdmo_link.h) */
        if (rdmo && !roles->i_am_server) run->rows = malloc((size_t)LOCK_TXN_MAX * TPCC_ROW_STRIDE);
        if (rdmo && !roles->i_am_server && !run->rows) {
            fprintf(stderr, "rmabench: rank %d: out of memory for the balances\n", ctx->rank);
            MPI_Abort(ctx->comm, 3);
        }
    } else if (data_kind == WL_DATA_ROWS) {
        /* the row images the agents read and write under their locks (tpcc.h: a bounded arena per server) */
        rma_window_alloc(data, roles->i_am_server ? (uint64_t)TPCC_ROW_SLOTS * TPCC_ROW_STRIDE : 0, WIN_ALLOCATE, ctx->comm);
        run->data_win = data->win;
        run->data_mem = data->base;
        if (roles->i_am_server) memset(data->base, 0, (size_t)TPCC_ROW_SLOTS * TPCC_ROW_STRIDE);
        else run->rows = malloc((size_t)LOCK_TXN_MAX * TPCC_ROW_STRIDE);
        if (!roles->i_am_server && !run->rows) {
            fprintf(stderr, "rmabench: rank %d: out of memory for the tpcc row images\n", ctx->rank);
            MPI_Abort(ctx->comm, 3);
        }
        rma_window_lock_all(data);
        MPI_CHECK(ctx->rank, MPI_Win_sync(data->win));
    }
    MPI_CHECK(ctx->rank, MPI_Comm_split(ctx->comm, roles->i_am_server, ctx->rank, &run->agent_comm));

    char err[512];
    int bad = 0, any_bad = 0;
    wl->desc = lock_workload_of(o);
    wl->state = NULL;
    if (!roles->i_am_server) {
        wl->state = wl->desc->open(o, roles, roles->my_index, err, sizeof err);
        if (!wl->state) {
            fprintf(stderr, "rmabench: %s\n", err);
            bad = 1;
        }
    }
    MPI_CHECK(ctx->rank, MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, ctx->comm));
    if (any_bad) {
        MPI_Finalize();
        exit(2);
    }
}

void lock_run_close(lock_run *run, rma_window *data, lock_workload *wl)
{
    if (wl->state) wl->desc->close(wl->state);
    wl->state = NULL;
    /* windows and mailboxes go before the numa report, so that their placement checks count */
    if (run->data_win != MPI_WIN_NULL) rma_window_free(data);
    free(run->rows);
    run->rows = NULL;
    if (run->rdmo) lock_rdmo_close(run);
    else notify_close(run->ep);
    peer_words_close(&run->votes);
    MPI_Comm_free(&run->agent_comm);
}

void lock_run_role(lock_run *run, lock_workload *wl, agent_stats *ast, server_stats *sst, uint64_t *rtt_hist,
                   int64_t *bank_delta)
{
    memset(ast, 0, sizeof *ast);
    memset(sst, 0, sizeof *sst);
    rmb_fast_clock_init(); /* the agents' and servers' clock (bench/fastclock.h), before the start */
    MPI_CHECK(run->ctx->rank, MPI_Barrier(run->ctx->comm));
    if (run->roles->i_am_server) lock_server_run(run, sst);
    else lock_agent_run(run, wl, ast, rtt_hist, bank_delta);
    /* an agent done early waits here for the slowest one's transactions (with
     * --transactions-per-agent, minutes at scale): not under the wait bound, whose watchdog would
     * end a healthy run; an agent that stopped is the servers' to report (their idle bound) */
    blocking_begin(NULL, -1);
    MPI_CHECK(run->ctx->rank, MPI_Barrier(run->ctx->comm));
    blocking_end();
}

/* bank: every account moved exactly by its committed transfers; the sum of balances on rank 0 */
static void reduce_bank(lock_run *run, const int64_t *bank_delta, lock_totals *tot)
{
    const bench_ctx *ctx = run->ctx;
    const lock_roles *roles = run->roles;
    int64_t accounts = run->o->accounts;
    int64_t *total = calloc((size_t)accounts, sizeof *total), sum = 0;
    uint64_t wrong = 0;
    MPI_CHECK(ctx->rank, MPI_Allreduce(bank_delta, total, (int)accounts, MPI_INT64_T, MPI_SUM, ctx->comm));
    if (roles->i_am_server) {
        MPI_CHECK(ctx->rank, MPI_Win_sync(run->data_win));
        uint64_t lo = lock_range_lo(roles, roles->my_index), range = lock_server_range(roles);
        for (uint64_t i = 0; i < range; i++) {
            sum += run->data_base[i];
            if (run->data_base[i] != BANK_INITIAL_BALANCE + total[lo + i] && wrong++ < 3)
                fprintf(stderr, "rmabench: rank %d: account %" PRIu64 " holds %" PRId64 ", committed transfers say %" PRId64 "\n",
                        ctx->rank, lo + i, run->data_base[i], BANK_INITIAL_BALANCE + total[lo + i]);
        }
    }
    MPI_CHECK(ctx->rank, MPI_Reduce(&wrong, &tot->bank_accounts_wrong, 1, MPI_UINT64_T, MPI_SUM, 0, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Reduce(&sum, &tot->bank_sum, 1, MPI_INT64_T, MPI_SUM, 0, ctx->comm));
    free(total);
}

/* Counters that are all uint64_t are summed as arrays (checked at compile time). */
#define U64_FIELDS(type) ((int)(sizeof(type) / sizeof(uint64_t)))
_Static_assert(sizeof(lt_stats) % sizeof(uint64_t) == 0, "lt_stats: uint64_t counters only");
_Static_assert(sizeof(oracle_stats) % sizeof(uint64_t) == 0, "oracle_stats: uint64_t counters only");

static void reduce_servers(const bench_ctx *ctx, const server_stats *sst, server_stats *s)
{
    enum { NU_SERVER = 7 };
    uint64_t su[NU_SERVER] = {sst->messages, sst->votes_yes, sst->votes_no, sst->ends, sst->active_locks_end,
                              sst->active_txns_end, sst->ends_with_request};
    uint64_t sus[NU_SERVER];
    MPI_CHECK(ctx->rank, MPI_Reduce(su, sus, NU_SERVER, MPI_UINT64_T, MPI_SUM, 0, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Reduce(&sst->lt, &s->lt, U64_FIELDS(lt_stats), MPI_UINT64_T, MPI_SUM, 0, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Reduce(&sst->oracle, &s->oracle, U64_FIELDS(oracle_stats), MPI_UINT64_T, MPI_SUM, 0,
                                    ctx->comm));
    /* every server checks the same table: the pairs that disagree, not their sum over servers */
    uint64_t mismatches = 0;
    MPI_CHECK(ctx->rank, MPI_Reduce(&sst->oracle.table_mismatches, &mismatches, 1, MPI_UINT64_T, MPI_MAX, 0, ctx->comm));
    s->oracle.table_mismatches = mismatches;
    s->messages = sus[0];
    s->votes_yes = sus[1];
    s->votes_no = sus[2];
    s->ends = sus[3];
    s->active_locks_end = sus[4];
    s->active_txns_end = sus[5];
    s->ends_with_request = sus[6];
}

void lock_run_reduce(lock_run *run, const agent_stats *ast, const server_stats *sst, const uint64_t *rtt_hist,
                     const int64_t *bank_delta, lock_totals *tot)
{
    const bench_ctx *ctx = run->ctx;
    memset(tot, 0, sizeof *tot);
    enum { NU_AGENT = 8, ND_AGENT = 8 };
    uint64_t au[NU_AGENT] = {ast->committed, ast->aborted, ast->lock_requests, ast->remote_requests, ast->refused,
                             ast->twopc, ast->votes_no, ast->commits_against_vote};
    double ad[ND_AGENT] = {ast->t_lock, ast->t_data, ast->t_vote, ast->t_end, ast->t_req_total, ast->t_req_queue,
                           ast->t_req_server, ast->elapsed};
    uint64_t aus[NU_AGENT];
    double ads[ND_AGENT];
    MPI_CHECK(ctx->rank, MPI_Reduce(au, aus, NU_AGENT, MPI_UINT64_T, MPI_SUM, 0, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Reduce(ad, ads, ND_AGENT, MPI_DOUBLE, MPI_SUM, 0, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Reduce(&ast->elapsed, &tot->elapsed, 1, MPI_DOUBLE, MPI_MAX, 0, ctx->comm));
    tot->rtt_hist = calloc(LAT_BUCKETS, sizeof *tot->rtt_hist);
    MPI_CHECK(ctx->rank, MPI_Reduce(rtt_hist, tot->rtt_hist, LAT_BUCKETS, MPI_UINT64_T, MPI_SUM, 0, ctx->comm));
    tot->agents = (agent_stats){aus[0], aus[1], aus[2], aus[3], aus[4], aus[5], aus[6], aus[7],
                                ads[0], ads[1], ads[2], ads[3], ads[4], ads[5], ads[6], ads[7], {0}, {0}, 0, 0, 0, 0};
    /* per-type commits and aborts, 2PC participants, data bytes: summed; the most participants: max */
    enum { NT = LOCK_TXN_TYPES };
    uint64_t xu[2 * NT + 3], xus[2 * NT + 3];
    for (int i = 0; i < NT; i++) {
        xu[i] = ast->committed_type[i];
        xu[NT + i] = ast->aborted_type[i];
    }
    xu[2 * NT] = ast->twopc_participants;
    xu[2 * NT + 1] = ast->data_bytes_read;
    xu[2 * NT + 2] = ast->data_bytes_written;
    MPI_CHECK(ctx->rank, MPI_Reduce(xu, xus, 2 * NT + 3, MPI_UINT64_T, MPI_SUM, 0, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Reduce(&ast->twopc_participants_max, &tot->agents.twopc_participants_max, 1, MPI_UINT64_T,
                                    MPI_MAX, 0, ctx->comm));
    for (int i = 0; i < NT; i++) {
        tot->agents.committed_type[i] = xus[i];
        tot->agents.aborted_type[i] = xus[NT + i];
    }
    tot->agents.twopc_participants = xus[2 * NT];
    tot->agents.data_bytes_read = xus[2 * NT + 1];
    tot->agents.data_bytes_written = xus[2 * NT + 2];
    reduce_servers(ctx, sst, &tot->servers);
    if (lock_workload_of(run->o)->data == WL_DATA_BALANCES) reduce_bank(run, bank_delta, tot);
}

void lock_totals_free(lock_totals *tot)
{
    free(tot->rtt_hist);
    tot->rtt_hist = NULL;
}
