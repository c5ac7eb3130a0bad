#include "joins/query/shuffle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/yield_wait.h"
#include "rma/flush.h"
#include "joins/query/table.h"
#include "joins/radix/exchange.h"
#include "joins/radix/radix_plan.h"
#include "joins/verify.h"

static void *grow(const bench_ctx *ctx, shuffle_buf *b, uint64_t bytes)
{
    if (bytes <= b->bytes && b->p) return b->p;
    if (b->p) mem_free_large(b->p, b->bytes);
    b->bytes = bytes > 64 ? bytes : 64;
    if (!(b->p = mem_alloc_large(b->bytes))) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate %llu bytes for the shuffle\n", ctx->rank,
                (unsigned long long)b->bytes);
        MPI_Abort(ctx->comm, 1);
    }
    return b->p;
}

static void buf_free(shuffle_buf *b)
{
    if (b->p) mem_free_large(b->p, b->bytes);
    b->p = NULL;
    b->bytes = 0;
}

static void rel_reserve(const bench_ctx *ctx, shuffle_rel *r, uint64_t rows, uint64_t words)
{
    r->words = words;
    r->kv = grow(ctx, &r->kv_mem, rows * sizeof(tuple_t));
    r->rest = grow(ctx, &r->rest_mem, rows * (words - 2) * 8);
}

static void rel_free(shuffle_rel *r)
{
    buf_free(&r->kv_mem);
    buf_free(&r->rest_mem);
    memset(r, 0, sizeof *r);
}

/* Row i of a relation into dst, whole (words words). */
static inline void row_out(const shuffle_rel *r, uint64_t i, uint64_t *dst)
{
    dst[0] = r->kv[i].key;
    dst[1] = r->kv[i].rid;
    memcpy(dst + 2, r->rest + i * (r->words - 2), (r->words - 2) * 8);
}

static void split_rows(const bench_ctx *ctx, const uint64_t *rows, uint64_t n, uint64_t words, shuffle_rel *r)
{
    rel_reserve(ctx, r, n, words);
    r->n = n;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t *row = rows + i * words;
        r->kv[i] = (tuple_t){row[0], row[1]};
        memcpy(r->rest + i * (words - 2), row + 2, (words - 2) * 8);
    }
}

void shuffle_setup(shuffle_state *sh, const bench_ctx *ctx, const query_opts *o, const star_schema *s)
{
    memset(sh, 0, sizeof *sh);
    sh->ctx = ctx;
    sh->o = o;
    sh->s = s;
    double t0 = rmb_now();
    uint64_t mine[2] = {0, 0}, off, n;
    shuffle_buf tmp = {NULL, 0};
    star_slice(s->fact_rows, ctx->rank, ctx->size, &off, &n);
    star_fact_rows(s, off, n, grow(ctx, &tmp, n * (uint64_t)s->fact_words * 8), mine);
    split_rows(ctx, tmp.p, n, (uint64_t)s->fact_words, &sh->fact);
    for (int j = 0; j < s->dims; j++) {
        star_slice(s->dim_rows[j], ctx->rank, ctx->size, &off, &n);
        star_dim_rows(s, j, off, n, grow(ctx, &tmp, n * (uint64_t)s->dim_words[j] * 8));
        split_rows(ctx, tmp.p, n, (uint64_t)s->dim_words[j], &sh->dim[j]);
    }
    buf_free(&tmp);
    join_expected(ctx, mine, sh->expected);
    double t = rmb_now() - t0;
    MPI_CHECK(ctx->rank, MPI_Allreduce(&t, &sh->t_generate, 1, MPI_DOUBLE, MPI_MAX, ctx->comm));
}

void shuffle_free(shuffle_state *sh)
{
    rel_free(&sh->fact);
    for (int j = 0; j < sh->s->dims; j++) rel_free(&sh->dim[j]);
    rel_free(&sh->selected);
    rel_free(&sh->inter[0]);
    rel_free(&sh->inter[1]);
    shuffle_buf *b[] = {&sh->pack, &sh->recv[0], &sh->recv[1], &sh->table};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) buf_free(b[i]);
    for (int rel = 0; rel < 2; rel++)
        if (sh->win_bytes[rel]) rma_window_free(&sh->win[rel]);
}

