/* The exchange designs of the radix network pass (--exchange) beside put (network_partition.c).
 * All share the histogram phase's layout: a tuple lands at the same index of its owner's window in
 * every design, so the local passes, build/probe and verification see the same windows.
 *   exchange_plan.c       pack order, who sends what to whom (one MPI_Alltoallv of counts), peer order
 *   exchange_get.c        owners pull the pieces with MPI_Get once their packer notified them
 *   exchange_sendrecv.c   MPI_Isend into pre-posted MPI_Irecv, a credit scheme per pair of ranks
 *   exchange_alltoallv.c  one MPI_Alltoallv after local partitioning (the baseline)
 * Each packs its relation first (the put pass's kernel, every partition local), owner by owner, so
 * that what goes to one owner is contiguous; the pieces are then moved in messages of at most the
 * planned --buffer-size. Each returns the seconds spent issuing transfers (put) and waiting for
 * them (flush), and ends with MPI_Barrier like the put design, whose wait is the pass' imbalance
 * (radix_pass_times). Their buffers (the pack, for
 * alltoallv a receive buffer, for get a window around the pack) are allocated and first touched
 * with the windows, in the window_alloc phase, as the put design's windows are: fresh pages are
 * not what the network pass compares. */
#ifndef RMB_RADIX_EXCHANGE_H
#define RMB_RADIX_EXCHANGE_H
#include "joins/radix/radix_phases.h"

typedef struct {
    uint64_t item;        /* bytes per packed item */
    uint64_t *pack_off;   /* [np] first item of partition p in this rank's pack (owner-major order) */
    uint64_t *send_off;   /* [P + 1] first item of the pack going to each owner */
    /* what this rank sends, owner-major: owner t's partitions are spart[sfirst[t] .. sfirst[t+1]-1],
     * ascending, with scount[i] = this rank's items of spart[i] */
    uint64_t *spart, *scount;
    int *sfirst;          /* [P + 1] */
    int mine;             /* partitions this rank owns */
    uint64_t *parts;      /* [mine] them, ascending */
    /* [P * mine], index j * mine + k: the piece of this rank's k-th partition that rank j holds */
    uint64_t *count;      /* its items */
    uint64_t *src;        /* its first item in rank j's pack */
    uint64_t *dst;        /* its first item in this rank's window (base + rank j's prefix) */
    int *order;           /* [P - 1] the remote peers in --schedule order */
} radix_exchange;

typedef struct {
    int exchange;         /* EXCHANGE_*: PUT has no buffers */
    char *pack;           /* the larger relation's share of this rank, packed */
    char *recv;           /* alltoallv: the larger relation's share of this rank's window */
    uint64_t pack_bytes, recv_bytes;
    uint64_t hdr;         /* get: bytes of ready flags (one word per packer) before the pack in pw */
    rma_window pw;        /* get: the window holding the flags and the pack, in a lock_all epoch */
} radix_exchange_bufs;

/* The window slot (rma/window.h) of the get design's flags and pack, after the relations' 0 and 1,
 * and its bytes: a flag word per rank in whole cache lines, then `items` packed items of `item`
 * bytes in whole cache lines (one spare). */
enum { RADIX_GET_SLOT = 2 };
uint64_t radix_get_window_bytes(int ranks, uint64_t items, uint64_t item);
/* Collective (get): the design's buffers, sized for the larger relation, first touched. */
void radix_exchange_bufs_alloc(const join_input *in, const radix_layout *lay, const radix_format *f,
                               radix_exchange_bufs *b);
void radix_exchange_bufs_free(radix_exchange_bufs *b);

/* Collective: the plan of relation rel (one MPI_Alltoallv of counts and pack offsets). */
void radix_exchange_plan(const join_input *in, const radix_layout *lay, const radix_format *f, int rel,
                         radix_exchange *ex);
void radix_exchange_free(radix_exchange *ex);
/* The remote ranks in the order of a schedule: 0..P-1 (as-is), rank + k mod P for k = 1..P-1
 * (staggered), or a permutation drawn from (seed, rank, rel) (random). */
void radix_exchange_order(int schedule, int rank, int ranks, uint64_t seed, int rel, int *order);
/* Pack this rank's tuples of rel into dst at the plan's pack offsets (network_partition.c). */
void radix_pack_relation(const join_input *in, const radix_format *f, int rel, const radix_layout *lay, const uint64_t *off,
                         uint64_t *dst);
/* The pieces rank j sends this rank, split into messages of at most `chunk` items: a cursor that
 * sender and receiver step through alike (message m of a pair is the m-th in both). */
typedef struct {
    int k;                /* piece (index into the owner's partitions) */
    uint64_t done;        /* items of piece k already covered */
} radix_msg_cursor;
/* Items of the next message from cursor c over pieces count[0..mine-1]; 0 at the end. Fills *first
 * (item offset into piece c->k) and advances c. */
uint64_t radix_msg_next(radix_msg_cursor *c, const uint64_t *count, int mine, uint64_t chunk, int *piece,
                        uint64_t *first);
/* Messages of at most chunk items over those pieces. */
uint64_t radix_msg_total(const uint64_t *count, int mine, uint64_t chunk);

void radix_exchange_get(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                        radix_exchange_bufs *b, radix_pass_times *t);
void radix_exchange_sendrecv(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                        radix_exchange_bufs *b, radix_pass_times *t);
void radix_exchange_alltoallv(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                        radix_exchange_bufs *b, radix_pass_times *t);

#endif
