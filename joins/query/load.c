/* The pull design's load (a database's, timed apart from the query): every rank generates its
 * slice of every table, splits it by every join key (the cell of each row: star.h), and the
 * global rows per cell (MPI_Allreduce) fix the layout (layout.h); every rank's rows of a cell
 * follow those of the lower ranks (MPI_Scan), so each rank knows where its rows go without asking.
 * The memory ranks write their blocks' headers; every rank puts its rows, a block's share at a
 * time, into the memory ranks' window. Then the compute ranks open their tables and, for
 * --replicate bcast, the broadcast communicators are made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/yield_wait.h"
#include "joins/query/pull.h"
#include "joins/verify.h"
#include "rma/count.h"

static void *alloc_or_abort(const bench_ctx *ctx, uint64_t bytes, const char *what)
{
    void *p = mem_alloc_large(bytes ? bytes : 64);
    if (!p) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate %s\n", ctx->rank, what);
        MPI_Abort(ctx->comm, 1);
    }
    return p;
}

/* One table's slice on this rank: its rows, and per cell this rank's rows and where they start
 * among the cell's rows of all ranks. */
typedef struct {
    uint64_t n, words, cells;
    uint64_t *rows;
    uint64_t *mine, *global, *before; /* [cells] each */
} slice;

static uint64_t row_cell(const star_schema *s, int t, const uint64_t *row)
{
    return t == 0 ? star_cell(s, row) : star_partition(s, t - 1, row[0]);
}

static void generate_slice(const pull_state *ps, int t, slice *sl, uint64_t expected[2])
{
    const star_schema *s = ps->s;
    uint64_t off;
    star_slice(t == 0 ? s->fact_rows : s->dim_rows[t - 1], ps->ctx->rank, ps->ctx->size, &off, &sl->n);
    sl->words = (uint64_t)(t == 0 ? s->fact_words : s->dim_words[t - 1]);
    sl->cells = pull_table_cells(s, t);
    sl->rows = alloc_or_abort(ps->ctx, sl->n * sl->words * 8, "a table's slice");
    sl->mine = calloc(3 * sl->cells, sizeof(uint64_t));
    if (!sl->mine) MPI_Abort(ps->ctx->comm, 1);
    sl->global = sl->mine + sl->cells;
    sl->before = sl->global + sl->cells;
    if (t == 0) star_fact_rows(s, off, sl->n, sl->rows, expected);
    else star_dim_rows(s, t - 1, off, sl->n, sl->rows);
    for (uint64_t i = 0; i < sl->n; i++) sl->mine[row_cell(s, t, sl->rows + i * sl->words)]++;
    MPI_CHECK(ps->ctx->rank, rma_allreduce_u64(sl->mine, sl->global, sl->cells, MPI_SUM, ps->ctx->comm));
    MPI_CHECK(ps->ctx->rank, rma_scan_u64(sl->mine, sl->before, sl->cells, MPI_SUM, ps->ctx->comm));
    for (uint64_t c = 0; c < sl->cells; c++) sl->before[c] -= sl->mine[c];
}

/* The memory ranks' block headers: the cell and the rows of each of their blocks. */
static void write_headers(const pull_state *ps)
{
    const pull_layout *L = &ps->L;
    const int me = ps->ctx->rank;
    for (int t = 0; t < L->tables; t++)
        for (uint64_t c = 0; c < L->cells[t]; c++)
            for (uint64_t b = L->cell_first[t][c], k = 0; b < L->cell_first[t][c + 1]; b++, k++) {
                const uint64_t g = L->first_block[t] + b, rpb = L->rows_per_block[t];
                if (pull_block_rank(L, g) != me) continue;
                uint64_t *h = (uint64_t *)(void *)((char *)ps->data.base + pull_block_disp(L, g));
                h[0] = c;
                h[1] = L->cell_rows[t][c] - k * rpb < rpb ? L->cell_rows[t][c] - k * rpb : rpb;
            }
}

