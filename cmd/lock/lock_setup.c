/* The setup of `rmabench lock`: flags, MPI, roles (servers and agents over hosts), the lock space
 * of the workload, the memory estimate, placement and the operator's communication. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "bench/ranges.h"
#include "bench/version.h"
#include "cmd/lock/lock_cmd.h"
#include "cmd/results_schema.h"
#include "locking/rdmo_link.h"
#include "rma/floor.h"

/* Collective: the plan of this run (servers and agents, the workload's lock space, mailboxes,
 * memory: locking/lock_plan.h, as --plan prints it), refused on every rank together. */
static void plan_run(lock_session *ls)
{
    bench_ctx *ctx = &ls->ctx;
    char err[512];
    if (lock_plan_make(&ls->plan, &ls->roles, &ls->o, ctx, err, sizeof err)) bench_usage_error(ctx, "%s", err);
    mem_check_or_exit(ctx, (int64_t)(ls->roles.i_am_server ? ls->plan.server_bytes : ls->plan.agent_bytes),
                      lock_plan_memory_flag(&ls->o));
}

/* Collective: the largest mailbox of a server and of an agent as allocated, for the CSV row. */
static void measure_mailboxes(lock_session *ls)
{
    bool server = ls->roles.i_am_server;
    const uint64_t box = ls->run.rdmo ? (server ? ls->plan.server_mailbox : ls->plan.agent_mailbox) : ls->ep.mailbox_bytes;
    uint64_t mine[2] = {server ? box : 0, server ? 0 : box};
    MPI_CHECK(ls->ctx.rank, MPI_Reduce(mine, ls->mailbox_bytes, 2, MPI_UINT64_T, MPI_MAX, 0, ls->ctx.comm));
    ls->notify_shm = ls->run.rdmo ? NULL : notify_shm_state(&ls->ep, notify_shm_resolve((notify_shm_mode)ls->o.notify_shm));
}

/* Collective: the hardware's floor under a lock request within a host (rma/floor.h), between the
 * first server and the first agent; not with ranks that share cores (they would spin against each
 * other), nor across hosts. */
static void measure_floor(lock_session *ls)
{
    const lock_roles *r = &ls->roles;
    ls->floor_us = r->nagents > 0 && r->nservers > 0
                       ? rma_floor_round_trip_us(ls->ctx.comm, r->server_rank[0], r->agent_rank[0], !ls->ctx.any_poll_yield)
                       : -1;
}

void lock_setup(lock_session *ls, int argc, char **argv)
{
    memset(ls, 0, sizeof *ls);
    params_overrides sets;
    lock_parse_opts(&ls->o, &sets, argc, argv);
    if (ls->o.plan) exit(lock_plan_print(&ls->o)); /* before MPI: no ranks are started */
    char err[512];
    if (ls->o.output && record_check_path(&results_schema, ls->o.output, err, sizeof err))
        opt_usage_error("--output: %s", err);
    lock_compare_load(&ls->model, ls->o.model, &sets, bench_env_rank()); /* a bad file or --set exits 2 before MPI */
    provenance_command_line(argc, argv, ls->command, sizeof ls->command);

    ls->own_mpi = bench_mpi_init(&argc, &argv);
    bench_ctx_init(&ls->ctx, MPI_COMM_WORLD);
    /* blocking flushes to a rank that stopped would hang under MPICH: bounded like every wait */
    wait_bound_start(&ls->ctx, (double)ls->o.wait_bound_s);
    numa_report_init(&ls->ctx, ls->o.numa, ls->o.verbose, &ls->numa); /* mailboxes, receive buffers, data window */
    ls->o.numa = ls->numa.policy;
    plan_run(ls); /* refuses bad input before anything is measured; auto plans the larger mailbox */
    /* --notify-shm auto: the faster mailbox on this system (rma/notify_pick.h) */
    /* (rdmo: no mailbox to choose; the 2PC words still take the library's default) */
    notify_shm_choose(&ls->ctx, (notify_shm_mode)ls->o.notify_shm,
                      ls->o.transport == LOCK_TRANSPORT_RDMO ? NOTIFY_MSG : (notify_transport)ls->o.transport,
                      (notify_poll_mode)ls->o.notify_poll, (int)sizeof(lock_msg), &ls->shm_pick);
    ls->o.notify_shm = ls->shm_pick.shm ? NOTIFY_SHM_ON : NOTIFY_SHM_OFF;
    lock_run_open(&ls->run, &ls->ctx, &ls->o, &ls->roles, &ls->plan, &ls->ep, &ls->data, &ls->wl);
    measure_mailboxes(ls);
    measure_floor(ls);
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
    printf("# rmabench lock: workload %s, %d server(s), %d agent(s), transport %s", lock_workload_of(o)->name,
           roles->nservers, roles->nagents, lock_transport_names[o->transport]);
    if (o->transport == LOCK_TRANSPORT_RDMO)
        printf(" (design rdmo: %d B request slots, poll %s)", LOCK_RDMO_SLOT_BYTES, notify_poll_names[ls->run.poll]);
    if (o->transport == NOTIFY_RMA) {
        char how[160] = "";
        if (!ls->shm_pick.measured && strcmp(ls->shm_pick.source, "given") != 0)
            snprintf(how, sizeof how, ", --notify-shm auto: %s", ls->shm_pick.source);
        printf(" (poll %s; shared-memory mailbox within a host: %s%s)", notify_poll_names[ls->ep.poll], ls->notify_shm, how);
    }
    printf(", deadlock %s", deadlock_policy_names[o->deadlock]);
    if (o->deadlock == DL_TIMEOUT) printf(" (%g ms)", o->lock_timeout * 1e3);
    printf(", seed %" PRId64 "\n", o->seed);
    printf("# ");
    bench_ctx_print_placement(ctx, stdout, o->verbose);
    printf("; %s; commit %s\n", ctx->mpi_library, RMB_GIT_COMMIT);
    printf("# ");
    bench_ctx_print_environment(ctx, stdout);
    printf("\n");
    if (ls->shm_pick.measured) {
        char how[160];
        notify_shm_pick_describe(&ls->shm_pick, how, sizeof how);
        printf("# notify-shm auto: %s (%s; the other path only when %.0f%% faster than the library's default)\n",
               ls->shm_pick.shm ? "on" : "off", how, NOTIFY_PICK_MARGIN * 100);
    }
    if (ls->floor_us >= 0)
        printf("# floor: a cache-line round trip between server rank %d and agent rank %d through shared memory: %.3f us "
               "(C11 stores and loads, no MPI; rma/floor.h)\n", roles->server_rank[0], roles->agent_rank[0], ls->floor_us);
    else
        printf("# floor: not measured (server 0 and agent 0 on different hosts, ranks sharing cores, not running at once, or no shared window)\n");
    printf("# lock space %" PRIu64 " ids; locality: %s\n", roles->lock_space,
           roles->one_host ? "one host, so agent i and server i mod servers stand for one machine" : "by host");
    printf("# lock servers at ranks");
    printf(" ");
    ranges_print(stdout, roles->server_rank, roles->nservers, o->verbose ? roles->nservers : 4);
    printf("; wait bound %" PRId64 " s\n", o->wait_bound_s);
    numa_report_print_header(&ls->numa);
    fflush(stdout);
}
