/* MPI test of the blocking waits that give the core up (bench/yield_wait.h) and of --flush auto
 * (rma_flush_resolve), with the yielding forced on or off (argv[1]: on | off) whatever the cores:
 * - rmb_barrier: rank r arrives r x 40 ms late; no rank may leave before the last one arrived
 *   (each measures from a common start, MPI_Barrier before it);
 * - rmb_wait on a receive whose send comes 40 ms later: it returns the message, the request is
 *   MPI_REQUEST_NULL afterwards, and it did not return before the send was posted;
 * - rmb_wait on a put's request (MPI_Rput through rma_put_start/rma_put_complete, request mode):
 *   after the end of the epoch the target holds the words;
 * - rma_allreduce_u64_pieces / rma_scan_u64_pieces (MPI_Iallreduce / MPI_Iscan and rmb_wait when
 *   on) in pieces of 3 of 10 words: the sums and prefix sums every rank can compute; and
 *   rmb_reduce_scatter_block / rmb_alltoall: each rank's block sums and the blocks addressed to it;
 *   rmb_reduce_scatter: uneven blocks (rank t: t + 1 words), each rank's sums;
 * - auto resolves to request where ranks outnumber cores or the library is MPICH < 4.1, else window;
 *   given modes stay; rma_put_start refuses an unresolved auto.
 * Prints verification: PASS|FAIL. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/context.h"
#include "bench/yield_wait.h"
#include "rma/count.h"
#include "rma/flush.h"
#include "rma/window.h"
#include "tests/rma/rma_test.h"

enum { LATE_MS = 40, WORDS = 512 };

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int check_barrier(const bench_ctx *ctx)
{
    MPI_Barrier(ctx->comm);
    const double t0 = MPI_Wtime();
    sleep_ms(ctx->rank * LATE_MS);
    if (rmb_barrier(ctx->comm) != MPI_SUCCESS) return 1;
    const double waited = MPI_Wtime() - t0, last = (ctx->size - 1) * LATE_MS * 1e-3;
    if (waited < last - 0.005) {
        printf("rank %d: left rmb_barrier after %.3f s, before the last rank arrived (%.3f s)\n", ctx->rank, waited, last);
        return 1;
    }
    return 0;
}

static int check_wait(const bench_ctx *ctx)
{
    if (ctx->size < 2 || ctx->rank > 1) return 0;
    uint64_t v = 0;
    if (ctx->rank == 1) {
        sleep_ms(LATE_MS);
        v = 0xC0FFEE;
        MPI_Send(&v, 1, MPI_UINT64_T, 0, 7, ctx->comm);
        return 0;
    }
    MPI_Request req;
    const double t0 = MPI_Wtime();
    MPI_Irecv(&v, 1, MPI_UINT64_T, 1, 7, ctx->comm, &req);
    int rc = rmb_wait(&req);
    const double waited = MPI_Wtime() - t0;
    int e = rc != MPI_SUCCESS || v != 0xC0FFEE || req != MPI_REQUEST_NULL || waited < LATE_MS * 1e-3 - 0.005;
    if (e) printf("rank 0: rmb_wait: rc %d, value 0x%llx, request %s, after %.3f s\n", rc, (unsigned long long)v,
                  req == MPI_REQUEST_NULL ? "null" : "still set", waited);
    return e;
}

static int check_put(const bench_ctx *ctx)
{
    const int n = ctx->size, me = ctx->rank, to = (me + 1) % n, from = (me + n - 1) % n;
    rma_window w;
    rma_window_alloc(&w, WORDS * sizeof(uint64_t), WIN_ALLOCATE, ctx->comm);
    memset(w.base, 0, WORDS * sizeof(uint64_t));
    MPI_Barrier(ctx->comm);
    uint64_t src[WORDS];
    for (int i = 0; i < WORDS; i++) src[i] = (uint64_t)me << 32 | (uint64_t)i;
    rma_window_lock_all(&w);
    MPI_Request req;
    int e = rma_put_start(RMA_FLUSH_REQUEST, src, WORDS, MPI_UINT64_T, to, 0, w.win, &req) != MPI_SUCCESS;
    e |= rma_put_complete(RMA_FLUSH_REQUEST, to, w.win, &req) != MPI_SUCCESS || req != MPI_REQUEST_NULL;
    rma_windows_end_epoch(&w, 1, ctx->comm);
    const uint64_t *got = w.base;
    for (int i = 0; i < WORDS && !e; i++)
        if (got[i] != ((uint64_t)from << 32 | (uint64_t)i)) {
            printf("rank %d: word %d is 0x%llx after a put from rank %d\n", me, i, (unsigned long long)got[i], from);
            e = 1;
        }
    rma_window_free(&w);
    return e;
}

static int check_reductions(const bench_ctx *ctx)
{
    enum { N = 10 };
    uint64_t in[N], sum[N], prefix[N];
    for (int i = 0; i < N; i++) in[i] = (uint64_t)(ctx->rank + 1) * 1000 + (uint64_t)i;
    int e = rma_allreduce_u64_pieces(in, sum, N, MPI_SUM, ctx->comm, 3) != MPI_SUCCESS;
    e |= rma_scan_u64_pieces(in, prefix, N, MPI_SUM, ctx->comm, 3) != MPI_SUCCESS;
    const uint64_t p = (uint64_t)ctx->size, r = (uint64_t)ctx->rank + 1;
    for (int i = 0; i < N && !e; i++) { /* sum over ranks q = 1..P of q * 1000 + i */
        const uint64_t all = 1000 * p * (p + 1) / 2 + p * (uint64_t)i, upto = 1000 * r * (r + 1) / 2 + r * (uint64_t)i;
        if (sum[i] != all || prefix[i] != upto) {
            printf("rank %d: word %d: allreduce %llu (expected %llu), scan %llu (expected %llu)\n", ctx->rank, i,
                   (unsigned long long)sum[i], (unsigned long long)all, (unsigned long long)prefix[i], (unsigned long long)upto);
            e = 1;
        }
    }
    /* rmb_reduce_scatter_block: rank t gets the sums of block t; rmb_alltoall: rank t gets block t of every rank */
    const int P = ctx->size, me = ctx->rank;
    uint64_t *blocks = malloc(2 * (size_t)P * sizeof *blocks), *got = malloc(2 * (size_t)P * sizeof *got), mine[2];
    if (!blocks || !got) return 1;
    for (int t = 0; t < P; t++) blocks[2 * t] = (uint64_t)me * 100 + (uint64_t)t, blocks[2 * t + 1] = 7;
    e |= rmb_reduce_scatter_block(blocks, mine, 2, MPI_UINT64_T, MPI_SUM, ctx->comm) != MPI_SUCCESS;
    e |= rmb_alltoall(blocks, 2, MPI_UINT64_T, got, 2, MPI_UINT64_T, ctx->comm) != MPI_SUCCESS;
    const uint64_t ranks_sum = (uint64_t)P * (uint64_t)(P - 1) / 2;
    if (!e && (mine[0] != 100 * ranks_sum + (uint64_t)P * (uint64_t)me || mine[1] != 7 * (uint64_t)P)) {
        printf("rank %d: reduce_scatter_block gave %llu, %llu\n", me, (unsigned long long)mine[0], (unsigned long long)mine[1]);
        e = 1;
    }
    /* rmb_reduce_scatter with uneven counts: rank t gets t + 1 words, word j of them the sum over
     * ranks of (rank + 1) * (t * 10 + j) */
    int *counts = malloc((size_t)P * sizeof *counts), total = 0;
    for (int t = 0; t < P; t++) counts[t] = t + 1, total += t + 1;
    uint64_t *uneven = malloc((size_t)total * sizeof *uneven), part[64];
    for (int t = 0, k = 0; t < P; t++)
        for (int j = 0; j <= t; j++) uneven[k++] = (uint64_t)(me + 1) * (uint64_t)(t * 10 + j);
    e |= P > 64 || rmb_reduce_scatter(uneven, part, counts, MPI_UINT64_T, MPI_SUM, ctx->comm) != MPI_SUCCESS;
    for (int j = 0; j <= me && !e; j++)
        if (part[j] != (uint64_t)P * (uint64_t)(P + 1) / 2 * (uint64_t)(me * 10 + j)) {
            printf("rank %d: reduce_scatter word %d is %llu\n", me, j, (unsigned long long)part[j]);
            e = 1;
        }
    free(counts);
    free(uneven);
    for (int q = 0; q < P && !e; q++)
        if (got[2 * q] != (uint64_t)q * 100 + (uint64_t)me || got[2 * q + 1] != 7) {
            printf("rank %d: alltoall block from rank %d is %llu, %llu\n", me, q, (unsigned long long)got[2 * q],
                   (unsigned long long)got[2 * q + 1]);
            e = 1;
        }
    free(blocks);
    free(got);
    return e;
}

