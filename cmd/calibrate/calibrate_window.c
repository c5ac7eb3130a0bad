/* Calibration of --window auto (rma/window_auto.h): each window flavour's cost per byte of
 * allocation, first touch (with MPI_Win_allocate also a host peer's mapping) and free, all ranks at
 * once, the flavours interleaved, the fastest of --repeats rounds; the joins' --window auto with
 * --model FILE chooses from these instead of measuring at startup. A calibration of --window auto
 * (the default) then models the flavour they choose. */
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
    rma_window_pick_flavor(ctx, cost, 0, &pick);
    if (o->window == WIN_AUTO) o->window = pick.chosen;
}
