/* The CSV row of one join run (cmd/results_schema.h): provenance, the parameters as the algorithm
 * resolved them ("auto" made explicit), phase times, throughput and the verification. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "cmd/join/join_cmd.h"
#include "joins/radix/exchange_registry.h"
#include "cmd/results_schema.h"

static void workload_columns(record *rec, const join_session *js)
{
    const join_opts *o = &js->o;
    const workload *w = &js->wl;
    record_set(rec, "repeats", "%" PRId64, o->repeat);
    record_set(rec, "warmups", "%" PRId64, o->warmup);
    record_set(rec, "r_tuples", "%" PRIu64, w->r_total);
    record_set(rec, "s_tuples", "%" PRIu64, w->s_total);
    record_set(rec, "tuples_per_rank", "%" PRIu64, w->r_total / (uint64_t)js->ctx.size);
    record_set(rec, "uneven", "%d", o->uneven);
    record_set(rec, "ratio", "%" PRId64, o->ratio);
    record_set(rec, "selectivity", "%g", o->selectivity);
    record_set(rec, "skew", "%g", o->skew);
}

/* The algorithm's parameters as it resolved them (join_output), never the options' "auto". */
static void algo_columns(record *rec, const join_opts *o, const join_plan *plan, const join_run_result *res)
{
    const join_output *out = &res->out;
    record_set(rec, "algo", "%s", join_algo_names[res->algo_id]);
    if (res->algo_id != ALGO_REFERENCE) { /* the RMA joins' windows and send-buffer completion */
        record_set(rec, "window", "%s", win_flavor_names[o->window]);
        record_set(rec, "window_life", "%s", win_life_names[o->window_life]);
        record_set(rec, "flush", "%s", rma_flush_names[o->flush]);
    }
    if (res->algo_id == ALGO_RADIX) {
        record_set(rec, "radix_bits", "%" PRId64, out->radix_bits);
        record_set(rec, "local_fanout_bits", "%" PRId64, out->local_bits);
        record_set(rec, "passes", "%" PRId64, out->passes);
        record_set(rec, "simd", "%s", out->simd_used); /* the scatter loops and the probe */
        record_set(rec, "scatter", "%s", out->scatter_used);
        record_set(rec, "assign", "%s", join_assign_names[o->assign]);
        record_set(rec, "buffer_size", "%" PRId64, plan->buffer_size); /* as --buffer-memory left it */
        record_set(rec, "buffers_per_partition", "%" PRId64, o->buffers_per_partition);
        record_set(rec, "buffer_memory", "%" PRId64, o->buffer_memory);
        record_set(rec, "exchange", "%s", radix_exchange_names()[o->exchange]);
        record_set(rec, "schedule", "%s", join_schedule_names[o->schedule]);
        /* the emulated link rate the run was launched on (jobs/netem.sh exports it; empty otherwise) */
        const char *rate = getenv("RMB_LINK_RATE");
        if (rate && *rate) record_set(rec, "link_rate", "%s", rate);
    }
    if (res->algo_id == ALGO_RADIX || res->algo_id == ALGO_SORTMERGE) /* the format that ran: 1 = 8 B packed */
        record_set(rec, "compress", "%d", out->tuple_bytes == 8);
    if (res->algo_id == ALGO_SORTMERGE) {
        record_set(rec, "ranges", "%s", join_ranges_names[o->ranges]);
        record_set(rec, "run_size", "%" PRId64, out->run_size);
        record_set(rec, "merge_fanin", "%" PRId64, out->merge_fanin);
        record_set(rec, "merge_bands", "%" PRId64, out->merge_bands);
        record_set(rec, "band_count", "%s", out->band_count_used);
        record_set(rec, "simd", "%s", out->simd_used);
        record_set(rec, "run_sort", "%s", out->run_sort_used);
        record_set(rec, "passes", "%" PRId64, out->passes); /* merge passes: the thesis' d */
    }
}

/* Collective: the largest of the ranks' memory bounds (R and S, the plan's bytes and the process
 * allowance: what --plan prints per rank, join_plan.c) and of their peak resident memory so far. */
static void memory_peaks(const join_session *js, const join_plan *plan, int64_t out[2])
{
    int64_t mine[2] = {(int64_t)((js->wl.r_n + js->wl.s_n) * sizeof(tuple_t)) + join_plan_bytes(plan) + MEM_RUNTIME_BYTES,
                       mem_peak_rss_bytes()};
    MPI_CHECK(js->ctx.rank, MPI_Reduce(mine, out, 2, MPI_INT64_T, MPI_MAX, 0, js->ctx.comm));
}

/* Rank 0 appends rec (and frees it); collective: 0, or 2 when it could not be written. */
/* window_choice: "given", or "auto: <source>[: <cost per flavour>]" (rma/window_auto.h). */
static void window_choice_column(record *rec, const join_session *js)
{
    if (!js->window_auto) {
        record_set(rec, "window_choice", "given");
        return;
    }
    char costs[400];
    rma_window_pick_costs(&js->window_pick, costs, sizeof costs);
    record_set(rec, "window_choice", "auto: %s%s%s", js->window_pick.source, costs[0] ? ": " : "", costs);
}

