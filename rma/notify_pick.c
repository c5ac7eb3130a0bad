#include "rma/notify_pick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/stats.h"
#include "rma/progress.h"

enum { PICK_ROUNDS = 3, PICK_WARMUP = 50, PICK_ITERS = 2000 }; /* a round: a few milliseconds per path */
/* A round longer than this is no measurement of the path: the pair is not running at once (cores
 * shared with ranks or jobs the launch did not count), every round trip waits for a scheduler turn. */
#define PICK_ROUND_LIMIT_S 0.25
enum { STOP = 0xA5 }; /* first payload byte of a's last message when it gives up */

void notify_ping_pong_round(const bench_ctx *ctx, notify_ep *ep, int a, int c, int warmup, int iters, bool yield,
                            double limit_s, double *rtt, double *send)
{
    const int partner = ctx->rank == a ? c : ctx->rank == c ? a : -1;
    notify_ping_pong_pairs(ctx, ep, partner, ctx->rank == a, warmup, iters, yield, limit_s, rtt, send);
}

void notify_ping_pong_pairs(const bench_ctx *ctx, notify_ep *ep, int partner, bool leads, int warmup, int iters, bool yield,
                            double limit_s, double *rtt, double *send)
{
    *rtt = *send = 0;
    MPI_Barrier(ctx->comm);
    if (partner >= 0) {
        /* a: the rank that leads (sends first, times), c: the one that answers; a == c: itself */
        const int a = leads ? ctx->rank : partner, c = leads ? partner : ctx->rank, peer = partner;
        unsigned char *msg = calloc(1, (size_t)ep->msg_bytes);
        double *ts = malloc((size_t)iters * sizeof *ts);
        if (!msg || !ts) {
            fprintf(stderr, "rmabench: rank %d: out of memory for a notified-put ping-pong\n", ctx->rank);
            MPI_Abort(ctx->comm, 1);
        }
        int slot;
        poll_bound pb;
        poll_begin(&pb, ctx->rank == a ? "ping-pong: answer" : "ping-pong: request", ctx->rank, peer, 30.0, yield);
        const double start = MPI_Wtime();
        double t0 = 0;
        bool ok = true, stopped = false;
        for (int i = 0; ok && i < warmup + iters; i++) {
            if (i == warmup) t0 = MPI_Wtime();
            if (ctx->rank == c && a != c) {
                if (!(ok = notify_wait(ep, &slot, msg, &pb))) break;
                if (msg[0] == STOP) break; /* a gave up: no answer */
            }
            if (ctx->rank == a && a != c && limit_s > 0 && i % 64 == 63 && MPI_Wtime() - start > limit_s) {
                msg[0] = STOP;
                notify_send(ep, peer, 0, msg);
                stopped = true;
                break;
            }
            double s0 = MPI_Wtime();
            notify_send(ep, peer, 0, msg);
            if (i >= warmup) ts[i - warmup] = MPI_Wtime() - s0;
            if (ctx->rank == a) ok = notify_wait(ep, &slot, msg, &pb);
        }
        if (!ok) {
            poll_report_timeout(&pb);
            MPI_Abort(ctx->comm, 1);
        }
        if (ctx->rank == a && stopped) {
            *rtt = -1;
        } else if (ctx->rank == a) {
            *rtt = (MPI_Wtime() - t0) / iters;
            *send = stats_median(ts, iters);
        }
        free(ts);
        free(msg);
    }
    MPI_Barrier(ctx->comm);
}

bool notify_shm_prefer(double rtt_off_us, double rtt_on_us, bool library_default)
{
    if (rtt_off_us <= 0 || rtt_on_us <= 0) return library_default;
    if (library_default) return !(rtt_off_us < (1 - NOTIFY_PICK_MARGIN) * rtt_on_us);
    return rtt_on_us < (1 - NOTIFY_PICK_MARGIN) * rtt_off_us;
}

/* The pair: rank 0 and the next rank of its host; -1 when it has none. */
static int host_peer(const bench_ctx *ctx)
{
    for (int r = 1; r < ctx->size; r++)
        if (ctx->rank_host[r] == ctx->rank_host[0]) return r;
    return -1;
}

void notify_shm_choose(const bench_ctx *ctx, notify_shm_mode mode, notify_transport t, notify_poll_mode poll,
                       int msg_bytes, notify_shm_pick *out)
{
    memset(out, 0, sizeof *out);
    out->rtt_us[0] = out->rtt_us[1] = -1;
    out->a = out->b = -1;
    out->shm = notify_shm_resolve(mode);
    if (mode != NOTIFY_SHM_AUTO) {
        snprintf(out->source, sizeof out->source, "given");
        return;
    }
    const char *why = NULL;
    const int peer = host_peer(ctx);
    if (t != NOTIFY_RMA) why = "msg transport: no mailbox window";
    else if (peer < 0) why = "no two ranks on rank 0's host";
    else if (ctx->any_poll_yield) why = "ranks share cores";
    if (why) {
        snprintf(out->source, sizeof out->source, "library default (not measured: %s)", why);
        return;
    }
    /* both mailboxes at once, their rounds interleaved, so that a change of the machine's state
     * (on a virtual machine, where the host runs the virtual CPUs) falls on both */
    notify_ep ep[2];
    for (int k = 0; k < 2; k++) notify_open(&ep[k], ctx->comm, NOTIFY_RMA, poll, k == 1, 1, msg_bytes, ctx->poll_yield);
    double rtt[2][PICK_ROUNDS], send;
    int given_up = 0;
    for (int r = 0; r < PICK_ROUNDS && !given_up; r++) {
        for (int k = 0; k < 2; k++) {
            notify_ping_pong_round(ctx, &ep[k], 0, peer, PICK_WARMUP, PICK_ITERS, false, PICK_ROUND_LIMIT_S, &rtt[k][r],
                                   &send);
            given_up |= ctx->rank == 0 && rtt[k][r] < 0;
        }
        MPI_Bcast(&given_up, 1, MPI_INT, 0, ctx->comm);
    }
    for (int k = 0; k < 2; k++) {
        out->rtt_us[k] = given_up ? -1 : stats_median(rtt[k], PICK_ROUNDS) * 1e6;
        notify_close(&ep[k]);
    }
    MPI_Bcast(out->rtt_us, 2, MPI_DOUBLE, 0, ctx->comm);
    if (given_up) {
        snprintf(out->source, sizeof out->source, "library default (not measured: the pair was not running at once)");
        return;
    }
    out->measured = true;
    out->a = 0;
    out->b = peer;
    out->shm = notify_shm_prefer(out->rtt_us[0], out->rtt_us[1], out->shm);
    snprintf(out->source, sizeof out->source, "measured");
}

void notify_shm_pick_describe(const notify_shm_pick *p, char *buf, size_t len)
{
    if (!p->measured) {
        snprintf(buf, len, "%s", p->source);
        return;
    }
    snprintf(buf, len, "measured between ranks %d and %d: rma %.3f us, shm %.3f us", p->a, p->b, p->rtt_us[0],
             p->rtt_us[1]);
}
