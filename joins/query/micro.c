#include "joins/query/micro.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench/yield_wait.h"
#include "joins/query/pull.h"

void micro_table_open(micro_table *mt, const bench_ctx *ctx, uint64_t blocks, uint64_t block_bytes, int flavor)
{
    mt->ctx = ctx;
    mt->blocks = blocks;
    mt->block_bytes = block_bytes;
    const bool holder = ctx->rank == 0;
    rma_window_alloc(&mt->win, holder ? blocks * block_bytes : 0, (win_flavor)flavor, ctx->comm);
    rma_window_lock_all(&mt->win);
    if (holder) {
        uint64_t *v = mt->win.base;
        for (uint64_t i = 0; i < blocks * block_bytes / 8; i++) v[i] = i;
        MPI_CHECK(ctx->rank, MPI_Win_sync(mt->win.win));
    }
    rma_windows_end_epoch(&mt->win, 1, ctx->comm); /* rank 0's stores visible to the readers' gets */
}

void micro_table_close(micro_table *mt) { rma_window_free(&mt->win); }

uint64_t micro_expected_sum(uint64_t blocks, uint64_t block_bytes)
{
    const uint64_t n = blocks * block_bytes / 8; /* 0 + 1 + ... + n-1 mod 2^64, halving the even factor */
    return n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
}

/* The scan pipeline: the sum of a block's integers. */
static uint64_t scan_block(const uint64_t *b, uint64_t words)
{
    uint64_t s = 0;
    for (uint64_t i = 0; i < words; i++) s += b[i];
    return s;
}

static void scan_reads(const micro_table *mt, int depth, micro_result *res)
{
    rma_window_lock_all((rma_window *)&mt->win);
    block_stream st;
    block_stream_open(&st, mt->win.win, mt->ctx->rank, 1, mt->block_bytes, depth, 0, mt->blocks, 0, MPI_WIN_NULL, 0, 0);
    for (const uint64_t *b; (b = block_stream_next(&st));) res->sum += scan_block(b, mt->block_bytes / 8);
    res->blocks = st.blocks;
    block_stream_close(&st);
    rma_window_unlock_all((rma_window *)&mt->win);
}

/* Rank 0 broadcasts the table in chunks to the readers, two chunks in flight. */
static void scan_bcast(const micro_table *mt, MPI_Comm comm, uint64_t chunk_bytes, micro_result *res)
{
    const bool root = mt->ctx->rank == 0;
    const uint64_t per = chunk_bytes / mt->block_bytes, chunks = (mt->blocks + per - 1) / per;
    char *buf = root ? NULL : malloc(2 * per * mt->block_bytes);
    if (!root && !buf) MPI_Abort(mt->ctx->comm, 1);
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (uint64_t k = 0; k <= chunks; k++) {
        if (k < chunks) {
            const uint64_t n = mt->blocks - k * per < per ? mt->blocks - k * per : per;
            char *at = root ? (char *)mt->win.base + k * per * mt->block_bytes : buf + (k & 1) * per * mt->block_bytes;
            MPI_CHECK(mt->ctx->rank, MPI_Ibcast(at, (int)(n * mt->block_bytes), MPI_BYTE, 0, comm, &req[k & 1]));
        }
        if (k == 0) continue;
        const uint64_t p = k - 1, n = mt->blocks - p * per < per ? mt->blocks - p * per : per;
        MPI_CHECK(mt->ctx->rank, rmb_wait(&req[p & 1]));
        if (root) continue;
        for (uint64_t b = 0; b < n; b++)
            res->sum += scan_block((const uint64_t *)(const void *)(buf + ((p & 1) * per + b) * mt->block_bytes),
                                   mt->block_bytes / 8);
        res->blocks += n;
    }
    free(buf);
}

void micro_scan(const micro_table *mt, int memory_ranks, int readers, bool bcast, int depth, uint64_t chunk_bytes,
                micro_result *res)
{
    const bench_ctx *ctx = mt->ctx;
    *res = (micro_result){0};
    res->reader = ctx->rank >= memory_ranks && ctx->rank < memory_ranks + readers;
    MPI_Comm comm = MPI_COMM_NULL;
    if (bcast)
        MPI_CHECK(ctx->rank, MPI_Comm_split(ctx->comm, ctx->rank == 0 || res->reader ? 0 : MPI_UNDEFINED, ctx->rank, &comm));
    MPI_CHECK(ctx->rank, rmb_barrier(ctx->comm));
    const double t0 = rmb_now();
    if (bcast && comm != MPI_COMM_NULL) scan_bcast(mt, comm, chunk_bytes, res);
    else if (!bcast && res->reader) scan_reads(mt, depth, res);
    res->seconds = rmb_now() - t0;
    MPI_CHECK(ctx->rank, rmb_barrier(ctx->comm)); /* rank 0 serves the reads until every reader is done */
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

/* The byte rank `from` sends rank `to` at offset i of its share. */
static inline unsigned char share_byte(int from, int to, uint64_t i) { return (unsigned char)(from * 31 + to * 7 + i); }

void micro_alltoallv(const bench_ctx *ctx, uint64_t bytes, micro_result *res)
{
    const int P = ctx->size, me = ctx->rank;
    const uint64_t share = bytes / (uint64_t)P;
    *res = (micro_result){.reader = true};
    unsigned char *send = malloc(share * (uint64_t)P + 1), *recv = malloc(share * (uint64_t)P + 1);
    int *c = malloc(2 * (size_t)P * sizeof *c);
    if (!send || !recv || !c || share > INT32_MAX / (uint64_t)P) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate or count %llu bytes for MPI_Alltoallv\n", me, (unsigned long long)bytes);
        MPI_Abort(ctx->comm, 1);
    }
    for (int j = 0; j < P; j++) {
        c[j] = (int)share;
        c[P + j] = (int)(share * (uint64_t)j);
        for (uint64_t i = 0; i < share; i++) send[(uint64_t)j * share + i] = share_byte(me, j, i);
    }
    MPI_CHECK(me, rmb_barrier(ctx->comm));
    const double t0 = rmb_now();
    MPI_CHECK(me, MPI_Alltoallv(send, c, c + P, MPI_BYTE, recv, c, c + P, MPI_BYTE, ctx->comm));
    res->seconds = rmb_now() - t0;
    for (int j = 0; j < P; j++)
        for (uint64_t i = 0; i < share; i++) res->sum += recv[(uint64_t)j * share + i] != share_byte(j, me, i);
    res->blocks = share * (uint64_t)(P - 1);
    free(send);
    free(recv);
    free(c);
}
