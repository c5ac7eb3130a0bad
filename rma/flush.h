/* --flush: how an origin learns that a put's send buffer may be written again. One mechanism for
 * every operator that reuses send buffers (the radix join's put buffers, rma/putbuf.h; the
 * sort-merge join's sort phase), so that the flag means the same in both:
 *   RMA_FLUSH_WINDOW   MPI_Put; before reuse MPI_Win_flush to the buffer's target (completes every
 *                      put this origin issued to that target, at the target)
 *   RMA_FLUSH_REQUEST  MPI_Rput; before reuse MPI_Wait on that put's request (local completion)
 * Both need a passive-target epoch (MPI_Win_lock_all). */
#ifndef RMB_RMA_FLUSH_H
#define RMB_RMA_FLUSH_H
#include <mpi.h>
#include <stdint.h>

typedef enum { RMA_FLUSH_WINDOW = 0, RMA_FLUSH_REQUEST = 1 } rma_flush_mode;
extern const char *const rma_flush_names[]; /* {"window", "request", NULL}, indexed by rma_flush_mode */
extern const char *const rma_flush_calls[]; /* the MPI calls of each mode, for run headers */

/* Starts a put of n items of type from buf to target's displacement disp (bytes, disp_unit 1), in
 * one operation whatever n (above INT_MAX through rma/count.h).
 * RMA_FLUSH_REQUEST stores the request in *req; RMA_FLUSH_WINDOW sets it to MPI_REQUEST_NULL.
 * Returns the MPI error code. */
int rma_put_start(rma_flush_mode mode, const void *buf, uint64_t n, MPI_Datatype type, int target, MPI_Aint disp,
                  MPI_Win win, MPI_Request *req);
/* Completes a put started by rma_put_start so that its buffer may be reused: MPI_Wait(req), or
 * MPI_Win_flush(target, win). Returns the MPI error code. */
int rma_put_complete(rma_flush_mode mode, int target, MPI_Win win, MPI_Request *req);

#endif
