/* The plan the exchange designs share (exchange.h): the pack order, the pieces every owner receives
 * and where they go, the peer order of --schedule, and the message cursor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/yield_wait.h"
#include "joins/radix/exchange.h"
#include "rma/count.h"

static void *alloc_or_abort(const join_input *in, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the exchange plan\n", in->ctx->rank);
        MPI_Abort(in->ctx->comm, 1);
    }
    return p;
}

void radix_exchange_plan(const join_input *in, const radix_layout *lay, const radix_format *f, int rel,
                         radix_exchange *ex)
{
    const bench_ctx *ctx = in->ctx;
    const int P = ctx->size, me = ctx->rank;
    const uint64_t np = lay->nparts;
    memset(ex, 0, sizeof *ex);
    ex->item = 8 * (uint64_t)f->words;
    ex->pack_off = alloc_or_abort(in, np * sizeof *ex->pack_off);
    ex->send_off = alloc_or_abort(in, ((size_t)P + 1) * sizeof *ex->send_off);
    ex->spart = alloc_or_abort(in, 2 * np * sizeof *ex->spart);
    ex->scount = ex->spart + np;
    ex->sfirst = alloc_or_abort(in, ((size_t)P + 1) * sizeof *ex->sfirst);
    ex->order = alloc_or_abort(in, (size_t)P * sizeof *ex->order);
    /* owner-major: partitions per owner, then items per owner, both as prefix sums */
    memset(ex->sfirst, 0, ((size_t)P + 1) * sizeof *ex->sfirst);
    memset(ex->send_off, 0, ((size_t)P + 1) * sizeof *ex->send_off);
    for (uint64_t p = 0; p < np; p++) {
        ex->sfirst[lay->owner[p] + 1]++;
        ex->send_off[lay->owner[p] + 1] += lay->local[rel][p];
    }
    for (int t = 0; t < P; t++) {
        ex->sfirst[t + 1] += ex->sfirst[t];
        ex->send_off[t + 1] += ex->send_off[t];
    }
    ex->mine = ex->sfirst[me + 1] - ex->sfirst[me];
    int *next = alloc_or_abort(in, (size_t)P * sizeof *next);
    uint64_t *at = alloc_or_abort(in, (size_t)P * sizeof *at);
    memcpy(next, ex->sfirst, (size_t)P * sizeof *next);
    memcpy(at, ex->send_off, (size_t)P * sizeof *at);
    for (uint64_t p = 0; p < np; p++) {
        const int t = lay->owner[p];
        ex->spart[next[t]] = p;
        ex->scount[next[t]++] = lay->local[rel][p];
        ex->pack_off[p] = at[t];
        at[t] += lay->local[rel][p];
    }
    ex->parts = ex->spart + ex->sfirst[me];
    /* every owner learns, from every rank, the size and pack offset of that rank's piece of each of
     * its partitions: 2 words per partition sent, 2 x P x mine received (O(np)) */
    const size_t pieces = (size_t)P * (size_t)ex->mine;
    uint64_t *sbuf = alloc_or_abort(in, 2 * np * sizeof *sbuf), *rbuf = alloc_or_abort(in, 2 * pieces * sizeof *rbuf);
    int *sc = alloc_or_abort(in, 4 * (size_t)P * sizeof *sc), *sd = sc + P, *rc = sc + 2 * P, *rd = sc + 3 * P;
    for (uint64_t i = 0; i < np; i++) {
        sbuf[2 * i] = ex->scount[i];
        sbuf[2 * i + 1] = ex->pack_off[ex->spart[i]];
    }
    for (int t = 0; t < P; t++) {
        sc[t] = 2 * (ex->sfirst[t + 1] - ex->sfirst[t]);
        sd[t] = 2 * ex->sfirst[t];
        rc[t] = 2 * ex->mine;
        rd[t] = 2 * ex->mine * t;
    }
    MPI_CHECK(me, MPI_Alltoallv(sbuf, sc, sd, MPI_UINT64_T, rbuf, rc, rd, MPI_UINT64_T, ctx->comm));
    ex->count = alloc_or_abort(in, 3 * pieces * sizeof *ex->count);
    ex->src = ex->count + pieces;
    ex->dst = ex->src + pieces;
    for (int k = 0; k < ex->mine; k++) {
        /* pieces lie in rank order inside a partition: the same place the put design writes to */
        uint64_t off = lay->base[rel][ex->parts[k]];
        for (int j = 0; j < P; j++) {
            const size_t i = (size_t)j * (size_t)ex->mine + (size_t)k;
            ex->count[i] = rbuf[2 * i];
            ex->src[i] = rbuf[2 * i + 1];
            ex->dst[i] = off;
            off += ex->count[i];
        }
    }
    radix_exchange_order(in->opt->schedule, me, P, (uint64_t)in->opt->seed, rel, ex->order);
    free(next);
    free(at);
    free(sbuf);
    free(rbuf);
    free(sc);
}

/* Whole cache lines, at least one. */
static uint64_t lines(uint64_t bytes) { return (bytes + 63) / 64 * 64 + 64; }

