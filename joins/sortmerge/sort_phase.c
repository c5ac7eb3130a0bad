/* The sort phase: each target's tuples are cut into runs of run_size, every run is sorted in
 * cache into a send buffer and sent with MPI_Rput while the next run is sorted (two send buffers;
 * a buffer is reused only after its put completed locally). Rank i starts with target i+1 so that
 * the receivers are not all hit at once. Runs for this rank are sorted straight into its own
 * window. Then flush, unlock and barrier: afterwards every window holds all its runs. */
#include <stdio.h>
#include <stdlib.h>

#include "joins/sortmerge/smj_kernels.h"
#include "joins/sortmerge/smj_plan.h"

enum { SEND_BUFFERS = 2 };

void smj_sort_phase(const join_input *in, const smj_plan *pl, rma_window win[RELS], size_t run_size, int simd,
                    phase_set *ph)
{
    const bench_ctx *ctx = in->ctx;
    const int P = pl->parts, me = ctx->rank;
    uint64_t *buf = malloc((SEND_BUFFERS + 1) * run_size * sizeof *buf);
    if (!buf) {
        fprintf(stderr, "rmabench: rank %d: sortmerge: cannot allocate the send buffers\n", me);
        MPI_Abort(ctx->world, 2);
    }
    uint64_t *tmp = buf + SEND_BUFFERS * run_size;
    MPI_Request req[SEND_BUFFERS];
    for (int b = 0; b < SEND_BUFFERS; b++) req[b] = MPI_REQUEST_NULL;
    double t_put = 0, t_flush = 0;
    int next = 0;

    for (int rel = 0; rel < RELS; rel++) rma_window_lock_all(&win[rel]);
    for (int k = 1; k <= P; k++) {
        int t = (me + k) % P;
        for (int rel = 0; rel < RELS; rel++) {
            const uint64_t *group = pl->packed[rel] + pl->local[rel][t];
            uint64_t n = pl->count[rel][t];
            for (uint64_t off = 0; off < n; off += run_size) {
                size_t len = n - off < run_size ? (size_t)(n - off) : run_size;
                if (t == me) { /* own range: sort straight into the window */
                    uint64_t *dst = (uint64_t *)win[rel].base + pl->remote[rel][t] + off;
                    smj_sort_run(group + off, len, dst, tmp, simd);
                    continue;
                }
                double t0 = rmb_now();
                MPI_CHECK(me, MPI_Wait(&req[next], MPI_STATUS_IGNORE));
                t_flush += rmb_now() - t0;
                uint64_t *send = buf + (size_t)next * run_size;
                smj_sort_run(group + off, len, send, tmp, simd);
                t0 = rmb_now();
                MPI_Aint disp = (MPI_Aint)((pl->remote[rel][t] + off) * sizeof(uint64_t));
                MPI_CHECK(me, MPI_Rput(send, (int)len, MPI_UINT64_T, t, disp, (int)len, MPI_UINT64_T, win[rel].win,
                                       &req[next]));
                t_put += rmb_now() - t0;
                next = (next + 1) % SEND_BUFFERS;
            }
        }
    }
    double t0 = rmb_now();
    for (int b = 0; b < SEND_BUFFERS; b++) MPI_CHECK(me, MPI_Wait(&req[b], MPI_STATUS_IGNORE));
    for (int rel = 0; rel < RELS; rel++) {
        MPI_CHECK(me, MPI_Win_flush_all(win[rel].win));
        rma_window_unlock_all(&win[rel]);
    }
    t_flush += rmb_now() - t0;
    /* all puts into this rank's windows are complete once every origin has unlocked */
    MPI_CHECK(me, MPI_Barrier(ctx->world));
    for (int rel = 0; rel < RELS; rel++) { /* the separate memory model needs the public copy synced */
        MPI_CHECK(me, MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win[rel].win));
        MPI_CHECK(me, MPI_Win_sync(win[rel].win));
        MPI_CHECK(me, MPI_Win_unlock(me, win[rel].win));
    }
    phases_add(ph, "put", t_put);
    phases_add(ph, "flush", t_flush);
    free(buf);
}