/* Dimension j's rows that pass the query's filter: the slice itself when every row does. */
static const shuffle_rel *select_dim(shuffle_state *sh, int j)
{
    const shuffle_rel *d = &sh->dim[j];
    if (sh->s->sel_threshold[j] == UINT64_MAX) return d;
    shuffle_rel *r = &sh->selected;
    rel_reserve(sh->ctx, r, d->n, d->words);
    r->n = 0;
    for (uint64_t i = 0; i < d->n; i++)
        if (star_dim_passes(sh->s, j, d->kv[i].rid)) {
            r->kv[r->n] = d->kv[i];
            memcpy(r->rest + r->n++ * (d->words - 2), d->rest + i * (d->words - 2), (d->words - 2) * 8);
        }
    return r;
}

/* Where the rows of each partition this rank owns lie once moved: pieces [first[k], first[k + 1])
 * of the k-th owned partition, each `count` rows from row `start` of the received rows. */
typedef struct {
    int *first;
    uint64_t *start, *count;
} row_pieces;

static void pieces_free(row_pieces *pc)
{
    free(pc->first);
    free(pc->start);
    free(pc->count);
}

/* This rank's rows of a relation packed partition by partition, owner by owner (the plan's pack
 * offsets): what either exchange sends. */
static uint64_t *pack_rows(shuffle_state *sh, const shuffle_rel *r, const radix_exchange *ex, uint64_t np)
{
    const uint64_t W = r->words, mask = np - 1;
    uint64_t *dst = grow(sh->ctx, &sh->pack, ex->send_off[sh->ctx->size] * W * 8);
    uint64_t *at = malloc(np * sizeof *at);
    if (!at) MPI_Abort(sh->ctx->comm, 1);
    memcpy(at, ex->pack_off, np * sizeof *at);
    for (uint64_t i = 0; i < r->n; i++) row_out(r, i, dst + at[r->kv[i].key & mask]++ * W);
    free(at);
    return dst;
}

/* --exchange alltoallv: one MPI_Alltoallv into recv, each sender's pieces in partition order. */
static void move_alltoallv(shuffle_state *sh, const radix_exchange *ex, const uint64_t *pack, void *recv, row_pieces *pc)
{
    const int P = sh->ctx->size, mine = ex->mine;
    radix_alltoallv_pieces(sh->ctx, ex, pack, recv);
    pc->first = malloc(((size_t)mine + 1) * sizeof *pc->first);
    pc->start = malloc(((size_t)P * (size_t)mine + 1) * sizeof *pc->start);
    pc->count = malloc(((size_t)P * (size_t)mine + 1) * sizeof *pc->count);
    if (!pc->first || !pc->start || !pc->count) MPI_Abort(sh->ctx->comm, 1);
    uint64_t at = 0, *from = malloc(((size_t)P * (size_t)mine + 1) * sizeof *from);
    if (!from) MPI_Abort(sh->ctx->comm, 1);
    for (size_t i = 0; i < (size_t)P * (size_t)mine; i++, at += ex->count[i - 1]) from[i] = at; /* sender-major */
    for (int k = 0, n = 0; k <= mine; k++) {
        pc->first[k] = n;
        for (int j = 0; k < mine && j < P; j++, n++) {
            pc->start[n] = from[(size_t)j * (size_t)mine + (size_t)k];
            pc->count[n] = ex->count[(size_t)j * (size_t)mine + (size_t)k];
        }
    }
    free(from);
}

/* --exchange put: each partition's rows put at this rank's offset in the owner's window (the radix
 * join's put design, rows whole); the owner finds each of its partitions contiguous. */
