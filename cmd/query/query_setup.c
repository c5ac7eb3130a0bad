/* The setup of `rmabench query`: flags, --model and --output before MPI_Init; then the checks that
 * need the rank count and the memory estimate, before anything large is allocated; then the
 * generate phase and the pull design's load (the tables into the memory ranks, timed apart). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "bench/wait_bound.h"
#include "bench/yield_wait.h"
#include "cmd/query/query_cmd.h"
#include "cmd/results_schema.h"

static void parse_flags(query_session *qs, int argc, char **argv)
{
    char err[512];
    query_default_opts(&qs->o);
    int rc = query_parse_opts(&qs->o, argc, argv, err, sizeof err);
    if (rc == OPT_HELP) exit(0);
    if (rc == OPT_ERROR) opt_usage_error("%s", err);
    if (qs->o.plan) exit(query_plan_main(&qs->o)); /* no MPI, no ranks: query_plan.c */
    if (qs->o.model) {
        params_init(&qs->model.p);
        if (params_load(&qs->model.p, qs->o.model, err, sizeof err)) opt_usage_error("--model: %s", err);
        qs->model.on = true;
    }
    if (qs->o.output && record_check_path(&results_schema, qs->o.output, err, sizeof err))
        opt_usage_error("--output: %s", err);
}

/* Every rank judges the same global values, so they refuse together (exit 2) before allocating. */
static void check_run(query_session *qs)
{
    const bench_ctx *ctx = &qs->ctx;
    char err[512];
    query_schema(&qs->o, ctx->rank, ctx->size, &qs->s);
    if (query_check_ranks(&qs->o, &qs->s, ctx->size, &qs->need, err, sizeof err)) bench_usage_error(ctx, "%s", err);
    if (qs->model.on && params_require(&qs->model.p, model_query_required(ctx->hosts > 1, ctx->ranks_per_host > 1), err, sizeof err))
        bench_usage_error(ctx, "--model: %s", err);
    const int64_t mine = query_rank_need(&qs->o, &qs->need, ctx->rank);
    mem_check_host(ctx, mine, qs->o.micro != MICRO_NONE ? "--micro-blocks" : "--fact-rows", mem_advice(false, false));
}

void query_setup(query_session *qs, int argc, char **argv)
{
    memset(qs, 0, sizeof *qs);
    parse_flags(qs, argc, argv);
    provenance_command_line(argc, argv, qs->command, sizeof qs->command);
    qs->own_mpi = bench_mpi_init(&argc, &argv);
    bench_ctx_init(&qs->ctx, MPI_COMM_WORLD);
    wait_bound_start(&qs->ctx, (double)qs->o.wait_bound_s); /* no read or shuffle waits on a stopped rank for ever */
    check_run(qs);
    if (qs->o.micro != MICRO_NONE) return;
    qs->pull_on = qs->o.design != QUERY_SHUFFLE;
    qs->shuffle_on = qs->o.design != QUERY_PULL;
    if (qs->pull_on) {
        pull_load(&qs->pull, &qs->ctx, &qs->o, &qs->s);
        memcpy(qs->expected, qs->pull.expected, sizeof qs->expected);
    }
    if (qs->shuffle_on) {
        shuffle_setup(&qs->sh, &qs->ctx, &qs->o, &qs->s);
        memcpy(qs->expected, qs->sh.expected, sizeof qs->expected);
    }
}

void query_teardown(query_session *qs)
{
    if (qs->pull_on) pull_free(&qs->pull);
    if (qs->shuffle_on) shuffle_free(&qs->sh);
    bench_ctx_free(&qs->ctx);
    if (qs->own_mpi) MPI_Finalize();
}

void query_run_once(query_session *qs, int design, int index, query_run_result *res)
{
    memset(res, 0, sizeof *res);
    res->design = design;
    res->index = index;
    phases_init(&res->out.phases, design == QUERY_PULL ? query_pull_phases : query_shuffle_phases);
    MPI_CHECK(qs->ctx.rank, rmb_barrier(qs->ctx.comm));
    if (design == QUERY_PULL) pull_run(&qs->pull, &res->out);
    else shuffle_run(&qs->sh, &res->out);
    uint64_t mine[4] = {res->out.matches, res->out.checksum, res->out.blocks,
                        res->out.bytes + res->out.replicated_bytes + res->out.shuffled_bytes},
             all[4];
    MPI_CHECK(qs->ctx.rank, MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, qs->ctx.comm));
    res->got[0] = all[0];
    res->got[1] = all[1];
    res->blocks = all[2];
    res->moved_bytes = all[3];
    res->pass = all[0] == qs->expected[0] && all[1] == qs->expected[1];
    phases_reduce(&res->out.phases, qs->ctx.comm, &res->st);
    res->model_s = query_model_predict(qs, design);
}
