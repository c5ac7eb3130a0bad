/* Calibration of --window auto (rma/window_auto.h): each window flavour's cost per byte of
 * allocation, first touch (with MPI_Win_allocate also a host peer's mapping) and free, all ranks at
 * once, the flavours interleaved, the fastest of --repeats rounds; the joins' --window auto with
 * --model FILE chooses from these instead of measuring at startup. A calibration of --window auto
 * (the default) then models the flavour they choose. And what a later join pays for its windows
 * under --window-life pool and dynamic (t_win_pool_fixed, t_win_dynamic_*; a first join pays what
 * t_win_alloc_* and t_win_touch_per_byte say, calibrate_network.c). */
#include <stdio.h>

#include "bench/stats.h"
#include "cmd/calibrate/calibrate.h"
#include "rma/window_auto.h"

#define WINDOW_COST_BYTES ((uint64_t)8 << 20) /* large enough that the per-byte cost dominates the fixed one */

void calibrate_window(const bench_ctx *ctx, calibrate_opts *o, model_params *p)
{
    double cost[WIN_FLAVORS];
    rma_window_measure_costs(ctx, WINDOW_COST_BYTES, (int)o->repeats, cost);
    params_put(p, MP_t_win_cost_allocate, cost[WIN_ALLOCATE]);
    params_put(p, MP_t_win_cost_create, cost[WIN_CREATE]);
    params_put(p, MP_t_win_cost_create_huge, cost[WIN_CREATE_HUGE]);
    rma_window_pick pick;
    /* as the joins at --tuples-per-rank will pick: R and S, 8-byte packed words each */
    rma_window_pick_flavor(ctx, cost, (uint64_t)o->tuples_per_rank * 16, &pick);
    if (o->window == WIN_AUTO) o->window = pick.chosen;
}

/* A later join's window_alloc under `life` (pool or dynamic), slowest rank, median over `reps`: the
 * two windows of `bytes` together acquired (their slots reserved at bytes / 2 each), faulted in,
 * a barrier, released, as the joins' window_alloc phases do; the first acquire (which makes and
 * touches them) untimed, the kept windows freed at the end. */
static double later_join_alloc(const bench_ctx *ctx, win_life life, win_flavor flavor, uint64_t bytes, int reps)
{
    double t[100];
    for (int rel = 0; rel < 2; rel++) rma_window_reserve(rel, bytes / 2);
    for (int r = -1; r < reps; r++) {
        rma_window w[2];
        MPI_CHECK(ctx->rank, MPI_Barrier(ctx->comm));
        const double t0 = MPI_Wtime();
        for (int rel = 0; rel < 2; rel++) {
            rma_window_acquire(&w[rel], bytes / 2, flavor, life, ctx->comm, rel);
            rma_window_prefault(&w[rel]);
        }
        MPI_CHECK(ctx->rank, MPI_Barrier(ctx->comm));
        for (int rel = 0; rel < 2; rel++) rma_window_release(&w[rel]);
        const double mine = MPI_Wtime() - t0;
        if (r >= 0) t[r] = calibrate_allreduce(ctx, mine, MPI_MAX);
    }
    rma_window_pool_drain();
    for (int rel = 0; rel < 2; rel++) rma_window_reserve(rel, 0);
    return stats_median(t, reps);
}

void calibrate_window_life(const bench_ctx *ctx, const calibrate_opts *o, uint64_t small, uint64_t large, model_params *p)
{
    const win_flavor flavor = (win_flavor)o->window;
    const int reps = o->repeats < 3 ? (int)o->repeats : 7;
    char how[CALIBRATE_HOW];
    params_put(p, MP_t_win_pool_fixed, later_join_alloc(ctx, WIN_LIFE_POOL, flavor, large, reps));
    snprintf(how, sizeof how, "2 kept windows of %llu B, flavour %s: acquired, barrier, released; median of %d",
             (unsigned long long)large / 2, win_flavor_names[flavor], reps);
    calibrate_note(p, MP_t_win_pool_fixed, how, 0);
    /* a line through the arena's two sizes: what attaching costs beyond its fixed part */
    const double ts = later_join_alloc(ctx, WIN_LIFE_DYNAMIC, flavor, small, reps);
    const double tl = later_join_alloc(ctx, WIN_LIFE_DYNAMIC, flavor, large, reps);
    double per_byte = (tl - ts) / (double)(large - small);
    if (per_byte < 0) per_byte = 0; /* noise: attaching does not cost less for more */
    params_put(p, MP_t_win_dynamic_per_byte, per_byte);
    params_put(p, MP_t_win_dynamic_fixed, ts - per_byte * (double)small > 0 ? ts - per_byte * (double)small : 0);
    snprintf(how, sizeof how, "an arena of %llu and of %llu B (2 windows), memory of flavour %s: attached, addresses "
             "exchanged, barrier, detached; medians of %d", (unsigned long long)small, (unsigned long long)large,
             win_flavor_names[flavor], reps);
    calibrate_note(p, MP_t_win_dynamic_fixed, how, 0);
}
