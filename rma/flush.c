#include "rma/flush.h"

#include <stddef.h>

const char *const rma_flush_names[] = {"window", "request", NULL};
const char *const rma_flush_calls[] = {"MPI_Put + MPI_Win_flush to the target", "MPI_Rput + MPI_Wait"};

int rma_put_start(rma_flush_mode mode, const void *buf, int count, MPI_Datatype type, int target, MPI_Aint disp,
                  MPI_Win win, MPI_Request *req)
{
    if (mode == RMA_FLUSH_REQUEST) return MPI_Rput(buf, count, type, target, disp, count, type, win, req);
    *req = MPI_REQUEST_NULL;
    return MPI_Put(buf, count, type, target, disp, count, type, win);
}

int rma_put_complete(rma_flush_mode mode, int target, MPI_Win win, MPI_Request *req)
{
    if (mode == RMA_FLUSH_REQUEST) return MPI_Wait(req, MPI_STATUS_IGNORE);
    return MPI_Win_flush(target, win);
}
