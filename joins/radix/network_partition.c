/* Network-partitioning pass (thesis 3.2.1/4.2.1), the put design (--exchange put): one window per
 * relation; every tuple goes to the window of the rank owning its partition, at this rank's private
 * offset there. Tuples are staged in a cache line per partition (software write-combining); a full
 * line of a local partition is streamed straight into the local part of the window, a line of a
 * remote partition is appended to that partition's put buffer (rma/putbuf), which MPI_Puts it when
 * full. Under --window shared a partition of a rank on this node is local in that sense: its lines
 * are streamed straight into that rank's segment (rma_window_peer_base), no put buffer, no
 * MPI_Put. The same kernel with every partition local packs a relation for the other designs
 * (radix_pack_relation, exchange.h). At fan-outs up to 2^lay->direct_bits (--scatter, radix_kernels.h)
 * the pass stores every tuple straight at its place instead, in its owner's window or segment or
 * in its put buffer (network_direct_w): no staging. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/yield_wait.h"
#include "rma/putbuf.h"
#include "joins/radix/radix_phases.h"

void radix_windows_alloc(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2])
{
    const uint64_t item = 8 * (uint64_t)f->words;
    for (int rel = 0; rel < 2; rel++) {
        rma_window_acquire(&win[rel], lay->win_items[rel] * item, (win_flavor)in->opt->window,
                           (win_life)in->opt->window_life, in->ctx->comm, rel);
        /* first touch here, not in the partitioning pass: page faults are part of getting a window */
        rma_window_prefault(&win[rel]);
    }
    /* nobody may put into a window its owner is still touching */
    MPI_CHECK(in->ctx->rank, rmb_barrier(in->ctx->comm)); /* bench/yield_wait.h */
    /* the pages this rank will put into on the other ranks of its host, mapped here as well */
    for (int rel = 0; rel < 2; rel++)
        rma_window_map_runs(&win[rel], in->ctx, lay->nparts, lay->owner, lay->base[rel], lay->prefix[rel], lay->local[rel],
                            item);
}

enum { LOCAL = 0, PUT = 1, PEER = 2 };

typedef struct {
    uint64_t *lines;      /* `ring` lines of 8 words per partition (radix_net_ring, radix_kernels.h) */
    uint64_t ring;
    uint64_t *off;        /* next item index in the owner's window (+ m during the pass) */
    const uint64_t *start;/* first item index of this rank's run in the owner's window */
    unsigned char *remote; /* LOCAL, PUT, or PEER: stored into its owner's segment (--window shared) */
    const int *owner;      /* PEER partitions: the owner (radix_layout.owner) */
    const rma_window *win; /* PEER partitions: whose segments */
    uint64_t m;           /* slot of window item 0 in its cache line */
    int stream;           /* local window lines are 64-byte aligned: non-temporal stores */
    int simd;             /* packed tuples staged by the AVX-512 loop (radix_pack_block_avx512) */
    uint64_t *own;        /* this rank's own window (or the packing destination) */
    struct net_cursor *cur; /* the direct pass's places (NULL: staged) */
} net_state;

/* The direct pass's place for a partition's next item, and the end of the put buffer it is in
 * (UINTPTR_MAX in a window or segment, where the histogram sized this rank's run). */
typedef struct net_cursor {
    uint64_t *at;
    uintptr_t end;
} net_cursor;

/* Write a staged line of partition p: its first `filled` slots end at window index `end`; slots of
 * the line before this rank's run in the partition are not ours. */
