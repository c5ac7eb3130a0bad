/* MPI test of the window lifetimes (rma/window.h, --window-life) for one flavour
 * (argv[1]: pool | dynamic, argv[2]: allocate | create | create-huge):
 * - pool: a slot's first window is made at its reservation, not at the smaller size asked for, and
 *   is not reused; asked for again (smaller), the same window comes back reused, with what was
 *   written into it (a join must not rely on a cleared window); nothing beyond the reservation is
 *   held (rma_window_held_peak) and nothing grew (rma_window_regrown); when one rank asks for more
 *   than the reservation, every rank gets a new window, and that rank counts the growth;
 * - dynamic: a join's windows lie back to back in the arena (slot 1 right after slot 0's rounded
 *   size), all on one MPI_Win; a put through rma_window_disp lands at the right neighbour's window
 *   at the offset asked for, in slot 1 too, also when slot 0's size (and so slot 1's start) changes
 *   from one join to the next and differs between ranks; the arena is made once (reused from the second join on) and holds
 *   the reservations; a window beyond it gets memory of its own (counted), and a put lands there.
 * Prints verification: PASS|FAIL. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench/context.h"
#include "rma/window.h"
#include "tests/rma/rma_test.h"

enum { RESERVE = 1 << 16 };

/* Every rank puts a mark into its right neighbour's window w at byte `at`; returns the errors of
 * the mark its left neighbour put here. */
static int put_lands(const bench_ctx *ctx, rma_window *w, uint64_t at)
{
    const int me = ctx->rank, right = (me + 1) % ctx->size, left = (me + ctx->size - 1) % ctx->size;
    int errors = 0;
    memset(w->base, 0, w->bytes);
    MPI_Barrier(ctx->comm);
    const uint64_t mark = 0xD1CE0000ull + (uint64_t)me;
    rma_window_lock_all(w);
    MPI_CHECK(me, MPI_Put(&mark, 8, MPI_BYTE, right, rma_window_disp(w, right, at), 8, MPI_BYTE, w->win));
    rma_windows_end_epoch(w, 1, ctx->comm);
    uint64_t got;
    memcpy(&got, (const char *)w->base + at, 8);
    FAIL_IF(got != 0xD1CE0000ull + (uint64_t)left, "the put of rank %d is not at byte %llu (read %llx)", left,
            (unsigned long long)at, (unsigned long long)got);
    return errors;
}

static int pool(const bench_ctx *ctx, win_flavor flavor)
{
    const int me = ctx->rank;
    int errors = 0;
    rma_window w;
    rma_window_reserve(0, RESERVE);
    rma_window_acquire(&w, 10000, flavor, WIN_LIFE_POOL, ctx->comm, 0);
    FAIL_IF(w.bytes < RESERVE || w.reused, "the first window holds %llu bytes, reused %d", (unsigned long long)w.bytes,
            (int)w.reused);
    const void *base = w.base;
    memset(w.base, 0x5A, w.bytes);
    rma_window_release(&w);
    rma_window_acquire(&w, 5000, flavor, WIN_LIFE_POOL, ctx->comm, 0);
    FAIL_IF(w.base != base || !w.reused, "the kept window did not come back reused");
    FAIL_IF(((const unsigned char *)w.base)[RESERVE - 1] != 0x5A, "the kept window was cleared");
    errors += put_lands(ctx, &w, RESERVE - 8);
    rma_window_release(&w);
    /* what the slot holds: the reservation rounded (rma_round_size; MPICH: 64 more for allocate) */
    FAIL_IF(rma_window_held_peak() > RESERVE + 128 || rma_window_regrown() != 0, "held %llu bytes, grew %d times",
            (unsigned long long)rma_window_held_peak(), rma_window_regrown());
    rma_window_acquire(&w, me == 0 ? 4 * RESERVE : 100, flavor, WIN_LIFE_POOL, ctx->comm, 0);
    FAIL_IF(w.reused || (me == 0 && w.bytes < 4 * RESERVE) || rma_window_regrown() != (me == 0),
            "beyond the reservation: reused %d, %llu bytes, grew %d times", (int)w.reused, (unsigned long long)w.bytes,
            rma_window_regrown());
    rma_window_release(&w);
    return errors;
}

