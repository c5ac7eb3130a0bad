/* The rounds of composite remote operations' designs (model/rdmo_model.h), between rank 0 and the
 * next rank of its host (_local) and the first rank of another host (_remote), while every other
 * rank waits:
 *   t_rma_<kind>_* one RMA operation and the MPI_Win_flush that completes it, per kind of the verbs
 *                  design: 32-bit MPI_Compare_and_swap, MPI_Fetch_and_op, an 8-byte MPI_Get, a 64-byte
 *                  MPI_Put, an 8-byte MPI_Accumulate(MPI_REPLACE);
 *   t_rma_op_*     one more operation of that mix (the kinds in turn) in a round that ends in one
 *                  flush: rounds of 1 and of 16 operations, alternated, (t16 - t1) / 15;
 *   t_rdmo_call_*  an rdmo_call of an empty method (rdmo design: one notified put there, one back;
 *                  the peer's poll handler serving);
 *   t_rpc_call_*   the same call over the rpc design;
 *   t_rdmo_word_*, t_rpc_word_*  what a call with BIG bytes of request and of answer takes beyond the
 *                  empty one, per 8 bytes.
 * Each is the median over ROUNDS rounds of a round's median operation (as rmabench rdmo reports
 * an operation's median latency: a mean would take every descheduling of a busy machine with it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/fastclock.h"
#include "bench/stats.h"
#include "cmd/calibrate/calibrate.h"
#include "rdmo/ep.h" /* rdmo_idle: the targets' backoff */
#include "rma/notify.h"
#include "rma/window.h"

enum { ROUNDS = 5, CALLS = 400, CALLS_REMOTE = 40, GETS = 16, BIG = 880 }; /* BIG: a 1024-byte slot holds 888 bytes of payload */

/* Every rank but the measuring one: drive MPI's progress until rank 0 says the round is over, as a
 * verbs target of rmabench rdmo does in rdmo_quiesce (spinning on a core of its own, else yielding
 * and sleeping): between hosts every round trip waits for the target's next MPI call. */
static void round_end(const bench_ctx *ctx, MPI_Win win)
{
    MPI_Request r;
    MPI_CHECK(ctx->rank, MPI_Ibarrier(ctx->comm, &r));
    int done = 0;
    unsigned idle = 0;
    while (!done) {
        int flag;
        MPI_CHECK(ctx->rank, MPI_Test(&r, &done, MPI_STATUS_IGNORE));
        MPI_CHECK(ctx->rank, MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ctx->comm, &flag, MPI_STATUS_IGNORE));
        if (win != MPI_WIN_NULL) MPI_CHECK(ctx->rank, MPI_Win_sync(win));
        if (!done && ctx->poll_yield) rdmo_idle(&idle, true);
    }
}

/* Operation i of the verbs design's mix into the peer's window (64-byte slots, i's own). */
static void mixed(MPI_Win win, int peer, int i, uint64_t *buf)
{
    const MPI_Aint at = 64 * (MPI_Aint)(i % GETS);
    const uint32_t one = 1, zero = 0;
    switch (i % 5) {
    case 0: MPI_CHECK(0, MPI_Compare_and_swap(&one, &zero, (uint32_t *)(void *)buf, MPI_UINT32_T, peer, at, win)); break;
    case 1: MPI_CHECK(0, MPI_Fetch_and_op(&one, buf, MPI_UINT32_T, peer, at, MPI_SUM, win)); break;
    case 2: MPI_CHECK(0, MPI_Get(buf, 1, MPI_UINT64_T, peer, at, 1, MPI_UINT64_T, win)); break;
    case 3: MPI_CHECK(0, MPI_Put(buf + 1, 8, MPI_UINT64_T, peer, at, 8, MPI_UINT64_T, win)); break;
    default: MPI_CHECK(0, MPI_Accumulate(buf + 1, 1, MPI_UINT64_T, peer, at + 8, 1, MPI_UINT64_T, MPI_REPLACE, win));
    }
}

/* The median seconds of a round of k operations to peer and one flush, over iters rounds (rank 0;
 * 0 elsewhere): the kinds in turn from `kind`, or only `kind` when one is true. */
static double rounds(const bench_ctx *ctx, MPI_Win win, int peer, int k, int iters, int kind, bool one)
{
    double per = 0, t[CALLS];
    MPI_Barrier(ctx->comm);
    if (ctx->rank == 0) {
        uint64_t buf[GETS][16] = {{0}};
        for (int i = 0; i < iters; i++) {
            const double t0 = rmb_fast_now();
            for (int j = 0; j < k; j++) mixed(win, peer, one ? kind + 5 * j : kind + i * k + j, buf[j]);
            MPI_CHECK(0, MPI_Win_flush(peer, win));
            t[i] = rmb_fast_now() - t0;
        }
        per = stats_median(t, iters);
    }
    round_end(ctx, win);
    return per;
}

