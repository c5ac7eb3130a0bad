/* MPI test of rma_window_map_runs (rma/window.h), the joins' window_alloc step that maps the peers'
 * pages a rank will put into. Every rank owns a window filled with 0xA5 and gives itself one run in
 * every rank's window, at offsets and lengths that are not page multiples. The owner then checks
 * its window: with MPI_Win_allocate, every page that a peer's run overlaps got a zero byte inside
 * that run (the mapping put), and no byte outside the peers' runs changed (not even in the owner's
 * own run); with MPI_Win_create nothing changed at all (the call is a no-op there). Then the
 * joins' pattern, data put right after the mapping: no mapping put may land after the data.
 * Prints verification: PASS|FAIL. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/context.h"
#include "rma/window.h"

#define FILL 0xA5

/* Rank r's run in every window: bytes [first(r), first(r) + count(r)). */
static uint64_t first_of(int r, uint64_t page) { return (uint64_t)r * 3 * page + 100 + 7 * (uint64_t)r; }
static uint64_t count_of(int r, uint64_t page) { return 2 * page + 1000 + 333 * (uint64_t)r; }

static int run(bench_ctx *ctx, win_flavor flavor)
{
    const int n = ctx->size, me = ctx->rank;
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), bytes = (uint64_t)(n + 1) * 3 * page;
    rma_window w;
    rma_window_alloc(&w, bytes, flavor, ctx->comm);
    memset(w.base, FILL, w.bytes);
    MPI_Barrier(ctx->comm);
    uint64_t *first = malloc((size_t)n * sizeof *first), *count = malloc((size_t)n * sizeof *count);
    for (int t = 0; t < n; t++) {
        first[t] = first_of(me, page);
        count[t] = count_of(me, page);
    }
    rma_window_map_runs(&w, ctx, (uint64_t)n, NULL, first, NULL, count, 1);
    /* the puts are complete (map_runs unlocked and passed a barrier); make them visible to loads */
    rma_windows_end_epoch(&w, 1, ctx->comm);
    int errors = 0;
    const unsigned char *b = w.base;
    const int mapped = flavor == WIN_ALLOCATE && ctx->host_size > 1;
    for (uint64_t i = 0; i < w.bytes; i++) {
        int in_peer_run = 0;
        for (int r = 0; r < n; r++)
            if (r != me && ctx->rank_host[r] == ctx->host_id && i >= first_of(r, page) &&
                i < first_of(r, page) + count_of(r, page))
                in_peer_run = 1;
        if (!(in_peer_run && mapped) && b[i] != FILL) {
            if (errors++ < 5) fprintf(stderr, "rank %d: byte %llu outside the peers' runs changed\n", me, (unsigned long long)i);
        }
    }
    /* every page (of this process's mapping) that a peer's run overlaps has a zero byte in the run */
    for (int r = 0; r < n && mapped; r++) {
        if (r == me || ctx->rank_host[r] != ctx->host_id) continue;
        uint64_t lo = first_of(r, page), hi = lo + count_of(r, page);
        uintptr_t base = (uintptr_t)w.base;
        for (uintptr_t pg = (base + lo) & ~(uintptr_t)(page - 1); pg < base + hi; pg += page) {
            uint64_t a = pg < base + lo ? lo : pg - base, z = pg + page - base < hi ? pg + page - base : hi;
            int zero = 0;
            for (uint64_t i = a; i < z; i++) zero |= b[i] == 0;
            if (!zero && errors++ < 5)
                fprintf(stderr, "rank %d: page at byte %llu of rank %d's run not mapped\n", me, (unsigned long long)a, r);
        }
    }
    free(first);
    free(count);
    rma_window_free(&w);
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, ctx->comm);
    return all;
}

/* The joins' pattern: map the runs, then put the data there at once. A mapping put that lands late
 * (after the data) leaves a zero byte in it: every byte of the peers' runs must hold the data. */
#define DATA 0x5A
#define ROUNDS 20
static int data_after_mapping(bench_ctx *ctx)
{
    const int n = ctx->size, me = ctx->rank;
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), run = 256 * page + 24, bytes = (uint64_t)n * run;
    unsigned char *src = malloc(run);
    uint64_t *first = malloc((size_t)n * sizeof *first), *count = malloc((size_t)n * sizeof *count);
    memset(src, DATA, run);
    int errors = 0;
    for (int k = 0; k < ROUNDS; k++) {
        rma_window w;
        rma_window_alloc(&w, bytes, WIN_ALLOCATE, ctx->comm);
        memset(w.base, FILL, w.bytes);
        MPI_Barrier(ctx->comm);
        for (int t = 0; t < n; t++) {
            first[t] = (uint64_t)me * run;
            count[t] = run;
        }
        rma_window_map_runs(&w, ctx, (uint64_t)n, NULL, first, NULL, count, 1);
        rma_window_lock_all(&w);
        for (int t = 0; t < n; t++)
            if (t != me) MPI_Put(src, (int)run, MPI_BYTE, t, (MPI_Aint)(me * run), (int)run, MPI_BYTE, w.win);
        MPI_Win_flush_all(w.win);
        rma_windows_end_epoch(&w, 1, ctx->comm); /* as the joins end their put epochs */
        const unsigned char *b = w.base;
        for (uint64_t i = 0; i < bytes; i++) {
            unsigned char want = i / run == (uint64_t)me ? FILL : DATA;
            if (b[i] != want && errors++ < 5)
                fprintf(stderr, "rank %d round %d: byte %llu is 0x%02x, not 0x%02x (a mapping put after the data?)\n", me, k,
                        (unsigned long long)i, b[i], want);
        }
        rma_window_free(&w);
    }
    free(src);
    free(first);
    free(count);
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
    int errors = run(&ctx, WIN_ALLOCATE) + run(&ctx, WIN_CREATE) + data_after_mapping(&ctx);
    if (ctx.rank == 0) printf("map_runs: %d rank(s) on %d host(s)\nverification: %s\n", ctx.size, ctx.hosts, errors ? "FAIL" : "PASS");
    bench_ctx_free(&ctx);
    MPI_Finalize();
    return errors ? 1 : 0;
}
