/* MPI test of --window auto (rma/window_auto.h), 2 ranks:
 * - rma_window_cheapest: the lowest positive cost, ties to the lower flavour, none: the library default;
 * - before any pick WIN_AUTO means RMA_JOIN_DEFAULT_FLAVOR;
 * - given costs: the cheapest is chosen (with MPICH < 4.1 or more ranks than cores: the library
 *   default, unmeasured), and from then on
 *   rma_window_alloc and the pool hand out that flavour for WIN_AUTO;
 * - measured: every flavour's cost positive, the choice the cheapest of them and the same on
 *   every rank.
 * Prints verification: PASS|FAIL. */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench/context.h"
#include "tests/rma/rma_test.h"
#include "rma/window_auto.h"

static int errors;
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "rank %d: ", ctx.rank);                         \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            errors++;                                                       \
        }                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);

    const double a[WIN_FLAVORS] = {3, 1, 2}, b[WIN_FLAVORS] = {1, 1, 2}, c[WIN_FLAVORS] = {0, 5, 4}, none[WIN_FLAVORS] = {0};
    CHECK(rma_window_cheapest(a) == WIN_CREATE, "cheapest of {3,1,2} is not create");
    CHECK(rma_window_cheapest(b) == WIN_ALLOCATE, "a tie did not go to the lower flavour");
    CHECK(rma_window_cheapest(c) == WIN_CREATE_HUGE, "an unmeasured flavour (cost 0) was chosen");
    CHECK(rma_window_cheapest(none) == RMA_JOIN_DEFAULT_FLAVOR, "no costs: not the library default");
    CHECK(rma_window_auto_flavor() == RMA_JOIN_DEFAULT_FLAVOR, "auto before any pick is not the library default");

    const double given[WIN_FLAVORS] = {2e-9, 3e-9, 1e-9};
    rma_window_pick p;
    rma_window_pick_flavor(&ctx, given, 0, &p);
    const bool measures = rma_window_auto_allowed() && rma_window_auto_crowd_ok(&ctx);
    const win_flavor want = measures ? WIN_CREATE_HUGE : RMA_JOIN_DEFAULT_FLAVOR;
    CHECK(p.chosen == want, "given costs: chose %s, not %s", win_flavor_names[p.chosen], win_flavor_names[want]);
    CHECK(rma_window_auto_flavor() == want, "WIN_AUTO does not mean the pick");
    rma_window w;
    rma_window_alloc(&w, 1000, WIN_AUTO, ctx.comm);
    CHECK(w.flavor == want, "rma_window_alloc(WIN_AUTO) made a %s window", win_flavor_names[w.flavor]);
    rma_window_free(&w);
    rma_window_acquire(&w, 1000, WIN_AUTO, WIN_LIFE_POOL, ctx.comm, 0);
    void *base = w.base;
    rma_window_release(&w);
    rma_window_acquire(&w, 1000, WIN_AUTO, WIN_LIFE_POOL, ctx.comm, 0);
    CHECK(w.base == base && w.flavor == want, "the pool did not keep the auto window");
    rma_window_release(&w);
    rma_window_pool_drain();

    rma_window_pick_flavor(&ctx, NULL, 0, &p);
    if (measures) {
        for (int f = 0; f < WIN_FLAVORS; f++) CHECK(p.cost[f] > 0, "%s not measured", win_flavor_names[f]);
        CHECK(p.bytes == (uint64_t)256 << 10, "measured on %llu bytes, not 256 KiB", (unsigned long long)p.bytes);
        CHECK(p.chosen == rma_window_cheapest(p.cost), "measured: not the cheapest");
    } else {
        CHECK(p.chosen == RMA_JOIN_DEFAULT_FLAVOR && p.bytes == 0, "MPICH < 4.1 or over 2 ranks per core: not the library default");
    }
    int lo, hi, mine = (int)p.chosen;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, ctx.comm);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, ctx.comm);
    CHECK(lo == hi, "ranks chose different flavours");
    char costs[160];
    rma_window_pick_costs(&p, costs, sizeof costs);
    if (ctx.rank == 0) printf("auto: %s (%s: %s)\n", win_flavor_names[p.chosen], p.source, costs);

    return rma_test_finish(&ctx, errors);
}
