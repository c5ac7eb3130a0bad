#include "bench/yield_wait.h"

#include <sched.h>
#include <stdatomic.h>

static atomic_bool yielding;

void rmb_waits_yield(bool on) { atomic_store_explicit(&yielding, on, memory_order_relaxed); }

bool rmb_waits_yielding(void) { return atomic_load_explicit(&yielding, memory_order_relaxed); }

int rmb_wait(MPI_Request *req)
{
    if (!rmb_waits_yielding()) return MPI_Wait(req, MPI_STATUS_IGNORE);
    for (;;) {
        int done = 0, rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        sched_yield();
    }
}

int rmb_reduce_scatter_block(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Reduce_scatter_block(in, out, count, type, op, comm);
    MPI_Request req;
    int rc = MPI_Ireduce_scatter_block(in, out, count, type, op, comm, &req);
    return rc != MPI_SUCCESS ? rc : rmb_wait(&req);
}

int rmb_reduce_scatter(const void *in, void *out, const int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Reduce_scatter(in, out, counts, type, op, comm);
    MPI_Request req;
    int rc = MPI_Ireduce_scatter(in, out, counts, type, op, comm, &req);
    return rc != MPI_SUCCESS ? rc : rmb_wait(&req);
}

int rmb_alltoall(const void *in, int count, MPI_Datatype type, void *out, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Alltoall(in, count, type, out, rcount, rtype, comm);
    MPI_Request req;
    int rc = MPI_Ialltoall(in, count, type, out, rcount, rtype, comm, &req);
    return rc != MPI_SUCCESS ? rc : rmb_wait(&req);
}

int rmb_barrier(MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Barrier(comm);
    MPI_Request req;
    int rc = MPI_Ibarrier(comm, &req);
    return rc != MPI_SUCCESS ? rc : rmb_wait(&req);
}

int rmb_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (!rmb_waits_yielding()) return MPI_Bcast(buf, count, type, root, comm);
    MPI_Request req;
    int rc = MPI_Ibcast(buf, count, type, root, comm, &req);
    return rc != MPI_SUCCESS ? rc : rmb_wait(&req);
}
