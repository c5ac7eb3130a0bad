/* MPI test of the put buffers (rma/putbuf.h) in one --flush mode (argv[1]: window | request), with
 * one and with two buffers per destination. Every rank sends every other rank a run of 8-byte words
 * encoding (source, target, index), appended in pieces of 1 to 5 words so that pieces straddle
 * buffer boundaries, through buffers of 200 bytes (3 cache lines are used). Checked:
 * - before every append, the buffer being filled has no put in flight: its MPI_Rput request is
 *   complete (request), or its target was flushed since its put (window); so no buffer is written
 *   while the library may still read it;
 * - window mode with one buffer flushes before every reuse: one flush per put to each target;
 * - after putbuf_finish and the end of the epoch, every word sits at its offset in the target's
 *   window and nothing else was written.
 * Prints verification: PASS|FAIL. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench/context.h"
#include "rma/flush.h"
#include "rma/putbuf.h"
#include "rma/window.h"

enum { WORDS = 1000, BUF_BYTES = 200, UNTOUCHED = 0xEE };

static uint64_t word(int src, int dst, uint64_t i) { return ((uint64_t)src << 48) | ((uint64_t)dst << 32) | i; }

/* 1 when the buffer destination d is filling has a put that is not complete. */
static int in_flight(const putbuf_set *pb, int d)
{
    const putbuf_dest *pd = &pb->dest[d];
    int s = pd->first + pd->cur;
    if (pb->mode == RMA_FLUSH_REQUEST) return pb->req[s] != MPI_REQUEST_NULL;
    return pb->put_epoch[s] == pb->target_epoch[pd->target];
}

static int run(const bench_ctx *ctx, rma_flush_mode mode, int nbufs)
{
    const int n = ctx->size, me = ctx->rank;
    const uint64_t region = WORDS * sizeof(uint64_t); /* one per source in every window */
    rma_window w;
    rma_window_alloc(&w, (uint64_t)n * region, WIN_ALLOCATE, ctx->comm);
    memset(w.base, UNTOUCHED, w.bytes);
    MPI_Barrier(ctx->comm);
    int target[64];
    MPI_Aint disp[64];
    for (int d = 0; d < n; d++) {
        target[d] = d == me ? -1 : d; /* no buffers for this rank itself */
        disp[d] = (MPI_Aint)((uint64_t)me * region);
    }
    putbuf_set pb;
    rma_window_lock_all(&w);
    int errors = putbuf_init(&pb, w.win, ctx->comm, me, n, n, target, disp, BUF_BYTES, nbufs, mode) != 0;
    for (uint64_t i = 0; i < WORDS && !errors;) {
        uint64_t piece[5], k = 0, len = 1 + i % 5;
        for (; k < len && i < WORDS; k++, i++) piece[k] = i;
        for (int d = 0; d < n; d++) {
            if (d == me) continue;
            uint64_t v[5];
            for (uint64_t j = 0; j < k; j++) v[j] = word(me, d, piece[j]);
            if (in_flight(&pb, d) && errors++ < 3) fprintf(stderr, "rank %d: buffer to %d in flight before append\n", me, d);
            putbuf_append(&pb, d, v, k * sizeof *v);
        }
    }
    putbuf_finish(&pb);
    const uint64_t used = putbuf_buffer_bytes(BUF_BYTES), puts = (region + used - 1) / used; /* per target */
    if (mode == RMA_FLUSH_WINDOW && nbufs == 1)
        for (int d = 0; d < n; d++)
            if (d != me && pb.target_epoch[d] - 1 != puts && errors++ < 3)
                fprintf(stderr, "rank %d: %llu flushes to %d for %llu puts\n", me,
                        (unsigned long long)(pb.target_epoch[d] - 1), d, (unsigned long long)puts);
    if (pb.puts != puts * (uint64_t)(n - 1) && errors++ < 3)
        fprintf(stderr, "rank %d: %llu puts, want %llu\n", me, (unsigned long long)pb.puts,
                (unsigned long long)(puts * (uint64_t)(n - 1)));
    putbuf_free(&pb);
    rma_windows_end_epoch(&w, 1, ctx->comm);
    const uint64_t *got = w.base;
    for (int src = 0; src < n; src++)
        for (uint64_t i = 0; i < WORDS; i++) {
            uint64_t want = src == me ? 0xEEEEEEEEEEEEEEEEull : word(src, me, i), g = got[(uint64_t)src * WORDS + i];
            if (g != want && errors++ < 5)
                fprintf(stderr, "rank %d: word %llu from rank %d is %#llx, want %#llx\n", me, (unsigned long long)i, src,
                        (unsigned long long)g, (unsigned long long)want);
        }
    rma_window_free(&w);
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, ctx->comm);
    return all;
}

int main(int argc, char **argv)
{
    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    int mode = argc > 1 && strcmp(argv[1], "request") == 0 ? RMA_FLUSH_REQUEST : RMA_FLUSH_WINDOW, errors = 0;
    if (ctx.size > 64) errors = 1;
    for (int nbufs = 1; nbufs <= 2 && !errors; nbufs++) {
        int e = run(&ctx, (rma_flush_mode)mode, nbufs);
        if (ctx.rank == 0) printf("putbuf %s, %d buffer(s) per destination: %d error(s)\n", rma_flush_names[mode], nbufs, e);
        errors += e;
    }
    if (ctx.rank == 0) printf("verification: %s\n", errors ? "FAIL" : "PASS");
    bench_ctx_free(&ctx);
    MPI_Finalize();
    return errors ? 1 : 0;
}
