/* The exchange designs of the radix network pass (--exchange): how a rank's tuples reach the
 * windows of the partitions' owners. Each design is one descriptor (radix_exchange_design below)
 * in a file of its own, and one name in the list of joins/radix/meson.build, which makes the
 * registry (exchange_registry.h, exchange_designs.c) and so --exchange's choices, the help, the plan's memory, the CSV's
 * exchange column and `rmabench join --list-exchanges` (jobs/exchange.sh sweeps what it lists):
 *   exchange_put.c        put, the thesis': MPI_Put from send buffers (network_partition.c)
 *   exchange_get.c        owners pull the pieces with MPI_Get once their packer notified them
 *   exchange_sendrecv.c   MPI_Isend into pre-posted MPI_Irecv, a credit scheme per pair of ranks
 *   exchange_alltoallv.c  one MPI_Alltoallv after local partitioning (the baseline)
 *   exchange_plan.c       the others' common part: pack order, who sends what to whom (one
 *                         MPI_Alltoallv of counts), peer order, their buffers
 * All share the histogram phase's layout: a tuple lands at the same index of its owner's window in
 * every design, so the local passes, build/probe and verification see the same windows.
 * The designs beside put pack their relation first (the put pass's kernel, every partition local),
 * owner by owner, so that what goes to one owner is contiguous; the pieces are then moved in
 * messages of at most the planned --buffer-size. Each design returns the seconds spent issuing
 * transfers (put) and waiting for them (flush), and ends with MPI_Barrier like the put design,
 * whose wait is the pass' imbalance (radix_pass_times). Their buffers (the pack, for alltoallv a
 * receive buffer, for get a window around the pack) are allocated and first touched with the
 * windows, in the window_alloc phase, as the put design's windows are: fresh pages are not what
 * the network pass compares. */
#ifndef RMB_RADIX_EXCHANGE_H
#define RMB_RADIX_EXCHANGE_H
#include "joins/radix/exchange_registry.h"
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

/* What a design needs beside the windows (radix_exchange_bufs_alloc), and so how many copies of a
 * relation's share of a rank it holds at a time: its memory factor (radix_exchange_copies). */
typedef enum {
    RADIX_XBUF_NONE,        /* none (put: the send buffers of rma/putbuf, sized by --buffer-memory) */
    RADIX_XBUF_PACK,        /* the larger relation's share of this rank, packed owner by owner */
    RADIX_XBUF_PACK_WINDOW, /* the pack inside a window, after one ready flag per packer (get) */
    RADIX_XBUF_PACK_RECV,   /* the pack, and a receive buffer of the window's size (alltoallv) */
} radix_exchange_buffers;

struct radix_exchange_bufs;
/* One design of the network pass. */
struct radix_exchange_design {
    const char *name;     /* --exchange NAME, the CSV's exchange column */
    const char *help;     /* how it moves the tuples, for --exchange's help: "MPI_Put from send buffers" */
    bool schedule;        /* visits one peer at a time, in --schedule's order (the others refuse one) */
    radix_exchange_buffers buffers;
    /* Collective, the network pass of both relations: windows filled, pass times in t. */
    void (*run)(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                struct radix_exchange_bufs *b, radix_pass_times *t);
};

static inline const radix_exchange_design *radix_exchange_of(const join_opts *o)
{
    return radix_exchange_designs[o->exchange];
}
/* Copies of a relation's share of a rank that the design's buffers hold (0, 1, or 2: alltoallv's
 * pack and receive buffer): what the plan adds to a rank's memory. */
int radix_exchange_copies(const radix_exchange_design *d);

typedef struct radix_exchange_bufs {
    const radix_exchange_design *design;
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

/* One MPI_Alltoallv of a relation packed owner by owner at ex's pack offsets (items of ex->item
 * bytes, whatever they hold: the star query's shuffle moves whole rows, joins/query/shuffle.c)
 * into recv: the pieces in sender order, each sender's in the order of this rank's partitions
 * (ex->count). Returns the seconds inside MPI_Alltoallv. */
double radix_alltoallv_pieces(const bench_ctx *ctx, const radix_exchange *ex, const void *pack, void *recv);

#endif
