/* Fixed-size send buffers per remote destination (thesis 3.2.1, Fig. 3.2): data for a destination
 * is appended to its current buffer; a full buffer is sent with one MPI_Put (or MPI_Rput) to the
 * destination's next displacement while appends continue in the next buffer, so partitioning and
 * transfer overlap. Reusing a buffer first completes its put as --flush says (rma/flush.h):
 * MPI_Win_flush to that target (skipped when a flush since the put already completed it), or
 * MPI_Wait on that buffer's MPI_Rput request. The window must be in a passive-target epoch
 * (MPI_Win_lock_all). Time spent in the put calls and in flush/wait is accumulated (t_put,
 * t_flush) for the "put" and "flush" detail phases. */
#ifndef RMB_PUTBUF_H
#define RMB_PUTBUF_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rma/flush.h"

typedef struct {
    int target;        /* rank, or -1: no buffers (data for this destination is not sent) */
    int cur;           /* buffer being filled */
    size_t fill;       /* bytes in it */
    MPI_Aint disp;     /* target displacement (bytes) of the next put */
    char *buf;         /* the buffer being filled */
    int first;         /* index of this destination's first buffer in the slot arrays */
} putbuf_dest;

typedef struct {
    MPI_Win win;
    MPI_Comm comm;            /* for progress pokes */
    rma_flush_mode mode;
    int rank, nbufs, ndest;
    size_t buf_bytes;
    putbuf_dest *dest;
    char *mem;
    size_t mem_bytes;        /* of mem (kept for the next set: putbuf.c buffers_keep) */
    MPI_Request *req;         /* per buffer (request mode) */
    uint64_t *put_epoch;      /* per buffer: target flush count when it was put (window mode); 0 = idle */
    uint64_t *target_epoch;   /* per target rank: 1 + flushes so far */
    double t_put, t_flush;
    uint64_t puts, bytes_put;
} putbuf_set;

/* target[d] = rank for destination d (-1: local, no buffers); disp[d] = first target displacement
 * in bytes. Returns 0, or -1 when the buffers cannot be allocated. buf_bytes >= 64.
 * comm (the window's group): after every put the library is given a chance to progress, so that on
 * libraries where RMA needs the target's help (MPICH) the peers' flushes do not wait for ours. */
int putbuf_init(putbuf_set *pb, MPI_Win win, MPI_Comm comm, int rank, int nranks, int ndest, const int *target,
                const MPI_Aint *disp, size_t buf_bytes, int nbufs, rma_flush_mode mode);
/* Send destination d's current buffer (if not empty) and move to its next buffer. */
void putbuf_send(putbuf_set *pb, int d);
/* Send every partial buffer and wait for all puts to complete. */
void putbuf_finish(putbuf_set *pb);
void putbuf_free(putbuf_set *pb);
/* The size of each buffer for a requested size: whole cache lines (aligned_alloc needs it). */
static inline size_t putbuf_buffer_bytes(size_t requested) { return requested & ~(size_t)63; }
/* The size of each of `buffers` buffers when all of them together may take at most `budget` bytes:
 * the requested size, or budget / buffers when that is less, in whole cache lines; 0 when the
 * budget cannot give every buffer one cache line. A budget, not a size per destination, is what
 * keeps the send buffers of a rank independent of the rank count (--buffer-memory). */
size_t putbuf_size_for_budget(size_t requested, uint64_t budget, uint64_t buffers);
/* Bytes putbuf_init allocates: the buffers, and its bookkeeping (per destination, per buffer, per
 * rank: O(P) words). */
uint64_t putbuf_bytes(int remote_dests, size_t buf_bytes, int nbufs);
uint64_t putbuf_state_bytes(uint64_t ndest, uint64_t remote_dests, int nbufs, int nranks);

static inline void putbuf_append(putbuf_set *pb, int d, const void *data, size_t bytes)
{
    putbuf_dest *pd = &pb->dest[d];
    const char *src = (const char *)data;
    while (bytes) {
        size_t room = pb->buf_bytes - pd->fill, n = bytes < room ? bytes : room;
        memcpy(pd->buf + pd->fill, src, n);
        pd->fill += n;
        src += n;
        bytes -= n;
        if (pd->fill == pb->buf_bytes) putbuf_send(pb, d);
    }
}

/* One 64-byte cache line (the common case of the partitioning passes), its last 16 bytes passed in
 * registers: the caller has just stored them, and reading them back as one 16-byte word would
 * stall on store-to-load forwarding. */
static inline void putbuf_append_line(putbuf_set *pb, int d, const uint64_t *line, uint64_t w6, uint64_t w7)
{
    putbuf_dest *pd = &pb->dest[d];
    if (pb->buf_bytes - pd->fill < 64) {
        uint64_t tmp[8];
        memcpy(tmp, line, 48);
        tmp[6] = w6;
        tmp[7] = w7;
        putbuf_append(pb, d, tmp, 64);
        return;
    }
    uint64_t *dst = (uint64_t *)(void *)(pd->buf + pd->fill);
    memcpy(dst, line, 48);
    dst[6] = w6;
    dst[7] = w7;
    pd->fill += 64;
    if (pd->fill == pb->buf_bytes) putbuf_send(pb, d);
}

#endif
