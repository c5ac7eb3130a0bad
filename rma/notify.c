#include "rma/notify.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/context.h"
#include "bench/memory.h"
#include "bench/numa_policy.h"
#include "rma/window.h"

const char *const notify_transport_names[] = {"rma", "msg", NULL};
const char *const notify_poll_names[] = {"auto", "load", "fao", "probe", NULL};

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

uint64_t notify_mailbox_bytes(notify_transport t, int my_slots, int max_slots, int msg_bytes)
{
    if (t == NOTIFY_MSG) return (uint64_t)my_slots * (uint64_t)msg_bytes;
    /* the slots follow the largest notification area, so that every rank finds them at one offset */
    uint64_t words = ((uint64_t)max_slots + 63) / 64;
    return rma_round_size(words * 8 + (uint64_t)my_slots * (uint64_t)msg_bytes);
}

uint64_t notify_mailbox_aux_bytes(notify_transport t, int my_slots)
{
    if (t == NOTIFY_MSG) return (uint64_t)my_slots * sizeof(MPI_Request);
    return 2 * (((uint64_t)my_slots + 63) / 64) * sizeof(uint64_t);
}

void notify_open(notify_ep *ep, MPI_Comm comm, notify_transport t, notify_poll_mode poll, int my_slots,
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

    if (t == NOTIFY_MSG) {
        ep->recv_reqs = xcalloc((size_t)my_slots, sizeof *ep->recv_reqs);
        ep->mailbox_bytes = notify_mailbox_bytes(t, my_slots, my_slots, msg_bytes);
        ep->recv_bufs = mem_alloc_large(ep->mailbox_bytes); /* zeroed, --numa policy */
        if (!ep->recv_bufs) {
            fprintf(stderr, "rmabench: rank %d: out of memory allocating %d receive buffers\n", ep->rank, my_slots);
            abort();
        }
        for (int s = 0; s < my_slots; s++)
            MPI_CHECK(ep->rank, MPI_Irecv(ep->recv_bufs + (size_t)s * (size_t)msg_bytes, msg_bytes, MPI_BYTE,
                                          MPI_ANY_SOURCE, NOTIFY_TAG_BASE + s, comm, &ep->recv_reqs[s]));
        MPI_CHECK(ep->rank, MPI_Barrier(comm)); /* receives posted before anyone sends */
        return;
    }

    int max_words = 0;
    MPI_CHECK(ep->rank, MPI_Allreduce(&ep->words, &max_words, 1, MPI_INT, MPI_MAX, comm));
    /* Slots follow the words directly: with few slots the payload and its notification share a
     * cache line, one line transfer less per message between cores. */
    ep->slot_offset = (MPI_Aint)max_words * 8;
    uint64_t bytes = notify_mailbox_bytes(t, my_slots, max_words * 64, msg_bytes);
    ep->win_bytes = ep->mailbox_bytes = bytes;
    /* Own allocation rather than rma_window_alloc (whose info announces MPI_SUM): senders only
     * toggle bits with MPI_BXOR and the target only reads with MPI_NO_OP. (Millisecond stalls seen
     * on MPICH came from ranks spinning while their peer was descheduled, see notify_idle, not
     * from this info.) */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
    /* Open MPI osc rdma: single-element accumulates may use the transport's atomics directly
     * (no window lock and software op); other libraries ignore the key. */
    MPI_Info_set(info, "acc_single_intrinsic", "true");
    numa_policy_push(); /* --numa: the mailbox pages this rank first touches follow the run's policy */
    MPI_CHECK(ep->rank, MPI_Win_allocate((MPI_Aint)bytes, 1, info, comm, &ep->base, &ep->win));
    if (numa_policy() != NUMA_OFF) numa_touch_pages(ep->base, bytes); /* before any sender can place them */
    numa_policy_pop();
    MPI_Info_free(&info);
    MPI_Win_set_errhandler(ep->win, MPI_ERRORS_RETURN);
    memset(ep->base, 0, bytes);
    ep->pending = xcalloc((size_t)ep->words, sizeof *ep->pending);
    ep->seen = xcalloc((size_t)ep->words, sizeof *ep->seen);
    MPI_CHECK(ep->rank, MPI_Win_lock_all(MPI_MODE_NOCHECK, ep->win));
    MPI_CHECK(ep->rank, MPI_Win_sync(ep->win));
    MPI_CHECK(ep->rank, MPI_Barrier(comm));
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

/* Fetch new notification bits into ep->pending. A sender toggles its slot's bit (MPI_BXOR), so the
 * new messages are the bits that differ from the word as last seen: the target never writes the
 * word, and a sender toggles again only after its message was answered. */
static bool fetch_notifications(notify_ep *ep)
{
    bool any = false;
    for (int w = 0; w < ep->words; w++) {
        uint64_t *addr = (uint64_t *)ep->base + w;
        uint64_t word = notify_read_own_word(ep->win, ep->comm, ep->rank, addr, (MPI_Aint)w * 8, ep->poll);
        uint64_t bits = word ^ ep->seen[w];
        if (!bits) continue;
        ep->seen[w] = word;
        ep->pending[w] |= bits;
        any = true;
    }
    if (any) {
        ep->pending_word = 0;
        MPI_CHECK(ep->rank, MPI_Win_sync(ep->win)); /* payloads were flushed before their bits */
    }
    return any;
}

bool notify_poll(notify_ep *ep, int *slot, void *msg)
{
    if (ep->transport == NOTIFY_MSG) {
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
    for (int pass = 0; pass < 2; pass++) {
        for (int w = ep->pending_word; w < ep->words; w++) {
            if (!ep->pending[w]) {
                ep->pending_word = w + 1;
                continue;
            }
            int b = __builtin_ctzll(ep->pending[w]);
            ep->pending[w] &= ep->pending[w] - 1;
            int s = w * 64 + b;
            memcpy(msg, ep->base + ep->slot_offset + (MPI_Aint)s * ep->msg_bytes, (size_t)ep->msg_bytes);
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
    /* about 50 us of spinning: a load poll costs ~30 ns, an MPI_Fetch_and_op poll a few us */
    return poll == NOTIFY_POLL_LOAD ? 2048 : 16;
}

void notify_idle(unsigned *idle, unsigned spin)
{
    unsigned n = ++*idle;
    if (n <= spin) return;
    if (n <= spin + 64) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

bool notify_wait(notify_ep *ep, int *slot, void *msg, poll_bound *b)
{
    unsigned idle = 0, spin = notify_spin_polls(ep->poll, b->yield);
    bool yield = b->yield;
    b->yield = false; /* notify_idle does the backing off */
    bool ok = true;
    while (ok && !notify_poll(ep, slot, msg)) {
        ok = poll_continue(b);
        notify_idle(&idle, spin);
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
    MPI_CHECK(ep->rank, MPI_Win_unlock_all(ep->win));
    numa_placement_check(ep->base, ep->win_bytes); /* after use: where the mailbox pages really are */
    MPI_CHECK(ep->rank, MPI_Win_free(&ep->win));
    free(ep->pending);
    free(ep->seen);
}
