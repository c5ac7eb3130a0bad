/* --exchange sendrecv: two-sided, with credits. Every rank packs a relation, then
 *   as a receiver keeps K = --buffers-per-partition MPI_Irecv pre-posted per sender, each straight
 *   into the message's place in the window, and returns a credit for each message it received
 *   (batched into one MPI_Isend of a count while the previous one is in flight) as long as the
 *   sender still has messages beyond its first K;
 *   as a sender visits the owners in --schedule order, sending all of an owner's pieces (messages
 *   of at most --buffer-size bytes) before the next, one MPI_Isend per credit; it starts with K
 *   credits per owner: the receives the owner pre-posted.
 * So no message arrives before its receive is posted (no unexpected-message copies), and a sender
 * never has more than K messages in flight to one owner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joins/radix/exchange.h"
#include "bench/wait_bound.h"
#include "bench/yield_wait.h"

enum { TAG_DATA = 0x5ec0, TAG_CREDIT = 0x5ec1 };

typedef struct {
    radix_exchange ex;
    MPI_Comm comm;
    uint64_t item, chunk, K;
    int P, me;
    char *pack, *dst;
    /* one request array for MPI_Testsome: [recv P*K | send P*K | credit recv P | credit send P] */
    MPI_Request *req;
    int *idx;
    MPI_Status *status;   /* unread; MPICH's headers refuse MPI_STATUSES_IGNORE to Testsome under -Werror */
    /* receiver, per sender j: messages expected, posted, received; credits sent, the one in flight */
    uint64_t *r_total, *r_posted, *r_done, *c_sent, *c_out;
    radix_msg_cursor *r_cur;
    /* sender, per owner t: messages, issued, credits left, credits received, the credit arriving */
    uint64_t *s_total, *s_issued, *credits, *c_got, *c_in;
    radix_msg_cursor *s_cur;
    double t_issue;
} sr_state;

static void *sr_alloc(const sr_state *st, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the send/receive state\n", st->me);
        MPI_Abort(st->comm, 1);
    }
    return p;
}

/* Receiver: credits sender j is owed now (its messages beyond the first K need one each). */
static uint64_t credits_owed(const sr_state *st, int j)
{
    const uint64_t need = st->r_total[j] > st->K ? st->r_total[j] - st->K : 0;
    return (st->r_done[j] < need ? st->r_done[j] : need) - st->c_sent[j];
}

static void post_receives(sr_state *st, int j)
{
    const uint64_t *count = st->ex.count + (size_t)j * (size_t)st->ex.mine;
    for (uint64_t s = 0; s < st->K && st->r_posted[j] < st->r_total[j]; s++) {
        MPI_Request *r = &st->req[(uint64_t)j * st->K + s];
        if (*r != MPI_REQUEST_NULL) continue;
        int piece;
        uint64_t first, n = radix_msg_next(&st->r_cur[j], count, st->ex.mine, st->chunk, &piece, &first);
        const size_t i = (size_t)j * (size_t)st->ex.mine + (size_t)piece;
        MPI_CHECK(st->me, MPI_Irecv(st->dst + (st->ex.dst[i] + first) * st->item, (int)(n * st->item), MPI_BYTE, j,
                                    TAG_DATA, st->comm, r));
        st->r_posted[j]++;
    }
}

static void send_credits(sr_state *st, int j)
{
    MPI_Request *r = &st->req[2 * (uint64_t)st->P * st->K + (uint64_t)st->P + (uint64_t)j];
    const uint64_t owed = credits_owed(st, j);
    if (*r != MPI_REQUEST_NULL || owed == 0) return;
    st->c_out[j] = owed;
    st->c_sent[j] += owed;
    MPI_CHECK(st->me, MPI_Isend(&st->c_out[j], 1, MPI_UINT64_T, j, TAG_CREDIT, st->comm, r));
}

static void expect_credits(sr_state *st, int t)
{
    MPI_Request *r = &st->req[2 * (uint64_t)st->P * st->K + (uint64_t)t];
    const uint64_t need = st->s_total[t] > st->K ? st->s_total[t] - st->K : 0;
    if (*r == MPI_REQUEST_NULL && st->c_got[t] < need)
        MPI_CHECK(st->me, MPI_Irecv(&st->c_in[t], 1, MPI_UINT64_T, t, TAG_CREDIT, st->comm, r));
}

/* Sender: as many messages to owner t as its credits and free send slots allow. */
static void send_messages(sr_state *st, int t)
{
    const uint64_t *count = st->ex.scount + st->ex.sfirst[t];
    const int pieces = st->ex.sfirst[t + 1] - st->ex.sfirst[t];
    for (uint64_t s = 0; s < st->K && st->credits[t] > 0 && st->s_issued[t] < st->s_total[t]; s++) {
        MPI_Request *r = &st->req[(uint64_t)st->P * st->K + (uint64_t)t * st->K + s];
        if (*r != MPI_REQUEST_NULL) continue;
        int piece;
        uint64_t first, n = radix_msg_next(&st->s_cur[t], count, pieces, st->chunk, &piece, &first);
        const uint64_t from = st->ex.pack_off[st->ex.spart[st->ex.sfirst[t] + piece]] + first;
        double t0 = MPI_Wtime();
        MPI_CHECK(st->me, MPI_Isend(st->pack + from * st->item, (int)(n * st->item), MPI_BYTE, t, TAG_DATA, st->comm, r));
        st->t_issue += MPI_Wtime() - t0;
        st->credits[t]--;
        st->s_issued[t]++;
    }
}

