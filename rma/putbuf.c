#include "rma/putbuf.h"

#include <stdlib.h>

#include "bench/context.h"
#include "bench/memory.h"
#include "bench/yield_wait.h"

uint64_t putbuf_bytes(int remote_dests, size_t buf_bytes, int nbufs)
{
    return (uint64_t)remote_dests * (uint64_t)nbufs * buf_bytes;
}

size_t putbuf_size_for_budget(size_t requested, uint64_t budget, uint64_t buffers)
{
    uint64_t each = buffers ? budget / buffers : (uint64_t)requested;
    return putbuf_buffer_bytes(each < (uint64_t)requested ? (size_t)each : requested);
}

uint64_t putbuf_state_bytes(uint64_t ndest, uint64_t remote_dests, int nbufs, int nranks)
{
    return ndest * sizeof(putbuf_dest) + remote_dests * (uint64_t)nbufs * (sizeof(MPI_Request) + sizeof(uint64_t)) +
           (uint64_t)nranks * sizeof(uint64_t);
}

/* The buffer memory of the last freed set is kept for the next one (bench/memory.h slot 0): a
 * join's passes (R, then S; run after run) need the same buffers, and pages kept mapped cost no
 * fault; on huge pages where the kernel gives them (a 4 KiB page's first touch is costly under a
 * hypervisor, PLATFORM-NOTES, and the network pass writes every buffer line). */
enum { PUTBUF_KEPT_SLOT = 0 };

int putbuf_init(putbuf_set *pb, MPI_Win win, MPI_Comm comm, int rank, int nranks, int ndest, const int *target,
                const MPI_Aint *disp, size_t buf_bytes, int nbufs, rma_flush_mode mode)
{
    memset(pb, 0, sizeof *pb);
    pb->win = win;
    pb->comm = comm;
    pb->rank = rank;
    pb->mode = mode;
    pb->nbufs = nbufs;
    pb->ndest = ndest;
    pb->buf_bytes = putbuf_buffer_bytes(buf_bytes);
    int remote = 0;
    for (int d = 0; d < ndest; d++) remote += target[d] >= 0;
    size_t slots = (size_t)remote * (size_t)nbufs;
    pb->dest = calloc((size_t)ndest, sizeof *pb->dest);
    pb->req = malloc((slots ? slots : 1) * sizeof *pb->req);
    pb->put_epoch = calloc(slots ? slots : 1, sizeof *pb->put_epoch);
    pb->target_epoch = malloc((size_t)nranks * sizeof *pb->target_epoch);
    pb->mem_bytes = 0;
    bool fresh;
    uint64_t got = 0;
    pb->mem = slots ? mem_kept_get(PUTBUF_KEPT_SLOT, slots * pb->buf_bytes, &got, &fresh) : NULL;
    pb->mem_bytes = (size_t)got;
    if (!pb->dest || !pb->req || !pb->put_epoch || !pb->target_epoch || (slots && !pb->mem)) {
        putbuf_free(pb);
        return -1;
    }
    for (size_t i = 0; i < slots; i++) pb->req[i] = MPI_REQUEST_NULL;
    for (int t = 0; t < nranks; t++) pb->target_epoch[t] = 1;
    int slot = 0;
    for (int d = 0; d < ndest; d++) {
        putbuf_dest *pd = &pb->dest[d];
        pd->target = target[d];
        pd->disp = disp[d];
        pd->first = slot;
        if (target[d] >= 0) {
            pd->buf = pb->mem + (size_t)slot * pb->buf_bytes;
            slot += nbufs;
        }
    }
    return 0;
}

/* Wait until buffer slot `s` of destination pd may be overwritten. */
static void wait_slot(putbuf_set *pb, const putbuf_dest *pd, int s)
{
    if (pb->mode == RMA_FLUSH_REQUEST ? pb->req[s] == MPI_REQUEST_NULL
                                      : pb->put_epoch[s] != pb->target_epoch[pd->target]) /* idle, or flushed since */
        return;
    double t0 = MPI_Wtime();
    MPI_CHECK(pb->rank, rma_put_complete(pb->mode, pd->target, pb->win, &pb->req[s]));
    pb->t_flush += MPI_Wtime() - t0;
    if (pb->mode == RMA_FLUSH_WINDOW) pb->target_epoch[pd->target]++;
}

void putbuf_send(putbuf_set *pb, int d)
{
    putbuf_dest *pd = &pb->dest[d];
    if (pd->target < 0 || pd->fill == 0) return;
    int s = pd->first + pd->cur;
    double t0 = MPI_Wtime();
    MPI_CHECK(pb->rank, rma_put_start(pb->mode, pd->buf, pd->fill, MPI_BYTE, pd->target, pd->disp, pb->win,
                                      &pb->req[s]));
    int flag; /* progress poke (nothing is ever sent with this tag) */
    MPI_Iprobe(MPI_ANY_SOURCE, 32767, pb->comm, &flag, MPI_STATUS_IGNORE);
    pb->t_put += MPI_Wtime() - t0;
    pb->put_epoch[s] = pb->target_epoch[pd->target];
    pb->puts++;
    pb->bytes_put += pd->fill;
    pd->disp += (MPI_Aint)pd->fill;
    pd->fill = 0;
    pd->cur = (pd->cur + 1) % pb->nbufs;
    s = pd->first + pd->cur;
    pd->buf = pb->mem + (size_t)s * pb->buf_bytes;
    wait_slot(pb, pd, s);
}

void putbuf_finish(putbuf_set *pb)
{
    for (int d = 0; d < pb->ndest; d++) putbuf_send(pb, d);
    double t0 = MPI_Wtime();
    if (pb->mode == RMA_FLUSH_REQUEST) {
        for (int d = 0; d < pb->ndest; d++) {
            const putbuf_dest *pd = &pb->dest[d];
            if (pd->target < 0) continue;
            for (int b = 0; b < pb->nbufs; b++) /* each alone: gcc misreads MPICH's MPI_STATUSES_IGNORE */
                MPI_CHECK(pb->rank, rmb_wait(&pb->req[pd->first + b])); /* yields where ranks outnumber cores */
        }
    } else {
        MPI_CHECK(pb->rank, MPI_Win_flush_all(pb->win));
    }
    pb->t_flush += MPI_Wtime() - t0;
}

void putbuf_free(putbuf_set *pb)
{
    free(pb->dest);
    free(pb->req);
    free(pb->put_epoch);
    free(pb->target_epoch);
    mem_kept_put(PUTBUF_KEPT_SLOT, pb->mem, pb->mem_bytes);
    memset(pb, 0, sizeof *pb);
}
