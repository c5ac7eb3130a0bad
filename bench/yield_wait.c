#include "bench/yield_wait.h"

#include "bench/wait_bound.h"

#include <sched.h>
#include <stdatomic.h>

static atomic_bool yielding;

void rmb_waits_yield(bool on) { atomic_store_explicit(&yielding, on, memory_order_relaxed); }

bool rmb_waits_yielding(void) { return atomic_load_explicit(&yielding, memory_order_relaxed); }

int rmb_wait(MPI_Request *req)
{
    if (!rmb_waits_yielding()) return MPI_Wait(req, MPI_STATUS_IGNORE);
    int rc;
    blocking_begin("MPI_Wait", -1); /* the loop as one call for the wait bound; a caller's name stays */
    for (;;) {
        int done = 0;
        rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) break;
        sched_yield();
    }
    blocking_end();
    return rc;
}

/* The nonblocking form of a collective and rmb_wait, named as the blocking one for the wait bound. */
static int wait_named(const char *what, int rc, MPI_Request *req)
{
    if (rc != MPI_SUCCESS) return rc;
    blocking_begin(what, -1);
    rc = rmb_wait(req);
    blocking_end();
    return rc;
}

int rmb_reduce_scatter_block(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Reduce_scatter_block(in, out, count, type, op, comm);
    MPI_Request req;
    return wait_named("MPI_Reduce_scatter_block", MPI_Ireduce_scatter_block(in, out, count, type, op, comm, &req), &req);
}

int rmb_reduce_scatter(const void *in, void *out, const int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Reduce_scatter(in, out, counts, type, op, comm);
    MPI_Request req;
    return wait_named("MPI_Reduce_scatter", MPI_Ireduce_scatter(in, out, counts, type, op, comm, &req), &req);
}

int rmb_alltoall(const void *in, int count, MPI_Datatype type, void *out, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Alltoall(in, count, type, out, rcount, rtype, comm);
    MPI_Request req;
    return wait_named("MPI_Alltoall", MPI_Ialltoall(in, count, type, out, rcount, rtype, comm, &req), &req);
}

int rmb_barrier(MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Barrier(comm);
    MPI_Request req;
    return wait_named("MPI_Barrier", MPI_Ibarrier(comm, &req), &req);
}

int rmb_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Bcast(buf, count, type, root, comm);
    MPI_Request req;
    return wait_named("MPI_Bcast", MPI_Ibcast(buf, count, type, root, comm, &req), &req);
}