static inline __attribute__((always_inline)) void flush_line(const net_state *st, uint64_t p, uint64_t end,
                                                             uint64_t filled, const int W, const uint64_t *line,
                                                             putbuf_set *pb)
{
    uint64_t valid = end - st->start[p];
    if (valid > filled) valid = filled;
    const uint64_t *src = line + (filled - valid) * (uint64_t)W;
    size_t bytes = valid * (uint64_t)W * 8;
    const bool full = valid == 8 / (uint64_t)W;
    uint64_t *const win = st->remote[p] == PEER ? rma_window_peer_base(st->win, st->owner[p]) : st->own;
    if (st->remote[p] == PUT) {
        if (full)
            putbuf_append_line(pb, (int)p, src, src[6], src[7]);
        else
            putbuf_append(pb, (int)p, src, bytes);
    } else if (st->stream && full) {
        radix_stream_line(win + (end - valid) * W, src);
    } else {
        memcpy(win + (end - valid) * W, src, bytes);
    }
}

/* A tuple into its staging slot: packed (W == 1) or as it is. */
static inline __attribute__((always_inline)) void stage_tuple(const tuple_t *t, uint64_t *item, const int W, int rb,
                                                               int ridb, uint64_t minus_base)
{
    /* rid - base < 2^rid_bits: adding it sets the same bits as or-ing it in */
    item[0] = W == 1 ? ((t->key >> rb) << ridb) + t->rid + minus_base : t->key;
    if (W == 2) item[1] = t->rid;
}

/* W: item width in words; OFFSET: packed rids are offsets from a non-zero first rid (S). Both are
 * compile-time constants, so R's pass (first rid 0) does not pay for the subtraction. Full lines
 * are written at the end of each block (RADIX_SWWC_BLOCK: no branch per tuple on a full line; a
 * block is one tuple when there is one line per partition). */
static inline __attribute__((always_inline)) void network_pass_w(const tuple_t *in, uint64_t n, const int W,
                                                                  const bool OFFSET, const radix_format *f, int rel,
                                                                  uint64_t mask, net_state *st, putbuf_set *pb)
{
    const uint64_t L = 8 / (uint64_t)W, R = st->ring, ring = L * R, m = st->m;
    const uint64_t block = R == 1 ? 1 : RADIX_SWWC_BLOCK(L);
    const uint64_t minus_base = OFFSET ? UINT64_C(0) - f->rid_base[rel] : 0;
    const int rb = f->radix_bits, ridb = f->rid_bits & 63; /* packing implies rid_bits < 64 */
    uint64_t *restrict pos = st->off, *restrict lines = st->lines;
    uint64_t fq[RADIX_SWWC_BLOCK(8)], fp[RADIX_SWWC_BLOCK(8)]; /* L <= 8 */
    /* pos[p] = window index + m, so that pos mod L is the slot in the cache line */
    for (uint64_t p = 0; p <= mask; p++) pos[p] += m;
    for (uint64_t i0 = 0; i0 < n; i0 += block) {
        const uint64_t bn = n - i0 < block ? n - i0 : block;
        uint64_t nf = 0;
        uint64_t i = i0;
        if (W == 1 && st->simd && bn == RADIX_SWWC_BLOCK(8)) { /* R == RADIX_SWWC_RING */
            nf = radix_pack_block_avx512(in + i0, rb, ridb, minus_base, mask, pos, lines, fq, fp);
            i = i0 + bn;
        }
        /* Four tuples at a time: their four slots are taken (pos[] read and bumped) before any of
         * them is staged. Staged one by one, the next tuple's pos[] load waited for the previous
         * store into the staging lines, whose address comes from a load (the CPU cannot tell that
         * they do not alias), which slows the loop most at small fan-outs, where neighbours share a
         * partition often (docs/measurements.md, "From code comments"). */
        for (; i + 4 <= i0 + bn; i += 4) {
            uint64_t p4[4], q4[4];
            for (int j = 0; j < 4; j++) {
                p4[j] = in[i + j].key & mask;
                q4[j] = pos[p4[j]];
                pos[p4[j]] = q4[j] + 1;
            }
            for (int j = 0; j < 4; j++) {
                stage_tuple(&in[i + j], lines + p4[j] * 8 * R + (q4[j] & (ring - 1)) * W, W, rb, ridb, minus_base);
                fq[nf] = q4[j];
                fp[nf] = p4[j];
                nf += (q4[j] % L + 1) / L; /* 1 when q is a line's last slot */
            }
        }
        for (; i < i0 + bn; i++) {
            const uint64_t p = in[i].key & mask, q = pos[p];
            stage_tuple(&in[i], lines + p * 8 * R + (q & (ring - 1)) * W, W, rb, ridb, minus_base);
            pos[p] = q + 1;
            fq[nf] = q;
            fp[nf] = p;
            nf += (q % L + 1) / L;
        }
        for (uint64_t k = 0; k < nf; k++)
            flush_line(st, fp[k], fq[k] + 1 - m, L, W, radix_swwc_line(st->lines, fp[k], fq[k], L, st->ring), pb);
    }
    for (uint64_t p = 0; p <= mask; p++) { /* partial last lines */
        uint64_t q = pos[p], filled = q % L;
        if (filled) flush_line(st, p, q - m, filled, W, radix_swwc_line(st->lines, p, q, L, st->ring), pb);
    }
    radix_stream_fence();
}

