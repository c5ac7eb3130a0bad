/* MPI_Put bandwidth (eq. 3.2) and window allocation time (the term Table 4.2 leaves out).
 *  - bw_put_intra: every rank puts to the next rank on its host, all at once, in 64 KiB puts from two
 *    send buffers completed the way the joins' --flush auto completes them on this host
 * (rma/flush.h:
 *    MPI_Put with a flush every two puts, or MPI_Rput with an MPI_Wait before a buffer's reuse);
 *    per-rank bytes/s. MPICH 4.0's joins take request, whose puts cost more: a model calibrated
 *    with flushes underestimates its sort phase (docs/measurements.md, "From code comments").
 *  - bw_host (only when the ranks span hosts): every rank puts to the rank with the same position on
 *    the next host, all ranks of all hosts at once; bw = the host's summed rate (eq. 3.2's bw).
 *  - net_overlap (only across hosts): how much of that transfer hides behind computation (put_overlap).
 *  - bw_put_sort, bw_put_net: the sort phase's and the radix network pass's patterns on the host,
 *    one put after each put's worth of in-cache work at every rank (put_busy).
 *  - bw_put_<bytes>, bw_put_host_<bytes>: the curve of thesis Fig. 3.7 (put_curve).
 *  - t_win_alloc_per_byte: the joins' window flavour (--window) at 1 MiB and at the joins' own
 *    window size (--tuples-per-rank), slowest rank, slope of the line through both;
 *    t_win_alloc_fixed and t_win_touch_per_byte: the whole of what the joins' window_alloc does
 *    (allocation, first touch of every page, the barrier, MPI_Win_free) at two pages (the fixed
 *    part) and at the joins' size: its slope beyond the allocation's; then what a later join pays
 *    under --window-life pool and dynamic (calibrate_window.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/calibrate/calibrate.h"
#include "bench/cache_size.h"
#include "bench/membw.h"
#include "bench/memory.h"
#include "bench/stats.h"
#include "rma/flush.h"
#include "rma/putbuf.h"
#include "rma/window.h"

#define PUT_CHUNK (64 * 1024)
#define PUT_DESTS_MAX 64 /* bw_put_net's partitions: 2 x 64 KiB buffers each */

/* Where the next put lands: each measurement goes on through the target window instead of starting
 * at offset 0 again, so that a repeat does not find the lines it writes still in the cache. */
typedef struct {
    rma_window w;
    int64_t cursor; /* byte offset of the next put in every target's window */
    const char *src;
    rma_flush_mode mode; /* the joins' --flush auto on this host (window or request) */
} put_target;

/* The put loop of every measurement, as the parameter file names it. */
static const char *put_calls(const put_target *pt)
{
    return pt->mode == RMA_FLUSH_REQUEST ? "MPI_Rput + MPI_Wait before a buffer's reuse, 2 buffers"
                                         : "MPI_Put + flush every 2";
}

/* Computation between puts (put_overlap): `units` passes summing an in-cache block, so that the
 * CPU is busy and the memory bus is not. With `streaming` set (bw_put_net), a unit instead reads
 * 2 x WORK_WORDS / 2 words from a buffer beyond the caches and writes WORK_WORDS / 2, as the
 * network pass reads 16 and writes 8 bytes a tuple: its puts then compete with it for memory. */
enum { WORK_WORDS = 4096 };
static uint64_t work_block[WORK_WORDS];
static volatile uint64_t work_sink;
static struct {
    uint64_t *src, *dst;
    uint64_t words, at; /* src words (dst: half), the next unit's start */
} streaming;
static void work(int units)
{
    uint64_t acc = work_sink;
    for (int u = 0; u < units; u++) {
        if (streaming.src) {
            const uint64_t *in = streaming.src + streaming.at;
            uint64_t *out = streaming.dst + streaming.at / 2;
            for (int i = 0; i < WORK_WORDS / 2; i++) out[i] = in[2 * i] * 31 + in[2 * i + 1] + acc;
            acc += out[WORK_WORDS / 2 - 1];
            streaming.at = (streaming.at + WORK_WORDS) % streaming.words;
        } else {
            for (int i = 0; i < WORK_WORDS; i++) acc = acc * 31 + work_block[i];
        }
    }
    work_sink = acc;
}

/* The seconds of one work() unit on this rank (put_overlap, put_busy size their work with it). */
static double work_unit(void)
{
    for (int i = 0; i < WORK_WORDS; i++) work_block[i] = (uint64_t)i * 0x9e3779b97f4a7c15u;
    double t0 = MPI_Wtime();
    work(64);
    const double unit = (MPI_Wtime() - t0) / 64;
    return unit > 0 ? unit : 1e-6;
}

/* All ranks with a peer put `bytes` to it in messages of `msg` bytes from two send buffers, as the
 * joins' double-buffered sends do in pt->mode, with `units` of work() before each put (0: none;
 * peer < 0: the work alone); returns this rank's seconds. */