/* One join's two dynamic windows of r and s bytes: back to back, one MPI_Win, puts land in both. */
static int dynamic_join(const bench_ctx *ctx, win_flavor flavor, uint64_t r, uint64_t s, MPI_Win *win, int join)
{
    const int me = ctx->rank;
    int errors = 0;
    rma_window w[2];
    rma_window_acquire(&w[0], r, flavor, WIN_LIFE_DYNAMIC, ctx->comm, 0);
    rma_window_acquire(&w[1], s, flavor, WIN_LIFE_DYNAMIC, ctx->comm, 1);
    for (int i = 0; i < 2; i++) rma_window_prefault(&w[i]);
    FAIL_IF((char *)w[1].base != (char *)w[0].base + rma_round_size(r), "slot 1 does not follow slot 0 in the arena");
    FAIL_IF(w[0].win != w[1].win || (join > 0 && w[0].win != *win), "the join's windows are not the one dynamic window");
    FAIL_IF(w[0].reused != (join > 0), "join %d: arena reused %d", join, (int)w[0].reused);
    *win = w[0].win;
    errors += put_lands(ctx, &w[0], 0);
    errors += put_lands(ctx, &w[1], 0);
    errors += put_lands(ctx, &w[1], s - 8);
    for (int i = 0; i < 2; i++) rma_window_release(&w[i]);
    return errors;
}

static int dynamic(const bench_ctx *ctx, win_flavor flavor)
{
    const int me = ctx->rank;
    int errors = 0;
    MPI_Win win = MPI_WIN_NULL;
    rma_window_reserve(0, RESERVE);
    rma_window_reserve(1, RESERVE);
    /* slot 0 of another size in each join: slot 1 starts elsewhere, every rank must learn where */
    errors += dynamic_join(ctx, flavor, 10000, 20000, &win, 0);
    errors += dynamic_join(ctx, flavor, 30016 + 64 * (uint64_t)me, 20000, &win, 1);
    errors += dynamic_join(ctx, flavor, 64, RESERVE, &win, 2);
    FAIL_IF(rma_window_held_peak() != 2 * RESERVE || rma_window_regrown() != 0, "held %llu bytes, grew %d times",
            (unsigned long long)rma_window_held_peak(), rma_window_regrown());
    /* beyond the arena: memory and an attachment of the window's own */
    rma_window w[2];
    rma_window_acquire(&w[0], RESERVE, flavor, WIN_LIFE_DYNAMIC, ctx->comm, 0);
    rma_window_acquire(&w[1], 3 * RESERVE, flavor, WIN_LIFE_DYNAMIC, ctx->comm, 1);
    rma_window_prefault(&w[1]);
    FAIL_IF(rma_window_regrown() != 1, "a window beyond the arena was not counted");
    errors += put_lands(ctx, &w[1], 3 * RESERVE - 8);
    for (int i = 0; i < 2; i++) rma_window_release(&w[i]);
    return errors;
}

int main(int argc, char **argv)
{
    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    int flavor = 0, life = 0, errors = 0;
    while (argc > 2 && win_flavor_names[flavor] && strcmp(win_flavor_names[flavor], argv[2]) != 0) flavor++;
    while (argc > 1 && win_life_names[life] && strcmp(win_life_names[life], argv[1]) != 0) life++;
    if (argc < 3 || !win_flavor_names[flavor] || flavor >= WIN_FLAVORS || life == WIN_LIFE_JOIN || !win_life_names[life]) {
        if (ctx.rank == 0) fprintf(stderr, "usage: test_life pool|dynamic allocate|create|create-huge\n");
        errors = 1;
    } else {
        errors += life == WIN_LIFE_POOL ? pool(&ctx, (win_flavor)flavor) : dynamic(&ctx, (win_flavor)flavor);
        rma_window_pool_drain();
        if (rma_window_held_bytes() != 0) {
            fprintf(stderr, "rank %d: %llu bytes still held after the drain\n", ctx.rank,
                    (unsigned long long)rma_window_held_bytes());
            errors++;
        }
    }
    return rma_test_finish(&ctx, errors);
}