/* Puts in flight at most: their requests are completed (MPI_Rput + MPI_Wait) before more start
 * and before the source is freed. Local completion by request, not by MPI_Win_flush: with MPICH 4.0
 * a flushed put's data could still be waiting to leave its buffer (rma/flush.h), and a freed
 * buffer then faults inside the library. */
enum { PUTS_IN_FLIGHT = 256 };

/* each alone: gcc misreads MPICH's MPI_STATUSES_IGNORE in MPI_Waitall (rma/putbuf.c) */
static int wait_puts(const bench_ctx *ctx, MPI_Request *req, int n)
{
    for (int i = 0; i < n; i++) MPI_CHECK(ctx->rank, rmb_wait(&req[i]));
    return 0;
}

/* This rank's rows of table t, sorted by cell, into the blocks: one put per block they reach. */
static uint64_t put_table(pull_state *ps, int t, const slice *sl)
{
    const pull_layout *L = &ps->L;
    const uint64_t W = sl->words, rb = W * 8, rpb = L->rows_per_block[t];
    uint64_t *sorted = alloc_or_abort(ps->ctx, sl->n * rb, "the sorted slice"), *at = malloc(sl->cells * sizeof *at);
    if (!at) MPI_Abort(ps->ctx->comm, 1);
    for (uint64_t c = 0, o = 0; c < sl->cells; o += sl->mine[c++]) at[c] = o;
    for (uint64_t i = 0; i < sl->n; i++) {
        const uint64_t *row = sl->rows + i * W;
        memcpy(sorted + at[row_cell(ps->s, t, row)]++ * W, row, rb);
    }
    MPI_Request req[PUTS_IN_FLIGHT];
    int n = 0;
    uint64_t bytes = 0;
    const uint64_t *src = sorted;
    for (uint64_t c = 0; c < sl->cells; c++)
        for (uint64_t r = sl->before[c], left = sl->mine[c]; left > 0;) {
            const uint64_t g = L->first_block[t] + L->cell_first[t][c] + r / rpb, slot = r % rpb;
            const uint64_t k = rpb - slot < left ? rpb - slot : left;
            const MPI_Aint disp = (MPI_Aint)(pull_block_disp(L, g) + QUERY_BLOCK_HEADER + slot * rb);
            MPI_CHECK(ps->ctx->rank, MPI_Rput(src, (int)(k * rb), MPI_BYTE, pull_block_rank(L, g), disp, (int)(k * rb),
                                              MPI_BYTE, ps->data.win, &req[n]));
            if (++n == PUTS_IN_FLIGHT) n = wait_puts(ps->ctx, req, n);
            src += k * W;
            bytes += k * rb;
            r += k;
            left -= k;
        }
    wait_puts(ps->ctx, req, n);
    MPI_CHECK(ps->ctx->rank, MPI_Win_flush_all(ps->data.win));
    mem_free_large(sorted, sl->n * rb);
    free(at);
    return bytes;
}

/* The compute ranks' tables: per dimension and partition, room for all of its rows. */
static void open_tables(pull_state *ps)
{
    if (ps->compute_index < 0) return;
    const pull_layout *L = &ps->L;
    ps->table_words = 0;
    for (int j = 0; j < ps->s->dims; j++)
        for (uint64_t i = 0; i < L->cells[1 + j]; i++) ps->table_words += 2 * query_table_capacity(L->cell_rows[1 + j][i]);
    ps->table_mem = alloc_or_abort(ps->ctx, ps->table_words * 8, "the dimension tables");
    uint64_t *mem = ps->table_mem;
    for (int j = 0; j < ps->s->dims; j++) {
        ps->tables[j] = malloc(L->cells[1 + j] * sizeof(query_table));
        if (!ps->tables[j]) MPI_Abort(ps->ctx->comm, 1);
        for (uint64_t i = 0; i < L->cells[1 + j]; i++) {
            const uint64_t cap = query_table_capacity(L->cell_rows[1 + j][i]);
            query_table_init(&ps->tables[j][i], mem, cap, ps->s->part_bits[j]);
            mem += 2 * cap;
        }
    }
}