static double put_stream_work(const bench_ctx *ctx, put_target *pt, int peer, int64_t bytes, int msg, int units)
{
    rma_window *w = &pt->w;
    MPI_Barrier(ctx->comm);
    double t0 = MPI_Wtime();
    if (peer < 0 && units > 0)
        for (int64_t c = 0; c < bytes / msg; c++) work(units);
    if (peer >= 0) {
        int64_t chunks = bytes / msg, in_window = (int64_t)(w->bytes / (uint64_t)msg);
        int64_t first = pt->cursor / msg;
        const bool request = pt->mode == RMA_FLUSH_REQUEST;
        MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        for (int64_t c = 0; c < chunks; c++) {
            if (units > 0) work(units);
            if (request && c >= 2) MPI_CHECK(ctx->rank, rma_put_complete(pt->mode, peer, w->win, &req[c % 2]));
            MPI_CHECK(ctx->rank, rma_put_start(pt->mode, pt->src, (uint64_t)msg, MPI_BYTE, peer,
                                               (MPI_Aint)(((first + c) % in_window) * msg), w->win, &req[c % 2]));
            if (!request && c % 2 == 1) MPI_CHECK(ctx->rank, MPI_Win_flush(peer, w->win));
        }
        if (request)
            for (int b = 0; b < 2; b++) MPI_CHECK(ctx->rank, rma_put_complete(pt->mode, peer, w->win, &req[b]));
        else
            MPI_CHECK(ctx->rank, MPI_Win_flush(peer, w->win));
        pt->cursor = ((first + chunks) % in_window) * msg;
    }
    double t = MPI_Wtime() - t0;
    MPI_Barrier(ctx->comm); /* targets keep calling MPI until every origin is done (MPICH progress) */
    return t;
}

static double put_stream(const bench_ctx *ctx, put_target *pt, int peer, int64_t bytes, int msg)
{
    return put_stream_work(ctx, pt, peer, bytes, msg, 0);
}

/* net_overlap: how much of the transfer to another host hides behind computation, as a network
 * pass interleaves them (64 KiB puts, a flush every two). Every rank puts to its peer on the next
 * host, all at once: the transfer alone (t_n), the same number of work blocks alone (t_c, sized so
 * that t_c ~ t_n, where the overlap shows most), and both interleaved (t_b); overlap = (t_c + t_n -
 * t_b) / min(t_c, t_n) in [-1, 1] of each rank's fastest of each, the mean over ranks. Below 0 the two slow each
 * other down: the transfer's CPU work (TCP between namespace hosts that share the cores) competes
 * with the computation, or a library that progresses RMA only inside MPI calls (MPICH 4.0) makes
 * each side wait for the other's next call; cutting it off at 0 would hide a cost the pass pays. */
static void put_overlap(const bench_ctx *ctx, const calibrate_opts *o, put_target *pt, int peer, model_params *p)
{
    const int64_t bytes = o->put_bytes < (int64_t)PUT_CHUNK * 512 ? o->put_bytes : (int64_t)PUT_CHUNK * 512;
    const int64_t chunks = bytes / PUT_CHUNK > 0 ? bytes / PUT_CHUNK : 1;
    /* at least 7 repetitions, the three timed one after the other in each: the overlap is a
     * difference of three times, and a slow spell of the machine (or of the network between
     * namespace hosts) must fall on all three alike (with 3 repetitions and the transfers timed in
     * a block of their own, Open MPI's overlap read 0 in one validation and -0.56 in the next) */
    const int nrep = o->repeats > 7 ? (o->repeats < 100 ? (int)o->repeats : 100) : 7;
    double tn[100], tc[100], tb[100];
    put_stream(ctx, pt, peer, bytes / 4, PUT_CHUNK); /* warm-up */
    int units = (int)(put_stream(ctx, pt, peer, bytes, PUT_CHUNK) / (double)chunks / work_unit() + 0.5);
    if (units < 1) units = 1;
    for (int r = 0; r < nrep; r++) {
        tn[r] = put_stream(ctx, pt, peer, chunks * PUT_CHUNK, PUT_CHUNK);
        tc[r] = put_stream_work(ctx, pt, -1, chunks * PUT_CHUNK, PUT_CHUNK, units);
        tb[r] = put_stream_work(ctx, pt, peer, chunks * PUT_CHUNK, PUT_CHUNK, units);
    }
    const double t_n = stats_min(tn, nrep), t_c = stats_min(tc, nrep), t_b = stats_min(tb, nrep);
    double f = (t_c + t_n - t_b) / (t_c < t_n ? t_c : t_n);
    f = f < -1 ? -1 : f > 1 ? 1 : f;
    params_put(p, MP_net_overlap, calibrate_allreduce(ctx, f, MPI_SUM));
    char how[CALIBRATE_HOW];
    snprintf(how, sizeof how,
             "%lld x (in-cache work + a put of %d B; %s), every rank to its peer on the next host; "
             "rank 0: transfer %.2f ms, work %.2f ms, both %.2f ms", (long long)chunks, PUT_CHUNK, put_calls(pt), t_n * 1e3,
             t_c * 1e3, t_b * 1e3);
    calibrate_note(p, MP_net_overlap, how, 0);
}