static void exchange_relation(sr_state *st, const join_input *in, const radix_layout *lay, const radix_format *f,
                              int rel, rma_window *win)
{
    const int P = st->P, me = st->me;
    radix_exchange_plan(in, lay, f, rel, &st->ex);
    radix_exchange *ex = &st->ex;
    st->item = ex->item;
    st->chunk = (uint64_t)in->plan->buffer_size / st->item ? (uint64_t)in->plan->buffer_size / st->item : 1;
    st->dst = win->base;
    const size_t nreq = 2 * (size_t)P * st->K + 2 * (size_t)P;
    for (size_t i = 0; i < nreq; i++) st->req[i] = MPI_REQUEST_NULL;
    for (int j = 0; j < P; j++) {
        st->r_total[j] = j == me ? 0 : radix_msg_total(ex->count + (size_t)j * (size_t)ex->mine, ex->mine, st->chunk);
        st->s_total[j] = j == me ? 0 : radix_msg_total(ex->scount + ex->sfirst[j], ex->sfirst[j + 1] - ex->sfirst[j], st->chunk);
        st->r_posted[j] = st->r_done[j] = st->c_sent[j] = st->s_issued[j] = st->c_got[j] = 0;
        st->credits[j] = st->K;
        st->r_cur[j] = st->s_cur[j] = (radix_msg_cursor){0, 0};
        post_receives(st, j);
        expect_credits(st, j);
    }
    /* the receives are posted before any rank sends: the first K messages of a pair find theirs */
    MPI_CHECK(me, rmb_barrier(st->comm));
    radix_pack_relation(in, f, rel, lay, ex->pack_off, (uint64_t *)(void *)st->pack);
    for (int k = 0; k < ex->mine; k++) { /* own pieces: a copy */
        const size_t i = (size_t)me * (size_t)ex->mine + (size_t)k;
        memcpy(st->dst + ex->dst[i] * st->item, st->pack + ex->src[i] * st->item, ex->count[i] * st->item);
    }
    int cur = 0; /* the owner being sent to, in schedule order */
    blocking_begin("the sendrecv exchange (MPI_Testsome until every message arrived)", -1); /* the wait bound */
    for (;;) {
        while (cur < P - 1 && st->s_issued[ex->order[cur]] == st->s_total[ex->order[cur]]) cur++;
        if (cur < P - 1) send_messages(st, ex->order[cur]);
        int done;
        MPI_CHECK(me, MPI_Testsome((int)nreq, st->req, &done, st->idx, st->status));
        if (done == MPI_UNDEFINED) { /* nothing in flight: finished when every message was sent */
            if (cur == P - 1) break;
            continue;
        }
        for (int d = 0; d < done; d++) {
            const uint64_t i = (uint64_t)st->idx[d];
            if (i < (uint64_t)P * st->K) { /* a message arrived from j */
                const int j = (int)(i / st->K);
                st->r_done[j]++;
                post_receives(st, j);
                send_credits(st, j);
            } else if (i >= 2 * (uint64_t)P * st->K && i < 2 * (uint64_t)P * st->K + (uint64_t)P) { /* credits from t */
                const int t = (int)(i - 2 * (uint64_t)P * st->K);
                st->credits[t] += st->c_in[t];
                st->c_got[t] += st->c_in[t];
                expect_credits(st, t);
            } else if (i >= 2 * (uint64_t)P * st->K + (uint64_t)P) { /* a credit message left: any owed since? */
                send_credits(st, (int)(i - 2 * (uint64_t)P * st->K - (uint64_t)P));
            }
        }
    }
    blocking_end();
    radix_exchange_free(ex);
}

static void sendrecv_pass(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                          radix_exchange_bufs *b, radix_pass_times *t)
{
    sr_state st;
    memset(&st, 0, sizeof st);
    st.comm = in->ctx->comm;
    st.P = in->ctx->size;
    st.me = in->ctx->rank;
    st.K = (uint64_t)in->opt->buffers_per_partition;
    st.pack = b->pack;
    const size_t P = (size_t)st.P, nreq = 2 * P * st.K + 2 * P;
    st.req = sr_alloc(&st, nreq, sizeof *st.req);
    st.idx = sr_alloc(&st, nreq, sizeof *st.idx);
    st.status = sr_alloc(&st, nreq, sizeof *st.status);
    uint64_t *w = sr_alloc(&st, 10 * P, sizeof *w);
    st.r_total = w, st.r_posted = w + P, st.r_done = w + 2 * P, st.c_sent = w + 3 * P, st.c_out = w + 4 * P;
    st.s_total = w + 5 * P, st.s_issued = w + 6 * P, st.credits = w + 7 * P, st.c_got = w + 8 * P, st.c_in = w + 9 * P;
    st.r_cur = sr_alloc(&st, P, sizeof *st.r_cur);
    st.s_cur = sr_alloc(&st, P, sizeof *st.s_cur);
    double t0 = MPI_Wtime();
    for (int rel = 0; rel < 2; rel++) exchange_relation(&st, in, lay, f, rel, &win[rel]);
    t->put = st.t_issue;
    t->flush = MPI_Wtime() - t0 - st.t_issue;
    t->wait = rmb_wait_all(st.comm);
    free(st.req);
    free(st.idx);
    free(st.status);
    free(w);
    free(st.r_cur);
    free(st.s_cur);
}

const radix_exchange_design radix_exchange_sendrecv = {
    .name = "sendrecv",
    .help = "MPI_Isend into pre-posted MPI_Irecv with credits",
    .schedule = true,
    .buffers = RADIX_XBUF_PACK,
    .run = sendrecv_pass,
};
