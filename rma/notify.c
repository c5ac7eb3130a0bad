#include "rma/notify.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/context.h"
#include "bench/fastclock.h"
#include "bench/memory.h"
#include "bench/numa_policy.h"
#include "rma/window.h"

const char *const notify_transport_names[] = {"rma", "msg", NULL};
const char *const notify_poll_names[] = {"auto", "load", "fao", "probe", NULL};
const char *const notify_shm_names[] = {"auto", "on", "off", NULL};

bool notify_shm_resolve(notify_shm_mode m)
{
    if (m != NOTIFY_SHM_AUTO) return m == NOTIFY_SHM_ON;
#ifdef OPEN_MPI
    return false; /* its RMA path gives the shorter lock round trip (notify.h) */
#else
    return true;
#endif
}

#define NOTIFY_TAG_BASE 4200

notify_poll_mode notify_poll_resolve(notify_poll_mode m)
{
    if (m != NOTIFY_POLL_AUTO) return m;
#ifdef OPEN_MPI
    return NOTIFY_POLL_LOAD;
#else
    return NOTIFY_POLL_PROBE;
#endif
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "rmabench: out of memory allocating a mailbox\n");
        abort();
    }
    return p;
}

int notify_mailbox_windows(bool shm, int hosts, int ranks_on_host)
{
    return (shm && ranks_on_host > 1 ? 1 : 0) + (!shm || hosts > 1 ? 1 : 0);
}

uint64_t notify_mailbox_bytes(notify_transport t, int my_slots, int max_slots, int msg_bytes, int windows)
{
    if (t == NOTIFY_MSG) return (uint64_t)my_slots * (uint64_t)msg_bytes;
    /* the slots follow the largest notification area, so that every rank finds them at one offset */
    uint64_t words = ((uint64_t)max_slots + 63) / 64;
    return (uint64_t)windows * rma_round_size(words * 8 + (uint64_t)my_slots * (uint64_t)msg_bytes);
}

uint64_t notify_mailbox_aux_bytes(notify_transport t, int my_slots)
{
    if (t == NOTIFY_MSG) return (uint64_t)my_slots * sizeof(MPI_Request);
    return 4 * (((uint64_t)my_slots + 63) / 64) * sizeof(uint64_t); /* seen and pending, per window */
}

static void open_msg(notify_ep *ep)
{
    int my_slots = ep->slots, msg_bytes = ep->msg_bytes;
    ep->recv_reqs = xcalloc((size_t)my_slots, sizeof *ep->recv_reqs);
    ep->mailbox_bytes = notify_mailbox_bytes(NOTIFY_MSG, my_slots, my_slots, msg_bytes, 1);
    ep->recv_bufs = mem_alloc_large(ep->mailbox_bytes); /* zeroed, --numa policy */
    if (!ep->recv_bufs) {
        fprintf(stderr, "rmabench: rank %d: out of memory allocating %d receive buffers\n", ep->rank, my_slots);
        abort();
    }
    for (int s = 0; s < my_slots; s++)
        MPI_CHECK(ep->rank, MPI_Irecv(ep->recv_bufs + (size_t)s * (size_t)msg_bytes, msg_bytes, MPI_BYTE,
                                      MPI_ANY_SOURCE, NOTIFY_TAG_BASE + s, ep->comm, &ep->recv_reqs[s]));
    MPI_CHECK(ep->rank, MPI_Barrier(ep->comm)); /* receives posted before anyone sends */
}

/* The info of both mailbox windows: senders only toggle bits with MPI_BXOR and the target only
 * reads with MPI_NO_OP (rather than rma_window_alloc, whose info announces MPI_SUM; stalls under
 * MPICH come from ranks spinning while their peer is descheduled, see notify_idle, not from this
 * info). Open MPI osc rdma: single-element accumulates may use the
 * transport's atomics directly (no window lock and software op); other libraries ignore the key. */
static MPI_Info mailbox_info(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
    MPI_Info_set(info, "acc_single_intrinsic", "true");
    return info;
}