/* The machine's state beside the run: the floor (rma/floor.h) and what window allocation took per GB */
static void record_floor_alloc(record *rec, const join_session *js, const join_plan *plan, const join_run_result *res)
{
    const phase_stats *st = &res->st;
    if (js->floor_us > 0) record_set(rec, "floor_rtt_us", "%.4f", js->floor_us);
    if (js->model.on && js->model.p.set[MP_t_floor_rtt]) record_set(rec, "model_floor_rtt_us", "%.4f", params_get(&js->model.p, MP_t_floor_rtt) * 1e6);
    const double *alloc = phase_stats_find(st, "window_alloc", 0);
    /* only a run that allocated its windows met fresh memory (a later one under --window-life pool or
     * dynamic reuses them) */
    const bool allocated = res->first || js->o.window_life == WIN_LIFE_JOIN;
    if (alloc && allocated && plan->window_bytes > 0) record_set(rec, "alloc_s_per_gb", "%.4f", *alloc / ((double)plan->window_bytes * 1e-9));
}

static int append_row(const join_session *js, record *rec)
{
    int failed = 0;
    if (js->ctx.rank == 0) {
        char err[512];
        if (record_append(rec, js->o.output, err, sizeof err)) {
            fprintf(stderr, "rmabench: --output: %s\n", err);
            failed = 2;
        }
        record_free(rec);
    }
    /* Every rank leaves together with exit 2 (MPI_Abort hangs MPICH 4.0 while the other ranks sit
     * in MPI_Finalize: tests/faults/output.sh). */
    MPI_CHECK(js->ctx.rank, MPI_Bcast(&failed, 1, MPI_INT, 0, js->ctx.comm));
    return failed;
}

int join_record_refused(const join_session *js, int i)
{
    if (!js->o.output) return 0;
    record *rec = NULL;
    if (js->ctx.rank == 0) {
        rec = record_new(&results_schema);
        provenance_columns(rec, &js->ctx, "join", js->command, js->o.seed);
        provenance_refused(rec);
        workload_columns(rec, js);
        record_set(rec, "algo", "%s", js->refused[i]->name);
        record_set(rec, "expected_matches", "%" PRIu64, js->expected[0]);
        record_set(rec, "expected_checksum", "0x%016" PRIx64, js->expected[1]);
    }
    return append_row(js, rec);
}

int join_record_run(const join_session *js, const join_run_result *res)
{
    if (!js->o.output) return 0;
    const join_plan *plan = &js->plans[0];
    for (int a = 0; a < js->nalgos; a++)
        if (js->algos[a] == res->algo) plan = &js->plans[a];
    int64_t mem[2];
    memory_peaks(js, plan, mem);
    record *rec = NULL;
    if (js->ctx.rank == 0) {
        rec = record_new(&results_schema);
        provenance_columns(rec, &js->ctx, "join", js->command, (int64_t)js->wl.seed); /* the query's */
        provenance_outcome(rec, res->pass);
        workload_columns(rec, js);
        algo_columns(rec, &js->o, plan, res);
        if (res->algo_id != ALGO_REFERENCE) window_choice_column(rec, js);
        record_set(rec, "mem_plan_rank", "%" PRId64, mem[0]);
        record_set(rec, "mem_peak_rank", "%" PRId64, mem[1]);
        phases_record(&res->st, rec);
        join_roofline_record(js, res, rec);
        record_set(rec, "repeat_index", "%d", res->index);
        record_set(rec, "query_index", "%d", res->query);
        record_set(rec, "query_state", "%s", res->first ? "first" : "steady");
        if (res->algo_id != ALGO_REFERENCE) {
            record_set(rec, "mem_window_plan", "%" PRId64, js->window_kept_plan);
            record_set(rec, "mem_window_held", "%" PRId64, res->window_held);
            record_set(rec, "window_regrown", "%" PRId64, res->window_regrown);
        }
        record_set(rec, "throughput", "%.1f", res->throughput);
        if (res->steal >= 0) record_set(rec, "host_steal", "%.4f", res->steal);
        if (res->run_delay >= 0) record_set(rec, "run_delay", "%.4f", res->run_delay);
        record_set(rec, "matches", "%" PRIu64, res->got[0]);
        record_set(rec, "checksum", "0x%016" PRIx64, res->got[1]);
        record_set(rec, "expected_matches", "%" PRIu64, js->expected[0]);
        record_set(rec, "expected_checksum", "0x%016" PRIx64, js->expected[1]);
        join_compare_record(&js->model, rec);
        record_floor_alloc(rec, js, plan, res);
        numa_report_columns(&js->numa, rec);
    }
    return append_row(js, rec);
}