static int check_resolve(void)
{
    const rma_flush_mode spare_cores = RMB_MPICH_BEFORE_4_1 ? RMA_FLUSH_REQUEST : RMA_FLUSH_WINDOW; /* library-safe */
    const char *why = NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    uint64_t word = 0;
    return rma_flush_resolve(RMA_FLUSH_AUTO, true, &why) != RMA_FLUSH_REQUEST || !why ||
           rma_flush_resolve(RMA_FLUSH_AUTO, false, NULL) != spare_cores ||
           rma_flush_resolve(RMA_FLUSH_WINDOW, true, NULL) != RMA_FLUSH_WINDOW ||
           rma_flush_resolve(RMA_FLUSH_REQUEST, false, NULL) != RMA_FLUSH_REQUEST ||
           /* an unresolved auto is refused, never taken for one of the modes */
           rma_put_start(RMA_FLUSH_AUTO, &word, 1, MPI_UINT64_T, 0, 0, MPI_WIN_NULL, &req) != MPI_ERR_ARG;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    const int on = argc > 1 && strcmp(argv[1], "on") == 0;
    rmb_waits_yield(on); /* after bench_ctx_init, which set it from the cores */
    int e = 0;
    if (rmb_waits_yielding() != on) {
        printf("rank %d: rmb_waits_yield(%d) did not hold\n", ctx.rank, on);
        e = 1;
    }
    e += check_barrier(&ctx);
    e += check_wait(&ctx);
    e += check_put(&ctx);
    e += check_reductions(&ctx);
    if (check_resolve()) {
        printf("rank %d: rma_flush_resolve maps auto wrongly\n", ctx.rank);
        e++;
    }
    if (ctx.rank == 0) printf("yield_wait %s: %d rank(s)\n", on ? "on" : "off", ctx.size);
    return rma_test_finish(&ctx, e);
}