uint64_t radix_get_window_bytes(int ranks, uint64_t items, uint64_t item)
{
    return ((uint64_t)ranks * 8 + 63) / 64 * 64 + lines(items * item);
}

void radix_exchange_bufs_alloc(const join_input *in, const radix_layout *lay, const radix_format *f,
                               radix_exchange_bufs *b)
{
    const bench_ctx *ctx = in->ctx;
    const uint64_t item = 8 * (uint64_t)f->words;
    memset(b, 0, sizeof *b);
    b->design = radix_exchange_of(in->opt);
    if (b->design->buffers == RADIX_XBUF_NONE) return;
    uint64_t n[2] = {0, 0};
    for (uint64_t p = 0; p < lay->nparts; p++)
        for (int rel = 0; rel < 2; rel++) n[rel] += lay->local[rel][p];
    b->pack_bytes = lines((n[0] > n[1] ? n[0] : n[1]) * item);
    if (b->design->buffers == RADIX_XBUF_PACK_WINDOW) {
        /* the ready flags in whole cache lines, then the pack; a flag counts relations ready */
        b->hdr = radix_get_window_bytes(ctx->size, 0, item) - lines(0);
        /* kept across joins like the relations' windows (under dynamic too: its flags are atomics'
         * targets in place), in the slot after theirs */
        const win_life life = in->opt->window_life == WIN_LIFE_JOIN ? WIN_LIFE_JOIN : WIN_LIFE_POOL;
        rma_window_acquire(&b->pw, b->hdr + b->pack_bytes, WIN_ALLOCATE, life, ctx->comm, RADIX_GET_SLOT);
        rma_window_prefault(&b->pw);
        /* the flags count the relations packed in this join: a kept window still holds the last
         * join's count, which would let owners pull before their packers packed */
        memset(b->pw.base, 0, b->hdr);
        rma_window_lock_all(&b->pw);
        MPI_CHECK(ctx->rank, MPI_Win_sync(b->pw.win));
        MPI_CHECK(ctx->rank, rmb_barrier(ctx->comm)); /* every flag is cleared before anyone sets one */
        b->pack = (char *)b->pw.base + b->hdr;
        return;
    }
    if (b->design->buffers == RADIX_XBUF_PACK_RECV) {
        const uint64_t w = lay->win_items[0] > lay->win_items[1] ? lay->win_items[0] : lay->win_items[1];
        b->recv_bytes = lines(w * item);
        b->recv = mem_alloc_large(b->recv_bytes);
    }
    /* huge pages: a fresh 4 KiB page's first touch is costly under a hypervisor (PLATFORM-NOTES) */
    b->pack = mem_alloc_large(b->pack_bytes);
    if (!b->pack || (b->design->buffers == RADIX_XBUF_PACK_RECV && !b->recv)) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the exchange buffers\n", ctx->rank);
        MPI_Abort(ctx->comm, 1);
    }
    memset(b->pack, 0, b->pack_bytes); /* first touch, as the windows' */
    if (b->recv) memset(b->recv, 0, b->recv_bytes);
}

void radix_exchange_bufs_free(radix_exchange_bufs *b)
{
    if (b->design && b->design->buffers == RADIX_XBUF_PACK_WINDOW) {
        rma_window_release(&b->pw);
    } else {
        mem_free_large(b->pack, b->pack_bytes);
        mem_free_large(b->recv, b->recv_bytes);
    }
    memset(b, 0, sizeof *b);
}

void radix_exchange_free(radix_exchange *ex)
{
    free(ex->pack_off);
    free(ex->send_off);
    free(ex->spart); /* and scount */
    free(ex->sfirst);
    free(ex->order);
    free(ex->count); /* and src, dst */
    memset(ex, 0, sizeof *ex);
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void radix_exchange_order(int schedule, int rank, int ranks, uint64_t seed, int rel, int *order)
{
    int n = 0;
    for (int k = 1; k < ranks; k++) order[n++] = schedule == SCHEDULE_STAGGERED ? (rank + k) % ranks : (k <= rank ? k - 1 : k);
    if (schedule != SCHEDULE_RANDOM) return;
    /* Fisher-Yates from a stream of its own per rank and relation: repeatable from --seed */
    uint64_t s = seed ^ ((uint64_t)rank << 32) ^ ((uint64_t)rel << 62) ^ UINT64_C(0x5ced);
    for (int i = n - 1; i > 0; i--) {
        const int j = (int)(splitmix64(&s) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

uint64_t radix_msg_next(radix_msg_cursor *c, const uint64_t *count, int mine, uint64_t chunk, int *piece,
                        uint64_t *first)
{
    while (c->k < mine && c->done == count[c->k]) {
        c->k++;
        c->done = 0;
    }
    if (c->k >= mine) return 0;
    const uint64_t left = count[c->k] - c->done, n = left < chunk ? left : chunk;
    *piece = c->k;
    *first = c->done;
    c->done += n;
    return n;
}

uint64_t radix_msg_total(const uint64_t *count, int mine, uint64_t chunk)
{
    uint64_t m = 0;
    for (int k = 0; k < mine; k++) m += (count[k] + chunk - 1) / chunk;
    return m;
}
