/* The setup of `rmabench join`: flags, MPI, the workload and its checks, the memory estimate
 * before anything large is allocated, placement, and the generate phase (R and S on every rank in
 * parallel, the expected result from the generator alone). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "cmd/join/join_cmd.h"
#include "cmd/results_schema.h"
#include "joins/verify.h"

/* Flags, --model and --output are judged before MPI_Init: exit 0 after --help, 2 on bad input. */
static void parse_flags(join_session *js, int argc, char **argv)
{
    char err[512];
    join_default_opts(&js->o);
    int rc = join_parse_opts(&js->o, argc, argv, err, sizeof err);
    if (rc == OPT_HELP) exit(0);
    if (rc == OPT_ERROR) opt_usage_error("%s", err);
    join_compare_load(&js->model, js->o.model, js->o.algo);
    if (js->o.output && record_check_path(&results_schema, js->o.output, err, sizeof err))
        opt_usage_error("--output: %s", err);
}

/* The workload this rank generates, and the algorithms' own checks and memory need (collective:
 * every rank decides alike, then exits 2 together). */
static void plan_run(join_session *js)
{
    const join_opts *o = &js->o;
    bench_ctx *ctx = &js->ctx;
    uint64_t r_total = o->r_total > 0 ? (uint64_t)o->r_total : (uint64_t)o->tuples_per_rank * (uint64_t)ctx->size;
    if (r_total < (uint64_t)ctx->size)
        bench_usage_error(ctx, "--r-tuples: %" PRIu64 " tuples cannot give each of %d ranks at least one", r_total, ctx->size);
    workload_init(&js->wl, r_total, (int)o->ratio, o->selectivity, o->skew, (uint64_t)o->seed, ctx->rank, ctx->size,
                  o->uneven);
    js->nalgos = 0;
    if (o->algo == ALGO_RADIX || o->algo == ALGO_BOTH) js->algos[js->nalgos++] = &radix_join_algo;
    if (o->algo == ALGO_SORTMERGE || o->algo == ALGO_BOTH) js->algos[js->nalgos++] = &sortmerge_join_algo;
    if (o->algo == ALGO_REFERENCE) js->algos[js->nalgos++] = &reference_join_algo;
    char err[512];
    int64_t need = 0;
    for (int a = 0; a < js->nalgos; a++) {
        if (js->algos[a]->plan(o, &js->wl, ctx->size, &js->plans[a], err, sizeof err)) bench_usage_error(ctx, "%s", err);
        int64_t m = join_plan_bytes(&js->plans[a]);
        if (m > need) need = m;
    }
    need += (int64_t)((js->wl.r_n + js->wl.s_n) * sizeof(tuple_t));
    mem_check_or_exit(ctx, need, o->r_total > 0 ? "--r-tuples" : "--tuples-per-rank");
}

/* Generate: R and S of this rank, and the expected matches and checksum (not timed as a join phase). */
static void generate(join_session *js)
{
    const workload *w = &js->wl;
    double t0 = rmb_now();
    js->r = mem_alloc_large(w->r_n * sizeof(tuple_t));
    js->s = mem_alloc_large(w->s_n * sizeof(tuple_t));
    if (!js->r || !js->s) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the relations (%" PRIu64 " + %" PRIu64 " tuples)\n",
                js->ctx.rank, w->r_n, w->s_n);
        MPI_Abort(js->ctx.comm, 2);
    }
    generate_r(w, js->r);
    generate_s(w, js->s);
    numa_placement_check(js->r, w->r_n * sizeof(tuple_t)); /* where the generated relations went */
    numa_placement_check(js->s, w->s_n * sizeof(tuple_t));
    join_expected(&js->ctx, w, js->expected);
    double t = rmb_now() - t0;
    MPI_CHECK(js->ctx.rank, MPI_Reduce(&t, &js->t_generate, 1, MPI_DOUBLE, MPI_MAX, 0, js->ctx.comm));
}

void join_setup(join_session *js, int argc, char **argv)
{
    memset(js, 0, sizeof *js);
    parse_flags(js, argc, argv);
    provenance_command_line(argc, argv, js->command, sizeof js->command);
    js->own_mpi = bench_mpi_init(&argc, &argv);
    bench_ctx_init(&js->ctx, MPI_COMM_WORLD);
    plan_run(js);
    /* bad input is judged first, then placement: the policy holds for every large allocation from here on */
    numa_report_init(&js->ctx, js->o.numa, js->o.verbose, &js->numa);
    js->o.numa = js->numa.policy;
    generate(js);
}

void join_teardown(join_session *js)
{
    mem_free_large(js->r, js->wl.r_n * sizeof(tuple_t));
    mem_free_large(js->s, js->wl.s_n * sizeof(tuple_t));
    numa_report_free(&js->numa);
    rma_window_pool_drain(); /* --window-pool */
    bench_ctx_free(&js->ctx);
    if (js->own_mpi) MPI_Finalize();
}
