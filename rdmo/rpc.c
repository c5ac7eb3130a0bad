/* The rpc design: the same request and answer as the rdmo design, as two-sided messages. The
 * target keeps queue_depth receives posted (MPI_ANY_SOURCE); what completes in one pass beyond the
 * queue's room is answered RDMO_EQUEUE, as in the rdmo design. Messages that arrive while no
 * receive is posted wait in MPI's unexpected-message queue, which the library bounds, not this. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/context.h"
#include "rdmo/ep.h"
#include "rma/progress.h"

static void post(rdmo_ep *ep, int i)
{
    MPI_CHECK(ep->rank, MPI_Irecv(ep->rbufs + (size_t)i * (size_t)ep->capacity, ep->capacity, MPI_BYTE, MPI_ANY_SOURCE,
                                  RDMO_TAG_REQ, ep->comm, &ep->rreq[i]));
}

void rdmo_rpc_open(rdmo_ep *ep)
{
    const int d = ep->cfg.queue_depth;
    ep->rreq = calloc((size_t)d, sizeof *ep->rreq);
    ep->sreq = calloc((size_t)d, sizeof *ep->sreq);
    ep->rbufs = calloc((size_t)d, (size_t)ep->capacity);
    ep->sbufs = calloc((size_t)d, (size_t)ep->capacity);
    ep->done_idx = calloc((size_t)d, sizeof *ep->done_idx);
    ep->done_st = calloc((size_t)d, sizeof *ep->done_st);
    if (!ep->rreq || !ep->sreq || !ep->rbufs || !ep->sbufs || !ep->done_idx || !ep->done_st) {
        fprintf(stderr, "rmabench: rank %d: out of memory for the rpc receives\n", ep->rank);
        abort();
    }
    for (int i = 0; i < d; i++) {
        ep->sreq[i] = MPI_REQUEST_NULL;
        ep->rreq[i] = MPI_REQUEST_NULL;
        if (ep->cfg.serve) post(ep, i);
    }
}

void rdmo_rpc_close(rdmo_ep *ep)
{
    for (int i = 0; i < ep->cfg.queue_depth; i++) {
        if (ep->rreq[i] != MPI_REQUEST_NULL) {
            MPI_CHECK(ep->rank, MPI_Cancel(&ep->rreq[i]));
            MPI_CHECK(ep->rank, MPI_Wait(&ep->rreq[i], MPI_STATUS_IGNORE));
        }
        MPI_CHECK(ep->rank, MPI_Wait(&ep->sreq[i], MPI_STATUS_IGNORE));
    }
    free(ep->rreq);
    free(ep->sreq);
    free(ep->rbufs);
    free(ep->sbufs);
    free(ep->done_idx);
    free(ep->done_st);
}

void rdmo_rpc_start(rdmo_ep *ep, int k, int len)
{
    rdmo_call_slot *c = &ep->calls[k];
    MPI_CHECK(ep->rank, MPI_Irecv(c->in, ep->capacity, MPI_BYTE, c->target, RDMO_TAG_ANS + k, ep->comm, &c->req[1]));
    MPI_CHECK(ep->rank, MPI_Isend(c->out, (int)sizeof(rdmo_hdr) + len, MPI_BYTE, c->target, RDMO_TAG_REQ, ep->comm, &c->req[0]));
}

int rdmo_rpc_wait(rdmo_ep *ep, int k)
{
    rdmo_call_slot *c = &ep->calls[k];
    MPI_Status st;
    poll_bound b;
    poll_begin(&b, "rpc answer", ep->rank, c->target, ep->cfg.wait_bound_s, false);
    unsigned idle = 0;
    const bool serve = rdmo_wait_serves(ep);
    int done[2] = {0, 0};
    while (!done[1] || !done[0]) {
        if (!done[0]) MPI_CHECK(ep->rank, MPI_Test(&c->req[0], &done[0], MPI_STATUS_IGNORE));
        if (!done[1]) MPI_CHECK(ep->rank, MPI_Test(&c->req[1], &done[1], &st));
        if (done[0] && done[1]) break;
        if (serve && rdmo_serve(ep) > 0) idle = 0;
        else rdmo_idle(&idle, ep->cfg.yield);
        if (!poll_continue(&b)) rdmo_wait_failed(ep, "rpc answer", c->target);
    }
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    return n;
}

void rdmo_rpc_send_answer(rdmo_ep *ep, const rdmo_token *t, int status, const void *ans, int len)
{
    const int i = ep->snext;
    ep->snext = i + 1 == ep->cfg.queue_depth ? 0 : i + 1;
    int done = 0;
    unsigned idle = 0;
    while (ep->sreq[i] != MPI_REQUEST_NULL && !done) { /* the ring's oldest answer: long delivered, as a rule */
        MPI_CHECK(ep->rank, MPI_Test(&ep->sreq[i], &done, MPI_STATUS_IGNORE));
        if (!done) rdmo_idle(&idle, ep->cfg.yield);
    }
    unsigned char *buf = ep->sbufs + (size_t)i * (size_t)ep->capacity;
    const rdmo_hdr h = {0, 0, (uint8_t)status, (uint16_t)len, 0, 0};
    memcpy(buf, &h, sizeof h);
    if (len > 0) memcpy(buf + sizeof h, ans, (size_t)len);
    MPI_CHECK(ep->rank, MPI_Isend(buf, (int)sizeof h + len, MPI_BYTE, t->origin, RDMO_TAG_ANS + t->rslot, ep->comm, &ep->sreq[i]));
    ep->c.answers++;
}

int rdmo_rpc_serve(rdmo_ep *ep)
{
    if (!ep->cfg.serve) {
        rdmo_progress(ep);
        return 0;
    }
    int n = 0;
    MPI_CHECK(ep->rank, MPI_Testsome(ep->cfg.queue_depth, ep->rreq, &n, ep->done_idx, ep->done_st));
    if (n == MPI_UNDEFINED || n == 0) return 0;
    const int room = ep->cfg.queue_depth - ep->pending;
    int taken = 0;
    ep->c.arrivals += (uint64_t)n;
    for (int k = 0; k < n; k++) {
        const int i = ep->done_idx[k];
        int len = 0;
        MPI_Get_count(&ep->done_st[k], MPI_BYTE, &len);
        const unsigned char *msg = ep->rbufs + (size_t)i * (size_t)ep->capacity;
        const rdmo_token tok = {ep->done_st[k].MPI_SOURCE, len >= (int)sizeof(rdmo_hdr) ? msg[offsetof(rdmo_hdr, rslot)] : 0, 0};
        if (taken < room && len >= (int)sizeof(rdmo_hdr)) {
            memcpy(ep->queue[taken].msg, msg, (size_t)len);
            ep->queue[taken].tok = tok;
            ep->queue[taken].len = len;
            taken++;
        } else if (len < (int)sizeof(rdmo_hdr)) {
            rdmo_rpc_send_answer(ep, &tok, RDMO_EPAYLOAD, NULL, 0);
        } else {
            ep->c.rejected++;
            rdmo_rpc_send_answer(ep, &tok, RDMO_EQUEUE, NULL, 0);
        }
        post(ep, i);
    }
    for (int k = 0; k < taken; k++) rdmo_execute(ep, &ep->queue[k].tok, ep->queue[k].msg, ep->queue[k].len);
    return n;
}