/* `chunks` puts of `msg` bytes through the joins' send buffers (rma/putbuf.h: 2 buffers per
 * destination, the other buffer's put completed right after a put, a progress poke after each) to
 * `dests` destinations in turn, all in peer's window (regions of it, each wrapping at its end),
 * with `units` of work() before each put, as the radix network pass fills its partitions' buffers;
 * returns this rank's seconds (peer < 0: the work alone). */
static double put_buffers_work(const bench_ctx *ctx, put_target *pt, int peer, int dests, int64_t chunks, int64_t msg,
                               int units, double *in_calls)
{
    *in_calls = 0;
    if (peer < 0) return put_stream_work(ctx, pt, peer, chunks * msg, (int)msg, units); /* the work alone */
    MPI_Barrier(ctx->comm);
    double t0 = MPI_Wtime();
    const MPI_Aint region = (MPI_Aint)(pt->w.bytes / (uint64_t)dests / (uint64_t)msg * (uint64_t)msg);
    int target[PUT_DESTS_MAX];
    MPI_Aint disp[PUT_DESTS_MAX];
    for (int d = 0; d < dests; d++) {
        target[d] = peer;
        disp[d] = (MPI_Aint)d * region;
    }
    putbuf_set pb;
    if (putbuf_init(&pb, pt->w.win, ctx->comm, ctx->rank, ctx->size, dests, target, disp, (size_t)msg, 2,
                    pt->mode) != 0)
        calibrate_fail(ctx, "the send buffers of bw_put_net");
    for (int64_t c = 0; c < chunks; c++) {
        const int d = (int)(c % dests);
        putbuf_dest *pd = &pb.dest[d];
        if (d == 0 && units > 0) work(units * dests);
        if (pd->disp + (MPI_Aint)msg > (MPI_Aint)d * region + region) pd->disp = (MPI_Aint)d * region;
        pd->fill = (size_t)msg; /* the buffer's contents do not matter, its size does */
        putbuf_send(&pb, d);
    }
    putbuf_finish(&pb);
    *in_calls = pb.t_put + pb.t_flush;
    putbuf_free(&pb);
    double t = MPI_Wtime() - t0;
    MPI_Barrier(ctx->comm); /* targets keep calling MPI until every origin is done (MPICH progress) */
    return t;
}

/* net_contention: how much the work between the network pass's puts slowed beside them (the puts'
 * copies into the next rank's window stream through the host's memory as the work does; Open MPI's
 * single-copy puts copy in the origin's put call, which the pass does not count as its
 * partitioning, while the other rank partitions): the mean over the ranks of (its fastest work
 * beside the puts, out of the calls) / (its fastest work alone) - 1, at least 0. With one rank on a
 * host nothing is put within it: not measured. */
static void put_contention(const bench_ctx *ctx, model_params *p, double beside, double alone)
{
    const double c = alone > 0 ? beside / alone - 1 : 0;
    params_put(p, MP_net_contention, fmax(0, calibrate_allreduce(ctx, c, MPI_SUM)));
    char how[CALIBRATE_HOW];
    snprintf(how, sizeof how, "bw_put_net's loop: its streaming work beside the puts (out of the calls) against the same work alone; rank 0: %.2f against %.2f ms",
             beside * 1e3, alone * 1e3);
    calibrate_note(p, MP_net_contention, how, 0);
}

/* What a pass's puts add to its work on the host, where the targets compute too: every rank
 * alternates t_work seconds of work with one put of msg bytes to the next rank, completed as the
 * joins' --flush auto does, and the same work alone. The transfer rate with both ends in MPI calls
 * (bw_put_intra) is not what a pass gets where the target progresses RMA only inside its own MPI
 * calls: under MPICH 4.0.2 (ch4:ucx) a sort phase's puts complete an order of magnitude slower
 * than the put curve says (docs/measurements.md, "From code comments"). Two patterns:
 *  - the sort phase's (bw_put_sort, dests 0): a run's put, 1 MiB, per run sorted, put_stream_work's
 *    two buffers (the other one completed before the next put); per rank bytes / (both - work);
 *  - the radix network pass's (bw_put_net): a send buffer's put, 64 KiB, per buffer's worth of
 *    partitioning (ranks_per_host / (ranks_per_host - 1) of it: the rest stays on the rank), through
 *    the joins' send buffers to `dests` partitions (put_buffers_work); per rank bytes / (the time
 *    inside the put and completion calls), as the pass's put and flush rows count it. MPICH's
 *    completions grow with the puts in flight, and both - work would hide half of them: while one
 *    rank waits, the other's work has the memory to itself (docs/measurements.md, "From code
 * comments"). */
