/* The setup of `rmabench join`: flags, MPI, the workload and its checks, the memory estimate
 * before anything large is allocated, placement, and the generate phase (R and S on every rank in
 * parallel, the expected result from the generator alone). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "bench/wait_bound.h"
#include "cmd/join/join_cmd.h"
#include "cmd/results_schema.h"
#include "joins/radix/exchange_registry.h"
#include "joins/verify.h"
#include "rma/floor.h"

/* Flags, --model and --output are judged before MPI_Init: exit 0 after --help, 2 on bad input. */
static void parse_flags(join_session *js, int argc, char **argv)
{
    char err[512];
    join_default_opts(&js->o);
    int rc = join_parse_opts(&js->o, argc, argv, err, sizeof err);
    if (rc == OPT_HELP) exit(0);
    if (rc == OPT_ERROR) opt_usage_error("%s", err);
    if (js->o.list_exchanges) { /* for scripts (jobs/exchange.sh): what this build can run */
        if (bench_env_rank() == 0) radix_exchange_list(stdout, join_schedule_names);
        exit(0);
    }
    if (js->o.plan) exit(join_plan_main(&js->o)); /* no MPI, no ranks: cmd/join/join_plan.c */
    join_compare_load(&js->model, js->o.model, js->o.algo);
    if (js->o.output && record_check_path(&results_schema, js->o.output, err, sizeof err))
        opt_usage_error("--output: %s", err);
}

/* Plans one algorithm: kept when its plan() accepts the run; with --algo both a refusal drops only
 * that algorithm (one line on stderr), otherwise it ends the command (exit 2). */
static void plan_algo(join_session *js, const join_algo *algo)
{
    const bench_ctx *ctx = &js->ctx;
    char err[512];
    join_plan p;
    if (algo->plan(&js->o, &js->wl, ctx->size, &p, err, sizeof err) == 0) {
        js->algos[js->nalgos] = algo;
        js->plans[js->nalgos++] = p;
        return;
    }
    if (js->o.algo != ALGO_BOTH) bench_usage_error(ctx, "%s", err);
    js->refused[js->nrefused] = algo;
    snprintf(js->refusal[js->nrefused++], sizeof js->refusal[0], "%s", err);
}

/* --algo both: one line per refused algorithm; exit 2 when none is left to run. */
static void report_refusals(const join_session *js)
{
    if (js->nrefused == 0) return;
    if (js->ctx.rank == 0)
        for (int i = 0; i < js->nrefused; i++)
            fprintf(stderr, "rmabench: --algo: %s refused: %s%s%s\n", js->refused[i]->name, js->refusal[i],
                    js->nalgos ? "; running " : "", js->nalgos ? js->algos[0]->name : "");
    fflush(stderr);
    if (js->nalgos == 0) {
        MPI_Barrier(js->ctx.comm);
        MPI_Finalize();
        exit(JOIN_EXIT_USAGE);
    }
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
    js->nalgos = js->nrefused = 0;
    if (o->algo == ALGO_RADIX || o->algo == ALGO_BOTH) plan_algo(js, &radix_join_algo);
    if (o->algo == ALGO_SORTMERGE || o->algo == ALGO_BOTH) plan_algo(js, &sortmerge_join_algo);
    if (o->algo == ALGO_REFERENCE) plan_algo(js, &reference_join_algo);
    report_refusals(js);
    join_need need;
    join_need_of(o, &js->wl, js->plans, js->nalgos, &need); /* as --plan judges it (join_plan.c) */
    mem_check_host(ctx, need.rank_bytes_join, need.flag, need.advice);
    /* what fits with windows freed after every join and not with kept ones: --window-life's doing */
    if (o->window_life != WIN_LIFE_JOIN) mem_check_host(ctx, need.rank_bytes, "--window-life", JOIN_LIFE_ADVICE);
    const int64_t kept = o->window_life == WIN_LIFE_JOIN ? need.join_window_bytes : need.kept_bytes;
    MPI_CHECK(ctx->rank, MPI_Allreduce(&kept, &js->window_kept_plan, 1, MPI_INT64_T, MPI_MAX, ctx->comm));
    /* a kept window is made at its slot's largest plan, whatever the first join asks for */
    for (int s = 0; s < JOIN_WINDOW_SLOTS && o->window_life != WIN_LIFE_JOIN; s++)
        rma_window_reserve(s, (uint64_t)need.slot_bytes[s]);
}

/* --window auto: the flavour that allocates and faults in cheapest on this host
 * (rma/window_auto.h), from
 * --model's t_win_cost_* when it has them, else measured on a window the size of the planned ones
 * (256 KiB to 8 MiB), rated at the risk the planned windows run on this host; the joins then run
 * with it as if given. */
