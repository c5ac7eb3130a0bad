/* The setup of `rmabench lock`: flags, MPI, roles (servers and agents over hosts), the lock space
 * of the workload, the memory estimate, placement and the operator's communication. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "bench/ranges.h"
#include "bench/version.h"
#include "cmd/lock/lock_cmd.h"
#include "cmd/results_schema.h"

/* Collective: servers and agents, the workload's lock space, the memory of balances and histograms. */
static void plan_roles(lock_session *ls)
{
    bench_ctx *ctx = &ls->ctx;
    const lock_opts *o = &ls->o;
    if (ctx->size < 2) bench_usage_error(ctx, "lock: needs at least 2 ranks (one lock server and one agent)");
    int nservers = o->servers ? (int)o->servers : ctx->size / 2;
    if (nservers >= ctx->size)
        bench_usage_error(ctx, "--servers: %d of %d ranks leaves no transaction agent", nservers, ctx->size);
    lock_roles_init(&ls->roles, ctx, nservers);
    char err[512];
    ls->roles.lock_space = lock_workload_ops(o->workload)->lock_space(o, &ls->roles, err, sizeof err);
    if (ls->roles.lock_space == 0) bench_usage_error(ctx, "%s", err);
    /* balances on servers, per-account deltas everywhere (bank), latency histograms */
    bool bank = o->workload == WL_BANK;
    int64_t need = 2 * (int64_t)LAT_BUCKETS * 8;
    if (bank) need += (int64_t)lock_server_range(&ls->roles) * 8 + 2 * o->accounts * 8;
    mem_check_or_exit(ctx, need, bank ? "--accounts" : "--locks-per-server");
}

void lock_setup(lock_session *ls, int argc, char **argv)
{
    memset(ls, 0, sizeof *ls);
    lock_parse_opts(&ls->o, argc, argv);
    char err[512];
    if (ls->o.output && record_check_path(&results_schema, ls->o.output, err, sizeof err))
        opt_usage_error("--output: %s", err);
    lock_compare_load(&ls->model, ls->o.model, bench_env_rank()); /* a bad file exits 2 before MPI */
    provenance_command_line(argc, argv, ls->command, sizeof ls->command);

    ls->own_mpi = bench_mpi_init(&argc, &argv);
    bench_ctx_init(&ls->ctx, MPI_COMM_WORLD);
    /* blocking flushes to a rank that stopped would hang under MPICH: bounded like every wait */
    blocking_watchdog_start(ls->ctx.rank, (double)ls->o.wait_bound_s);
    numa_report_init(&ls->ctx, ls->o.numa, ls->o.verbose, &ls->numa); /* mailboxes, receive buffers, data window */
    ls->o.numa = ls->numa.policy;
    plan_roles(ls);
    lock_run_open(&ls->run, &ls->ctx, &ls->o, &ls->roles, &ls->ep, &ls->data, &ls->wl);
}

void lock_teardown(lock_session *ls)
{
    lock_roles_free(&ls->roles);
    numa_report_free(&ls->numa);
    bench_ctx_free(&ls->ctx);
    if (ls->own_mpi) MPI_Finalize();
}

void lock_report_header(const lock_session *ls)
{
    if (ls->ctx.rank != 0) return;
    const lock_opts *o = &ls->o;
    const bench_ctx *ctx = &ls->ctx;
    const lock_roles *roles = &ls->roles;
    printf("# rmabench lock: workload %s, %d server(s), %d agent(s), transport %s", workload_kind_names[o->workload],
           roles->nservers, roles->nagents, notify_transport_names[o->transport]);
    if (o->transport == NOTIFY_RMA) printf(" (poll %s)", notify_poll_names[ls->ep.poll]);
    printf(", deadlock %s", deadlock_policy_names[o->deadlock]);
    if (o->deadlock == DL_TIMEOUT) printf(" (%g ms)", o->lock_timeout * 1e3);
    printf(", seed %" PRId64 "\n", o->seed);
    printf("# ");
    bench_ctx_print_placement(ctx, stdout, o->verbose);
    printf("; %s; commit %s\n", ctx->mpi_library, RMB_GIT_COMMIT);
    printf("# lock space %" PRIu64 " ids; locality: %s\n", roles->lock_space,
           roles->one_host ? "one host, so agent i and server i mod servers stand for one machine" : "by host");
    printf("# lock servers at ranks");
    printf(" ");
    ranges_print(stdout, roles->server_rank, roles->nservers, o->verbose ? roles->nservers : 4);
    printf("; wait bound %" PRId64 " s\n", o->wait_bound_s);
    numa_report_print_header(&ls->numa);
    fflush(stdout);
}
