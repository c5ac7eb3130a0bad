/* `rmabench lock`: the distributed lock table (thesis chapter 5). Lock-server ranks and
 * transaction-agent ranks run a workload for a duration or a number of transactions per agent;
 * the run prints throughput, the latency breakdowns of thesis Fig. 5.6 and its verification
 * (`verification: PASS|FAIL`), and appends one CSV row with --output. The phases of the command:
 * cmd/lock/lock_cmd.h. */
#include <stdlib.h>

#include "bench/host_steal.h"
#include "cmd/commands.h"
#include "cmd/lock/lock_cmd.h"

/* Rank 0: eq. 5.3 for what the agents really did (their mean locks per transaction and remote
 * share); measured t_tx is an agent's mean time per transaction (aborted ones too, as in the
 * model's agents / t_tx), measured throughput the committed transactions. */
static void compare_model(lock_session *ls, const lock_totals *t, const lock_figures *f)
{
    if (ls->ctx.rank != 0) return;
    lock_compare(&ls->model, &(lock_model_input){
                                 .agents = ls->roles.nagents,
                                 .servers = ls->roles.nservers,
                                 .ranks_per_host = ls->ctx.ranks_per_machine, /* namespace hosts share cores */
                                 .locks_per_txn = f->txns ? f->locks_per_txn : (double)ls->o.locks_per_txn,
                                 .remote_prob = t->agents.lock_requests ? f->remote_share : ls->o.remote_prob,
                                 .single_host = ls->ctx.hosts == 1,
                                 .mpi_yields = bench_mpi_yields_when_idle(),
                                 .measured_t_tx_us = f->txns ? t->agents.elapsed * f->per_txn_us : 0,
                                 .measured_throughput = t->agents.committed / f->elapsed,
                                 .measured_floor_us = ls->floor_us,
                             });
}

/* Collective: the pollers' backoff of every rank, summed per role into ls->backoff at rank 0. */
static void reduce_backoff(lock_session *ls, notify_backoff bo)
{
    const int k = ls->roles.i_am_server ? 3 : 0;
    double mine[6] = {0}, sum[6];
    mine[k] = (double)bo.yields;
    mine[k + 1] = (double)bo.sleeps;
    mine[k + 2] = bo.slept_s;
    MPI_CHECK(ls->ctx.rank, MPI_Reduce(mine, sum, 6, MPI_DOUBLE, MPI_SUM, 0, ls->ctx.comm));
    if (ls->ctx.rank != 0) return;
    for (int r = 0; r < 2; r++)
        ls->backoff[r] = (notify_backoff){(uint64_t)sum[3 * r], (uint64_t)sum[3 * r + 1], sum[3 * r + 2]};
}

int lock_main(int argc, char **argv)
{
    lock_session ls;
    lock_setup(&ls, argc, argv);
    lock_report_header(&ls);

    uint64_t *hist = calloc(LAT_BUCKETS, sizeof *hist);
    const bool balances = lock_workload_of(&ls.o)->data == WL_DATA_BALANCES; /* summed per account, checked */
    int64_t *delta = balances ? calloc((size_t)ls.o.accounts, sizeof *delta) : NULL;
    agent_stats ast;
    server_stats sst;
    const host_cpu_sample cpu0 = host_cpu_now();
    notify_backoff_reset();
    lock_run_role(&ls.run, &ls.wl, &ast, &sst, hist, delta);
    const notify_backoff bo = notify_backoff_counts();
    ls.steal = host_steal_since(ls.ctx.comm, cpu0);
    ls.run_delay = host_run_delay_since(ls.ctx.comm, cpu0);
    lock_totals tot;
    lock_run_reduce(&ls.run, &ast, &sst, hist, delta, &tot);
    reduce_backoff(&ls, bo);
    lock_run_close(&ls.run, &ls.data, &ls.wl);
    numa_report_run(&ls.ctx, &ls.numa);

    int exit_code = 0;
    if (ls.ctx.rank == 0) {
        lock_verdict v = lock_verify(&ls.o, &tot);
        lock_figures f = lock_figures_of(&tot);
        exit_code = v.pass ? 0 : 1;
        lock_report_run(&ls, &tot, &f, v);
        compare_model(&ls, &tot, &f);
        exit_code = lock_record_run(&ls, &tot, &f, v, exit_code);
    }
    MPI_CHECK(ls.ctx.rank, MPI_Bcast(&exit_code, 1, MPI_INT, 0, ls.ctx.comm));
    free(hist);
    free(delta);
    lock_totals_free(&tot);
    lock_teardown(&ls);
    return exit_code;
}
