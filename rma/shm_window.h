/* A window in shared memory over the ranks of comm that share this rank's node: MPI_Comm_split_type
 * (MPI_COMM_TYPE_SHARED), then MPI_Win_allocate_shared, whose memory MPI guarantees to be reachable
 * with direct loads and stores from every rank of that group (MPI-4.1 §12.2.3), in the unified
 * memory model (§12.4). Every node rank's segment is found with MPI_Win_shared_query; comm ranks
 * map to node ranks. A rank alone on its node gets no window, nor do the ranks of a node where the
 * library cannot make one (MPI_Win_allocate_shared fails: Open MPI without its osc sm component). Used between the ranks of one node by
 * the notified puts (rma/notify.h) and the words peers add to (rma/peer_words.h). */
#ifndef RMB_SHM_WINDOW_H
#define RMB_SHM_WINDOW_H
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct {
    MPI_Win win;               /* MPI_WIN_NULL: no other rank of comm on this node */
    MPI_Comm node;             /* the node's ranks of comm, MPI_COMM_NULL without a window */
    int node_size;             /* ranks of comm on this node, 1 without a window */
    unsigned char *base;       /* my segment: zeroed, locked for all (MPI_MODE_NOCHECK) */
    unsigned char **node_base; /* [node_size] every node rank's segment */
    int *node_rank;            /* [size of comm] comm rank -> node rank, -1 on another node */
    uint64_t bytes;
    int rank;                  /* in comm, for error messages */
    bool unavailable;          /* other ranks share the node, but the library made no shared window */
} shm_window;

/* Collective over comm. info (or MPI_INFO_NULL): for MPI_Win_allocate_shared (alloc_shared_noncontig
 * is added). The
 * pages this rank touches first follow the --numa policy. */
void shm_window_open(shm_window *w, MPI_Comm comm, uint64_t bytes, MPI_Info info);
/* The segment of comm rank r when it shares my node (possibly mine), else NULL. */
static inline unsigned char *shm_window_peer(const shm_window *w, int r)
{
    return w->win != MPI_WIN_NULL && w->node_rank[r] >= 0 ? w->node_base[w->node_rank[r]] : NULL;
}
/* Word w of a segment, for C11 atomics: the words peers add to, toggle or ping-pong on. */
static inline _Atomic uint64_t *shm_window_word(unsigned char *segment, int w)
{
    return (_Atomic uint64_t *)(void *)(segment + (size_t)w * sizeof(uint64_t));
}
/* Collective over comm: some rank of comm cannot reach some other through the window (ranks on
 * other nodes, or a rank without a window); the same answer on every rank. */
int shm_window_off_node(const shm_window *w, MPI_Comm comm);
/* Collective over comm (after the last access). */
void shm_window_close(shm_window *w);

#endif
