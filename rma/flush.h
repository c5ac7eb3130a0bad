/* --flush: how an origin learns that a put's send buffer may be written again. One mechanism for
 * every operator that reuses send buffers (the radix join's put buffers, rma/putbuf.h; the
 * sort-merge join's sort phase), so that the flag means the same in both:
 *   RMA_FLUSH_WINDOW   MPI_Put; before reuse MPI_Win_flush to the buffer's target (completes every
 *                      put this origin issued to that target, at the target)
 *   RMA_FLUSH_REQUEST  MPI_Rput; before reuse MPI_Wait on that put's request (local completion),
 *                      which gives the core up where ranks outnumber cores (bench/yield_wait.h)
 *   RMA_FLUSH_AUTO     a flag value only, resolved before a run (rma_flush_resolve)
 * Both need a passive-target epoch (MPI_Win_lock_all). */
#ifndef RMB_RMA_FLUSH_H
#define RMB_RMA_FLUSH_H
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum { RMA_FLUSH_WINDOW = 0, RMA_FLUSH_REQUEST = 1, RMA_FLUSH_AUTO = 2 } rma_flush_mode;
extern const char *const rma_flush_names[]; /* {"window", "request", "auto", NULL}, indexed by rma_flush_mode */
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
/* --flush auto: request where some host's ranks outnumber its cores (bench_ctx.any_poll_yield, the
 * same on every rank) or the library is MPICH before 4.1, else window; *why (may be NULL) says which.
 *  - MPI_Win_flush has no nonblocking form, so a rank waiting in it cannot give the core to the rank
 *    it waits for, and MPICH 4.0.2 spins there: an oversubscribed network pass is several times
 *    longer with window than with request, while Open MPI, which yields in its own progress, is
 *    alike either way (docs/measurements.md, "From code comments").
 *  - MPICH 4.0.2 (ch4:ucx, MPI_Win_create windows): joins with window can report the right match
 *    count with a wrong checksum, as when a send buffer is refilled before its put's data left it,
 *    and never did with request, whose MPI_Wait completes each put locally (docs/measurements.md,
 * "From code comments").
 *    The cause inside MPICH is not known.
 * Other modes are returned as given. */
rma_flush_mode rma_flush_resolve(rma_flush_mode mode, bool ranks_outnumber_cores, const char **why);

#endif
