/* What `rmabench lock` prints after a run (rank 0): throughput, the latency breakdowns of thesis
 * Fig. 5.6 (per transaction and per lock request), what the servers did, what was checked and what
 * it found (the oracle's grants, Table 2.1, 2PC votes, what was left at the end), the bank check and
 * the verdict. */
#include <inttypes.h>
#include <stdio.h>

#include "bench/host_steal.h"
#include "cmd/lock/lock_cmd.h"

lock_figures lock_figures_of(const lock_totals *t)
{
    const agent_stats *a = &t->agents;
    lock_figures f;
    f.txns = a->committed + a->aborted;
    f.elapsed = t->elapsed > 0 ? t->elapsed : 1e-9;
    f.per_txn_us = f.txns ? 1e6 / (double)f.txns : 0;
    f.per_req_us = a->lock_requests ? 1e6 / (double)a->lock_requests : 0;
    f.t_rtt = a->t_req_total - a->t_req_queue - a->t_req_server;
    f.locks_per_txn = f.txns ? (double)a->lock_requests / (double)f.txns : 0;
    f.remote_share = a->lock_requests ? (double)a->remote_requests / (double)a->lock_requests : 0;
    f.median_rtt_us = lat_quantile_us(t->rtt_hist, 0.5);
    return f;
}

static void print_agents(const lock_session *ls, const lock_totals *t, const lock_figures *f)
{
    const agent_stats *a = &t->agents;
    printf("committed: %" PRIu64 " (%.1f txn/s)\n", a->committed, a->committed / f->elapsed);
    printf("aborted: %" PRIu64 " (%.1f txn/s; %" PRIu64 " refused lock requests, %" PRIu64 " no votes)\n", a->aborted,
           a->aborted / f->elapsed, a->refused, a->votes_no);
    printf("lock requests: %" PRIu64 " (%.0f requests/s), %.2f locks/txn, remote share %.3f, 2PC transactions %" PRIu64 "\n",
           a->lock_requests, a->lock_requests / f->elapsed, f->locks_per_txn, f->remote_share, a->twopc);
    printf("transaction latency (us, mean): lock acquisition %.3f, data access %.3f, vote %.3f, end of transaction %.3f\n",
           a->t_lock * f->per_txn_us, a->t_data * f->per_txn_us, a->t_vote * f->per_txn_us, a->t_end * f->per_txn_us);
    printf("lock request latency (us, mean): round trip %.3f, waiting group %.3f, server processing %.3f, total %.3f\n",
           f->t_rtt * f->per_req_us, a->t_req_queue * f->per_req_us, a->t_req_server * f->per_req_us,
           a->t_req_total * f->per_req_us);
    printf("lock request round trip: median %.3f us (p90 %.3f, p99 %.3f)\n", f->median_rtt_us,
           lat_quantile_us(t->rtt_hist, 0.9), lat_quantile_us(t->rtt_hist, 0.99));
    uint64_t txns = a->committed + a->aborted;
    printf("data access (%s, per transaction): %.1f B read, %.1f B written; 2PC participants: "
           "mean %.2f, most %" PRIu64 "\n",
           ls->o.transport == LOCK_TRANSPORT_RDMO ? "with the grants and the ends" : "MPI_Get/MPI_Put",
           txns ? (double)a->data_bytes_read / (double)txns : 0.0,
           txns ? (double)a->data_bytes_written / (double)txns : 0.0,
           a->twopc ? (double)a->twopc_participants / (double)a->twopc : 0.0, a->twopc_participants_max);
}

static void print_servers(const lock_totals *t)
{
    const server_stats *s = &t->servers;
    printf("servers: %" PRIu64 " messages (%" PRIu64 " ends of transaction, %" PRIu64 " of them with the next request), %" PRIu64
           " granted at once, %" PRIu64 " waited, %" PRIu64 " refused (%" PRIu64 " timeouts, %" PRIu64 " wait-die, %" PRIu64
           " upgrades refused of %" PRIu64 ")\n",
           s->messages, s->ends, s->ends_with_request, s->lt.granted_now, s->lt.waited, s->lt.refused, s->lt.timeouts, s->lt.dies,
           s->lt.upgrade_refusals, s->lt.upgrades);
}

/* What was checked, and what it found (locking/lock_verify.h). */
static void print_invariants(const lock_opts *o, const lock_totals *t, lock_verdict v)
{
    const server_stats *s = &t->servers;
    const oracle_stats *q = &s->oracle;
    printf("invariants: %s (", v.invariants_ok ? "ok" : "BROKEN");
    if (o->check)
        printf("%" PRIu64 " grants checked by the oracle, %" PRIu64 " conflicts", q->grants_checked, q->conflicts);
    else
        printf("grants not checked (--no-check)");
    printf("; lock_compatible() disagrees with Table 2.1 on %" PRIu64 " of 36 pairs", q->table_mismatches);
    printf("; 2PC votes audited: %" PRIu64 ", commits after a no vote %" PRIu64 " (servers) and %" PRIu64
           " (agents), votes never ended %" PRIu64, q->votes, q->commits_after_no, t->agents.commits_against_vote,
           q->votes_never_ended);
    printf("; left at the end: %" PRIu64 " locks and %" PRIu64 " transactions in the lock tables (%" PRIu64
           " lock entries dropped with a granted count), %" PRIu64 " locks and %" PRIu64 " transactions in the oracle's ledger)\n",
           s->active_locks_end, s->active_txns_end, s->lt.counter_leaks, q->ledger_locks_end, q->ledger_txns_end);
    if (lock_workload_of(o)->data == WL_DATA_BALANCES)
        printf("bank: sum of balances %" PRId64 " (expected %" PRId64 "), %" PRIu64 " accounts differ from their committed transfers\n",
               t->bank_sum, o->accounts * BANK_INITIAL_BALANCE, t->bank_accounts_wrong);
}

/* Where the waits went beyond the spin: a sleep can return long after the answer came (the timer
 * slack, rma/notify.h), so a share of sleeping that is not small is a share of the round trips
 * that are that much slower. */
static void print_backoff(const lock_session *ls, const lock_figures *f)
{
    const char *who[2] = {"agents", "servers"};
    const int n[2] = {ls->roles.nagents, ls->roles.nservers};
    printf("backoff (polls past the spin):");
    for (int r = 0; r < 2; r++) {
        const notify_backoff *b = &ls->backoff[r];
        printf("%s %s yielded %" PRIu64 " and slept %" PRIu64 " times (%.1f ms, %.2f%% of their run time)", r ? ";" : "",
               who[r], b->yields, b->sleeps, 1e3 * b->slept_s, n[r] ? 100 * b->slept_s / (f->elapsed * n[r]) : 0.0);
    }
    printf("\n");
}

void lock_report_run(const lock_session *ls, const lock_totals *t, const lock_figures *f, lock_verdict v)
{
    if (ls->ctx.rank != 0) return;
    print_agents(ls, t, f);
    const wl_desc *wl = lock_workload_of(&ls->o);
    if (wl->print_types) wl->print_types(&t->agents, f->elapsed); /* per transaction type (tpcc) */
    print_servers(t);
    print_invariants(&ls->o, t, v);
    print_backoff(ls, f);
    host_steal_print(stdout, ls->steal);
    host_run_delay_print(stdout, ls->run_delay);
    numa_report_print_run(&ls->numa);
    printf("verification: %s\n", v.pass ? "PASS" : "FAIL");
    fflush(stdout);
}
