/* One run of the pull design: the counter back to 0, the dimensions into the compute ranks'
 * tables (replicate), then the fact table streamed through the pipeline (probe): each compute rank
 * claims --claim blocks at a time from the shared counter and keeps --prefetch reads in flight.
 * The memory ranks take part only in a broadcast (--replicate bcast); otherwise they wait at the
 * closing barrier, making MPI progress (MPI_Test, yielding the core where ranks share cores), which
 * the libraries need where one-sided reads are carried by messages (TCP between hosts). */
#include <string.h>

#include "bench/yield_wait.h"
#include "joins/query/pipeline.h"
#include "joins/query/pull.h"

/* Rank 0 sets the fact table's claim counter to 0 before anyone claims. */
static void reset_counter(pull_state *ps)
{
    if (ps->ctx->rank == 0) {
        uint64_t zero = 0, old;
        MPI_CHECK(0, MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, 0, 0, MPI_REPLACE, ps->counter));
        MPI_CHECK(0, MPI_Win_flush(0, ps->counter));
    }
    MPI_CHECK(ps->ctx->rank, rmb_barrier(ps->ctx->comm));
}

static void probe_fact(pull_state *ps, query_output *out, double *wait_s)
{
    const pull_layout *L = &ps->L;
    query_table *const *tables = ps->tables;
    block_stream st;
    block_stream_open(&st, ps->data.win, ps->ctx->rank, L->memory_ranks, L->block_bytes, (int)ps->o->prefetch,
                      L->first_block[0], L->first_block[1] - L->first_block[0], 0, ps->counter, (uint64_t)ps->o->claim,
                      ps->compute_ranks);
    uint64_t res[2] = {0, 0};
    for (const uint64_t *b; (b = block_stream_next(&st));) query_pipeline_block(ps->s, tables, b, L->rows_per_block[0], res);
    out->matches += res[0];
    out->checksum += res[1];
    out->blocks = st.blocks;
    out->bytes = st.blocks * L->block_bytes;
    *wait_s = st.wait_s;
    block_stream_close(&st);
}

void pull_run(pull_state *ps, query_output *out)
{
    reset_counter(ps);
    phase_set *ph = &out->phases;
    const bool compute = ps->compute_index >= 0;
    if (compute) rma_window_lock_all(&ps->data);
    double t0 = rmb_now();
    pull_replicate(ps, out);
    double t1 = rmb_now(), fetch_wait = 0;
    phases_add(ph, "replicate", t1 - t0);
    if (compute) probe_fact(ps, out, &fetch_wait);
    double t2 = rmb_now();
    phases_add(ph, "probe", t2 - t1);
    phases_add(ph, "fetch_wait", fetch_wait);
    if (compute) rma_window_unlock_all(&ps->data);
    phases_add(ph, "wait", rmb_wait_all(ps->ctx->comm)); /* the memory ranks serve here */
}