/* Every partition's cursor at the start of a direct pass: this rank's run in its owner's window
 * (or segment), or its put buffer. */
static void direct_start(net_state *st, uint64_t np, const int W, putbuf_set *pb)
{
    for (uint64_t p = 0; p < np; p++) {
        if (st->remote[p] == PUT) {
            const putbuf_dest *pd = &pb->dest[p];
            st->cur[p].at = (uint64_t *)(void *)(pd->buf + pd->fill);
            st->cur[p].end = (uintptr_t)(pd->buf + pb->buf_bytes);
        } else {
            uint64_t *win = st->remote[p] == PEER ? rma_window_peer_base(st->win, st->owner[p]) : st->own;
            st->cur[p].at = win + st->off[p] * (uint64_t)W;
            st->cur[p].end = UINTPTR_MAX;
        }
    }
}

/* Partition p's put buffer is full: put it, and continue in the next. */
static __attribute__((noinline, cold)) void direct_next_buffer(net_state *st, uint64_t p, putbuf_set *pb)
{
    putbuf_dest *pd = &pb->dest[p];
    pd->fill = pb->buf_bytes;
    putbuf_send(pb, (int)p);
    st->cur[p].at = (uint64_t *)(void *)pd->buf;
    st->cur[p].end = (uintptr_t)(pd->buf + pb->buf_bytes);
}

/* One tuple to its place: the put buffer sent when the tuple fills it. */
static inline __attribute__((always_inline)) void direct_one(net_state *st, uint64_t p, const tuple_t *t, const int W,
                                                              int rb, int ridb, uint64_t minus_base, putbuf_set *pb)
{
    uint64_t *d = st->cur[p].at;
    stage_tuple(t, d, W, rb, ridb, minus_base);
    st->cur[p].at = d + W;
    if (__builtin_expect((uintptr_t)(d + W) == st->cur[p].end, 0)) direct_next_buffer(st, p, pb);
}

/* The direct pass: four tuples' places taken, then the four stored (as the staged loop takes its
 * slots first), the line 256 bytes ahead of each prefetched for writing (radix_kernels.h). Where a
 * place reached the end of its put buffer, the four go one at a time instead, each buffer put as
 * it fills (once in buffer/8 tuples of a partition). */
