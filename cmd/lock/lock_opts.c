/* The flags of `rmabench lock` and their checks; MPI-free (parsed before MPI_Init). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/numa_policy.h"
#include "bench/options.h"
#include "cmd/lock/lock_cmd.h"
#include "locking/workloads/tpcc.h"

static void default_opts(lock_opts *o)
{
    memset(o, 0, sizeof *o);
    o->workload = WL_SYNTHETIC;
    o->duration = 1.0;
    o->locks_per_txn = 10;
    o->locks_per_server = 1000000;
    o->transport = NOTIFY_RMA;
    o->notify_poll = NOTIFY_POLL_AUTO;
    o->deadlock = DL_TIMEOUT;
    o->lock_timeout = 0.1;
    o->accounts = 1000;
    o->seed = 42;
    o->wait_bound_s = 60;
}

/* Checks between flags, after parsing. */
static void check_opts(const lock_opts *o, bool seen_duration, bool seen_tpa)
{
    if (seen_duration && seen_tpa) opt_usage_error("--duration: give either --duration or --transactions-per-agent");
    if (o->workload == WL_TRACE && !o->trace) opt_usage_error("--workload: trace needs --trace FILE");
    if (o->trace && o->workload != WL_TRACE) opt_usage_error("--trace: only with --workload trace");
    if (o->trace && access(o->trace, R_OK) != 0) opt_usage_error("--trace: %s: cannot read", o->trace);
    if (!lock_workload_ops(o->workload))
        opt_usage_error("--workload: %s is not built into this rmabench", workload_kind_names[o->workload]);
}

void lock_parse_opts(lock_opts *o, int argc, char **argv)
{
    default_opts(o);
    bool seen_duration = false, seen_tpa = false;
    const opt_spec specs[] = {
        {"workload", OPT_CHOICE, &o->workload, "synthetic, tpcc, trace, bank (correctness) or deadlock (test: 2 agents)", 0, 0, workload_kind_names, NULL},
        {"servers", OPT_INT, &o->servers, "lock-server ranks (0 = half of the ranks)", 0, 1e6, NULL, NULL},
        {"duration", OPT_DURATION, &o->duration, "run time of every agent", 1e-3, 86400, NULL, &seen_duration},
        {"transactions-per-agent", OPT_COUNT, &o->transactions_per_agent, "transactions per agent (instead of --duration)", 1, 1e12, NULL, &seen_tpa},
        {"remote-prob", OPT_DOUBLE, &o->remote_prob, "probability that a lock is on a remote server", 0, 1, NULL, NULL},
        {"locks-per-txn", OPT_INT, &o->locks_per_txn, "synthetic: mean locks per transaction", 1, LOCK_TXN_MAX / 2, NULL, NULL},
        {"locks-per-server", OPT_COUNT, &o->locks_per_server, "synthetic: lock ids per server", 1, 1e15, NULL, NULL},
        {"transport", OPT_CHOICE, &o->transport, "rma: notified puts; msg: MPI_Isend / pre-posted MPI_Irecv", 0, 0, notify_transport_names, NULL},
        {"notify-poll", OPT_CHOICE, &o->notify_poll, "how targets poll: Win_sync + loads, MPI_Fetch_and_op(NO_OP), or MPI_Iprobe + loads (auto: load on Open MPI, probe elsewhere)", 0, 0, notify_poll_names, NULL},
        {"deadlock", OPT_CHOICE, &o->deadlock, "timeout (bounded wait), nowait or waitdie", 0, 0, deadlock_policy_names, NULL},
        {"lock-timeout", OPT_DURATION, &o->lock_timeout, "--deadlock timeout: longest wait at the head of a waiting group", 1e-6, 3600, NULL, NULL},
        {"vote-no-prob", OPT_DOUBLE, &o->vote_no_prob, "probability that a server votes no in 2PC", 0, 1, NULL, NULL},
        {"isolation", OPT_CHOICE, &o->isolation, "tpcc isolation level", 0, 0, tpcc_isolation_names, NULL},
        {"warehouses", OPT_INT, &o->warehouses, "tpcc warehouses (0 = 2 per server)", 0, 1e6, NULL, NULL},
        {"trace", OPT_STRING, &o->trace, "lock trace file for --workload trace", 0, 0, NULL, NULL},
        {"accounts", OPT_COUNT, &o->accounts, "bank accounts (few: contention)", 2, 1e9, NULL, NULL},
        {"output", OPT_STRING, &o->output, "append one CSV row to this file", 0, 0, NULL, NULL},
        {"model", OPT_STRING, &o->model, "model parameter file: predicted vs measured transaction time and throughput (eq. 5.3, Table 5.1)", 0, 0, NULL, NULL},
        {"numa", OPT_CHOICE, &o->numa, "memory placement of mailboxes and data (auto: local on multi-node hosts, else off)", 0, 0, numa_policy_names, NULL},
        {"seed", OPT_INT, &o->seed, "workload seed", 0, 9.2e18, NULL, NULL},
        {"check-invariants", OPT_BOOL, &o->check_invariants, "after every grant, assert that no two incompatible modes are granted", 0, 0, NULL, NULL},
        {"wait-bound", OPT_INT, &o->wait_bound_s, "seconds any blocking wait may take before the run is aborted", 1, 86400, NULL, NULL},
        OPT_END,
    };
    const opt_spec *tables[] = {specs, NULL};
    char err[512];
    int rc = opt_parse(tables, argc, argv, 2, err, sizeof err);
    if (rc == OPT_HELP) {
        if (bench_env_rank() == 0) opt_usage("rmabench lock [flags]", tables);
        exit(0);
    }
    if (rc == OPT_ERROR) opt_usage_error("%s", err);
    check_opts(o, seen_duration, seen_tpa);
}