static void pick_window(join_session *js)
{
    if (js->o.window != WIN_AUTO) return;
    const model_params *p = &js->model.p;
    double given[WIN_FLAVORS];
    const int keys[WIN_FLAVORS] = {MP_t_win_cost_allocate, MP_t_win_cost_create, MP_t_win_cost_create_huge};
    bool all = js->model.on;
    for (int f = 0; f < WIN_FLAVORS; f++) {
        all = all && p->set[keys[f]];
        given[f] = all ? params_get(p, keys[f]) : 0;
    }
    uint64_t mine = 0, bytes = 0;
    for (int a = 0; a < js->nalgos; a++)
        if ((uint64_t)js->plans[a].window_bytes > mine) mine = (uint64_t)js->plans[a].window_bytes;
    /* one size on every rank: the probe's windows are mapped by their host peers (the get design's
     * window follows each rank's slice) */
    MPI_CHECK(js->ctx.rank, MPI_Allreduce(&mine, &bytes, 1, MPI_UINT64_T, MPI_MAX, js->ctx.comm));
    rma_window_pick_flavor(&js->ctx, all ? given : NULL, bytes, &js->window_pick);
    js->window_auto = true;
    js->o.window = js->window_pick.chosen;
}

/* R and S of the session's workload into their memory, and the expected matches and checksum; the
 * slowest rank's seconds (on rank 0). */
static double fill(join_session *js)
{
    const workload *w = &js->wl;
    double t0 = rmb_now(), t, slowest = 0;
    uint64_t mine[2]; /* this rank's expected matches and checksum, from the generator's draws */
    generate_r(w, js->r);
    generate_s_expected(w, js->s, mine);
    numa_placement_check(js->r, w->r_n * sizeof(tuple_t)); /* where the generated relations went */
    numa_placement_check(js->s, w->s_n * sizeof(tuple_t));
    join_expected(&js->ctx, mine, js->expected);
    t = rmb_now() - t0;
    MPI_CHECK(js->ctx.rank, MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, js->ctx.comm));
    return slowest;
}

/* Generate: R and S of this rank, and the expected matches and checksum (not timed as a join phase). */
static void generate(join_session *js)
{
    const workload *w = &js->wl;
    double t0 = rmb_now(), t;
    js->r = mem_alloc_large(w->r_n * sizeof(tuple_t));
    js->s = mem_alloc_large(w->s_n * sizeof(tuple_t));
    if (!js->r || !js->s) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the relations (%" PRIu64 " + %" PRIu64 " tuples)\n",
                js->ctx.rank, w->r_n, w->s_n);
        MPI_Abort(js->ctx.comm, 2);
    }
    fill(js);
    t = rmb_now() - t0;
    MPI_CHECK(js->ctx.rank, MPI_Reduce(&t, &js->t_generate, 1, MPI_DOUBLE, MPI_MAX, 0, js->ctx.comm));
}

/* Collective: the machine's state the runs meet (rma/floor.h), between rank 0 and the next rank of
 * its host; not with one rank there, nor with ranks that share cores (they would spin against each
 * other). A regime of the machine the rows record beside the phases (where a hypervisor places the virtual
 * CPUs moves every cache-line transfer), not a cost of the join. */
static void measure_floor(join_session *js)
{
    const bench_ctx *ctx = &js->ctx;
    js->floor_peer = bench_rank_on_host(ctx, ctx->rank_host[0], 1);
    js->floor_us = js->floor_peer > 0 ? rma_floor_round_trip_us(ctx->comm, 0, js->floor_peer, !ctx->any_poll_yield) : -1;
}

void join_next_query(join_session *js, int q)
{
    const join_opts *o = &js->o;
    /* the same shape (sizes, ratio, selectivity, skew: the same plan and memory), other keys */
    workload_init(&js->wl, js->wl.r_total, (int)o->ratio, o->selectivity, o->skew, (uint64_t)o->seed + (uint64_t)q,
                  js->ctx.rank, js->ctx.size, o->uneven);
    js->query = q;
    join_report_query(js, fill(js));
}

void join_setup(join_session *js, int argc, char **argv)
{
    memset(js, 0, sizeof *js);
    parse_flags(js, argc, argv);
    provenance_command_line(argc, argv, js->command, sizeof js->command);
    js->own_mpi = bench_mpi_init(&argc, &argv);
    bench_ctx_init(&js->ctx, MPI_COMM_WORLD);
    wait_bound_start(&js->ctx, (double)js->o.wait_bound_s); /* no phase waits on a stopped rank for ever */
    plan_run(js);
    /* bad input is judged first, then placement: the policy holds for every large allocation from here on */
    numa_report_init(&js->ctx, js->o.numa, js->o.verbose, &js->numa);
    js->o.numa = js->numa.policy;
    pick_window(js);        /* before R and S take their memory, as the roofline */
    rma_window_held_restart(); /* the joins' windows from now on, not the pick's probes */
    js->flush_auto = js->o.flush == RMA_FLUSH_AUTO;
    js->o.flush = rma_flush_resolve(js->o.flush, js->ctx.any_poll_yield, &js->flush_why);
    join_roofline_init(js);
    measure_floor(js);
    generate(js);
}

void join_teardown(join_session *js)
{
    mem_free_large(js->r, js->wl.r_n * sizeof(tuple_t));
    mem_free_large(js->s, js->wl.s_n * sizeof(tuple_t));
    numa_report_free(&js->numa);
    rma_window_pool_drain(); /* --window-life pool, dynamic */
    bench_ctx_free(&js->ctx);
    if (js->own_mpi) MPI_Finalize();
}