static void move_put(shuffle_state *sh, const radix_layout *lay, int rel, uint64_t W, const radix_exchange *ex,
                     const uint64_t *pack, rma_window *win, row_pieces *pc)
{
    const bench_ctx *ctx = sh->ctx;
    MPI_Request *req = malloc((lay->nparts + 1) * sizeof *req);
    pc->first = malloc(((size_t)ex->mine + 1) * sizeof *pc->first);
    pc->start = malloc(((size_t)ex->mine + 1) * sizeof *pc->start);
    pc->count = malloc(((size_t)ex->mine + 1) * sizeof *pc->count);
    if (!req || !pc->first || !pc->start || !pc->count) MPI_Abort(ctx->comm, 1);
    int n = 0;
    rma_window_lock_all(win);
    for (uint64_t p = 0; p < lay->nparts; p++) {
        if (!lay->local[rel][p]) continue;
        const MPI_Aint disp = (MPI_Aint)((lay->base[rel][p] + lay->prefix[rel][p]) * W * 8);
        MPI_CHECK(ctx->rank, rma_put_start(RMA_FLUSH_REQUEST, pack + ex->pack_off[p] * W, lay->local[rel][p] * W * 8,
                                           MPI_BYTE, lay->owner[p], disp, win->win, &req[n++]));
    }
    /* each put completed locally before the pack is refilled (rma/flush.h: MPICH 4.0) */
    for (int i = 0; i < n; i++) MPI_CHECK(ctx->rank, rma_put_complete(RMA_FLUSH_REQUEST, 0, win->win, &req[i]));
    free(req);
    rma_windows_end_epoch(win, 1, ctx->comm);
    for (int k = 0; k <= ex->mine; k++) pc->first[k] = k;
    for (int k = 0; k < ex->mine; k++) {
        pc->start[k] = lay->base[rel][ex->parts[k]];
        pc->count[k] = lay->global[rel][ex->parts[k]];
    }
}

/* The window of relation rel, at least `bytes` on this rank: grown (on every rank, collectively)
 * when some rank needs more than it holds; kept from join to join and run to run. */
static rma_window *put_window(shuffle_state *sh, int rel, uint64_t bytes)
{
    int more = bytes > sh->win_bytes[rel], any = 0;
    MPI_CHECK(sh->ctx->rank, MPI_Allreduce(&more, &any, 1, MPI_INT, MPI_MAX, sh->ctx->comm));
    if (any) {
        if (sh->win_bytes[rel]) rma_window_free(&sh->win[rel]);
        sh->win_bytes[rel] = bytes + bytes / 8 + 64; /* room for the next joins' spread */
        rma_window_alloc(&sh->win[rel], sh->win_bytes[rel], (win_flavor)sh->o->window, sh->ctx->comm);
        rma_window_prefault(&sh->win[rel]);
        MPI_CHECK(sh->ctx->rank, rmb_barrier(sh->ctx->comm)); /* nobody puts into a window still being touched */
    }
    return &sh->win[rel];
}

/* A relation's rows, whole, to their partitions' owners (--exchange); returns the bytes sent to
 * other ranks, and where the received rows lie (*rows, pc). */
static uint64_t move_rows(shuffle_state *sh, const shuffle_rel *r, int rel, const radix_layout *lay,
                          const radix_exchange *ex, const char **rows, row_pieces *pc)
{
    const uint64_t W = r->words, need = lay->win_items[rel] * W * 8;
    const uint64_t *pack = pack_rows(sh, r, ex, lay->nparts);
    if (sh->o->exchange == QUERY_EXCHANGE_PUT) {
        rma_window *w = put_window(sh, rel, need);
        move_put(sh, lay, rel, W, ex, pack, w, pc);
        *rows = w->base;
    } else {
        *rows = grow(sh->ctx, &sh->recv[rel], need);
        move_alltoallv(sh, ex, pack, (void *)*rows, pc);
    }
    const int me = sh->ctx->rank;
    return (ex->send_off[sh->ctx->size] - (ex->send_off[me + 1] - ex->send_off[me])) * W * 8;
}

/* The probe of one partition's S rows: the term so far extended by the matching dimension row;
 * on the last join counted, otherwise the row materialised for the next join (its next key
 * first, the dimension's record id appended to the carried columns). */
typedef struct {
    bool last;
    shuffle_rel *out;
    uint64_t res[2];
} probe_sink;

static void probe_rows(const query_table *t, const uint64_t *rows, uint64_t n, uint64_t W, probe_sink *k)
{
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t *row = rows + i * W;
        uint64_t rid;
        if (!query_table_get(t, row[0], &rid)) continue;
        const uint64_t h = star_step(row[1], rid, row[0]);
        if (k->last) {
            k->res[0]++;
            k->res[1] += h;
            continue;
        }
        shuffle_rel *o = k->out;
        o->kv[o->n] = (tuple_t){row[2], h};
        uint64_t *rest = o->rest + o->n++ * (W - 2);
        memcpy(rest, row + 3, (W - 3) * 8);
        rest[W - 3] = rid;
    }
}

