/* Every dimension whole into every compute rank (the seed's replication of the small tables, and
 * its reads-against-multicast question in MPI terms):
 *   read   each compute rank reads every block of the dimension itself (fetch.c, --prefetch in
 *          flight), starting at its own share of the blocks so that the compute ranks begin on
 *          different memory ranks: a memory rank sends each of its blocks once per compute rank
 *   bcast  each memory rank broadcasts its blocks of the dimension (contiguous in its window:
 *          layout.h) to the compute ranks, --bcast-chunk bytes at a time, two chunks in flight
 *          (MPI_Ibcast): the library may send a block once and forward it (a tree), as a switch
 *          forwards a multicast; the memory ranks' CPUs take part, as the seed's multicast needs
 * The tables are built as the blocks arrive (query_build_block). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/yield_wait.h"
#include "joins/query/pipeline.h"
#include "joins/query/pull.h"

static void table_full(const pull_state *ps, int j)
{
    fprintf(stderr, "rmabench: rank %d: a table of dimension %d overflowed: its blocks hold more rows than the layout "
            "counted\n", ps->ctx->rank, j + 1);
    MPI_Abort(ps->ctx->comm, 1);
}

static void empty_tables(pull_state *ps)
{
    for (int j = 0; j < ps->s->dims; j++)
        for (uint64_t i = 0; i < ps->L.cells[1 + j]; i++) {
            query_table *t = &ps->tables[j][i];
            query_table_init(t, t->slots, t->mask + 1, t->shift);
        }
}

static void replicate_read(pull_state *ps)
{
    const pull_layout *L = &ps->L;
    for (int j = 0; j < ps->s->dims; j++) {
        const uint64_t first = L->first_block[1 + j], count = L->first_block[2 + j] - first;
        block_stream st;
        block_stream_open(&st, ps->data.win, ps->ctx->rank, L->memory_ranks, L->block_bytes, (int)ps->o->prefetch, first,
                          count, count * (uint64_t)ps->compute_index / (uint64_t)ps->compute_ranks, MPI_WIN_NULL, 0, 0);
        for (const uint64_t *b; (b = block_stream_next(&st));)
            if (query_build_block(ps->s, j, ps->tables[j], b, L->rows_per_block[1 + j])) table_full(ps, j);
        block_stream_close(&st);
    }
}

/* Memory rank m's blocks [lo, hi) of dimension j, chunk by chunk, from m to every compute rank. */
static void bcast_range(pull_state *ps, int m, int j, uint64_t lo, uint64_t hi, char *buf[2])
{
    const pull_layout *L = &ps->L;
    const uint64_t per = (uint64_t)ps->o->bcast_chunk / L->block_bytes, chunks = (hi - lo + per - 1) / per;
    const bool root = ps->ctx->rank == m;
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (uint64_t k = 0; k < chunks + 1; k++) {
        if (k < chunks) { /* start chunk k while chunk k - 1 is built into the tables */
            const uint64_t a = lo + k * per, n = hi - a < per ? hi - a : per;
            char *src = root ? (char *)ps->data.base + a * L->block_bytes : buf[k & 1];
            MPI_CHECK(ps->ctx->rank, MPI_Ibcast(src, (int)(n * L->block_bytes), MPI_BYTE, 0, ps->bcast[m], &req[k & 1]));
        }
        if (k == 0) continue;
        const uint64_t p = k - 1, a = lo + p * per, n = hi - a < per ? hi - a : per;
        MPI_CHECK(ps->ctx->rank, rmb_wait(&req[p & 1]));
        if (root) continue;
        for (uint64_t b = 0; b < n; b++)
            if (query_build_block(ps->s, j, ps->tables[j], (const uint64_t *)(void *)(buf[p & 1] + b * L->block_bytes),
                                  L->rows_per_block[1 + j]))
                table_full(ps, j);
    }
}

static void replicate_bcast(pull_state *ps)
{
    const pull_layout *L = &ps->L;
    char *buf[2] = {NULL, NULL};
    if (ps->compute_index >= 0) {
        buf[0] = malloc(2 * (size_t)ps->o->bcast_chunk);
        if (!buf[0]) MPI_Abort(ps->ctx->comm, 1);
        buf[1] = buf[0] + ps->o->bcast_chunk;
    }
    for (int j = 0; j < ps->s->dims; j++)
        for (int m = 0; m < ps->memory_ranks; m++) {
            if (ps->bcast[m] == MPI_COMM_NULL) continue; /* another memory rank's broadcast */
            uint64_t lo, hi;
            pull_local_range(L, 1 + j, m, &lo, &hi);
            bcast_range(ps, m, j, lo, hi, buf);
        }
    free(buf[0]);
}

void pull_replicate(pull_state *ps, query_output *out)
{
    if (ps->compute_index >= 0) empty_tables(ps);
    if (ps->o->replicate == REPLICATE_BCAST) replicate_bcast(ps);
    else if (ps->compute_index >= 0) replicate_read(ps);
    if (ps->compute_index < 0) return;
    /* every compute rank received every dimension block */
    out->replicated_bytes = (ps->L.first_block[1 + ps->s->dims] - ps->L.first_block[1]) * ps->L.block_bytes;
}