static double put_busy(const bench_ctx *ctx, const calibrate_opts *o, put_target *pt, int peer, model_params *p, int param,
                       int64_t msg, int dests, double t_work, const char *work_name)
{
    const int sizes[PUT_CURVE_N] = PUT_CURVE_SIZES;
    if (msg > sizes[PUT_CURVE_N - 1]) msg = sizes[PUT_CURVE_N - 1]; /* the put source's size */
    if (msg > (int64_t)pt->w.bytes / 4) msg = (int64_t)pt->w.bytes / 4;
    /* 4x the curve's bytes: which rank waits for the other's progress (MPICH) is settled by
     * chance, and a few puts leave bw_put_sort to it (docs/measurements.md, "From code comments")
     * */
    const int64_t want = 4 * o->put_bytes / msg, puts = want < 8 ? 8 : want > 1024 ? 1024 : want;
    int units = (int)(t_work / work_unit() + 0.5);
    if (units < 1) units = 1;
    const int nrep = (int)o->repeats;
    double tc[100], tb[100], tk[100], calls;
    const int64_t warm = puts / 4 > 1 ? puts / 4 : 1;
    if (dests > 0) put_buffers_work(ctx, pt, peer, dests, warm, msg, units, &calls);
    else put_stream_work(ctx, pt, peer, warm * msg, (int)msg, units);
    /* The work between puts as long as the phase's (t_work), sized on the whole stretch of work
     * rather than work_unit()'s short sample, which underestimates a long stretch, and where a put
     * completes at its target's next MPI call (MPICH 4.0) the wait is about that interval
     * (docs/measurements.md, "From code comments"). */
    const double alone = calibrate_allreduce(ctx, put_stream_work(ctx, pt, -1, puts * msg, (int)msg, units), MPI_MAX);
    if (alone > 0) {
        const double u = units * ((double)puts * t_work) / alone;
        units = u < 1 ? 1 : (int)(u + 0.5);
    }
    double beside[100];
    for (int r = 0; r < nrep; r++) {
        tc[r] = put_stream_work(ctx, pt, -1, puts * msg, (int)msg, units);
        tb[r] = dests > 0 ? put_buffers_work(ctx, pt, peer, dests, puts, msg, units, &tk[r])
                          : put_stream_work(ctx, pt, peer, puts * msg, (int)msg, units);
        beside[r] = dests > 0 ? tb[r] - tk[r] : tb[r]; /* the work with the puts beside it, out of their calls */
    }
    const double t_c = stats_min(tc, nrep), t_b = stats_min(tb, nrep);
    if (dests > 0) put_contention(ctx, p, stats_min(beside, nrep), t_c);
    /* a transfer hidden behind the work entirely still costs the put calls: at least 1% of the work */
    const double added = dests > 0 ? stats_min(tk, nrep) : t_b - t_c > 0.01 * t_c ? t_b - t_c : 0.01 * t_c;
    const double have = calibrate_allreduce(ctx, peer >= 0, MPI_SUM) * ctx->size;
    /* The models predict a phase's time on the mean rank: bytes / the mean time over the ranks, not
     * the mean of their rates, which overstates the rate where one rank waits for the other
     * (MPICH) and makes the sort-merge sort phase come out long against its prediction
     * (docs/measurements.md, "From code comments") */
    const double sum = calibrate_allreduce(ctx, peer >= 0 ? added : 0, MPI_SUM) * ctx->size;
    const double most = calibrate_allreduce(ctx, peer >= 0 ? added : 0, MPI_MAX); /* the rank that waited longest */
    if (have <= 0 || sum <= 0) return 0;
    params_put(p, param, (double)(puts * msg) / (sum / have));
    char how[CALIBRATE_HOW], to[48] = "";
    if (dests > 0) snprintf(to, sizeof to, " to %d partitions (rma/putbuf)", dests);
    const int len = snprintf(how, sizeof how, "%lld x (%.3f ms of %s + a put of %lld B%s; %s) to the next rank on "
                             "the host; bytes / %s; rank 0: work %.1f, both %.1f, calls %.1f ms", (long long)puts, t_work * 1e3,
                             work_name, (long long)msg, to, put_calls(pt), dests > 0 ? "time in the calls" : "(both - work)",
                             t_c * 1e3, t_b * 1e3, added * 1e3);
    if (len >= (int)sizeof how) memcpy(how + sizeof how - 4, "...", 4); /* a long note is cut, visibly */
    calibrate_note(p, param, how, 0);
    return most > 0 ? (double)(puts * msg) / most : 0;
}

/* The radix network pass's remote partitions per rank at this calibration's ranks and fan-out
 * (partition_bits, round-robin owners), at most PUT_DESTS_MAX. */
static int net_dests(const bench_ctx *ctx, const model_params *p)
{
    const int64_t parts = p->set[MP_partition_bits] ? INT64_C(1) << (int)params_get(p, MP_partition_bits) : 16;
    int64_t remote = parts - parts / (ctx->size > 0 ? ctx->size : 1);
    return remote < 1 ? 1 : remote > PUT_DESTS_MAX ? PUT_DESTS_MAX : (int)remote;
}

