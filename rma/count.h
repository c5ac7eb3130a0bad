/* Counts handed to MPI are int; sizes at thesis scale need not be (a 3 GiB window region is
 * 3 * 2^30 MPI_BYTEs). The one place that turns a 64-bit count into what an MPI call takes:
 *   rma_count_type   for a transfer (MPI_Put, MPI_Rput, MPI_Get): count n of type when n fits an
 *                    int, else count 1 of a committed derived type covering the n elements (blocks
 *                    of 2^30 elements, then the rest), the way BigMPI does it; one call stays one
 *                    operation, so a request (MPI_Rput) still completes the whole transfer;
 *   rma_allreduce_u64, rma_scan_u64   element-wise reductions of uint64_t: split into pieces of at
 *                    most 2^30 elements (predefined operations take only predefined types).
 * Displacements and window sizes are MPI_Aint (64-bit) throughout and need no help. Callers whose
 * counts cannot exceed an int by construction (one message slot, a histogram of 2^20 partitions)
 * may call MPI directly; everything that moves a relation's data goes through here. */
#ifndef RMB_RMA_COUNT_H
#define RMB_RMA_COUNT_H
#include <mpi.h>
#include <stdint.h>

/* Largest elements per piece (a power of two below INT_MAX, so that piece offsets stay exact). */
#define RMA_COUNT_PIECE (INT64_C(1) << 30)

/* *count, *dt to pass to MPI for n elements of type. Returns an MPI error code. When *dt != type,
 * free it with rma_count_type_free once the call has been made (MPI keeps what pending operations need). */
int rma_count_type(uint64_t n, MPI_Datatype type, int *count, MPI_Datatype *dt);
void rma_count_type_free(MPI_Datatype type, MPI_Datatype *dt);

/* MPI_Allreduce / MPI_Scan of n uint64_t with op, in pieces that fit an int (where waits yield,
 * bench/yield_wait.h: MPI_Iallreduce / MPI_Iscan and rmb_wait). Return an MPI error code. */
int rma_allreduce_u64(const uint64_t *in, uint64_t *out, uint64_t n, MPI_Op op, MPI_Comm comm);
int rma_scan_u64(const uint64_t *in, uint64_t *out, uint64_t n, MPI_Op op, MPI_Comm comm);
/* The same in pieces of at most `piece` elements (0: RMA_COUNT_PIECE), so that tests split small arrays. */
int rma_allreduce_u64_pieces(const uint64_t *in, uint64_t *out, uint64_t n, MPI_Op op, MPI_Comm comm, uint64_t piece);
int rma_scan_u64_pieces(const uint64_t *in, uint64_t *out, uint64_t n, MPI_Op op, MPI_Comm comm, uint64_t piece);

#endif
