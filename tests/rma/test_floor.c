/* MPI test of rma/floor.h, the shared-memory round trip under the lock
 * benchmark (2 ranks, one node).
 * - apart: the ranks as launched: the floor is the same on both ranks, and a
 * positive round trip or -1 (given up: on a loaded 2-core machine the pair need
 * not run at once);
 * - one core: both ranks pinned to the same CPU, told that spinning is fine (as
 * when namespace "hosts" of one machine each claim its cores). The pair can
 * then never run at once, so every round trip waits for a scheduler's turn: the
 * measurement must give up (-1 on both ranks) instead of timing 28 000 turns
 * (minutes) and returning that as a hardware floor.
 * - no spinning: spin_ok false gives -1 without a window.
 * Prints verification: PASS|FAIL (and a note where a cpuset forbids the
 * pinning). */
#include <mpi.h>
#include <stdio.h>

#include "bench/context.h"
#include "tests/rma/rma_test.h"
#include "rma/floor.h"

#ifdef __linux__
#include <sched.h>
#endif

static int same_on_both(const bench_ctx *ctx, double v, const char *what) {
  double lo, hi;
  MPI_Allreduce(&v, &lo, 1, MPI_DOUBLE, MPI_MIN, ctx->comm);
  MPI_Allreduce(&v, &hi, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
  if (lo == hi)
    return 0;
  if (ctx->rank == 0)
    fprintf(stderr, "%s: the ranks disagree (%.3f and %.3f us)\n", what, lo,
            hi);
  return 1;
}

int main(int argc, char **argv) {
  bench_mpi_init(&argc, &argv);
  bench_ctx ctx;
  bench_ctx_init(&ctx, MPI_COMM_WORLD);
  int errors = 0;
  if (ctx.size != 2 || ctx.hosts != 1) {
    if (ctx.rank == 0)
      fprintf(stderr, "test_floor: 2 ranks on one host, please\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  double apart = rma_floor_round_trip_us(ctx.comm, 0, 1, true);
  errors += same_on_both(&ctx, apart, "apart");
  if (apart != -1 && !(apart > 0))
    errors++, fprintf(stderr, "apart: %.3f us is neither a round trip nor -1\n",
                      apart);

  double off = rma_floor_round_trip_us(ctx.comm, 0, 1, false);
  if (off != -1)
    errors++, fprintf(stderr, "spin_ok false: %.3f us, expected -1\n", off);

#ifdef __linux__
  /* both ranks on the lowest CPU rank 0 may use */
  cpu_set_t set;
  int cpu = -1, pinned = 0, all_pinned = 0;
  if (ctx.rank == 0 && sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
      if (CPU_ISSET(c, &set))
        cpu = c;
  MPI_Bcast(&cpu, 1, MPI_INT, 0, ctx.comm);
  if (cpu >= 0) {
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pinned = sched_setaffinity(0, sizeof set, &set) == 0;
  }
  MPI_Allreduce(&pinned, &all_pinned, 1, MPI_INT, MPI_MIN, ctx.comm);
  if (!all_pinned) { /* a cpuset that keeps the ranks apart: the one-core case
                        cannot be made */
    if (ctx.rank == 0)
      printf("note: cannot pin both ranks to CPU %d: the one-core case is not "
             "checked\n",
             cpu);
  } else {
    double t0 = MPI_Wtime();
    double shared = rma_floor_round_trip_us(ctx.comm, 0, 1, true);
    double took = MPI_Wtime() - t0;
    errors += same_on_both(&ctx, shared, "one core");
    if (shared != -1)
      errors++, fprintf(stderr,
                        "one core (CPU %d): %.3f us after %.1f s, expected -1 "
                        "(given up)\n",
                        cpu, shared, took);
    if (ctx.rank == 0)
      printf("floor apart %.3f us; on one core %.3f (%.2f s to give up)\n",
             apart, shared, took);
  }
#endif

  return rma_test_finish(&ctx, errors);
}