/* bw_put_sort and bw_put_net (put_busy), from the rates calibrate_compute measured. */
static void put_busy_both(const bench_ctx *ctx, const calibrate_opts *o, put_target *pt, int peer, model_params *p)
{
    if (p->set[MP_P_sort_run] && p->set[MP_sort_run_length]) {
        const double run = params_get(p, MP_sort_run_length);
        /* one run's sort by the kernel --run-sort auto takes: the faster one */
        double P_sort = params_get(p, MP_P_sort_run);
        if (p->set[MP_P_sort_radix] && params_get(p, MP_P_sort_radix) > P_sort) P_sort = params_get(p, MP_P_sort_radix);
        const double slowest = put_busy(ctx, o, pt, peer, p, MP_bw_put_sort, (int64_t)run * 8, 0, run / P_sort, "in-cache work");
        if (slowest > 0) {
            params_put(p, MP_bw_put_sort_slowest, slowest);
            calibrate_note(p, MP_bw_put_sort_slowest, "as bw_put_sort: bytes / the largest (both - work) over the ranks", 0);
        }
    }
    if (p->set[MP_P_partition]) { /* the same on every rank: the calls are collective */
        const double rph = ctx->ranks_per_host > 1 ? ctx->ranks_per_host : 2;
        const double tuples = (double)PUT_CHUNK / 8 * rph / (rph - 1); /* 8-byte packed tuples */
        /* the pass streams its input from memory while its puts copy: work that does so too
         * (with in-cache work the parameter overstates the pass's rate; docs/measurements.md,
         * "From code comments") */
        streaming.words = UINT64_C(32) << 20; /* 256 MiB read, 128 MiB written per rank */
        uint64_t *src = mem_alloc_large(streaming.words * 8), *dst = mem_alloc_large(streaming.words * 4);
        if (src && dst) { /* else work() stays in cache */
            memset(src, 1, streaming.words * 8);
            memset(dst, 0, streaming.words * 4);
            streaming.src = src;
            streaming.dst = dst;
        }
        put_busy(ctx, o, pt, peer, p, MP_bw_put_net, PUT_CHUNK, net_dests(ctx, p), tuples / params_get(p, MP_P_partition),
                 streaming.src ? "streaming work (16 B read, 8 B written a tuple)"
                               : "in-cache work (no memory for streaming)");
        streaming.src = streaming.dst = NULL;
        mem_free_large(src, streaming.words * 8); /* NULL-safe */
        mem_free_large(dst, streaming.words * 4);
    }
}

/* This rank's bytes/s at `msg`-byte puts (the fastest of the repeats); rates[r]: of repeat r alone (0
 * without a peer). Small messages move fewer bytes (at most 4096 messages, 512 to another host,
 * where a flush takes a TCP round trip), so that each size takes about as long. */
static double bandwidth(const bench_ctx *ctx, const calibrate_opts *o, put_target *pt, int peer, int msg,
                        double *rates)
{
    double t[100];
    const int64_t most = peer >= 0 && ctx->rank_host[peer] != ctx->host_id ? 512 : 4096;
    int64_t total = o->put_bytes < (int64_t)msg * most ? o->put_bytes : (int64_t)msg * most;
    if (total < msg) total = msg;
    const double bytes = (double)(total / msg * msg);
    put_stream(ctx, pt, peer, total / 4 > msg ? total / 4 : msg, msg); /* warm-up */
    for (int r = 0; r < o->repeats; r++) {
        t[r] = put_stream(ctx, pt, peer, total, msg);
        rates[r] = peer >= 0 ? bytes / t[r] : 0;
    }
    double best = stats_min(t, (int)o->repeats);
    return peer >= 0 ? bytes / best : 0;
}

/* The spread of a bandwidth over the repeats: repeat r's rate summed over comm, divided by `per`. */
static void put_bw_spread(const bench_ctx *ctx, model_params *p, int i, double *rates, int n, MPI_Comm comm, double per)
{
    double sum[100];
    MPI_CHECK(ctx->rank, MPI_Allreduce(rates, sum, n, MPI_DOUBLE, MPI_SUM, comm));
    for (int r = 0; r < n; r++) sum[r] /= per;
    params_put_spread(p, i, sum, n);
}

/* `bytes` of windows in two (R and S, as both joins allocate them), of the joins' flavour. touch = 0:
 * rma_window_alloc only; touch = 1: also the first touch of every page, a barrier (nobody puts into
 * a window its owner is still touching) and MPI_Win_free, as the joins' window_alloc phases do.
 * Slowest rank, the fastest of the repeats. */
/* Written before each allocation (untimed), so that the pages a window gets are not still in the
 * cache from the one freed before it: a join's windows come after other phases' traffic, and
 * without it the cost per byte comes out far below the joins' (docs/measurements.md, "From code
 * comments"). */
