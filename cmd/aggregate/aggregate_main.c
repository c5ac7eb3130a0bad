/* `rmabench aggregate`: group-by count and sum over a high-cardinality key, every rank sending its
 * tuples to the owners with ScatterAndAccumulate and probing owners' buckets with ConditionalGather
 * (aggregate/agg.h), in the design --design names; every owner's table checked against the
 * generator (`verification: PASS|FAIL`, exit 1 on FAIL), one CSV row with --output. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "bench/version.h"
#include "cmd/aggregate/aggregate_cmd.h"
#include "cmd/commands.h"
#include "cmd/results_schema.h"
#include "rma/notify.h"
#include "rma/progress.h"

typedef struct {
    aggregate_opts o;
    bench_ctx ctx;
    agg_gen g;
    agg_table_shape shape;
    rdmo_ep *ep;
    agg_run x;
    char command[1024];
    bool own_mpi;
} agg_session;

static void setup(agg_session *s, int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    aggregate_parse_opts(&s->o, argc, argv);
    if (s->o.plan) exit(aggregate_plan_print(&s->o));
    char err[512];
    if (s->o.output && record_check_path(&results_schema, s->o.output, err, sizeof err)) opt_usage_error("--output: %s", err);
    provenance_command_line(argc, argv, s->command, sizeof s->command);
    int level = 0;
    s->own_mpi = rdmo_mpi_init(&argc, &argv, s->o.handler == RDMO_HANDLER_THREAD && s->o.design != RDMO_DESIGN_VERBS, &level);
    bench_ctx_init(&s->ctx, MPI_COMM_WORLD);
    const bench_ctx *ctx = &s->ctx;
    wait_bound_start(ctx, (double)s->o.wait_bound_s); /* names a stopped peer, as every command does */
    if (s->o.handler == RDMO_HANDLER_THREAD && s->o.design != RDMO_DESIGN_VERBS && level < MPI_THREAD_MULTIPLE)
        bench_usage_error(ctx, "--handler: thread needs MPI_THREAD_MULTIPLE, which this MPI library does not give (use --handler poll)");
    if (agg_gen_init(&s->g, ctx->size, (uint64_t)s->o.tuples_per_rank, (uint64_t)s->o.group_size, err, sizeof err))
        bench_usage_error(ctx, "%s", err);
    mem_check_or_exit(ctx, (int64_t)aggregate_rank_bytes(&s->o, ctx->size, err, sizeof err), "--tuples-per-rank");
    s->shape = agg_table_shape_of(&s->g, (uint64_t)s->o.group_size, (uint64_t)s->o.chain, s->o.design);
    rdmo_space sp;
    rdmo_space_init(&sp);
    const uint16_t obj = rdmo_space_add_table(&sp, s->shape.buckets, s->shape.entries);
    const rdmo_config cfg = aggregate_config(&s->o, ctx->poll_yield);
    s->ep = rdmo_open(ctx->comm, &cfg, &sp);
    s->x = (agg_run){.ep = s->ep, .obj = obj, .g = &s->g, .rank = ctx->rank, .batch = (int)s->o.batch,
                     .bufs = malloc((size_t)ctx->size * (size_t)s->o.batch * sizeof(rdmo_pair)),
                     .fill = calloc((size_t)ctx->size, sizeof(int))};
    if (!s->x.bufs || !s->x.fill) {
        fprintf(stderr, "rmabench: rank %d: out of memory for the batches\n", ctx->rank);
        MPI_Abort(ctx->comm, 3);
    }
}

static void header(const agg_session *s)
{
    if (s->ctx.rank != 0) return;
    const aggregate_opts *o = &s->o;
    printf("# rmabench aggregate: design %s", rdmo_design_names[o->design]);
    if (o->design != RDMO_DESIGN_VERBS) printf(" (handler %s)", rdmo_handler_names[o->handler]);
    printf("; %" PRIu64 " tuples (%" PRId64 " per rank) in %" PRIu64 " groups; batches of %" PRId64 " pairs; %" PRId64
           " probes per rank; tables of %" PRIu64 " buckets, %" PRIu64 " entries per rank\n# ",
           s->g.tuples, o->tuples_per_rank, s->g.groups, o->batch, o->probes, s->shape.buckets, s->shape.entries);
    bench_ctx_print_placement(&s->ctx, stdout, o->verbose);
    printf("; %s; commit %s\n", s->ctx.mpi_library, RMB_GIT_COMMIT);
    fflush(stdout);
}

/* Everything rank 0 reports, summed or the slowest. */
typedef struct {
    uint64_t u[11]; /* calls, errors, probes, matched, wrong, agg msgs, agg rts, probe msgs, probe rts, entries, bad tables */
    double t[2];    /* slowest rank: aggregation, probes */
    rdmo_verdict v; /* rank 0's own, or the first failing rank's reason is printed by it */
} agg_totals;