static void rma_op(const bench_ctx *ctx, int peer, int iters, const int *rt, int op, model_params *p)
{
    MPI_Win win;
    rma_locked_window_open(ctx->comm, ctx->rank, 64 * GETS, MPI_INFO_NULL, false, &win);
    double t[6][ROUNDS];
    for (int r = 0; r < ROUNDS; r++) { /* the kinds and the mix alternated within every round */
        for (int k = 0; k < 5; k++) t[k][r] = rounds(ctx, win, peer, 1, iters, k, true);
        const double one = rounds(ctx, win, peer, 1, iters, 0, false), many = rounds(ctx, win, peer, GETS, iters, 0, false);
        t[5][r] = (many - one) / (GETS - 1);
    }
    double v[6];
    for (int k = 0; k < 6; k++) v[k] = stats_median(t[k], ROUNDS);
    MPI_Bcast(v, 6, MPI_DOUBLE, 0, ctx->comm);
    for (int k = 0; k < 5; k++) params_put(p, rt[k], v[k]);
    params_put(p, op, v[5] > 0 ? v[5] : 0);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

/* The calibration's method: answers as many bytes as the request brought. */
static int echo(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans, int *anslen, int cap)
{
    (void)arg, (void)t;
    *anslen = len < cap ? len : cap;
    memcpy(ans, req, (size_t)*anslen);
    return RDMO_OK;
}

/* The median call of `bytes` each way, over ROUNDS rounds of iters calls (rank 0's, broadcast). */
static double call_rounds(const bench_ctx *ctx, rdmo_ep *ep, uint16_t obj, int peer, int iters, int bytes)
{
    static unsigned char req[BIG], ans[BIG];
    double t[ROUNDS], each[CALLS];
    for (int r = 0; r < ROUNDS; r++) {
        MPI_Barrier(ctx->comm);
        for (int i = 0; ctx->rank == 0 && i < iters; i++) {
            const double t0 = rmb_fast_now();
            rdmo_call(ep, peer, obj, RDMO_METHOD_USER, req, bytes, ans, NULL, BIG);
            each[i] = rmb_fast_now() - t0;
        }
        t[r] = ctx->rank == 0 ? stats_median(each, iters) : 0;
        rdmo_quiesce(ep);
    }
    double v = stats_median(t, ROUNDS);
    MPI_Bcast(&v, 1, MPI_DOUBLE, 0, ctx->comm);
    return v;
}

static void calls(const bench_ctx *ctx, int design, int peer, int iters, int which, int word, model_params *p)
{
    rdmo_space sp;
    rdmo_space_init(&sp);
    const uint16_t obj = rdmo_space_add_custom(&sp);
    const rdmo_config cfg = {.design = design, .handler = RDMO_HANDLER_POLL, .poll = notify_poll_resolve(NOTIFY_POLL_AUTO),
                             .slot_bytes = 1024, .queue_depth = 4, .tries = 1, .gather_bound = 1, .wait_bound_s = 60,
                             .serve = ctx->rank == peer, .yield = ctx->poll_yield, .calls = 1};
    rdmo_ep *ep = rdmo_open(ctx->comm, &cfg, &sp);
    rdmo_register(ep, obj, RDMO_METHOD_USER, echo, NULL);
    const double empty = call_rounds(ctx, ep, obj, peer, iters, 0), big = call_rounds(ctx, ep, obj, peer, iters, BIG);
    params_put(p, which, empty);
    params_put(p, word, big > empty ? (big - empty) / (2.0 * BIG / 8) : 0);
    rdmo_close(ep);
}

void calibrate_rdmo(const bench_ctx *ctx, const calibrate_opts *o, model_params *p)
{
    (void)o;
    rmb_fast_clock_init();
    int local = -1, remote = -1;
    for (int r = 1; r < ctx->size; r++) {
        if (ctx->rank_host[r] == ctx->rank_host[0] && local < 0) local = r;
        if (ctx->rank_host[r] != ctx->rank_host[0] && remote < 0) remote = r;
    }
    const int peer[2] = {local, remote};
    const int rt[2][5] = {{MP_t_rma_cas_local, MP_t_rma_fao_local, MP_t_rma_get_local, MP_t_rma_put_local, MP_t_rma_acc_local},
                          {MP_t_rma_cas_remote, MP_t_rma_fao_remote, MP_t_rma_get_remote, MP_t_rma_put_remote, MP_t_rma_acc_remote}};
    const int op[2] = {MP_t_rma_op_local, MP_t_rma_op_remote},
              rdmo[2] = {MP_t_rdmo_call_local, MP_t_rdmo_call_remote}, rpc[2] = {MP_t_rpc_call_local, MP_t_rpc_call_remote},
              rdmo_w[2] = {MP_t_rdmo_word_local, MP_t_rdmo_word_remote}, rpc_w[2] = {MP_t_rpc_word_local, MP_t_rpc_word_remote};
    for (int h = 0; h < 2; h++) {
        if (peer[h] < 0) continue;
        const int iters = h == 0 ? CALLS : CALLS_REMOTE;
        rma_op(ctx, peer[h], iters, rt[h], op[h], p);
        calls(ctx, RDMO_DESIGN_RDMO, peer[h], iters, rdmo[h], rdmo_w[h], p);
        calls(ctx, RDMO_DESIGN_RPC, peer[h], iters, rpc[h], rpc_w[h], p);
    }
}