typedef struct {
    char *buf;
    uint64_t bytes;
} cache_evictor;

static double win_alloc_time(const bench_ctx *ctx, uint64_t bytes, int repeats, int touch, win_flavor flavor,
                             const cache_evictor *ev, double *samples)
{
    double t[100];
    for (int r = 0; r < repeats; r++) {
        rma_window w[2];
        if (ev->buf) memset(ev->buf, r & 0xff, ev->bytes);
        MPI_Barrier(ctx->comm);
        double t0 = MPI_Wtime();
        for (int rel = 0; rel < 2; rel++) {
            rma_window_alloc(&w[rel], bytes / 2, flavor, ctx->comm);
            if (touch) rma_window_prefault(&w[rel]);
        }
        if (touch) {
            MPI_Barrier(ctx->comm);
            for (int rel = 0; rel < 2; rel++) rma_window_free(&w[rel]);
        }
        double mine = MPI_Wtime() - t0;
        t[r] = calibrate_allreduce(ctx, mine, MPI_MAX);
        if (!touch)
            for (int rel = 0; rel < 2; rel++) rma_window_free(&w[rel]);
        if (samples) samples[r] = t[r];
    }
    return stats_min(t, repeats);
}

/* t_win_alloc_shared: the fixed part again with both ranks of the (one-host, two-rank) calibration
 * pinned to one CPU, as ranks outnumbering cores run. MPICH 4.0 waits in the collectives inside
 * MPI_Win_create and MPI_Win_free by spinning, so a rank waits out the turn of the rank it waits
 * for, which multiplies window_alloc where ranks share cores; Open MPI spins the same way unless it
 * yields (docs/measurements.md, "From code comments"), and mpirun makes it yield when it
 * oversubscribes: measured only where the library yields, or is not Open MPI, so the parameter is
 * what a crowded run pays. */
static void win_alloc_shared(const bench_ctx *ctx, uint64_t tiny, int reps, win_flavor flavor, model_params *p)
{
#ifdef OPEN_MPI
    const bool like_crowded = bench_mpi_yields_when_idle();
#else
    const bool like_crowded = true;
#endif
    if (ctx->hosts != 1 || ctx->ranks_per_host != 2 || !like_crowded) return;
    calibrate_pin pin;
    if (calibrate_pin_begin(ctx, true, &pin)) {
        cache_evictor none = {NULL, 0};
        params_put(p, MP_t_win_alloc_shared, win_alloc_time(ctx, tiny, 3 * reps, 1, flavor, &none, NULL));
        char how[CALIBRATE_HOW];
        snprintf(how, sizeof how, "as t_win_alloc_fixed (2 windows of %llu B, flavour %s) with both ranks pinned to CPU %d, fastest of %d%s",
                 (unsigned long long)tiny / 2, win_flavor_names[flavor], pin.cpu, 3 * reps,
                 bench_mpi_yields_when_idle() ? ", the library yielding (Open MPI's mpi_yield_when_idle)" : "");
        calibrate_note(p, MP_t_win_alloc_shared, how, 0);
    }
    calibrate_pin_end(ctx, &pin);
}

/* Thesis Fig. 3.7: the put bandwidth per rank against the message size, to a rank on the same host
 * (bw_put_<bytes>; with one rank per host, to the rank itself) and, on several hosts, to the rank
 * at the same position on the next host (bw_put_host_<bytes>), every rank of every host sending. */
static void put_curve(const bench_ctx *ctx, const calibrate_opts *o, put_target *pt, int intra_peer,
                      model_params *p)
{
    const int sizes[PUT_CURVE_N] = PUT_CURVE_SIZES;
    double rates[100];
    int inter_peer = -1;
    if (ctx->hosts > 1) {
        int next = (ctx->host_id + 1) % ctx->hosts;
        inter_peer = bench_rank_on_host(ctx, next, ctx->host_rank % bench_host_size_of(ctx, next));
    }
    for (int k = 0; k < PUT_CURVE_N; k++) {
        char how[CALIBRATE_HOW];
        int peer = intra_peer >= 0 ? intra_peer : ctx->rank;
        double bw = calibrate_allreduce(ctx, bandwidth(ctx, o, pt, peer, sizes[k], rates), MPI_SUM);
        params_put(p, MP_bw_put_64 + 2 * k, bw);
        snprintf(how, sizeof how, "puts of %d B (%s) into a window of flavour %s, up to %lld B per rank, every rank to %s",
                 sizes[k], put_calls(pt), win_flavor_names[o->window], (long long)o->put_bytes,
                 intra_peer >= 0 ? "the next rank on its host" : "itself (one rank per host)");
        calibrate_note(p, MP_bw_put_64 + 2 * k, how, 1); /* writes its bytes into the target's memory (the source is in cache) */
        if (inter_peer < 0) continue;
        bw = calibrate_allreduce(ctx, bandwidth(ctx, o, pt, inter_peer, sizes[k], rates), MPI_SUM);
        params_put(p, MP_bw_put_host_64 + 2 * k, bw);
        snprintf(how, sizeof how, "puts of %d B (%s), every rank to its peer on the next host", sizes[k], put_calls(pt));
        calibrate_note(p, MP_bw_put_host_64 + 2 * k, how, 0);
    }
}

