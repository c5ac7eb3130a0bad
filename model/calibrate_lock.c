/* Lock-table communication times (thesis 5.3, eq. 5.1 and 5.3):
 *  - t_local_comm / t_remote_comm: half the round trip of a notified put (put, flush, atomic flag
 *    increment, flush) answered the same way, between rank 0 and a rank on its host / another host;
 *    the target polls its flag with MPI_Fetch_and_op(MPI_NO_OP) on its own window, which is what
 *    makes MPICH progress passive-target operations.
 *  - t_vote: MPI_Fetch_and_op(MPI_SUM) + flush round trip to a peer (the 2PC vote).
 *  - t_clean_up: one notified put at the initiator (end of transaction: tell the server, no reply).
 *  - t_queue: 0 (no contention in a micro-benchmark; it is workload-dependent, set it with --set).
 * Ranks other than the pair keep polling too, so that every rank calls MPI while the pair runs. */
#include <string.h>

#include "calibrate.h"
#include "progress.h"
#include "window.h"

enum { FLAG = 0, DONE = 8, PAYLOAD = 64, PAYLOAD_BYTES = 64 };
#define ITERS 200
#define WARMUP 20

typedef struct {
    const bench_ctx *ctx;
    rma_window w;
    int64_t expect;   /* flag value this rank waits for next */
    char payload[PAYLOAD_BYTES];
} lock_bench;

static int64_t read_own(lock_bench *b, int disp)
{
    int64_t v;
    MPI_CHECK(b->ctx->rank, MPI_Fetch_and_op(NULL, &v, MPI_INT64_T, b->ctx->rank, disp, MPI_NO_OP, b->w.win));
    MPI_CHECK(b->ctx->rank, MPI_Win_flush(b->ctx->rank, b->w.win));
    return v;
}

static void notify(lock_bench *b, int peer, int disp)
{
    int64_t one = 1, old;
    MPI_CHECK(b->ctx->rank, MPI_Put(b->payload, PAYLOAD_BYTES, MPI_BYTE, peer, PAYLOAD, PAYLOAD_BYTES, MPI_BYTE, b->w.win));
    MPI_CHECK(b->ctx->rank, MPI_Win_flush(peer, b->w.win));
    MPI_CHECK(b->ctx->rank, MPI_Fetch_and_op(&one, &old, MPI_INT64_T, peer, disp, MPI_SUM, b->w.win));
    MPI_CHECK(b->ctx->rank, MPI_Win_flush(peer, b->w.win));
}

static void wait_flag(lock_bench *b, int peer, const char *what)
{
    poll_bound pb;
    poll_begin(&pb, what, b->ctx->rank, peer, 30.0, b->ctx->oversubscribed);
    while (read_own(b, FLAG) < b->expect)
        if (!poll_continue(&pb)) {
            poll_report_timeout(&pb);
            MPI_Abort(b->ctx->world, 1);
        }
    b->expect++;
}

/* Ranks not driving the round: call MPI until the round is over. */
static void idle_until_done(lock_bench *b, int64_t round)
{
    poll_bound pb;
    poll_begin(&pb, "end of the calibration round", b->ctx->rank, 0, 60.0, true);
    while (read_own(b, DONE) < round)
        if (!poll_continue(&pb)) {
            poll_report_timeout(&pb);
            MPI_Abort(b->ctx->world, 1);
        }
}

/* Ends a round: DONE on every other rank counts the rounds finished. */
static void end_round(lock_bench *b, int a)
{
    int64_t one = 1, old;
    for (int r = 0; r < b->ctx->size; r++)
        if (r != a) {
            MPI_CHECK(b->ctx->rank, MPI_Fetch_and_op(&one, &old, MPI_INT64_T, r, DONE, MPI_SUM, b->w.win));
            MPI_CHECK(b->ctx->rank, MPI_Win_flush(r, b->w.win));
        }
}

/* One round: which = 0 ping-pong, 1 vote, 2 clean-up; returns seconds per operation at rank a. */
static double round_trip(lock_bench *b, int a, int c, int which, int64_t round)
{
    const bench_ctx *ctx = b->ctx;
    double per = 0;
    MPI_Barrier(ctx->world);
    if (ctx->rank == a) {
        double t0 = 0;
        for (int i = 0; i < WARMUP + ITERS; i++) {
            if (i == WARMUP) t0 = MPI_Wtime();
            if (which == 0) {
                notify(b, c, FLAG);
                wait_flag(b, c, "notified-put response");
            } else if (which == 1) {
                int64_t one = 1, old;
                MPI_CHECK(ctx->rank, MPI_Fetch_and_op(&one, &old, MPI_INT64_T, c, PAYLOAD, MPI_SUM, b->w.win));
                MPI_CHECK(ctx->rank, MPI_Win_flush(c, b->w.win));
            } else {
                notify(b, c, FLAG);
            }
        }
        per = (MPI_Wtime() - t0) / ITERS;
        end_round(b, a);
    } else if (ctx->rank == c) {
        if (which == 0) {
            for (int i = 0; i < WARMUP + ITERS; i++) {
                wait_flag(b, a, "notified put");
                notify(b, a, FLAG);
            }
        } else {
            idle_until_done(b, round);
            /* the clean-up flags arrived without being waited for: account for them */
            if (which == 2) b->expect += WARMUP + ITERS;
        }
    } else {
        idle_until_done(b, round);
    }
    MPI_Barrier(ctx->world);
    return per;
}

void calibrate_lock(const bench_ctx *ctx, const calibrate_opts *o, model_params *p)
{
    (void)o;
    lock_bench b = {.ctx = ctx, .expect = 1};
    memset(b.payload, 0x3c, sizeof b.payload);
    rma_window_alloc(&b.w, 128, WIN_ALLOCATE, ctx->world);
    memset(b.w.base, 0, 128);
    MPI_Barrier(ctx->world);
    rma_window_lock_all(&b.w);
    MPI_Barrier(ctx->world);

    int local = -1, remote = -1;
    for (int r = 1; r < ctx->size; r++) {
        if (ctx->rank_host[r] == ctx->rank_host[0] && local < 0) local = r;
        if (ctx->rank_host[r] != ctx->rank_host[0] && remote < 0) remote = r;
    }
    /* DONE counts rounds for idle ranks; every round below increments it once per rank */
    int64_t round = 0;
    double t;
    if (local > 0) {
        t = round_trip(&b, 0, local, 0, ++round);
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, ctx->world);
        params_put(p, MP_t_local_comm, t / 2);
    }
    if (remote > 0) {
        t = round_trip(&b, 0, remote, 0, ++round);
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, ctx->world);
        params_put(p, MP_t_remote_comm, t / 2);
    }
    int peer = remote > 0 ? remote : local;
    if (peer > 0) {
        t = round_trip(&b, 0, peer, 1, ++round);
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, ctx->world);
        params_put(p, MP_t_vote, t);
        t = round_trip(&b, 0, peer, 2, ++round);
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, ctx->world);
        params_put(p, MP_t_clean_up, t);
    }
    params_put(p, MP_t_queue, 0);
    rma_window_free(&b.w);
}
