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
 *        engine, then MPI_Win_sync and loads (poll "probe"), or polls with
 *        MPI_Fetch_and_op(MPI_NO_OP) on its own window (poll "fao", the slower of the two;
 *        docs/measurements.md, "From code comments").
 *   shm (rma transport, --notify-shm; auto measures both paths, rma/notify_pick.h):
 *        between ranks of one shared-memory node the
 *        mailbox is a second window, MPI_Win_allocate_shared over the node's ranks
 *        (MPI_Comm_split_type MPI_COMM_TYPE_SHARED), which MPI guarantees to be accessible with
 *        direct loads and stores from every rank of that group (MPI-4.1 §12.2.3); its window is
 *        in the unified memory model (§12.4: MPI_WIN_MODEL is MPI_WIN_UNIFIED for shared
 *        windows). The sender stores the payload into its slot of the target's segment (address
 *        from MPI_Win_shared_query), calls MPI_Win_sync, then toggles the slot's bit with a C11
 *        atomic XOR (memory_order_release); the target reads its words with acquire loads and,
 *        when a bit changed, calls MPI_Win_sync before it reads the payload. MPI_Win_sync is where
 *        the standard orders load and store accesses to shared memory and makes stores visible to
 *        other processes in the unified model (§12.5.4); the process synchronisation that
 *        §12.7's shared-memory example does with a message is here the notification word itself,
 *        the one location both sides touch concurrently, hence the C11 atomics on it. Still a
 *        notified put: one-sided (the target takes no part in the transfer), payload and
 *        notification in the target's window, the target learns of it from its own memory; only
 *        the transfer is a store instead of MPI_Put/MPI_Accumulate + 2 MPI_Win_flush, which cost
 *        the round trip most of its time under Open MPI (osc rdma over vader executes the
 *        accumulate in the target's progress engine). Senders on other nodes keep the RMA
 *        window above, and the target polls its words every NOTIFY_RMA_EVERY polls; with no
 *        rank on another node there is no RMA mailbox window and the target runs the MPI
 *        progress engine (MPI_Iprobe) as often, for the library's other one-sided traffic.
 *   msg: MPI_Isend to the target with tag = slot; the target keeps one MPI_Irecv pre-posted per
 *        slot and finds arrivals with MPI_Testany.
 * Send, poll and wait report MPI errors by rank (MPI_CHECK). */
#ifndef RMB_NOTIFY_H
#define RMB_NOTIFY_H
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "rma/progress.h"
#include "rma/shm_window.h"

typedef enum { NOTIFY_RMA = 0, NOTIFY_MSG = 1 } notify_transport;
extern const char *const notify_transport_names[]; /* "rma", "msg", NULL */

/* How a target looks for notifications (rma transport). */
typedef enum { NOTIFY_POLL_AUTO = 0, NOTIFY_POLL_LOAD = 1, NOTIFY_POLL_FAO = 2, NOTIFY_POLL_PROBE = 3 } notify_poll_mode;
extern const char *const notify_poll_names[]; /* "auto", "load", "fao", "probe", NULL */
/* auto: load on Open MPI, probe everywhere else (MPICH needs target-side MPI calls to progress). */
notify_poll_mode notify_poll_resolve(notify_poll_mode m);

/* Whether same-host senders use the shared-memory mailbox (rma transport) and the shared counter
 * words (rma/peer_words.h). auto: the library's default, on everywhere but Open MPI, which
 * --notify-shm auto measures against the other path (rma/notify_pick.h): the shared mailbox
 * shortens MPICH's round trip several-fold, while under Open MPI (osc rdma over vader) its gain in
 * a bare ping-pong disappears as soon as the target does work between receiving and answering
 * (docs/measurements.md, "From code comments"). */
typedef enum { NOTIFY_SHM_AUTO = 0, NOTIFY_SHM_ON = 1, NOTIFY_SHM_OFF = 2 } notify_shm_mode;
extern const char *const notify_shm_names[]; /* "auto", "on", "off", NULL */
bool notify_shm_resolve(notify_shm_mode m);

/* With a shared-memory mailbox, how often (in polls of it) the target also polls the RMA mailbox's
 * words or, without one, runs MPI's progress engine: every NOTIFY_RMA_EVERY polls while it spins,
 * every poll once it backs off (yields or sleeps between polls, notify_idle), so that neither
 * messages from other hosts nor the library's other one-sided traffic (MPICH moves it only inside
 * MPI calls of the target) wait for hundreds of sleeps. */
#define NOTIFY_RMA_EVERY 256
typedef struct {
    unsigned polls;
    bool slow;     /* backing off: every poll is due */
} notify_pace;
static inline bool notify_pace_due(notify_pace *p) { return p->slow || ++p->polls % NOTIFY_RMA_EVERY == 0; }

typedef struct {
    notify_transport transport;
    notify_poll_mode poll;   /* resolved: LOAD or FAO */
    MPI_Comm comm;
    int rank, size;
    int slots, msg_bytes;
    bool yield;
    uint64_t mailbox_bytes;   /* what this rank's mailbox took (window or receive buffers) */
    /* rma */
    MPI_Win win;              /* MPI_WIN_NULL when every rank shares my node's shared mailbox */
    unsigned char *base;
    uint64_t win_bytes;       /* mailbox window size (rounded), for the numa placement check */
    int words;                /* my notification words (per window) */
    MPI_Aint slot_offset;     /* same on every rank: after the largest notification area */
    uint64_t *seen;           /* [2 * words] the notification words as last read: RMA, then shared */
    uint64_t *pending;        /* [2 * words] new messages not yet handed out, likewise */
    int pending_word;         /* lowest word that may have pending bits */
    /* shm: the shared mailbox of my node (win MPI_WIN_NULL when no other rank shares it, or shm off) */
    shm_window shm;
    notify_pace pace;         /* when to poll the RMA side too */
    /* msg */
    MPI_Request *recv_reqs;
    unsigned char *recv_bufs; /* [slots * msg_bytes], mem_alloc_large (placed by --numa) */
    uint64_t sent, received;
} notify_ep;

/* The mailbox windows a rank allocates (rma): the shared one when shm is on and another rank
 * shares its host, the RMA one when shm is off or some rank is on another host. MPI-free. */
int notify_mailbox_windows(bool shm, int hosts, int ranks_on_host);
/* The bytes notify_open allocates for a mailbox of my_slots slots when the largest mailbox of the
 * communicator has max_slots: the windows (rma, `windows` of them) or the receive buffers (msg);
 * and the rank's own bookkeeping beside it (seen and pending words, or request handles). MPI-free,
 * for plans. */
uint64_t notify_mailbox_bytes(notify_transport t, int my_slots, int max_slots, int msg_bytes, int windows);
uint64_t notify_mailbox_aux_bytes(notify_transport t, int my_slots);

/* Collective over comm. my_slots >= 1, msg_bytes a multiple of 8. shm: senders on the target's
 * node store into its shared mailbox (rma only). */
void notify_open(notify_ep *ep, MPI_Comm comm, notify_transport t, notify_poll_mode poll, bool shm, int my_slots,
                 int msg_bytes, bool yield);
/* Whether this rank has a shared mailbox (same-node senders store). */
bool notify_uses_shm(const notify_ep *ep);
/* Collective: "on" (some ranks share a shared mailbox), "unavailable" (asked for, but the library
 * made no shared window where ranks share a node), "unused" (no two ranks share a node), "off"
 * (not asked for); NULL under --transport msg. For headers and the CSV column notify_shm. */
const char *notify_shm_state(const notify_ep *ep, bool asked);
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
/* The same for polling ep's mailbox (a shared mailbox polls faster: about 50 us of cached loads).
 * */
#define NOTIFY_SHM_SPIN_POLLS 8192
unsigned notify_ep_spin_polls(const notify_ep *ep, bool shared_core);
void notify_idle(unsigned *idle, unsigned spin);
/* What notify_idle did in this process since notify_backoff_reset: the yields, the sleeps and the
 * seconds they lasted (a 20 us sleep lasts at least 20 us plus Linux's default 50 us timer slack,
 * and often several times that: docs/measurements.md, "From code comments"): where a poller's wait
 * went when its peer did not answer within the spin. */
typedef struct {
    uint64_t yields, sleeps;
    double slept_s;
} notify_backoff;
notify_backoff notify_backoff_counts(void);
void notify_backoff_reset(void);
/* notify_idle, and whether the poller now backs off (then every poll of pace is due). */
void notify_pace_idle(notify_pace *pace, unsigned *idle, unsigned spin);
/* Collective. Every message sent must have been received. */
void notify_close(notify_ep *ep);

/* Poll a 64-bit word of one's own window (vote words, acknowledgement counters) the way the
 * library needs (poll modes above; comm: for MPI_Iprobe). The window must be locked with
 * MPI_Win_lock_all. */
uint64_t notify_read_own_word(MPI_Win win, MPI_Comm comm, int rank, const uint64_t *addr, MPI_Aint disp,
                              notify_poll_mode poll);

#endif