/* The target window of every put: as large as the memory bandwidth's buffers (out of cache), of
 * the joins' flavour (--window, auto resolved by calibrate_window), with the joins' first touch: the
 * owner's pages and, for MPI_Win_allocate, the origin's mapping of its peer's pages (a first store
 * to a 4 KiB page is costly under a hypervisor: it would be measured as bandwidth). The source:
 * as large as the curve's largest message. Collective. */
static void put_target_open(const bench_ctx *ctx, const calibrate_opts *o, put_target *pt)
{
    uint64_t win_bytes = (uint64_t)o->membw_bytes > (8u << 20) ? (uint64_t)o->membw_bytes : 8u << 20;
    mem_check_or_exit(ctx, (int64_t)win_bytes + (16 << 20), "--membw-bytes (the put bandwidth's target window)");
    pt->cursor = 0;
    pt->mode = rma_flush_resolve(RMA_FLUSH_AUTO, ctx->any_poll_yield, NULL);
    rma_window_alloc(&pt->w, win_bytes, (win_flavor)o->window, ctx->comm);
    rma_window_prefault(&pt->w);
    MPI_CHECK(ctx->rank, MPI_Barrier(ctx->comm));
    int next = bench_next_on_host(ctx);
    uint64_t first = 0, count = pt->w.bytes;
    rma_window_map_runs(&pt->w, ctx, next >= 0, &next, &first, NULL, &count, 1);
    rma_window_lock_all(&pt->w);
    const int sizes[PUT_CURVE_N] = PUT_CURVE_SIZES;
    const size_t src_bytes = (size_t)sizes[PUT_CURVE_N - 1] > PUT_CHUNK ? (size_t)sizes[PUT_CURVE_N - 1] : PUT_CHUNK;
    char *src = malloc(src_bytes);
    if (!src) calibrate_fail(ctx, "the put source");
    memset(src, 0x5a, src_bytes);
    pt->src = src;
}

static void put_target_close(put_target *pt)
{
    free((char *)pt->src);
    rma_window_free(&pt->w);
}

static void calibrate_window_alloc(const bench_ctx *ctx, const calibrate_opts *o, model_params *p);

void calibrate_network(const bench_ctx *ctx, const calibrate_opts *o, model_params *p)
{
    put_target pt;
    put_target_open(ctx, o, &pt);
    const int hs = ctx->host_size, intra_peer = bench_next_on_host(ctx);
    /* within the host */
    double rates[100];
    const int nrep = (int)o->repeats;
    double bw_intra = bandwidth(ctx, o, &pt, intra_peer, PUT_CHUNK, rates);
    /* mean over ranks that had a peer (calibrate_allreduce's SUM is a mean: back to the sum) */
    double have = calibrate_allreduce(ctx, intra_peer >= 0, MPI_SUM) * ctx->size;
    double mean = calibrate_allreduce(ctx, bw_intra, MPI_SUM) * ctx->size;
    if (have > 0) params_put(p, MP_bw_put_intra, mean / have);
    if (have > 0) put_bw_spread(ctx, p, MP_bw_put_intra, rates, nrep, ctx->comm, have);
    char how[CALIBRATE_HOW];
    if (have > 0) {
        snprintf(how, sizeof how, "puts of %d B (%s) into a window of flavour %s, %lld B per rank, every rank to the next rank on its host",
                 PUT_CHUNK, put_calls(&pt), win_flavor_names[o->window], (long long)o->put_bytes);
        calibrate_note(p, MP_bw_put_intra, how, 1);
        put_busy_both(ctx, o, &pt, intra_peer, p);
    }

    /* between hosts, all ranks of every host sending at once (eq. 3.2) */
    if (ctx->hosts > 1) {
        int next = (ctx->host_id + 1) % ctx->hosts, ns = bench_host_size_of(ctx, next);
        int peer = bench_rank_on_host(ctx, next, ctx->host_rank % ns);
        double mine = bandwidth(ctx, o, &pt, peer, PUT_CHUNK, rates);
        double host_sum, host_rates[100];
        MPI_CHECK(ctx->rank, MPI_Allreduce(&mine, &host_sum, 1, MPI_DOUBLE, MPI_SUM, ctx->host));
        /* mean over hosts of the host's summed rate */
        double per_host = calibrate_allreduce(ctx, host_sum / hs, MPI_SUM) * ctx->size / ctx->hosts;
        params_put(p, MP_bw_host, per_host);
        /* per repeat the same: each host's sum, counted once per host (1/hs on each of its ranks) */
        MPI_CHECK(ctx->rank, MPI_Allreduce(rates, host_rates, nrep, MPI_DOUBLE, MPI_SUM, ctx->host));
        for (int r = 0; r < nrep; r++) host_rates[r] /= hs;
        put_bw_spread(ctx, p, MP_bw_host, host_rates, nrep, ctx->comm, ctx->hosts);
        snprintf(how, sizeof how, "puts of %d B (%s), %lld B per rank, every rank to its peer on the next host, summed over the host",
                 PUT_CHUNK, put_calls(&pt), (long long)o->put_bytes);
        calibrate_note(p, MP_bw_host, how, 0);
        put_overlap(ctx, o, &pt, peer, p);
    }
    params_put(p, MP_wire_tuple_bytes, 8); /* the radix join's default compression (--compress) */
    put_curve(ctx, o, &pt, intra_peer, p);
    put_target_close(&pt);
    calibrate_window_alloc(ctx, o, p);
}