void notify_open(notify_ep *ep, MPI_Comm comm, notify_transport t, notify_poll_mode poll, bool shm, int my_slots,
                 int msg_bytes, bool yield)
{
    memset(ep, 0, sizeof *ep);
    ep->transport = t;
    ep->poll = notify_poll_resolve(poll);
    ep->comm = comm;
    MPI_Comm_rank(comm, &ep->rank);
    MPI_Comm_size(comm, &ep->size);
    ep->slots = my_slots;
    ep->msg_bytes = msg_bytes;
    ep->yield = yield;
    ep->words = (my_slots + 63) / 64;
    ep->win = ep->shm.win = MPI_WIN_NULL;
    if (t == NOTIFY_MSG) {
        open_msg(ep);
        return;
    }

    int max_words = 0;
    MPI_CHECK(ep->rank, MPI_Allreduce(&ep->words, &max_words, 1, MPI_INT, MPI_MAX, comm));
    /* Slots follow the words directly: with few slots the payload and its notification share a
     * cache line, one line transfer less per message between cores. */
    ep->slot_offset = (MPI_Aint)max_words * 8;
    uint64_t bytes = notify_mailbox_bytes(t, my_slots, max_words * 64, msg_bytes, 1);
    if (shm) {
        MPI_Info info = mailbox_info();
        shm_window_open(&ep->shm, comm, bytes, info);
        MPI_Info_free(&info);
    }
    /* the RMA window unless every rank shares one shared mailbox */
    if (!shm || shm_window_off_node(&ep->shm, comm)) { /* --numa: the mailbox pages follow the run's policy */
        MPI_Info info = mailbox_info();
        ep->base = rma_locked_window_open(comm, ep->rank, bytes, info, true, &ep->win);
        MPI_Info_free(&info);
    }
    ep->win_bytes = bytes;
    ep->mailbox_bytes = bytes * (uint64_t)((ep->win != MPI_WIN_NULL) + (ep->shm.win != MPI_WIN_NULL));
    ep->pending = xcalloc(2 * (size_t)ep->words, sizeof *ep->pending);
    ep->seen = xcalloc(2 * (size_t)ep->words, sizeof *ep->seen);
    MPI_CHECK(ep->rank, MPI_Barrier(comm));
}

bool notify_uses_shm(const notify_ep *ep) { return ep->shm.win != MPI_WIN_NULL; }

const char *notify_shm_state(const notify_ep *ep, bool asked)
{
    if (ep->transport != NOTIFY_RMA) return NULL;
    int mine[2] = {notify_uses_shm(ep), ep->shm.unavailable}, any[2] = {0, 0};
    MPI_CHECK(ep->rank, MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, ep->comm));
    if (!asked) return "off";
    return any[0] ? "on" : any[1] ? "unavailable" : "unused";
}

/* Same node: the payload stored into the slot, then the notification bit toggled with a release
 * XOR (rma/notify.h). The release orders the payload's stores before the bit for a reader that
 * loads the bit with acquire (fetch_shm), as C11 atomics do between processes on shared memory; an
 * MPI_Win_sync on either side (a full fence, Open MPI's osc/sm) adds nothing to that but its cost,
 * a visible share of a lock round trip (docs/measurements.md, "From code comments"). */
static void shm_send(notify_ep *ep, unsigned char *seg, int slot, const void *msg)
{
    memcpy(seg + ep->slot_offset + (MPI_Aint)slot * ep->msg_bytes, msg, (size_t)ep->msg_bytes);
    atomic_fetch_xor_explicit(shm_window_word(seg, slot / 64), 1ULL << (slot % 64), memory_order_release);
}

void notify_send(notify_ep *ep, int target, int slot, const void *msg)
{
    ep->sent++;
    if (ep->transport == NOTIFY_MSG) {
        MPI_Request req;
        blocking_begin("MPI_Wait on the send of a notification", target);
        MPI_CHECK(ep->rank, MPI_Isend(msg, ep->msg_bytes, MPI_BYTE, target, NOTIFY_TAG_BASE + slot, ep->comm, &req));
        MPI_CHECK(ep->rank, MPI_Wait(&req, MPI_STATUS_IGNORE));
        blocking_end();
        return;
    }
    unsigned char *seg = shm_window_peer(&ep->shm, target);
    if (seg) {
        shm_send(ep, seg, slot, msg);
        return;
    }
    MPI_Aint off = ep->slot_offset + (MPI_Aint)slot * ep->msg_bytes;
    /* under MPICH the flushes complete only while the target calls MPI: bounded by the watchdog */
    blocking_begin("MPI_Win_flush of a notification", target);
    MPI_CHECK(ep->rank, MPI_Put(msg, ep->msg_bytes, MPI_BYTE, target, off, ep->msg_bytes, MPI_BYTE, ep->win));
    MPI_CHECK(ep->rank, MPI_Win_flush(target, ep->win)); /* payload complete before the notification */
    uint64_t bit = 1ULL << (slot % 64);
    MPI_CHECK(ep->rank, MPI_Accumulate(&bit, 1, MPI_UINT64_T, target, (MPI_Aint)(slot / 64) * 8, 1, MPI_UINT64_T,
                                       MPI_BXOR, ep->win));
    MPI_CHECK(ep->rank, MPI_Win_flush(target, ep->win));
    blocking_end();
}