static inline __attribute__((always_inline)) void network_direct_w(const tuple_t *in, uint64_t n, const int W,
                                                                    const bool OFFSET, const radix_format *f, int rel,
                                                                    uint64_t mask, net_state *st, putbuf_set *pb)
{
    const uint64_t minus_base = OFFSET ? UINT64_C(0) - f->rid_base[rel] : 0;
    const int rb = f->radix_bits, ridb = f->rid_bits & 63;
    net_cursor *restrict cur = st->cur;
    direct_start(st, mask + 1, W, pb);
    uint64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64_t p4[4], *d4[4];
        uintptr_t over = 0;
        for (int j = 0; j < 4; j++) {
            p4[j] = in[i + j].key & mask;
            d4[j] = cur[p4[j]].at;
            cur[p4[j]].at = d4[j] + W;
        }
        for (int j = 0; j < 4; j++) over |= (uintptr_t)cur[p4[j]].at >= cur[p4[j]].end;
        if (__builtin_expect(over != 0, 0)) {
            for (int j = 3; j >= 0; j--) cur[p4[j]].at = d4[j];
            for (int j = 0; j < 4; j++) direct_one(st, p4[j], &in[i + j], W, rb, ridb, minus_base, pb);
            continue;
        }
        for (int j = 0; j < 4; j++) {
            stage_tuple(&in[i + j], d4[j], W, rb, ridb, minus_base);
            __builtin_prefetch((const void *)((uintptr_t)d4[j] + 256), 1, 3);
        }
    }
    for (; i < n; i++) direct_one(st, in[i].key & mask, &in[i], W, rb, ridb, minus_base, pb);
    for (uint64_t p = 0; p <= mask; p++) {
        if (st->remote[p] == PUT) pb->dest[p].fill = (size_t)((char *)cur[p].at - pb->dest[p].buf);
    }
}

/* This rank's tuples of one relation (tests/mutants/radix_drop_tuple.patch loses one here, in every design). */
static const tuple_t *relation_input(const join_input *in, int rel, uint64_t *n)
{
    *n = rel == REL_R ? in->r_n : in->s_n;
    return rel == REL_R ? in->r : in->s;
}

/* The direct or the staged pass (st->cur), for a compile-time W and OFFSET. */
static inline __attribute__((always_inline)) void pass_w(const tuple_t *src, uint64_t n, const int W, const bool OFFSET,
                                                         const radix_format *f, int rel, uint64_t mask, net_state *st,
                                                         putbuf_set *pb)
{
    if (st->cur)
        network_direct_w(src, n, W, OFFSET, f, rel, mask, st, pb);
    else
        network_pass_w(src, n, W, OFFSET, f, rel, mask, st, pb);
}

static void network_pass(const tuple_t *src, uint64_t n, const radix_format *f, int rel, uint64_t np, net_state *st,
                         putbuf_set *pb)
{
    if (f->words == 2)
        pass_w(src, n, 2, false, f, rel, np - 1, st, pb);
    else if (f->rid_base[rel] == 0)
        pass_w(src, n, 1, false, f, rel, np - 1, st, pb);
    else
        pass_w(src, n, 1, true, f, rel, np - 1, st, pb);
}

/* The direct pass's cursors where the layout's pass scatters directly (--scatter), else NULL
 * (staged); *bad when they could not be had. */
static net_cursor *direct_cursors(const radix_layout *lay, bool *bad)
{
    if (!radix_pass_direct(lay->bits, lay->direct_bits)) return NULL;
    net_cursor *c = malloc(lay->nparts * sizeof *c);
    *bad = !c;
    return c;
}

void radix_pack_relation(const join_input *in, const radix_format *f, int rel, const radix_layout *lay, const uint64_t *off,
                         uint64_t *dst)
{
    const uint64_t np = lay->nparts;
    net_state st;
    bool bad = false;
    st.ring = radix_net_ring(np);
    st.lines = aligned_alloc(64, np * 64 * st.ring);
    st.off = malloc(np * sizeof *st.off);
    st.remote = calloc(np, 1); /* LOCAL */
    st.cur = direct_cursors(lay, &bad);
    if (!st.lines || !st.off || !st.remote || bad) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the packing state\n", in->ctx->rank);
        MPI_Abort(in->ctx->comm, 1);
    }
    memcpy(st.off, off, np * sizeof *st.off);
    st.own = dst;
    st.owner = NULL; /* no PEER partitions */
    st.win = NULL;
    st.start = off; /* every slot of a line is this rank's */
    st.m = ((uintptr_t)dst % 64) / (8 * (uint64_t)f->words);
    st.stream = (uintptr_t)dst % (8 * (uint64_t)f->words) == 0;
    st.simd = (lay->simd & RADIX_SIMD_SCATTER) != 0;
    uint64_t n;
    const tuple_t *src = relation_input(in, rel, &n);
    network_pass(src, n, f, rel, np, &st, NULL);
    free(st.lines);
    free(st.off);
    free(st.remote);
    free(st.cur);
}

