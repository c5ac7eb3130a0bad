/* The CSV row of one step of `rmabench rdmo` (cmd/results_schema.h). */
#include <inttypes.h>
#include <stdio.h>

#include "bench/provenance.h"
#include "cmd/rdmo/rdmo_cmd.h"
#include "cmd/results_schema.h"
#include "rma/notify.h"

static void parameter_columns(record *rec, const rdmo_session *s, const rdmo_step *st)
{
    const rdmo_opts *o = &s->o;
    record_set(rec, "rdmo_op", "%s", rdmo_op_names[o->op]);
    record_set(rec, "rdmo_design", "%s", rdmo_design_names[o->design]);
    if (o->design != RDMO_DESIGN_VERBS) record_set(rec, "rdmo_handler", "%s", rdmo_handler_names[o->handler]);
    record_set(rec, "notify_poll", "%s", notify_poll_names[s->cfg.poll]);
    record_set(rec, "origins", "%d", st->origins);
    if (o->remote_origins) record_set(rec, "rdmo_origin_hosts", "remote");
    record_set(rec, "iterations", "%" PRId64, o->iterations);
    record_set(rec, "warmups", "%" PRId64, o->warmup);
    record_set(rec, "slot_bytes", "%" PRId64, o->slot_bytes);
    record_set(rec, "queue_depth", "%" PRId64, o->queue_depth);
    if (o->op == RDMO_OP_APPEND) record_set(rec, "payload_bytes", "%" PRId64, o->payload_bytes);
    if (o->op == RDMO_OP_GATHER || o->op == RDMO_OP_SCATTER) {
        record_set(rec, "rdmo_keys", "%" PRId64, o->keys);
        record_set(rec, "rdmo_chain", "%" PRId64, o->chain);
    }
    if (o->op == RDMO_OP_GATHER) record_set(rec, "rdmo_matches", "%" PRId64, o->matches);
    if (o->op == RDMO_OP_SCATTER) record_set(rec, "rdmo_batch", "%" PRId64, o->batch);
    if (o->op == RDMO_OP_READ || o->op == RDMO_OP_SEAL) {
        record_set(rec, "rdmo_rows", "%" PRId64, o->rows);
        record_set(rec, "rdmo_row_words", "%" PRId64, o->row_words);
        record_set(rec, "rdmo_tries", "%" PRId64, o->tries);
    }
}

static void result_columns(record *rec, const rdmo_session *s, const rdmo_step *st)
{
    const double ops = st->c.ops ? (double)st->c.ops : 1;
    record_set(rec, "lat_op_median_us", "%.4f", st->lat_median_us);
    record_set(rec, "lat_op_p99_us", "%.4f", st->lat_p99_us);
    record_set(rec, "ops_per_s", "%.1f", st->ops_per_s);
    record_set(rec, "throughput", "%.1f", st->ops_per_s);
    record_set(rec, "msgs_per_op", "%.4f", (double)st->c.msgs / ops);
    record_set(rec, "rts_per_op", "%.4f", (double)st->c.rts / ops);
    record_set(rec, "retries_per_op", "%.4f", (double)st->c.retries / ops);
    if (st->window_us >= 0) record_set(rec, "lat_window_us", "%.4f", st->window_us);
    if (st->handler_us >= 0) record_set(rec, "lat_handler_us", "%.4f", st->handler_us);
    record_set(rec, "rejected", "%" PRIu64, st->c.rejected);
    if (st->model_us >= 0) {
        record_set(rec, "model_op_us", "%.4f", st->model_us);
        record_set(rec, "model_err_op", "%.4f", st->model_err);
        record_set(rec, "model_params", "%s", s->model.source);
    }
    record_set(rec, "errors", "%" PRIu64, st->errors);
}

int rdmo_record_step(const rdmo_session *s, const rdmo_step *st, int exit_code)
{
    if (!s->o.output || s->ctx.rank != 0) return exit_code;
    record *rec = record_new(&results_schema);
    provenance_columns(rec, &s->ctx, "rdmo", s->command, s->o.seed);
    provenance_outcome(rec, st->verdict.pass);
    parameter_columns(rec, s, st);
    result_columns(rec, s, st);
    char err[512];
    if (record_append(rec, s->o.output, err, sizeof err)) {
        fprintf(stderr, "rmabench: --output: %s\n", err);
        exit_code = 2;
    }
    record_free(rec);
    return exit_code;
}