/* Build + probe of every partition this rank owns: rows[rel] and pc[rel] say where its rows lie. */
static void join_partitions(shuffle_state *sh, int mine, const char *const rows[2], const row_pieces pc[2], int bits,
                            uint64_t wr, uint64_t ws, probe_sink *k)
{
    uint64_t most = 0;
    for (int p = 0; p < mine; p++) {
        uint64_t n = 0;
        for (int i = pc[0].first[p]; i < pc[0].first[p + 1]; i++) n += pc[0].count[i];
        most = n > most ? n : most;
    }
    uint64_t *mem = grow(sh->ctx, &sh->table, 16 * query_table_capacity(most));
    for (int p = 0; p < mine; p++) {
        uint64_t n = 0;
        for (int i = pc[0].first[p]; i < pc[0].first[p + 1]; i++) n += pc[0].count[i];
        query_table t;
        query_table_init(&t, mem, query_table_capacity(n), bits);
        for (int i = pc[0].first[p]; i < pc[0].first[p + 1]; i++) {
            const uint64_t *r = (const uint64_t *)(const void *)(rows[0] + pc[0].start[i] * wr * 8);
            for (uint64_t x = 0; x < pc[0].count[i]; x++) query_table_put(&t, r[x * wr], r[x * wr + 1]);
        }
        for (int i = pc[1].first[p]; i < pc[1].first[p + 1]; i++)
            probe_rows(&t, (const uint64_t *)(const void *)(rows[1] + pc[1].start[i] * ws * 8), pc[1].count[i], ws, k);
    }
}

/* Join j: S joined with dimension j; out receives the materialised result unless it is the last. */
static void join_step(shuffle_state *sh, int j, const shuffle_rel *S, shuffle_rel *out, query_output *qo)
{
    const bench_ctx *ctx = sh->ctx;
    phase_set *ph = &qo->phases;
    double t0 = rmb_now();
    const shuffle_rel *R = select_dim(sh, j);
    join_opts jo;
    memset(&jo, 0, sizeof jo);
    jo.radix_bits = sh->o->radix_bits;
    jo.seed = sh->o->seed;
    const join_input in = {.ctx = ctx, .opt = &jo, .r = R->kv, .s = S->kv, .r_n = R->n, .s_n = S->n};
    const int bits = radix_plan_bits(&jo, ctx->size);
    radix_layout lay;
    radix_histogram_phase(&in, bits, 0, ASSIGN_ROUND_ROBIN, &lay);
    const radix_format fr = {.words = (int)R->words}, fs = {.words = (int)S->words};
    radix_exchange ex[2];
    radix_exchange_plan(&in, &lay, &fr, REL_R, &ex[0]);
    radix_exchange_plan(&in, &lay, &fs, REL_S, &ex[1]);
    double t1 = rmb_now();
    phases_add(ph, "histogram", t1 - t0 - lay.t_wait);
    phases_add(ph, "wait", lay.t_wait);
    const char *rows[2];
    row_pieces pc[2];
    qo->shuffled_bytes += move_rows(sh, R, REL_R, &lay, &ex[0], &rows[0], &pc[0]);
    qo->shuffled_bytes += move_rows(sh, S, REL_S, &lay, &ex[1], &rows[1], &pc[1]);
    double t2 = rmb_now();
    phases_add(ph, "exchange", t2 - t1);
    probe_sink k = {.last = out == NULL, .out = out, .res = {0, 0}};
    if (out) {
        rel_reserve(ctx, out, lay.win_items[REL_S], S->words);
        out->n = 0;
    }
    join_partitions(sh, ex[0].mine, rows, pc, bits, R->words, S->words, &k);
    pieces_free(&pc[0]);
    pieces_free(&pc[1]);
    qo->matches += k.res[0];
    qo->checksum += k.res[1];
    phases_add(ph, "build_probe", rmb_now() - t2);
    radix_exchange_free(&ex[0]);
    radix_exchange_free(&ex[1]);
    radix_layout_free(&lay);
}

void shuffle_run(shuffle_state *sh, query_output *out)
{
    const shuffle_rel *S = &sh->fact;
    for (int j = 0; j < sh->s->dims; j++) {
        const bool last = j == sh->s->dims - 1;
        shuffle_rel *next = last ? NULL : &sh->inter[j & 1];
        join_step(sh, j, S, next, out);
        S = next;
    }
    phases_add(&out->phases, "wait", rmb_wait_all(sh->ctx->comm));
}
