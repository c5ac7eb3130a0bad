#include "rma/flush.h"

#include <stddef.h>

#include "bench/context.h"
#include "bench/yield_wait.h"
#include "rma/count.h"

const char *const rma_flush_names[] = {"window", "request", "auto", NULL};
const char *const rma_flush_calls[] = {"MPI_Put + MPI_Win_flush to the target", "MPI_Rput + MPI_Wait", "resolved at startup"};

int rma_put_start(rma_flush_mode mode, const void *buf, uint64_t n, MPI_Datatype type, int target, MPI_Aint disp,
                  MPI_Win win, MPI_Request *req)
{
    if (mode == RMA_FLUSH_AUTO) return MPI_ERR_ARG; /* resolve it first (rma_flush_resolve) */
    int count;
    MPI_Datatype dt;
    int rc = rma_count_type(n, type, &count, &dt); /* above INT_MAX: one derived type (rma/count.h) */
    if (rc != MPI_SUCCESS) return rc;
    *req = MPI_REQUEST_NULL;
    if (mode == RMA_FLUSH_REQUEST) rc = MPI_Rput(buf, count, dt, target, disp, count, dt, win, req);
    else rc = MPI_Put(buf, count, dt, target, disp, count, dt, win);
    rma_count_type_free(type, &dt);
    return rc;
}

int rma_put_complete(rma_flush_mode mode, int target, MPI_Win win, MPI_Request *req)
{
    if (mode == RMA_FLUSH_REQUEST) return rmb_wait(req); /* yields where ranks outnumber cores */
    return MPI_Win_flush(target, win);
}

rma_flush_mode rma_flush_resolve(rma_flush_mode mode, bool ranks_outnumber_cores, const char **why)
{
    const char *because = "given";
    if (mode == RMA_FLUSH_AUTO && ranks_outnumber_cores) {
        mode = RMA_FLUSH_REQUEST;
        because = "ranks outnumber cores: a rank waiting for its puts gives the core up";
    } else if (mode == RMA_FLUSH_AUTO) {
        mode = RMB_MPICH_BEFORE_4_1 ? RMA_FLUSH_REQUEST : RMA_FLUSH_WINDOW;
        because = RMB_MPICH_BEFORE_4_1 ? "library-safe (MPICH < 4.1)" : "a core per rank";
    }
    if (why) *why = because;
    return mode;
}
