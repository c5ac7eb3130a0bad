/* MPI test of the window pool (rma_window_acquire/release, WIN_LIFE_POOL, rma/window.h) for one flavour
 * (argv[1]: allocate | create | create-huge):
 * - a window put back into its slot and asked for again at the same or a smaller size is the same
 *   window: same handle, same base, and what was written into it is still there;
 * - asked for at a larger size it is reallocated (the new size is large enough);
 * - when one rank asks for more than the kept window holds, every rank gets a new window (one
 *   decision for all): a put into the large rank's new window at its far end lands;
 * - another flavour is never handed out from the slot; WIN_LIFE_JOIN is a plain allocate and free;
 * - rma_window_pool_drain frees what is kept.
 * Prints verification: PASS|FAIL. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench/context.h"
#include "tests/rma/rma_test.h"
#include "rma/window.h"

static int reuse(const bench_ctx *ctx, win_flavor flavor)
{
    const int me = ctx->rank;
    int errors = 0;
    rma_window w;
    rma_window_acquire(&w, 10000, flavor, WIN_LIFE_POOL, ctx->comm, 0);
    const void *base = w.base;
    const MPI_Win win = w.win;
    memset(w.base, 0x42 + me, w.bytes);
    rma_window_release(&w);
    FAIL_IF(w.base != NULL, "rma_window_release left the caller's base set");
    rma_window_acquire(&w, 5000, flavor, WIN_LIFE_POOL, ctx->comm, 0); /* smaller: the kept window */
    FAIL_IF(w.base != base || w.win != win, "a smaller request did not get the kept window");
    FAIL_IF(w.bytes < 10000, "the kept window shrank to %llu bytes", (unsigned long long)w.bytes);
    const unsigned char *b = w.base;
    for (uint64_t i = 0; i < 10000; i++)
        if (b[i] != (unsigned char)(0x42 + me)) {
            FAIL_IF(1, "byte %llu of the kept window changed", (unsigned long long)i);
            break;
        }
    rma_window_release(&w);
    rma_window_acquire(&w, 100000, flavor, WIN_LIFE_POOL, ctx->comm, 0); /* larger: reallocated */
    FAIL_IF(w.bytes < 100000, "a larger request got %llu bytes", (unsigned long long)w.bytes);
    rma_window_release(&w);
    return errors;
}

/* Rank 0 asks for more than slot 1 keeps, the others for less: all must reallocate together. */
static int one_decision(const bench_ctx *ctx, win_flavor flavor)
{
    const int me = ctx->rank;
    int errors = 0;
    rma_window w;
    rma_window_acquire(&w, 4096, flavor, WIN_LIFE_POOL, ctx->comm, 1);
    rma_window_release(&w);
    const uint64_t big = 1 << 20;
    rma_window_acquire(&w, me == 0 ? big : 1024, flavor, WIN_LIFE_POOL, ctx->comm, 1);
    FAIL_IF(me == 0 && w.bytes < big, "rank 0 got %llu bytes", (unsigned long long)w.bytes);
    memset(w.base, 0, w.bytes);
    MPI_Barrier(ctx->comm);
    const uint64_t mark = 0xC0FFEE00ull + (uint64_t)me, at = big - 8 * (uint64_t)(me + 1);
    rma_window_lock_all(&w);
    MPI_CHECK(me, MPI_Put(&mark, 8, MPI_BYTE, 0, (MPI_Aint)at, 8, MPI_BYTE, w.win));
    rma_windows_end_epoch(&w, 1, ctx->comm);
    for (int r = 0; r < ctx->size && me == 0; r++) {
        uint64_t got;
        memcpy(&got, (const char *)w.base + big - 8 * (uint64_t)(r + 1), 8);
        FAIL_IF(got != 0xC0FFEE00ull + (uint64_t)r, "rank %d's put is not at the end of the new window", r);
    }
    rma_window_release(&w);
    return errors;
}

/* The other flavours never come from a slot that keeps this one; WIN_LIFE_JOIN is allocate and free. */
static int other_flavour(const bench_ctx *ctx, win_flavor flavor)
{
    const int me = ctx->rank;
    int errors = 0;
    win_flavor other = flavor == WIN_CREATE ? WIN_ALLOCATE : WIN_CREATE;
    rma_window w;
    rma_window_acquire(&w, 1000, other, WIN_LIFE_POOL, ctx->comm, 0); /* slot 0 keeps `flavor`, larger */
    FAIL_IF(w.flavor != other, "slot 0 handed out its %s window for %s", win_flavor_names[flavor], win_flavor_names[other]);
    rma_window_release(&w);
    rma_window_acquire(&w, 1000, flavor, WIN_LIFE_JOIN, ctx->comm, 0);
    FAIL_IF(w.flavor != flavor || w.bytes < 1000, "WIN_LIFE_JOIN did not allocate");
    rma_window_release(&w);
    FAIL_IF(w.base != NULL, "WIN_LIFE_JOIN did not free");
    return errors;
}

int main(int argc, char **argv)
{
    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    int flavor = 0, errors = 0;
    while (win_flavor_names[flavor] && (argc < 2 || strcmp(win_flavor_names[flavor], argv[1]) != 0)) flavor++;
    if (!win_flavor_names[flavor]) {
        if (ctx.rank == 0) fprintf(stderr, "usage: test_pool allocate|create|create-huge\n");
        errors = 1;
    } else {
        errors += reuse(&ctx, (win_flavor)flavor);
        errors += one_decision(&ctx, (win_flavor)flavor);
        errors += other_flavour(&ctx, (win_flavor)flavor);
        rma_window_pool_drain();
    }
    return rma_test_finish(&ctx, errors);
}