/* Window allocation: a line through a small window (the fixed cost) and one of the joins' own
 * size at --tuples-per-rank (R and S, 8-byte packed words each: both joins' default windows), so
 * the per-byte term is measured where the joins run rather than extrapolated from a small window.
 * Capped at a quarter of the memory the host has free per rank. */
static void calibrate_window_alloc(const bench_ctx *ctx, const calibrate_opts *o, model_params *p)
{
    const win_flavor flavor = (win_flavor)o->window;
    const uint64_t small = 1u << 20;
    uint64_t large = (uint64_t)o->tuples_per_rank * 2 * 8;
    double avail = calibrate_allreduce(ctx, (double)mem_available_bytes(), MPI_MIN); /* same size on all ranks */
    if (avail > 0 && (double)large > avail / 4 / ctx->ranks_per_host)
        large = (uint64_t)(avail / 4 / ctx->ranks_per_host);
    if (large < 4 * small) large = 4 * small;
    int reps = (int)(o->repeats < 3 ? o->repeats : 3);
    /* a join-sized window is cheap to repeat, and fresh memory varies on a virtual machine more
     * than the joins' own window_alloc does with 3 repeats (docs/measurements.md, "From code
     * comments"); 7 repetitions (--repeats 1: 1) */
    int reps_large = o->repeats < 3 ? (int)o->repeats : 7;
    const uint64_t llc = rmb_llc_bytes(NULL), per_rank = llc ? 2 * llc / (uint64_t)ctx->ranks_per_machine : 0;
    cache_evictor ev = {NULL, per_rank > (64u << 20) ? per_rank : 64u << 20};
    if ((double)ev.bytes < avail / 8 / ctx->ranks_per_host) ev.buf = mem_alloc_large(ev.bytes); /* else: none */
    double ts = win_alloc_time(ctx, small, reps, 0, flavor, &ev, NULL), tl = win_alloc_time(ctx, large, reps_large, 0, flavor, &ev, NULL);
    double per_byte = (tl - ts) / (double)(large - small);
    if (per_byte < 0) per_byte = 0; /* noise: allocation time did not grow with size */
    params_put(p, MP_t_win_alloc_per_byte, per_byte);
    /* The whole sequence (allocation, first touch, the barrier, MPI_Win_free of both windows): its
     * fixed part timed on its own, at two windows of one page each, and its slope through the
     * joins' size. The intercept of a line through 4 MiB and the joins' size can come out 0 (noise
     * at the small point times the long lever) while window_alloc has a fixed part
     * (docs/measurements.md, "From code comments"). */
    const uint64_t tiny = 2 * (uint64_t)sysconf(_SC_PAGESIZE);
    double samples[100];
    double fixed = win_alloc_time(ctx, tiny, 3 * reps, 1, flavor, &ev, NULL), ul = win_alloc_time(ctx, large, reps_large, 1, flavor, &ev, samples);
    if (ev.buf) mem_free_large(ev.buf, ev.bytes);
    double slope = (ul - fixed) / (double)(large - tiny);
    if (slope < per_byte) slope = per_byte; /* noise: touching cannot make a window cheaper */
    params_put(p, MP_t_win_alloc_fixed, fixed);
    params_put(p, MP_t_win_touch_per_byte, slope - per_byte);
    /* Two states of fresh memory on a virtual machine that reports free pages to its host: pages the kernel
     * reuses at once, or pages the host took back and hands out again, several times slower with 2
     * MiB pages. Which one a repetition meets is set by the whole machine's frees, not by this loop
     * (docs/models-validation.md): the fastest repetitions are the first state, and those at least
     * twice as slow, when there are any, the second (its fastest: the least disturbed of them). */
    const double returned = stats_second_mode(samples, reps_large, 2.0);
    if (returned > 0) {
        const double slope_returned = (returned - fixed) / (double)(large - tiny);
        params_put(p, MP_t_win_touch_returned_per_byte, slope_returned > per_byte ? slope_returned - per_byte : 0);
    }
    win_alloc_shared(ctx, tiny, reps, flavor, p);
    calibrate_window_life(ctx, o, small, large, p);
}
