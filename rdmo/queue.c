/* The rdmo design: a request is one notified put (rdmo/wire.h) into the origin's slot of the
 * target's request queue; the target's handler takes what arrived into a bounded queue, runs the
 * methods and answers each with one notified put into the origin's answer slot. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/context.h"
#include "rdmo/ep.h"
#include "rma/progress.h"

/* One notified put: a message of n bytes (ep->words, already packed) into slot disp of target. */
static void put_message(rdmo_ep *ep, const uint64_t *words, int n, int target, MPI_Aint disp)
{
    const int nw = rdmo_wire_words(n);
    MPI_CHECK(ep->rank, MPI_Accumulate(words, nw, MPI_UINT64_T, target, disp, nw, MPI_UINT64_T, MPI_REPLACE, ep->win));
}

/* A rank that a notified put went to and no flush completed yet, in the origin's or the handler's
 * list (a progress thread answers beside the rank's own calls). */
static void mark_unflushed(rdmo_unflushed *u, int rank)
{
    if (u->mark[rank]) return;
    u->mark[rank] = 1;
    u->rank[u->n++] = rank;
}

void rdmo_queue_flush(rdmo_ep *ep, rdmo_unflushed *u)
{
    for (int i = 0; i < u->n; i++) {
        const int o = u->rank[i];
        blocking_begin("MPI_Win_flush of RDMO requests or answers", o);
        MPI_CHECK(ep->rank, MPI_Win_flush(o, ep->win));
        blocking_end();
        u->mark[o] = 0;
    }
    u->n = 0;
}

/* Zero a message's words once read: the slot then shows nothing until the next message. */
static void clear_slot(uint64_t *slot, int words)
{
    for (int w = 0; w < words; w++) __atomic_store_n(&slot[w], 0, __ATOMIC_RELAXED);
}

void rdmo_queue_start(rdmo_ep *ep, int k, int len)
{
    rdmo_call_slot *c = &ep->calls[k];
    const int n = (int)sizeof(rdmo_hdr) + len;
    c->astamp = rdmo_stamp_next(c->astamp);
    c->out[offsetof(rdmo_hdr, astamp)] = c->astamp;
    const uint8_t stamp = ep->stamp_out[c->target] = rdmo_stamp_next(ep->stamp_out[c->target]);
    rdmo_wire_pack(stamp, c->out, n, ep->words);
    /* Locally complete only (the packed words are written again by the next call), as the answers
     * (rdmo_queue_send_answer): the answer shows that the request arrived, and a flush would add a
     * round trip of its own to every call (between hosts Open MPI's osc pt2pt sends a flush request
     * and waits for its acknowledgement) and, under MPICH, wait for the target's next MPI call.
     * Remote completion follows when this rank is idle (rdmo_queue_serve) and at the close. */
    blocking_begin("MPI_Accumulate + MPI_Win_flush_local of an RDMO request", c->target);
    put_message(ep, ep->words, n, c->target, ep->req_at + (MPI_Aint)ep->rank * ep->cfg.slot_bytes);
    MPI_CHECK(ep->rank, MPI_Win_flush_local(c->target, ep->win));
    blocking_end();
    mark_unflushed(&ep->out_unflushed, c->target);
}

int rdmo_queue_wait(rdmo_ep *ep, int k)
{
    rdmo_call_slot *c = &ep->calls[k];
    uint64_t *slot = (uint64_t *)(void *)(ep->base + ep->ans_at + (MPI_Aint)k * ep->cfg.slot_bytes);
    poll_bound b;
    poll_begin(&b, "RDMO answer", ep->rank, c->target, ep->cfg.wait_bound_s, false);
    unsigned idle = 0;
    const bool serve = rdmo_wait_serves(ep);
    for (;;) {
        rdmo_progress(ep);
        if (rdmo_wire_complete(slot, ep->slot_words, c->astamp)) break;
        if (serve && rdmo_serve(ep) > 0) idle = 0;
        else rdmo_idle(&idle, ep->cfg.yield);
        if (!poll_continue(&b)) rdmo_wait_failed(ep, "RDMO answer", c->target);
    }
    const int got = rdmo_wire_unpack(slot, ep->slot_words, c->in, ep->capacity);
    if (got < 0) {
        fprintf(stderr, "rmabench: rank %d: a malformed RDMO answer from rank %d\n", ep->rank, c->target);
        MPI_Abort(ep->comm, 3);
    }
    clear_slot(slot, rdmo_wire_words(got));
    MPI_CHECK(ep->rank, MPI_Win_sync(ep->win)); /* cleared before the next request can bring an answer */
    return got;
}