void radix_network_partition(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                             radix_pass_times *t)
{
    const bench_ctx *ctx = in->ctx;
    const join_opts *o = in->opt;
    const uint64_t np = lay->nparts, item = 8 * (uint64_t)f->words;
    net_state st;
    st.ring = radix_net_ring(np);
    st.lines = aligned_alloc(64, np * 64 * st.ring);
    st.off = malloc(np * sizeof *st.off);
    uint64_t *start = malloc(np * sizeof *start);
    st.start = start;
    st.remote = malloc(np);
    st.owner = lay->owner;
    int *target = malloc(np * sizeof *target);
    MPI_Aint *disp = malloc(np * sizeof *disp);
    bool bad = false;
    st.cur = direct_cursors(lay, &bad);
    if (!st.lines || !st.off || !start || !st.remote || !target || !disp || bad) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the network-partitioning state\n", ctx->rank);
        MPI_Abort(ctx->comm, 1);
    }
    *t = (radix_pass_times){0, 0, 0};
    st.simd = (lay->simd & RADIX_SIMD_SCATTER) != 0;
    for (int rel = 0; rel < 2; rel++) {
        rma_window_lock_all(&win[rel]);
        const uintptr_t align = (uintptr_t)win[rel].base % 64;
        st.own = win[rel].base;
        st.win = &win[rel];
        for (uint64_t p = 0; p < np; p++) {
            start[p] = st.off[p] = lay->base[rel][p] + lay->prefix[rel][p];
            /* a node peer's segment is stored into like this rank's window where its lines sit at
             * the same offsets from 64-byte boundaries (the staging lines are aligned to this one) */
            const uint64_t *peer = lay->owner[p] == ctx->rank ? NULL : rma_window_peer_base(&win[rel], lay->owner[p]);
            st.remote[p] = lay->owner[p] == ctx->rank ? LOCAL : peer && (uintptr_t)peer % 64 == align ? PEER : PUT;
            target[p] = st.remote[p] == PUT ? lay->owner[p] : -1;
            disp[p] = target[p] >= 0 ? rma_window_disp(&win[rel], target[p], st.start[p] * item) : 0;
        }
        st.m = ((uintptr_t)win[rel].base % 64) / item;
        st.stream = (uintptr_t)win[rel].base % item == 0;
        putbuf_set pb;
        /* buffers of the size plan() gave them under --buffer-memory (radix.c: plan_buffers) */
        if (putbuf_init(&pb, win[rel].win, ctx->comm, ctx->rank, ctx->size, (int)np, target, disp,
                        (size_t)in->plan->buffer_size, (int)o->buffers_per_partition, (rma_flush_mode)o->flush)) {
            fprintf(stderr, "rmabench: rank %d: cannot allocate the put buffers\n", ctx->rank);
            MPI_Abort(ctx->comm, 1);
        }
        uint64_t n;
        const tuple_t *src = relation_input(in, rel, &n);
        network_pass(src, n, f, rel, np, &st, &pb);
        putbuf_finish(&pb);
        t->put += pb.t_put;
        t->flush += pb.t_flush;
        putbuf_free(&pb);
    }
    t->wait = rma_windows_end_epoch(win, 2, ctx->comm); /* every put arrived and is visible to the owner's loads */
    free(st.lines);
    free(st.off);
    free(start);
    free(st.remote);
    free(st.cur);
    free(target);
    free(disp);
}
