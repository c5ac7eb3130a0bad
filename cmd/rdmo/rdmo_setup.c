/* The setup of `rmabench rdmo`: flags, MPI at the thread level the handler needs, the checks that
 * need the rank count or the library (exit 2 before anything is allocated), the memory check, the
 * endpoint; and the run header. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "bench/version.h"
#include "cmd/rdmo/rdmo_cmd.h"
#include "cmd/results_schema.h"
#include "rma/notify.h"
#include "rma/progress.h"

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

void rdmo_setup(rdmo_session *s, int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    rdmo_parse_opts(&s->o, argc, argv);
    if (s->o.plan) exit(rdmo_plan_print(&s->o)); /* before MPI: no ranks are started */
    char err[512];
    if (s->o.output && record_check_path(&results_schema, s->o.output, err, sizeof err))
        opt_usage_error("--output: %s", err);
    provenance_command_line(argc, argv, s->command, sizeof s->command);
    rdmo_model_load(s);
    s->own_mpi = rdmo_mpi_init(&argc, &argv, s->o.handler == RDMO_HANDLER_THREAD && s->o.design != RDMO_DESIGN_VERBS,
                               &s->thread_level);
    bench_ctx_init(&s->ctx, MPI_COMM_WORLD);
    const bench_ctx *ctx = &s->ctx;
    wait_bound_start(ctx, (double)s->o.wait_bound_s); /* names a stopped peer, as every command does */
    if (ctx->size < 2) bench_usage_error(ctx, "rdmo: needs 2 ranks or more (rank 0 is the target, the others its origins)");
    int candidates = 0; /* ranks that may be origins; this rank's place among them */
    s->my_origin = -1;
    for (int r = 1; r < ctx->size; r++) {
        if (s->o.remote_origins && ctx->rank_host[r] == ctx->rank_host[0]) continue;
        if (r == ctx->rank) s->my_origin = candidates;
        candidates++;
    }
    if (s->o.remote_origins && candidates == 0)
        bench_usage_error(ctx, "--remote-origins: every rank is on the target's host");
    if (s->o.origins > candidates)
        bench_usage_error(ctx, "--origins: %" PRId64 " is more than the ranks that can be origins (%d%s)", s->o.origins,
                          candidates, s->o.remote_origins ? " on other hosts" : " beside the target");
    if (s->o.handler == RDMO_HANDLER_THREAD && s->o.design != RDMO_DESIGN_VERBS && s->thread_level < MPI_THREAD_MULTIPLE)
        bench_usage_error(ctx, "--handler: thread calls MPI beside the rank's own thread and needs MPI_THREAD_MULTIPLE; "
                               "this MPI library gives %s (use --handler poll)", thread_level_name(s->thread_level));
    if (!s->o.origins) s->o.origins = candidates;
    s->remote = s->o.remote_origins || ctx->rank_host[1] != ctx->rank_host[0];
    rdmo_model_require(s);
    s->lay = rdmo_bench_layout(&s->o, ctx->size);
    mem_check_or_exit(ctx, (int64_t)rdmo_bench_rank_bytes(&s->o, &s->lay, ctx->rank, ctx->size), "--iterations");
    s->cfg = rdmo_bench_config(&s->o, ctx->rank, ctx->poll_yield);
    s->ep = rdmo_open(ctx->comm, &s->cfg, &s->lay.space);
}

void rdmo_teardown(rdmo_session *s)
{
    rdmo_close(s->ep);
    bench_ctx_free(&s->ctx);
    if (s->own_mpi) MPI_Finalize();
}

void rdmo_report_header(const rdmo_session *s)
{
    if (s->ctx.rank != 0) return;
    const rdmo_opts *o = &s->o;
    printf("# rmabench rdmo: op %s, design %s", rdmo_op_names[o->op], rdmo_design_names[o->design]);
    if (o->design != RDMO_DESIGN_VERBS) printf(" (handler %s)", rdmo_handler_names[o->handler]);
    printf(", poll %s; target rank 0, %s%" PRId64 " origin(s)%s; %" PRId64 " iterations per origin after %" PRId64
           " warm-up; seed %" PRId64 "\n", notify_poll_names[s->cfg.poll], o->sweep ? "1 to " : "", o->origins,
           o->remote_origins ? " on other hosts" : "", o->iterations, o->warmup, o->seed);
    switch (o->op) {
    case RDMO_OP_APPEND: printf("# page of %" PRIu64 " bytes, records of %" PRId64 " bytes\n", s->lay.page_capacity, o->payload_bytes); break;
    case RDMO_OP_GATHER:
        printf("# table: %" PRId64 " keys x %" PRId64 " entries in %" PRIu64 " buckets (%" PRId64 " entries per chain); a gather returns a key's %" PRId64 "\n",
               o->keys, o->matches, s->lay.buckets, o->chain, o->matches);
        break;
    case RDMO_OP_SCATTER:
        printf("# table: %" PRId64 " keys in %" PRIu64 " buckets; %" PRId64 " (key, value) pairs per call\n", o->keys, s->lay.buckets, o->batch);
        break;
    default: printf("# %" PRId64 " rows of %" PRId64 " words, %" PRId64 " tries at a locked row\n", o->rows, o->row_words, o->tries);
    }
    printf("# request slot %" PRId64 " B (%d B payload), queue depth %" PRId64 "\n", o->slot_bytes, rdmo_payload_capacity(&s->cfg),
           o->queue_depth);
    printf("# ");
    bench_ctx_print_placement(&s->ctx, stdout, o->verbose);
    printf("; %s; commit %s\n# ", s->ctx.mpi_library, RMB_GIT_COMMIT);
    bench_ctx_print_environment(&s->ctx, stdout);
    printf("\n");
    fflush(stdout);
}
