#include "rma/count.h"

#include <limits.h>
#include <stdbool.h>

#include "bench/yield_wait.h"

int rma_count_type(uint64_t n, MPI_Datatype type, int *count, MPI_Datatype *dt)
{
    if (n <= (uint64_t)INT_MAX) {
        *count = (int)n;
        *dt = type;
        return MPI_SUCCESS;
    }
    const uint64_t piece = (uint64_t)RMA_COUNT_PIECE, q = n / piece, r = n % piece;
    MPI_Aint lb, extent;
    MPI_Datatype blk, body, rest;
    int rc = MPI_Type_get_extent(type, &lb, &extent);
    if (rc == MPI_SUCCESS) rc = MPI_Type_contiguous((int)piece, type, &blk);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Type_contiguous((int)q, blk, &body); /* an int for any n below 2^61 */
    MPI_Type_free(&blk);
    if (rc != MPI_SUCCESS) return rc;
    if (r == 0) {
        *dt = body;
    } else {
        rc = MPI_Type_contiguous((int)r, type, &rest);
        if (rc != MPI_SUCCESS) {
            MPI_Type_free(&body);
            return rc;
        }
        int lens[2] = {1, 1};
        MPI_Aint displs[2] = {0, (MPI_Aint)(q * piece) * extent};
        MPI_Datatype types[2] = {body, rest};
        rc = MPI_Type_create_struct(2, lens, displs, types, dt);
        MPI_Type_free(&body);
        MPI_Type_free(&rest);
        if (rc != MPI_SUCCESS) return rc;
    }
    *count = 1;
    return MPI_Type_commit(dt);
}

void rma_count_type_free(MPI_Datatype type, MPI_Datatype *dt)
{
    if (*dt != type) MPI_Type_free(dt);
    *dt = type;
}

typedef int (*blocking_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*nonblocking_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);

/* One call per piece of at most `piece` elements; at least one call, so that every rank takes part
 * even when n is 0. Where waits yield (ranks outnumber cores, bench/yield_wait.h) the nonblocking
 * form and rmb_wait: MPICH 4.0.2 spins inside a blocking collective, holding the core the rank it
 * waits for needs, where Open MPI's progress yields by itself (docs/measurements.md, "From code
 * comments"). */
static int piecewise(blocking_fn call, nonblocking_fn icall, const uint64_t *in, uint64_t *out, uint64_t n, MPI_Op op,
                     MPI_Comm comm, uint64_t piece)
{
    if (piece == 0 || piece > (uint64_t)INT_MAX) piece = (uint64_t)RMA_COUNT_PIECE;
    const bool yield = rmb_waits_yielding();
    uint64_t off = 0;
    int rc;
    do {
        uint64_t k = n - off < piece ? n - off : piece;
        if (yield) {
            MPI_Request req;
            rc = icall(in + off, out + off, (int)k, MPI_UINT64_T, op, comm, &req);
            if (rc == MPI_SUCCESS) rc = rmb_wait(&req);
        } else {
            rc = call(in + off, out + off, (int)k, MPI_UINT64_T, op, comm);
        }
        off += k;
    } while (rc == MPI_SUCCESS && off < n);
    return rc;
}

int rma_allreduce_u64_pieces(const uint64_t *in, uint64_t *out, uint64_t n, MPI_Op op, MPI_Comm comm, uint64_t piece)
{
    return piecewise(MPI_Allreduce, MPI_Iallreduce, in, out, n, op, comm, piece);
}

int rma_scan_u64_pieces(const uint64_t *in, uint64_t *out, uint64_t n, MPI_Op op, MPI_Comm comm, uint64_t piece)
{
    return piecewise(MPI_Scan, MPI_Iscan, in, out, n, op, comm, piece);
}

int rma_allreduce_u64(const uint64_t *in, uint64_t *out, uint64_t n, MPI_Op op, MPI_Comm comm)
{
    return rma_allreduce_u64_pieces(in, out, n, op, comm, (uint64_t)RMA_COUNT_PIECE);
}

int rma_scan_u64(const uint64_t *in, uint64_t *out, uint64_t n, MPI_Op op, MPI_Comm comm)
{
    return rma_scan_u64_pieces(in, out, n, op, comm, (uint64_t)RMA_COUNT_PIECE);
}
