/* The CSV row of one `rmabench query` run (cmd/results_schema.h): provenance, the schema and the
 * design's parameters as resolved, phase times, the load, the data moved and the verification. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "cmd/query/query_cmd.h"
#include "cmd/results_schema.h"
#include "joins/radix/radix_plan.h"

/* A per-dimension list "a;b;c" of the schema. */
static void dim_list(record *rec, const char *col, const star_schema *s, int what)
{
    char buf[128] = "";
    for (int j = 0; j < s->dims; j++) {
        char v[32];
        if (what == 0) snprintf(v, sizeof v, "%" PRIu64, s->dim_rows[j]);
        else if (what == 1) snprintf(v, sizeof v, "%d", 8 * s->dim_words[j]);
        else if (what == 2) snprintf(v, sizeof v, "%g", s->selectivity[j]);
        else snprintf(v, sizeof v, "%d", 1 << s->part_bits[j]);
        strncat(buf, j ? ";" : "", sizeof buf - strlen(buf) - 1);
        strncat(buf, v, sizeof buf - strlen(buf) - 1);
    }
    record_set(rec, col, "%s", buf);
}

void query_record_common(const query_session *qs, record *rec, const char *design, bool pull)
{
    const query_opts *o = &qs->o;
    provenance_columns(rec, &qs->ctx, "query", qs->command, o->seed);
    record_set(rec, "design", "%s", design);
    record_set(rec, "repeats", "%" PRId64, o->repeat);
    record_set(rec, "warmups", "%" PRId64, o->warmup);
    if (pull) { /* a shuffle has no split: every rank holds and joins */
        record_set(rec, "memory_ranks", "%" PRId64, o->memory_ranks);
        record_set(rec, "compute_ranks", "%" PRId64, qs->ctx.size - o->memory_ranks);
        record_set(rec, "prefetch", "%" PRId64, o->prefetch);
        record_set(rec, "block_size", "%" PRId64, o->block_size);
    }
    const char *rate = getenv("RMB_LINK_RATE"); /* the emulated link rate (jobs/netem.sh) */
    if (rate && *rate) record_set(rec, "link_rate", "%s", rate);
}

static void schema_columns(const query_session *qs, record *rec)
{
    const star_schema *s = &qs->s;
    record_set(rec, "tables", "%d", 1 + s->dims);
    record_set(rec, "fact_rows", "%" PRIu64, s->fact_rows);
    record_set(rec, "fact_width", "%d", 8 * s->fact_words);
    dim_list(rec, "dim_rows", s, 0);
    dim_list(rec, "dim_width", s, 1);
    dim_list(rec, "dim_selectivity", s, 2);
    dim_list(rec, "partitions", s, 3);
}

static void design_columns(const query_session *qs, const query_run_result *res, record *rec)
{
    const query_opts *o = &qs->o;
    if (res->design == QUERY_PULL) {
        record_set(rec, "claim", "%" PRId64, o->claim);
        record_set(rec, "replicate", "%s", query_replicate_names[o->replicate]);
        if (o->replicate == REPLICATE_BCAST) record_set(rec, "bcast_chunk", "%" PRId64, o->bcast_chunk);
        record_set(rec, "window", "%s", win_flavor_names[qs->pull.data.flavor]);
        record_set(rec, "t_load_max", "%.6f", qs->pull.t_load);
        record_set(rec, "t_generate_max", "%.6f", qs->pull.t_generate);
        record_set(rec, "load_bytes", "%" PRIu64, qs->pull.load_bytes);
        record_set(rec, "blocks", "%" PRIu64, res->blocks);
    } else {
        join_opts jo = {0};
        jo.radix_bits = o->radix_bits;
        record_set(rec, "radix_bits", "%d", radix_plan_bits(&jo, qs->ctx.size));
        record_set(rec, "exchange", "%s", query_exchange_names[o->exchange]);
        record_set(rec, "t_generate_max", "%.6f", qs->sh.t_generate);
    }
    record_set(rec, "moved_bytes", "%" PRIu64, res->moved_bytes);
}

int query_record_append(const query_session *qs, record *rec)
{
    int failed = 0;
    if (qs->ctx.rank == 0) {
        char err[512];
        if (record_append(rec, qs->o.output, err, sizeof err)) {
            fprintf(stderr, "rmabench: --output: %s\n", err);
            failed = 2;
        }
        record_free(rec);
    }
    MPI_CHECK(qs->ctx.rank, MPI_Bcast(&failed, 1, MPI_INT, 0, qs->ctx.comm)); /* every rank leaves together */
    return failed;
}

int query_record_run(const query_session *qs, const query_run_result *res)
{
    if (!qs->o.output) return 0;
    int64_t mem[2] = {query_rank_need(&qs->o, &qs->need, qs->ctx.rank) + MEM_RUNTIME_BYTES, mem_peak_rss_bytes()}, most[2];
    MPI_CHECK(qs->ctx.rank, MPI_Reduce(mem, most, 2, MPI_INT64_T, MPI_MAX, 0, qs->ctx.comm));
    record *rec = NULL;
    if (qs->ctx.rank == 0) {
        rec = record_new(&results_schema);
        query_record_common(qs, rec, query_design_names[res->design], res->design == QUERY_PULL);
        provenance_outcome(rec, res->pass);
        schema_columns(qs, rec);
        design_columns(qs, res, rec);
        phases_record(&res->st, rec);
        record_set(rec, "repeat_index", "%d", res->index);
        record_set(rec, "mem_plan_rank", "%" PRId64, most[0]);
        record_set(rec, "mem_peak_rank", "%" PRId64, most[1]);
        record_set(rec, "throughput", "%.1f", (double)qs->s.fact_rows / res->st.total_max);
        record_set(rec, "matches", "%" PRIu64, res->got[0]);
        record_set(rec, "checksum", "0x%016" PRIx64, res->got[1]);
        record_set(rec, "expected_matches", "%" PRIu64, qs->expected[0]);
        record_set(rec, "expected_checksum", "0x%016" PRIx64, qs->expected[1]);
        if (res->model_s > 0) {
            record_set(rec, "model_total", "%.6f", res->model_s);
            record_set(rec, "model_err_total", "%.4f", (res->model_s - res->st.total_max) / res->st.total_max);
            record_set(rec, "model_params", "%s", qs->model.p.source);
        }
    }
    return query_record_append(qs, rec);
}
