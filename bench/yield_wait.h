/* Blocking MPI waits that give the core up where ranks outnumber cores (bench_ctx.poll_yield).
 * MPICH 4.0.2 spins inside MPI_Wait and MPI_Barrier: a rank waiting there held its core for its
 * whole time slice from the rank it waited for. With these waits a rank calls MPI_Test (progress)
 * and then sched_yield until its request completes, which shortens an oversubscribed network pass
 * several-fold (docs/measurements.md, "From code comments"). Open MPI yields by itself under
 * mpi_yield_when_idle; the loop changes nothing there. Without the setting both are the plain
 * blocking calls. */
#ifndef RMB_YIELD_WAIT_H
#define RMB_YIELD_WAIT_H
#include <mpi.h>
#include <stdbool.h>

/* Process-wide; bench_ctx_init sets it from the polling policy (bench_poll_yields). */
void rmb_waits_yield(bool on);
bool rmb_waits_yielding(void);
/* MPI_Wait, or MPI_Test and sched_yield until the request completes. Returns the MPI error code. */
int rmb_wait(MPI_Request *req);
/* MPI_Barrier, or MPI_Ibarrier and rmb_wait. Returns the MPI error code. */
int rmb_barrier(MPI_Comm comm);
/* MPI_Bcast, or MPI_Ibcast and rmb_wait: where one rank times something (a kernel pick) while the
 * others wait for its answer, the waiters leave it the core. */
int rmb_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
/* MPI_Reduce_scatter_block, MPI_Reduce_scatter and MPI_Alltoall, or their nonblocking forms and
 * rmb_wait (the sort-merge join's range plan, the radix histogram's sub-partition counts; the
 * pieced reductions of rma/count.h do the same). */
int rmb_reduce_scatter_block(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int rmb_reduce_scatter(const void *in, void *out, const int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int rmb_alltoall(const void *in, int count, MPI_Datatype type, void *out, int rcount, MPI_Datatype rtype, MPI_Comm comm);

#endif
