/* --exchange get: the owner pulls. Every rank packs a relation into a window of its own, then
 * notifies each owner that its pieces are ready (MPI_Accumulate(REPLACE) of a flag in the owner's
 * header, one word per packer); an owner visits the packers in --schedule order, waits for that
 * packer's flag (MPI_Fetch_and_op(NO_OP) on its own header: progresses on both libraries) and
 * MPI_Gets its pieces straight into its window, --buffer-size bytes per get, completing them with
 * MPI_Win_flush every --buffers-per-partition gets. The flags count relations, so the window
 * (exchange.h: radix_exchange_bufs) serves both without clearing them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joins/radix/exchange.h"

static void get_pass(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                     radix_exchange_bufs *b, radix_pass_times *t)
{
    const bench_ctx *ctx = in->ctx;
    const int P = ctx->size, me = ctx->rank;
    *t = (radix_pass_times){0, 0, 0};
    for (int rel = 0; rel < 2; rel++) {
        radix_exchange ex;
        radix_exchange_plan(in, lay, f, rel, &ex);
        const uint64_t item = ex.item, chunk = (uint64_t)in->plan->buffer_size / item ? (uint64_t)in->plan->buffer_size / item : 1;
        const uint64_t hdr = b->hdr, ready_at = (uint64_t)rel + 1; /* a packer's flag: relations ready */
        const MPI_Win pw = b->pw.win;
        char *pack = b->pack;
        radix_pack_relation(in, f, rel, lay, ex.pack_off, (uint64_t *)(void *)pack);
        MPI_CHECK(me, MPI_Win_sync(pw)); /* the pack is visible before the notifications */
        for (int t = 0; t < P; t++)
            if (t != me && ex.sfirst[t + 1] > ex.sfirst[t])
                MPI_CHECK(me, MPI_Accumulate(&ready_at, 1, MPI_UINT64_T, t, (MPI_Aint)me * 8, 1, MPI_UINT64_T, MPI_REPLACE, pw));
        MPI_CHECK(me, MPI_Win_flush_all(pw));
        char *dst = win[rel].base;
        for (int k = 0; k < ex.mine; k++) { /* own pieces: a copy */
            const size_t i = (size_t)me * (size_t)ex.mine + (size_t)k;
            memcpy(dst + ex.dst[i] * item, pack + ex.src[i] * item, ex.count[i] * item);
        }
        for (int s = 0; s < P - 1; s++) {
            const int j = ex.order[s];
            const uint64_t *count = ex.count + (size_t)j * (size_t)ex.mine;
            if (radix_msg_total(count, ex.mine, chunk) == 0) continue;
            double t0 = MPI_Wtime();
            for (uint64_t ready = 0; ready < ready_at;) {
                uint64_t none = 0;
                MPI_CHECK(me, MPI_Fetch_and_op(&none, &ready, MPI_UINT64_T, me, (MPI_Aint)j * 8, MPI_NO_OP, pw));
                MPI_CHECK(me, MPI_Win_flush(me, pw));
            }
            t->flush += MPI_Wtime() - t0;
            radix_msg_cursor c = {0, 0};
            int piece, inflight = 0;
            uint64_t first, n;
            while ((n = radix_msg_next(&c, count, ex.mine, chunk, &piece, &first))) {
                const size_t i = (size_t)j * (size_t)ex.mine + (size_t)piece;
                double t1 = MPI_Wtime();
                MPI_CHECK(me, MPI_Get(dst + (ex.dst[i] + first) * item, (int)(n * item), MPI_BYTE, j,
                                      (MPI_Aint)(hdr + (ex.src[i] + first) * item), (int)(n * item), MPI_BYTE, pw));
                double t2 = MPI_Wtime();
                t->put += t2 - t1;
                if (++inflight == in->opt->buffers_per_partition) {
                    MPI_CHECK(me, MPI_Win_flush(j, pw));
                    inflight = 0;
                    t->flush += MPI_Wtime() - t2;
                }
            }
            double t3 = MPI_Wtime();
            MPI_CHECK(me, MPI_Win_flush(j, pw));
            t->flush += MPI_Wtime() - t3;
        }
        /* nobody repacks while an owner still pulls; after S, the pass' closing barrier */
        const double waited = rmb_wait_all(ctx->comm);
        *(rel == REL_S ? &t->wait : &t->flush) += waited;
        radix_exchange_free(&ex);
    }
}

const radix_exchange_design radix_exchange_get = {
    .name = "get",
    .help = "owners pull with MPI_Get after a notification",
    .schedule = true,
    .buffers = RADIX_XBUF_PACK_WINDOW,
    .run = get_pass,
};
