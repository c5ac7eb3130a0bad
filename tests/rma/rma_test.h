/* The end of every MPI test program of tests/rma: the errors of all ranks summed, the verdict line
 * mpi_check.sh reads ("verification: PASS|FAIL") on rank 0, the context freed, MPI finalized. */
#ifndef RMB_RMA_TEST_H
#define RMB_RMA_TEST_H
#include <mpi.h>
#include <stdio.h>

#include "bench/context.h"

/* One rank's failed check: the line names the rank (a local `me`) and counts in a local `errors`. */
#define FAIL_IF(cond, ...)                                                  \
    do {                                                                    \
        if (cond) {                                                         \
            fprintf(stderr, "rank %d: ", me);                              \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            errors++;                                                       \
        }                                                                   \
    } while (0)

/* Collective; returns main's exit code (0: no rank saw an error). */
static inline int rma_test_finish(bench_ctx *ctx, int errors)
{
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, ctx->comm);
    if (ctx->rank == 0) printf("verification: %s\n", all ? "FAIL" : "PASS");
    bench_ctx_free(ctx);
    MPI_Finalize();
    return all ? 1 : 0;
}

#endif
