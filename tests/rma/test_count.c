/* MPI test of rma/count.h, the one place that turns 64-bit counts into what MPI takes (2 ranks).
 * - rma_count_type: for counts at and around INT_MAX (and a 3 GiB one) of MPI_BYTE and
 *   MPI_UINT64_T, the (count, type) pair covers exactly n elements (MPI_Type_size_x), and counts
 *   that fit an int are passed through unchanged;
 * - rma_allreduce_u64_pieces / rma_scan_u64_pieces split into pieces of 7 elements give what one
 *   call gives, element by element;
 * - argv[1] = "large": rank 0 puts one region of 2^31 + 4104 bytes (above INT_MAX, so through the
 *   derived type) into rank 1's window with one rma_put_start in each --flush mode; rank 1
 *   checks every 8-byte word of it and that the 64 bytes after it were not written.
 * Prints verification: PASS|FAIL. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/context.h"
#include "bench/memory.h"
#include "rma/count.h"
#include "rma/flush.h"
#include "rma/window.h"

static int check_types(void)
{
    const uint64_t ns[] = {0, 5, (uint64_t)INT_MAX, (uint64_t)INT_MAX + 1, (UINT64_C(1) << 31) + 4104,
                           UINT64_C(3) << 30, (UINT64_C(1) << 32) + 1};
    const MPI_Datatype types[] = {MPI_BYTE, MPI_UINT64_T};
    int errors = 0;
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            int count, esize;
            MPI_Datatype dt;
            MPI_Count size;
            MPI_Type_size(types[t], &esize);
            if (rma_count_type(ns[i], types[t], &count, &dt) != MPI_SUCCESS) return 1;
            MPI_Type_size_x(dt, &size);
            uint64_t covered = (uint64_t)count * (uint64_t)size, want = ns[i] * (uint64_t)esize;
            int passthrough = ns[i] <= (uint64_t)INT_MAX;
            if (covered != want || passthrough != (dt == types[t])) {
                fprintf(stderr, "n %llu type %d: count %d x %lld bytes, want %llu bytes%s\n", (unsigned long long)ns[i],
                        t, count, (long long)size, (unsigned long long)want, passthrough ? " (passed through)" : "");
                errors++;
            }
            rma_count_type_free(types[t], &dt);
        }
    return errors;
}

static int check_reductions(const bench_ctx *ctx)
{
    enum { N = 100 };
    uint64_t in[N], one[N], pieces[N];
    int errors = 0;
    for (int i = 0; i < N; i++) in[i] = (uint64_t)(ctx->rank + 1) * 1000 + (uint64_t)i;
    for (int scan = 0; scan < 2; scan++) {
        if (scan) {
            MPI_Scan(in, one, N, MPI_UINT64_T, MPI_SUM, ctx->comm);
            rma_scan_u64_pieces(in, pieces, N, MPI_SUM, ctx->comm, 7);
        } else {
            MPI_Allreduce(in, one, N, MPI_UINT64_T, MPI_SUM, ctx->comm);
            rma_allreduce_u64_pieces(in, pieces, N, MPI_SUM, ctx->comm, 7);
        }
        for (int i = 0; i < N; i++)
            if (one[i] != pieces[i] && errors++ < 3)
                fprintf(stderr, "rank %d %s[%d]: %llu in pieces, %llu in one call\n", ctx->rank, scan ? "scan" : "allreduce",
                        i, (unsigned long long)pieces[i], (unsigned long long)one[i]);
    }
    return errors;
}

/* One put of more than INT_MAX bytes from rank 0 into rank 1's window per --flush mode, verified
 * there. One window and one source for both modes: touching fresh memory is most of the cost. */
static int check_large_puts(const bench_ctx *ctx)
{
    const uint64_t n = (UINT64_C(1) << 31) + 4104, words = n / 8;
    rma_window w;
    rma_window_alloc(&w, ctx->rank == 1 ? n + 64 : 64, WIN_CREATE_HUGE, ctx->comm); /* private memory: shared windows fault in slowly */
    /* huge pages: 4 KiB ones cost 10-20 us each at first touch on this VM (2 GiB: 5-10 s) */
    uint64_t *src = ctx->rank == 0 ? mem_alloc_large(n) : NULL;
    int errors = ctx->rank == 0 && !src;
    for (int mode = 0; mode < 2; mode++) {
        const uint64_t salt = 0x9E3779B97F4A7C15u * (uint64_t)(mode + 1);
        memset(w.base, 0xEE, w.bytes);
        if (src)
            for (uint64_t i = 0; i < words; i++) src[i] = i ^ salt;
        MPI_Barrier(ctx->comm);
        rma_window_lock_all(&w);
        if (src) {
            MPI_Request req;
            if (rma_put_start((rma_flush_mode)mode, src, n, MPI_BYTE, 1, 0, w.win, &req) != MPI_SUCCESS ||
                rma_put_complete((rma_flush_mode)mode, 1, w.win, &req) != MPI_SUCCESS ||
                MPI_Win_flush(1, w.win) != MPI_SUCCESS)
                errors++;
        }
        rma_window_unlock_all(&w);
        MPI_Barrier(ctx->comm);
        if (ctx->rank == 1) {
            const uint64_t *got = w.base;
            for (uint64_t i = 0; i < words; i++)
                if (got[i] != (i ^ salt) && errors++ < 3)
                    fprintf(stderr, "mode %d: word %llu wrong\n", mode, (unsigned long long)i);
            for (uint64_t b = n; b < n + 64; b++)
                if (((const unsigned char *)w.base)[b] != 0xEE && errors++ < 3)
                    fprintf(stderr, "mode %d: byte %llu after the region written\n", mode, (unsigned long long)b);
        }
    }
    mem_free_large(src, n);
    rma_window_free(&w);
    return errors;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    int errors = check_types() + check_reductions(&ctx);
    if (argc > 1 && strcmp(argv[1], "large") == 0 && ctx.size >= 2)
        errors += check_large_puts(&ctx);
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, ctx.comm);
    if (ctx.rank == 0) printf("verification: %s\n", total ? "FAIL" : "PASS");
    MPI_Finalize();
    return total ? 1 : 0;
}
