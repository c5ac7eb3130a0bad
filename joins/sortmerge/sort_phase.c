/* The sort phase: each target's tuples are cut into runs of run_size, every run is sorted in
 * cache into a send buffer and put into the target's window while the next run is sorted (two
 * send buffers; a buffer is reused only after its put completed as --flush says: MPI_Put and
 * MPI_Win_flush to its target, or MPI_Rput and MPI_Wait, rma/flush.h). Rank i starts with target
 * i+1 so that the receivers are not all hit at once. Runs for this rank are sorted in cache too and
 * streamed into its own window (mem_stream_copy): a sort straight into the window has its last
 * pass read every line of the window from memory before writing it (docs/measurements.md, "From
 * code comments"). Then flush and the end of the epoch: afterwards every window holds all its runs.
 * Both formats alike, a tuple being pl->words 64-bit words: packed runs sorted by the vector
 * kernels or by LSD radix over their key bits (pl->run_sort), wide ones by their radix sort
 * (smj_kernels.h). Under --window shared the runs for a rank on this node are streamed into its
 * segment in the same way (rma_window_peer_base): no send buffer, no put. */
#include <stdio.h>
#include <stdlib.h>

#include "bench/memory.h"
#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/smj_plan.h"
#include "rma/flush.h"

/* The put that last left a send buffer. */
typedef struct {
    MPI_Request req; /* RMA_FLUSH_REQUEST */
    MPI_Win win;
    int target;      /* -1: nothing pending, the buffer may be written */
} send_slot;

/* Completes slot's put. MPI_Win_flush completes every earlier put to that target in that window,
 * so the other buffer's pending put to it is done as well and needs no second flush. */
static void complete_slot(send_slot *slots, int b, rma_flush_mode mode, int me)
{
    send_slot *slot = &slots[b];
    if (slot->target < 0) return;
    MPI_CHECK(me, rma_put_complete(mode, slot->target, slot->win, &slot->req));
    if (mode == RMA_FLUSH_WINDOW)
        for (int k = 0; k < SMJ_SEND_BUFFERS; k++)
            if (slots[k].target == slot->target && slots[k].win == slot->win) slots[k].target = -1;
    slot->target = -1;
}

/* Sorts a run of len tuples from src into dst (tmp: scratch) in the plan's format: packed runs by
 * the radix sort where the plan says so and their keys fit it (counting them in *radix), else by
 * the network sort; wide runs by their own radix sort. */
static void sort_run(const smj_plan *pl, const uint64_t *src, size_t len, uint64_t *dst, uint64_t *tmp, int simd,
                     uint64_t *radix)
{
    if (pl->words != 1)
        smj_wide_sort_run((const tuple_t *)(const void *)src, len, (tuple_t *)(void *)dst, (tuple_t *)(void *)tmp);
    else if (smj_sort_run_by(src, len, dst, tmp, pl->rid_bits, pl->run_sort, simd))
        *radix += len;
}

double smj_sort_phase(const join_input *in, smj_plan *pl, rma_window win[RELS], size_t run_size, int simd,
                      phase_set *ph)
{
    const bench_ctx *ctx = in->ctx;
    const int P = pl->parts, me = ctx->rank;
    const size_t W = (size_t)pl->words, run_words = run_size * W;
    const rma_flush_mode mode = (rma_flush_mode)in->opt->flush;
    /* the send buffers, the sort's scratch, and the run being streamed into a window here */
    uint64_t *const spare = smj_spare(pl, (SMJ_SEND_BUFFERS + 2) * run_words);
    uint64_t *buf = spare ? spare : malloc((SMJ_SEND_BUFFERS + 2) * run_words * sizeof *buf);
    if (!buf) {
        fprintf(stderr, "rmabench: rank %d: sortmerge: cannot allocate the send buffers\n", me);
        MPI_Abort(ctx->comm, 2);
    }
    uint64_t *tmp = buf + SMJ_SEND_BUFFERS * run_words, *stage = tmp + run_words;
    send_slot slots[SMJ_SEND_BUFFERS];
    for (int b = 0; b < SMJ_SEND_BUFFERS; b++) slots[b] = (send_slot){MPI_REQUEST_NULL, MPI_WIN_NULL, -1};
    double t_put = 0, t_flush = 0;
    int next = 0;
    uint64_t radix = 0, sorted = 0;

    for (int rel = 0; rel < RELS; rel++) rma_window_lock_all(&win[rel]);
    for (int k = 1; k <= P; k++) {
        int t = (me + k) % P;
        for (int rel = 0; rel < RELS; rel++) {
            /* band by band (smj_plan.h): a run never spans two bands; each band piece from its slot,
             * into the window after the target's earlier bands (at) */
            uint64_t at = 0;
            for (int b = 0; b < pl->bands; b++) {
                const int f = t * pl->bands + b;
                const uint64_t *group = pl->packed[rel] + pl->band_at[rel][f] * W;
                const uint64_t n = pl->band_count[rel][f], piece = pl->remote[rel][t] + at;
                at += n;
                for (uint64_t off = 0; off < n; off += run_size) {
                    size_t len = n - off < run_size ? (size_t)(n - off) : run_size;
                    sorted += len;
                    /* own range, or (--window shared) a range of a rank on this node: sorted here and
                     * stored into its window; the end of the epoch makes the stores visible to the owner */
                    uint64_t *target = t == me ? win[rel].base : rma_window_peer_base(&win[rel], t);
                    if (target) {
                        uint64_t *dst = target + (piece + off) * W;
                        sort_run(pl, group + off * W, len, stage, tmp, simd, &radix);
                        mem_stream_copy(dst, stage, len * W * sizeof *dst);
                        continue;
                    }
                    double t0 = rmb_now();
                    complete_slot(slots, next, mode, me);
                    t_flush += rmb_now() - t0;
                    uint64_t *send = buf + (size_t)next * run_words;
                    sort_run(pl, group + off * W, len, send, tmp, simd, &radix);
                    t0 = rmb_now();
                    MPI_Aint disp = rma_window_disp(&win[rel], t, (piece + off) * W * sizeof(uint64_t));
                    MPI_CHECK(me, rma_put_start(mode, send, (uint64_t)len * W, MPI_UINT64_T, t, disp, win[rel].win,
                                                &slots[next].req));
                    slots[next].target = t;
                    slots[next].win = win[rel].win;
                    t_put += rmb_now() - t0;
                    next = (next + 1) % SMJ_SEND_BUFFERS;
                }
            }
        }
    }
    double t0 = rmb_now();
    if (mode == RMA_FLUSH_REQUEST) /* the window flush below completes window-mode puts */
        for (int b = 0; b < SMJ_SEND_BUFFERS; b++) complete_slot(slots, b, mode, me);
    for (int rel = 0; rel < RELS; rel++) MPI_CHECK(me, MPI_Win_flush_all(win[rel].win));
    t_flush += rmb_now() - t0;
    const double waited = rma_windows_end_epoch(win, RELS, ctx->comm);
    pl->radix_share = sorted ? (double)radix / (double)sorted : 0;
    phases_add(ph, "put", t_put);
    phases_add(ph, "flush", t_flush);
    if (!spare) free(buf);
    return waited;
}
