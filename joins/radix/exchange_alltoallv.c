/* --exchange alltoallv, the baseline: pack a relation owner by owner, one MPI_Alltoallv of items
 * (a contiguous type of the item size) into a receive buffer in rank order, then each piece to its
 * place in the window. The library chooses the schedule and message sizes (--buffer-size does not
 * apply); the receive buffer is a second copy of the window's share. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joins/radix/exchange.h"

static int to_count(const bench_ctx *ctx, uint64_t items)
{
    if (items > INT_MAX) {
        fprintf(stderr, "rmabench: rank %d: --exchange alltoallv: %llu items exceed an int count\n", ctx->rank,
                (unsigned long long)items);
        MPI_Abort(ctx->comm, 2);
    }
    return (int)items;
}

double radix_alltoallv_pieces(const bench_ctx *ctx, const radix_exchange *ex, const void *pack, void *recv)
{
    const int P = ctx->size, me = ctx->rank;
    int *c = malloc(4 * (size_t)P * sizeof *c);
    if (!c) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the all-to-all counts\n", me);
        MPI_Abort(ctx->comm, 1);
    }
    int *sc = c, *sd = c + P, *rc = c + 2 * P, *rd = c + 3 * P;
    uint64_t rtotal = 0;
    for (int j = 0; j < P; j++) {
        sc[j] = to_count(ctx, ex->send_off[j + 1] - ex->send_off[j]);
        sd[j] = to_count(ctx, ex->send_off[j]);
        uint64_t n = 0;
        for (int k = 0; k < ex->mine; k++) n += ex->count[(size_t)j * (size_t)ex->mine + (size_t)k];
        rc[j] = to_count(ctx, n);
        rd[j] = to_count(ctx, rtotal);
        rtotal += n;
    }
    MPI_Datatype titem;
    MPI_CHECK(me, MPI_Type_contiguous((int)ex->item, MPI_BYTE, &titem));
    MPI_CHECK(me, MPI_Type_commit(&titem));
    double t0 = MPI_Wtime();
    MPI_CHECK(me, MPI_Alltoallv(pack, sc, sd, titem, recv, rc, rd, titem, ctx->comm));
    const double t = MPI_Wtime() - t0;
    MPI_CHECK(me, MPI_Type_free(&titem));
    free(c);
    return t;
}

static void alltoallv_pass(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                           radix_exchange_bufs *b, radix_pass_times *t)
{
    const bench_ctx *ctx = in->ctx;
    const int P = ctx->size;
    *t = (radix_pass_times){0, 0, 0};
    for (int rel = 0; rel < 2; rel++) {
        radix_exchange ex;
        radix_exchange_plan(in, lay, f, rel, &ex);
        const uint64_t item = ex.item;
        char *pack = b->pack, *recv = b->recv;
        radix_pack_relation(in, f, rel, lay, ex.pack_off, (uint64_t *)(void *)pack);
        t->put += radix_alltoallv_pieces(ctx, &ex, pack, recv);
        /* pieces arrive per sender in partition order: each to its place */
        const char *from = recv;
        for (int j = 0; j < P; j++)
            for (int k = 0; k < ex.mine; k++) {
                const size_t i = (size_t)j * (size_t)ex.mine + (size_t)k;
                memcpy((char *)win[rel].base + ex.dst[i] * item, from, ex.count[i] * item);
                from += ex.count[i] * item;
            }
        radix_exchange_free(&ex);
    }
    t->wait = rmb_wait_all(ctx->comm);
}

const radix_exchange_design radix_exchange_alltoallv = {
    .name = "alltoallv",
    .help = "one MPI_Alltoallv after local partitioning",
    .schedule = false,
    .buffers = RADIX_XBUF_PACK_RECV,
    .run = alltoallv_pass,
};