static void reduce(agg_session *s, agg_totals *t)
{
    uint64_t entries = 0;
    rdmo_heap_sync(s->ep);
    const rdmo_verdict v = agg_check_table(&s->x, rdmo_heap(s->ep), &s->shape, &entries);
    if (!v.pass) fprintf(stderr, "rmabench: rank %d: %s\n", s->ctx.rank, v.why);
    const agg_run *x = &s->x;
    uint64_t u[11] = {x->calls, x->errors, x->probes, x->matched, x->wrong, x->c_aggregate.msgs, x->c_aggregate.rts,
                      x->c_probe.msgs, x->c_probe.rts, entries, !v.pass};
    double tt[2] = {x->t_aggregate, x->t_probe};
    MPI_CHECK(s->ctx.rank, MPI_Reduce(u, t->u, 11, MPI_UINT64_T, MPI_SUM, 0, s->ctx.comm));
    MPI_CHECK(s->ctx.rank, MPI_Reduce(tt, t->t, 2, MPI_DOUBLE, MPI_MAX, 0, s->ctx.comm));
    t->v = v;
}

static bool report(const agg_session *s, const agg_totals *t)
{
    const uint64_t *u = t->u;
    const double calls = u[0] ? (double)u[0] : 1, probes = u[2] ? (double)u[2] : 1;
    printf("aggregate: %.4f s (%.3f M tuples/s), %" PRIu64 " calls; per call %.2f messages, %.2f round trips (counted)\n",
           t->t[0], (double)s->g.tuples / t->t[0] / 1e6, u[0], (double)u[5] / calls, (double)u[6] / calls);
    if (u[2])
        printf("probe: %.4f s (%.3f M probes/s), %" PRIu64 " probes, %" PRIu64 " matched; per probe %.2f messages, %.2f round trips\n",
               t->t[1], (double)u[2] / t->t[1] / 1e6, u[2], u[3], (double)u[7] / probes, (double)u[8] / probes);
    printf("groups: %" PRIu64 " in the tables (the generator made %" PRIu64 "); tables failing their check: %" PRIu64
           "; wrong probe answers: %" PRIu64 "; answers other than ok: %" PRIu64 "\n", u[9], s->g.groups, u[10], u[4], u[1]);
    const bool pass = u[9] == s->g.groups && !u[10] && !u[4] && !u[1];
    printf("verification: %s\n", pass ? "PASS" : "FAIL");
    fflush(stdout);
    return pass;
}

static int record_row(const agg_session *s, const agg_totals *t, bool pass)
{
    if (!s->o.output) return 0;
    const aggregate_opts *o = &s->o;
    const uint64_t *u = t->u;
    record *rec = record_new(&results_schema);
    provenance_columns(rec, &s->ctx, "aggregate", s->command, o->seed);
    provenance_outcome(rec, pass);
    record_set(rec, "rdmo_design", "%s", rdmo_design_names[o->design]);
    if (o->design != RDMO_DESIGN_VERBS) record_set(rec, "rdmo_handler", "%s", rdmo_handler_names[o->handler]);
    record_set(rec, "notify_poll", "%s", notify_poll_names[notify_poll_resolve((notify_poll_mode)o->poll)]);
    record_set(rec, "tuples_per_rank", "%" PRId64, o->tuples_per_rank);
    record_set(rec, "agg_group_size", "%" PRId64, o->group_size);
    record_set(rec, "rdmo_batch", "%" PRId64, o->batch);
    record_set(rec, "rdmo_chain", "%" PRId64, o->chain);
    record_set(rec, "agg_probes", "%" PRId64, o->probes);
    record_set(rec, "slot_bytes", "%" PRId64, o->slot_bytes);
    record_set(rec, "t_aggregate", "%.6f", t->t[0]);
    record_set(rec, "t_probe", "%.6f", t->t[1]);
    record_set(rec, "throughput", "%.1f", (double)s->g.tuples / t->t[0]);
    record_set(rec, "msgs_per_op", "%.4f", u[0] ? (double)u[5] / (double)u[0] : 0);
    record_set(rec, "rts_per_op", "%.4f", u[0] ? (double)u[6] / (double)u[0] : 0);
    if (u[2]) {
        record_set(rec, "probes_per_s", "%.1f", (double)u[2] / t->t[1]);
        record_set(rec, "msgs_per_probe", "%.4f", (double)u[7] / (double)u[2]);
        record_set(rec, "rts_per_probe", "%.4f", (double)u[8] / (double)u[2]);
    }
    record_set(rec, "matches", "%" PRIu64, u[9]);
    record_set(rec, "expected_matches", "%" PRIu64, s->g.groups);
    record_set(rec, "errors", "%" PRIu64, u[1] + u[4]);
    char err[512];
    int rc = 0;
    if (record_append(rec, o->output, err, sizeof err)) {
        fprintf(stderr, "rmabench: --output: %s\n", err);
        rc = 2;
    }
    record_free(rec);
    return rc;
}

int aggregate_main(int argc, char **argv)
{
    agg_session s;
    setup(&s, argc, argv);
    header(&s);
    rdmo_handler_start(s.ep);
    agg_aggregate(&s.x);
    if (s.o.probes) agg_probe(&s.x, (uint64_t)s.o.probes);
    rdmo_handler_stop(s.ep);
    agg_totals t;
    reduce(&s, &t);
    int exit_code = 0;
    if (s.ctx.rank == 0) {
        const bool pass = report(&s, &t);
        exit_code = pass ? 0 : 1;
        const int rc = record_row(&s, &t, pass);
        if (rc) exit_code = rc;
    }
    MPI_CHECK(s.ctx.rank, MPI_Bcast(&exit_code, 1, MPI_INT, 0, s.ctx.comm));
    free(s.x.bufs);
    free(s.x.fill);
    rdmo_close(s.ep);
    bench_ctx_free(&s.ctx);
    if (s.own_mpi) MPI_Finalize();
    return exit_code;
}