uint64_t notify_read_own_word(MPI_Win win, MPI_Comm comm, int rank, const uint64_t *addr, MPI_Aint disp,
                              notify_poll_mode poll)
{
    if (poll == NOTIFY_POLL_FAO) {
        uint64_t v = 0, dummy = 0;
        MPI_CHECK(rank, MPI_Fetch_and_op(&dummy, &v, MPI_UINT64_T, rank, disp, MPI_NO_OP, win));
        MPI_CHECK(rank, MPI_Win_flush(rank, win));
        return v;
    }
    if (poll == NOTIFY_POLL_PROBE) { /* let the library move incoming one-sided data first */
        int flag = 0;
        MPI_CHECK(rank, MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE));
    }
    MPI_CHECK(rank, MPI_Win_sync(win));
    return __atomic_load_n(addr, __ATOMIC_ACQUIRE);
}

/* Word w of window k (0: RMA, 1: shared) as just read: the bits that differ from the word as last
 * seen are new messages. A sender toggles its slot's bit, the target never writes the word, and a
 * sender toggles again only after its message was answered. */
static bool take_bits(notify_ep *ep, int k, int w, uint64_t word)
{
    int i = k * ep->words + w;
    uint64_t bits = word ^ ep->seen[i];
    if (!bits) return false;
    ep->seen[i] = word;
    ep->pending[i] |= bits;
    return true;
}

static bool fetch_rma(notify_ep *ep)
{
    bool any = false;
    for (int w = 0; w < ep->words; w++) {
        uint64_t *addr = (uint64_t *)ep->base + w;
        any |= take_bits(ep, 0, w, notify_read_own_word(ep->win, ep->comm, ep->rank, addr, (MPI_Aint)w * 8, ep->poll));
    }
    if (any) MPI_CHECK(ep->rank, MPI_Win_sync(ep->win)); /* payloads were flushed before their bits */
    return any;
}

static bool fetch_shm(notify_ep *ep)
{
    bool any = false;
    for (int w = 0; w < ep->words; w++) {
        any |= take_bits(ep, 1, w, atomic_load_explicit(shm_window_word(ep->shm.base, w), memory_order_acquire));
    }
    return any; /* the acquire loads order the payloads' stores before this rank's loads (shm_send) */
}

/* Fetch new notification bits into ep->pending. With a shared mailbox, the RMA one (or, without
 * it, MPI's progress engine) every NOTIFY_RMA_EVERY polls. */
static bool fetch_notifications(notify_ep *ep)
{
    bool any = false;
    if (ep->shm.win == MPI_WIN_NULL) {
        any = fetch_rma(ep);
    } else {
        any = fetch_shm(ep);
        if (notify_pace_due(&ep->pace)) {
            if (ep->win != MPI_WIN_NULL) {
                any |= fetch_rma(ep);
            } else {
                int flag = 0;
                MPI_CHECK(ep->rank, MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ep->comm, &flag, MPI_STATUS_IGNORE));
            }
        }
    }
    if (any) ep->pending_word = 0;
    return any;
}

static bool poll_msg(notify_ep *ep, int *slot, void *msg)
{
    int idx = MPI_UNDEFINED, flag = 0;
    MPI_CHECK(ep->rank, MPI_Testany(ep->slots, ep->recv_reqs, &idx, &flag, MPI_STATUS_IGNORE));
    if (!flag || idx == MPI_UNDEFINED) return false;
    unsigned char *buf = ep->recv_bufs + (size_t)idx * (size_t)ep->msg_bytes;
    memcpy(msg, buf, (size_t)ep->msg_bytes);
    MPI_CHECK(ep->rank, MPI_Irecv(buf, ep->msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, NOTIFY_TAG_BASE + idx, ep->comm,
                                  &ep->recv_reqs[idx]));
    *slot = idx;
    ep->received++;
    return true;
}

