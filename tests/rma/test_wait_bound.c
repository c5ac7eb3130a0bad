/* The wait bound (bench/wait_bound.h) on MPI calls nobody marked: the profiling layer times them.
 *   late    rank 1 runs but enters MPI_Allreduce 4 s late; rank 0, bounded at 1 s, ends with exit 3
 *           and one line naming the call and that every rank on the machine runs (none stopped)
 *   nested  rank 0 marks a wait of its own around MPI_Barrier: the line names the outer wait
 *   in-time every rank calls the collectives of a short run within the bound: the run verifies */
#include <string.h>
#include <time.h>

#include "tests/rma/rma_test.h"
#include "bench/wait_bound.h"

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "in-time";
    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    wait_bound_start(&ctx, 1.0);
    int errors = 0, one = 1, sum = 0;
    if (strcmp(mode, "late") == 0 || strcmp(mode, "nested") == 0) {
        if (ctx.rank == 1) sleep_s(4); /* alive: its watchdog and /proc say it runs */
        if (strcmp(mode, "nested") == 0 && ctx.rank == 0) blocking_begin("the test's own wait", 1);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ctx.comm);
        if (ctx.rank == 0) errors++; /* rank 0 must not get here: the bound ended it */
    } else {
        for (int i = 0; i < 200; i++) {
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ctx.comm);
            errors += sum != ctx.size;
            MPI_Barrier(ctx.comm);
        }
        sleep_s(1.5); /* nothing in progress: no bound applies */
    }
    return rma_test_finish(&ctx, errors);
}
