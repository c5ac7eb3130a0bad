/* Pinning ranks to one CPU for the micro-benchmarks of ranks that share a core (calibrate.h). */
#include <stdio.h>

#include "cmd/calibrate/calibrate.h"

bool calibrate_pin_begin(const bench_ctx *ctx, bool member, calibrate_pin *pin)
{
    pin->pinned = false;
    pin->cpu = 0;
    int ok = 1, all = 0;
#ifdef __linux__
    pin->cpu = sched_getcpu();
    MPI_Bcast(&pin->cpu, 1, MPI_INT, 0, ctx->comm);
    if (pin->cpu < 0) pin->cpu = 0;
    if (member) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(pin->cpu, &one);
        ok = pin->pinned = sched_getaffinity(0, sizeof pin->saved, &pin->saved) == 0 &&
                           sched_setaffinity(0, sizeof one, &one) == 0;
    }
#else
    ok = !member;
#endif
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, ctx->comm);
    return all;
}

void calibrate_pin_end(const bench_ctx *ctx, calibrate_pin *pin)
{
#ifdef __linux__
    if (pin->pinned && sched_setaffinity(0, sizeof pin->saved, &pin->saved) != 0)
        fprintf(stderr, "rmabench: calibrate: rank %d: could not restore its CPU affinity\n", ctx->rank);
#else
    (void)ctx;
#endif
    pin->pinned = false;
}