bool notify_poll(notify_ep *ep, int *slot, void *msg)
{
    if (ep->transport == NOTIFY_MSG) return poll_msg(ep, slot, msg);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = ep->pending_word; i < 2 * ep->words; i++) {
            if (!ep->pending[i]) {
                ep->pending_word = i + 1;
                continue;
            }
            int b = __builtin_ctzll(ep->pending[i]);
            ep->pending[i] &= ep->pending[i] - 1;
            int w = i % ep->words, s = w * 64 + b;
            const unsigned char *mailbox = i < ep->words ? ep->base : ep->shm.base;
            memcpy(msg, mailbox + ep->slot_offset + (MPI_Aint)s * ep->msg_bytes, (size_t)ep->msg_bytes);
            *slot = s;
            ep->received++;
            return true;
        }
        if (pass == 0 && !fetch_notifications(ep)) return false;
    }
    return false;
}

unsigned notify_spin_polls(notify_poll_mode poll, bool shared_core)
{
    if (shared_core) return 0;
    /* about 50 us of spinning: a load poll is far cheaper than an MPI_Fetch_and_op poll */
    return poll == NOTIFY_POLL_LOAD ? 2048 : 16;
}

unsigned notify_ep_spin_polls(const notify_ep *ep, bool shared_core)
{
    /* about 50 us too: a shared mailbox poll is one load of a cached word */
    if (ep->transport == NOTIFY_RMA && ep->shm.win != MPI_WIN_NULL && !shared_core) return NOTIFY_SHM_SPIN_POLLS;
    return notify_spin_polls(ep->poll, shared_core);
}

/* A spin-wait hint to the core: the poller leaves the polled cache line alone a little longer, so
 * that a sender's stores to it complete without the line being pulled back between them. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* What this process's pollers backed off to (notify_backoff_counts); one poller per process. */
static notify_backoff backoff;

void notify_idle(unsigned *idle, unsigned spin)
{
    unsigned n = ++*idle;
    if (n <= spin) {
        cpu_relax();
        return;
    }
    if (n <= spin + 64) {
        backoff.yields++;
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000};
    const double t0 = rmb_monotonic_s();
    nanosleep(&ts, NULL);
    backoff.sleeps++;
    backoff.slept_s += rmb_monotonic_s() - t0;
}

notify_backoff notify_backoff_counts(void) { return backoff; }
void notify_backoff_reset(void) { backoff = (notify_backoff){0, 0, 0}; }

void notify_pace_idle(notify_pace *pace, unsigned *idle, unsigned spin)
{
    notify_idle(idle, spin);
    pace->slow = *idle > spin;
}

bool notify_wait(notify_ep *ep, int *slot, void *msg, poll_bound *b)
{
    unsigned idle = 0, spin = notify_ep_spin_polls(ep, b->yield);
    bool yield = b->yield;
    b->yield = false; /* notify_idle does the backing off */
    bool ok = true;
    while (ok && !notify_poll(ep, slot, msg)) {
        ok = poll_continue(b);
        notify_pace_idle(&ep->pace, &idle, spin);
    }
    b->yield = yield;
    return ok;
}

void notify_close(notify_ep *ep)
{
    if (ep->transport == NOTIFY_MSG) {
        for (int s = 0; s < ep->slots; s++) {
            MPI_CHECK(ep->rank, MPI_Cancel(&ep->recv_reqs[s]));
            MPI_CHECK(ep->rank, MPI_Wait(&ep->recv_reqs[s], MPI_STATUS_IGNORE));
        }
        free(ep->recv_reqs);
        mem_free_large(ep->recv_bufs, (uint64_t)ep->slots * (uint64_t)ep->msg_bytes); /* checks placement */
        MPI_CHECK(ep->rank, MPI_Barrier(ep->comm));
        return;
    }
    MPI_CHECK(ep->rank, MPI_Barrier(ep->comm));
    if (ep->win != MPI_WIN_NULL) {
        MPI_CHECK(ep->rank, MPI_Win_unlock_all(ep->win));
        numa_placement_check(ep->base, ep->win_bytes); /* after use: where the mailbox pages really are */
        MPI_CHECK(ep->rank, MPI_Win_free(&ep->win));
    }
    shm_window_close(&ep->shm);
    free(ep->pending);
    free(ep->seen);
}
