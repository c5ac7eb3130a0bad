/* Notified put, emulated over MPI-3 (no MPI standard has notified RMA yet), plus the two-sided
 * fallback behind the same interface.
 *
 * Every rank owns a mailbox: `slots` fixed-size message slots (a lock server: one per agent; an
 * agent: one) and ceil(slots / 64) notification words. A sender owns one slot in the target's
 * mailbox and has at most one message in flight there (the protocol above waits for an answer
 * before it writes the slot again):
 *   rma: MPI_Put of the payload into its slot, MPI_Win_flush, then MPI_Accumulate(MPI_BXOR) that
 *        toggles the slot's bit in the target's notification word, MPI_Win_flush. The target reads
 *        the words (one per 64 slots, not every slot); the bits that differ from the word as it
 *        last saw it are new messages. The target never writes the word (no clearing atomic on
 *        the receive path), and a slot toggles at most once between two reads because its
 *        sender waits for an answer before writing the slot again.
 *        Progress: Open MPI 4.1 (osc rdma, MPI_Win_allocate) makes remote writes visible to plain
 *        loads after MPI_Win_sync (poll "load"); MPICH 4.0 moves passive-target data only while
 *        the target calls MPI: there the target first calls MPI_Iprobe, which runs the progress
 *        engine, then MPI_Win_sync and loads (poll "probe", 4-7 us per lock request here), or
 *        polls with MPI_Fetch_and_op(MPI_NO_OP) on its own window (poll "fao", 8-11 us).
 *   msg: MPI_Isend to the target with tag = slot; the target keeps one MPI_Irecv pre-posted per
 *        slot and finds arrivals with MPI_Testany.
 * Send, poll and wait report MPI errors by rank (MPI_CHECK). */
#ifndef RMB_NOTIFY_H
#define RMB_NOTIFY_H
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "rma/progress.h"

typedef enum { NOTIFY_RMA = 0, NOTIFY_MSG = 1 } notify_transport;
extern const char *const notify_transport_names[]; /* "rma", "msg", NULL */

/* How a target looks for notifications (rma transport). */
typedef enum { NOTIFY_POLL_AUTO = 0, NOTIFY_POLL_LOAD = 1, NOTIFY_POLL_FAO = 2, NOTIFY_POLL_PROBE = 3 } notify_poll_mode;
extern const char *const notify_poll_names[]; /* "auto", "load", "fao", "probe", NULL */
/* auto: load on Open MPI, probe everywhere else (MPICH needs target-side MPI calls to progress). */
notify_poll_mode notify_poll_resolve(notify_poll_mode m);

typedef struct {
    notify_transport transport;
    notify_poll_mode poll;   /* resolved: LOAD or FAO */
    MPI_Comm comm;
    int rank, size;
    int slots, msg_bytes;
    bool yield;
    uint64_t mailbox_bytes;   /* what this rank's mailbox took (window or receive buffers) */
    /* rma */
    MPI_Win win;
    unsigned char *base;
    uint64_t win_bytes;       /* mailbox window size (rounded), for the numa placement check */
    int words;                /* my notification words */
    MPI_Aint slot_offset;     /* same on every rank: after the largest notification area */
    uint64_t *seen;           /* [words] the notification words as last read */
    uint64_t *pending;        /* [words] new messages not yet handed out */
    int pending_word;         /* lowest word that may have pending bits */
    /* msg */
    MPI_Request *recv_reqs;
    unsigned char *recv_bufs; /* [slots * msg_bytes], mem_alloc_large (placed by --numa) */
    uint64_t sent, received;
} notify_ep;

/* The bytes notify_open allocates for a mailbox of my_slots slots when the largest mailbox of the
 * communicator has max_slots: the window (rma) or the receive buffers (msg); and the rank's own
 * bookkeeping beside it (seen and pending words, or request handles). MPI-free, for plans. */
uint64_t notify_mailbox_bytes(notify_transport t, int my_slots, int max_slots, int msg_bytes);
uint64_t notify_mailbox_aux_bytes(notify_transport t, int my_slots);

/* Collective over comm. my_slots >= 1, msg_bytes a multiple of 8. */
void notify_open(notify_ep *ep, MPI_Comm comm, notify_transport t, notify_poll_mode poll, int my_slots,
                 int msg_bytes, bool yield);
/* Deliver msg into slot `slot` of target's mailbox. Returns when the target can see it. */
void notify_send(notify_ep *ep, int target, int slot, const void *msg);
/* Non-blocking: true and one message (and its slot) when one has arrived. */
bool notify_poll(notify_ep *ep, int *slot, void *msg);
/* Wait for one message; false when the bound b is hit (the caller reports it). */
bool notify_wait(notify_ep *ep, int *slot, void *msg, poll_bound *b);
/* Between unsuccessful polls: spin `spin` polls (notify_spin_polls: about 50 us, none when the rank
 * shares its core, ctx->poll_yield), then yield 64 times, then sleep 20 us per poll. Ranks
 * that only spin or yield starve the ranks they wait for when those share their core (with MPICH
 * nothing moves while the target is descheduled), whether the core is shared by this job or by
 * other jobs. idle counts the polls; reset it to 0 when something arrived. */
unsigned notify_spin_polls(notify_poll_mode poll, bool shared_core);
void notify_idle(unsigned *idle, unsigned spin);
/* Collective. Every message sent must have been received. */
void notify_close(notify_ep *ep);

/* Poll a 64-bit word of one's own window (vote words, acknowledgement counters) the way the
 * library needs (poll modes above; comm: for MPI_Iprobe). The window must be locked with
 * MPI_Win_lock_all. */
uint64_t notify_read_own_word(MPI_Win win, MPI_Comm comm, int rank, const uint64_t *addr, MPI_Aint disp,
                              notify_poll_mode poll);

#endif