void rdmo_queue_send_answer(rdmo_ep *ep, const rdmo_token *t, int status, const void *ans, int len)
{
    const rdmo_hdr h = {0, 0, (uint8_t)status, (uint16_t)len, 0, 0};
    memcpy(ep->hmsg, &h, sizeof h);
    if (len > 0) memcpy(ep->hmsg + sizeof h, ans, (size_t)len);
    const int n = (int)sizeof h + len;
    rdmo_wire_pack(t->astamp, ep->hmsg, n, ep->hwords);
    put_message(ep, ep->hwords, n, t->origin, ep->ans_at + (MPI_Aint)t->rslot * ep->cfg.slot_bytes);
    /* the packed words may be written again once local. The answers' remote completion waits until
     * the handler has found nothing to take for RDMO_FLUSH_IDLE passes (rdmo_queue_serve), and for
     * the endpoint's close: a flush returns only once the origin's MPI has taken the answer (MPICH,
     * and Open MPI between hosts: when the origin next calls MPI), and a handler blocked in it would
     * hold every other origin's request back behind one that sleeps. The answer needs no flush to
     * travel (both libraries issue an operation of a lock_all epoch at once; an origin that saw it
     * has taken it), only to be complete by MPI's rules, which the close guarantees. */
    MPI_CHECK(ep->rank, MPI_Win_flush_local(t->origin, ep->win));
    ep->c.answers++;
    mark_unflushed(&ep->ans_unflushed, t->origin);
}

/* The request in origin s's slot, complete: into the queue while it has room, else refused. */
static int take(rdmo_ep *ep, int s, uint64_t *slot, int taken, int room)
{
    ep->c.arrivals++;
    ep->stamp_in[s] = rdmo_stamp_next(ep->stamp_in[s]);
    unsigned char *dst = taken < room ? ep->queue[taken].msg : ep->ans;
    const int n = rdmo_wire_unpack(slot, ep->slot_words, dst, ep->capacity);
    clear_slot(slot, n < 0 ? ep->slot_words : rdmo_wire_words(n));
    rdmo_hdr h;
    memcpy(&h, dst, sizeof h);
    const rdmo_token tok = {s, h.rslot, h.astamp};
    if (n < 0) {
        rdmo_queue_send_answer(ep, &tok, RDMO_EPAYLOAD, NULL, 0);
        return 0;
    }
    if (taken >= room) {
        ep->c.rejected++;
        rdmo_queue_send_answer(ep, &tok, RDMO_EQUEUE, NULL, 0);
        return 0;
    }
    ep->queue[taken].tok = tok;
    ep->queue[taken].len = n;
    return 1;
}

int rdmo_queue_serve(rdmo_ep *ep)
{
    rdmo_progress(ep);
    const int room = ep->cfg.queue_depth - ep->pending;
    int taken = 0, seen = 0;
    for (int k = 0; k < ep->size; k++) {
        const int s = (ep->scan_from + k) % ep->size;
        uint64_t *slot = (uint64_t *)(void *)(ep->base + ep->req_at + (MPI_Aint)s * ep->cfg.slot_bytes);
        if (!rdmo_wire_complete(slot, ep->slot_words, ep->stamp_in[s])) continue;
        taken += take(ep, s, slot, taken, room);
        seen++;
    }
    if (seen) MPI_CHECK(ep->rank, MPI_Win_sync(ep->win)); /* the slots cleared before any answer leaves */
    ep->scan_from = ep->scan_from + 1 == ep->size ? 0 : ep->scan_from + 1; /* no origin always first */
    for (int i = 0; i < taken; i++) rdmo_execute(ep, &ep->queue[i].tok, ep->queue[i].msg, ep->queue[i].len);
    ep->idle_passes = seen ? 0 : ep->idle_passes + 1;
    if (ep->idle_passes == RDMO_FLUSH_IDLE) rdmo_queue_flush(ep, &ep->ans_unflushed); /* quiet: complete the answers */
    return seen;
}