/* --replicate bcast: per memory rank m a communicator of m (its rank 0) and the compute ranks. */
static void open_bcast(pull_state *ps)
{
    const int me = ps->ctx->rank;
    ps->bcast = malloc((size_t)ps->memory_ranks * sizeof *ps->bcast);
    if (!ps->bcast) MPI_Abort(ps->ctx->comm, 1);
    for (int m = 0; m < ps->memory_ranks; m++)
        MPI_CHECK(me, MPI_Comm_split(ps->ctx->comm, me == m || ps->compute_index >= 0 ? 0 : MPI_UNDEFINED,
                                     me == m ? 0 : me + 1, &ps->bcast[m]));
}

void pull_load(pull_state *ps, const bench_ctx *ctx, const query_opts *o, const star_schema *s)
{
    memset(ps, 0, sizeof *ps);
    ps->ctx = ctx;
    ps->o = o;
    ps->s = s;
    ps->memory_ranks = (int)o->memory_ranks;
    ps->compute_ranks = ctx->size - ps->memory_ranks;
    ps->compute_index = ctx->rank >= ps->memory_ranks ? ctx->rank - ps->memory_ranks : -1;
    const int T = 1 + s->dims;
    slice sl[QUERY_MAX_TABLES];
    uint64_t mine[2] = {0, 0}, *global[QUERY_MAX_TABLES];
    double t0 = rmb_now();
    for (int t = 0; t < T; t++) {
        generate_slice(ps, t, &sl[t], mine);
        global[t] = sl[t].global;
    }
    join_expected(ctx, mine, ps->expected);
    double t1 = rmb_now();
    if (pull_layout_init(&ps->L, s, ps->memory_ranks, (uint64_t)o->block_size, global)) MPI_Abort(ctx->comm, 1);
    const uint64_t bytes = ps->compute_index < 0 ? ps->L.window_blocks * ps->L.block_bytes : 0;
    rma_window_alloc(&ps->data, bytes, (win_flavor)o->window, ctx->comm);
    if (bytes) rma_window_prefault(&ps->data);
    if (ps->compute_index < 0) write_headers(ps);
    MPI_CHECK(ctx->rank, rmb_barrier(ctx->comm)); /* nobody puts into a window still being touched */
    rma_window_lock_all(&ps->data);
    uint64_t put = 0;
    for (int t = 0; t < T; t++) {
        put += put_table(ps, t, &sl[t]);
        mem_free_large(sl[t].rows, sl[t].n * sl[t].words * 8);
        free(sl[t].mine);
    }
    rma_windows_end_epoch(&ps->data, 1, ctx->comm);
    double t2 = rmb_now(), times[2] = {t1 - t0, t2 - t1}, slowest[2];
    MPI_CHECK(ctx->rank, MPI_Allreduce(times, slowest, 2, MPI_DOUBLE, MPI_MAX, ctx->comm));
    MPI_CHECK(ctx->rank, MPI_Allreduce(&put, &ps->load_bytes, 1, MPI_UINT64_T, MPI_SUM, ctx->comm));
    ps->t_generate = slowest[0];
    ps->t_load = slowest[1];
    ps->counter_base = rma_locked_window_open(ctx->comm, ctx->rank, 64, MPI_INFO_NULL, false, &ps->counter);
    open_tables(ps);
    if (o->replicate == REPLICATE_BCAST) open_bcast(ps);
}

void pull_free(pull_state *ps)
{
    if (ps->bcast)
        for (int m = 0; m < ps->memory_ranks; m++)
            if (ps->bcast[m] != MPI_COMM_NULL) MPI_Comm_free(&ps->bcast[m]);
    free(ps->bcast);
    for (int j = 0; j < ps->s->dims; j++) free(ps->tables[j]);
    if (ps->table_mem) mem_free_large(ps->table_mem, ps->table_words * 8);
    MPI_Win_unlock_all(ps->counter);
    MPI_Win_free(&ps->counter);
    rma_window_free(&ps->data);
    pull_layout_free(&ps->L);
}
