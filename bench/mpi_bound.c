/* The wait bound's reach (bench/wait_bound.h): every MPI call that can wait on a peer, wrapped
 * through the MPI profiling interface, so that whatever phase or command calls it is bounded and
 * named without marking the call. Each wrapper marks the call (blocking_begin with its name and the
 * peer where the call has one) and calls the next definition of the same function: the library's,
 * or a profiling tool's that the launch preloads (looked up with dlsym(RTLD_NEXT) once, so that
 * such tools still see the calls; the library's PMPI_ entry where there is no dynamic next, as in
 * a static link). Calls that only start something (MPI_Put, MPI_Isend, MPI_Test) are not wrapped:
 * a loop that waits by polling them marks itself. */
#include "bench/wait_bound.h"

#include <dlfcn.h>
#include <string.h>

/* NAME's next definition, or FALLBACK (its PMPI_ entry). */
static void *next_of(const char *name, void *fallback)
{
    void *f = dlsym(RTLD_NEXT, name);
    return f ? f : fallback;
}

/* peer numbers: a negative one (MPI_ANY_SOURCE, MPI_PROC_NULL) names no rank */
#define WRAP(NAME, PEER, PARAMS, ARGS)                                         \
    static int(*next_##NAME) PARAMS;                                           \
    int NAME PARAMS                                                            \
    {                                                                          \
        if (!next_##NAME) {                                                    \
            void *f = next_of(#NAME, (void *)P##NAME);                         \
            memcpy(&next_##NAME, &f, sizeof f);                                \
        }                                                                      \
        blocking_begin(#NAME, (PEER));                                         \
        int rc = next_##NAME ARGS;                                             \
        blocking_end();                                                        \
        return rc;                                                             \
    }

/* collectives: every member waits for the others */
WRAP(MPI_Barrier, -1, (MPI_Comm comm), (comm))
WRAP(MPI_Bcast, -1, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm), (buf, count, type, root, comm))
WRAP(MPI_Reduce, -1, (const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm),
     (in, out, count, type, op, root, comm))
WRAP(MPI_Allreduce, -1, (const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (in, out, count, type, op, comm))
WRAP(MPI_Gather, -1,
     (const void *in, int scount, MPI_Datatype stype, void *out, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
     (in, scount, stype, out, rcount, rtype, root, comm))
WRAP(MPI_Gatherv, -1,
     (const void *in, int scount, MPI_Datatype stype, void *out, const int rcounts[], const int displs[],
      MPI_Datatype rtype, int root, MPI_Comm comm),
     (in, scount, stype, out, rcounts, displs, rtype, root, comm))
WRAP(MPI_Scatter, -1,
     (const void *in, int scount, MPI_Datatype stype, void *out, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
     (in, scount, stype, out, rcount, rtype, root, comm))
WRAP(MPI_Scatterv, -1,
     (const void *in, const int scounts[], const int displs[], MPI_Datatype stype, void *out, int rcount,
      MPI_Datatype rtype, int root, MPI_Comm comm),
     (in, scounts, displs, stype, out, rcount, rtype, root, comm))
WRAP(MPI_Allgather, -1,
     (const void *in, int scount, MPI_Datatype stype, void *out, int rcount, MPI_Datatype rtype, MPI_Comm comm),
     (in, scount, stype, out, rcount, rtype, comm))
WRAP(MPI_Allgatherv, -1,
     (const void *in, int scount, MPI_Datatype stype, void *out, const int rcounts[], const int displs[],
      MPI_Datatype rtype, MPI_Comm comm),
     (in, scount, stype, out, rcounts, displs, rtype, comm))
WRAP(MPI_Alltoall, -1,
     (const void *in, int scount, MPI_Datatype stype, void *out, int rcount, MPI_Datatype rtype, MPI_Comm comm),
     (in, scount, stype, out, rcount, rtype, comm))
WRAP(MPI_Alltoallv, -1,
     (const void *in, const int scounts[], const int sdispls[], MPI_Datatype stype, void *out, const int rcounts[],
      const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
     (in, scounts, sdispls, stype, out, rcounts, rdispls, rtype, comm))
WRAP(MPI_Reduce_scatter, -1,
     (const void *in, void *out, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (in, out, rcounts, type, op, comm))
WRAP(MPI_Reduce_scatter_block, -1, (const void *in, void *out, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (in, out, rcount, type, op, comm))
WRAP(MPI_Scan, -1, (const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (in, out, count, type, op, comm))
WRAP(MPI_Exscan, -1, (const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (in, out, count, type, op, comm))
/* communicators and windows: created and freed collectively */
WRAP(MPI_Comm_dup, -1, (MPI_Comm comm, MPI_Comm *out), (comm, out))
WRAP(MPI_Comm_split, -1, (MPI_Comm comm, int color, int key, MPI_Comm *out), (comm, color, key, out))
WRAP(MPI_Comm_split_type, -1, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out), (comm, type, key, info, out))
WRAP(MPI_Comm_create, -1, (MPI_Comm comm, MPI_Group group, MPI_Comm *out), (comm, group, out))
WRAP(MPI_Win_create, -1, (void *base, MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, MPI_Win *win),
     (base, size, unit, info, comm, win))
WRAP(MPI_Win_allocate, -1, (MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),
     (size, unit, info, comm, base, win))
WRAP(MPI_Win_allocate_shared, -1, (MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),
     (size, unit, info, comm, base, win))
WRAP(MPI_Win_create_dynamic, -1, (MPI_Info info, MPI_Comm comm, MPI_Win *win), (info, comm, win))
WRAP(MPI_Win_free, -1, (MPI_Win *win), (win))
WRAP(MPI_Win_fence, -1, (int assert, MPI_Win win), (assert, win))
WRAP(MPI_Finalize, -1, (void), ())
/* point to point, and the completion of requests */
WRAP(MPI_Send, dest, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm),
     (buf, count, type, dest, tag, comm))
WRAP(MPI_Ssend, dest, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm),
     (buf, count, type, dest, tag, comm))
WRAP(MPI_Recv, source, (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status),
     (buf, count, type, source, tag, comm, status))
WRAP(MPI_Sendrecv, dest,
     (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount, MPI_Datatype rtype,
      int source, int rtag, MPI_Comm comm, MPI_Status *status),
     (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status))
WRAP(MPI_Probe, source, (int source, int tag, MPI_Comm comm, MPI_Status *status), (source, tag, comm, status))
WRAP(MPI_Wait, -1, (MPI_Request *req, MPI_Status *status), (req, status))
WRAP(MPI_Waitall, -1, (int count, MPI_Request reqs[], MPI_Status *statuses), (count, reqs, statuses))
WRAP(MPI_Waitany, -1, (int count, MPI_Request reqs[], int *index, MPI_Status *status), (count, reqs, index, status))
WRAP(MPI_Waitsome, -1, (int count, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]),
     (count, reqs, outcount, indices, statuses))
/* one-sided completion: under MPICH it needs the target to call MPI */
WRAP(MPI_Win_flush, rank, (int rank, MPI_Win win), (rank, win))
WRAP(MPI_Win_flush_local, rank, (int rank, MPI_Win win), (rank, win))
WRAP(MPI_Win_flush_all, -1, (MPI_Win win), (win))
WRAP(MPI_Win_flush_local_all, -1, (MPI_Win win), (win))
WRAP(MPI_Win_lock, rank, (int type, int rank, int assert, MPI_Win win), (type, rank, assert, win))
WRAP(MPI_Win_unlock, rank, (int rank, MPI_Win win), (rank, win))
WRAP(MPI_Win_unlock_all, -1, (MPI_Win win), (win))
WRAP(MPI_Win_wait, -1, (MPI_Win win), (win))
WRAP(MPI_Win_complete, -1, (MPI_Win win), (win))

/* Called by wait_bound.c (so that every program that bounds its waits links these wrappers): the
 * first lookup done before any call is timed. */
void mpi_bound_init(void);
void mpi_bound_init(void)
{
    void *f = next_of("MPI_Barrier", (void *)PMPI_Barrier);
    memcpy(&next_MPI_Barrier, &f, sizeof f);
}
