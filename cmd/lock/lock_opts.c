/* The flags of `rmabench lock`, in groups (common, then per workload), and their checks. A flag the
 * chosen workload or deadlock policy would ignore is refused, naming both; only flags given count.
 * MPI-free (parsed before MPI_Init). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/numa_policy.h"
#include "bench/options.h"
#include "cmd/lock/lock_cmd.h"
#include "locking/workloads/tpcc.h"
#include "model/params.h"

/* bank is the correctness workload: unless told otherwise it runs 2PC and sees no votes */
#define BANK_REMOTE_PROB 0.5
#define BANK_VOTE_NO_PROB 0.1

/* Which flags were given. */
typedef struct {
    bool duration, tpa, remote_prob, vote_no_prob, locks_per_txn, locks_per_server, lock_timeout;
    bool isolation, warehouses, trace, accounts;
    bool ranks, ranks_per_host, output, model;
} lock_seen;

static void default_opts(lock_opts *o)
{
    memset(o, 0, sizeof *o);
    o->workload = WL_SYNTHETIC;
    o->duration = 1.0;
    o->locks_per_txn = 10;
    o->locks_per_server = 1000000;
    o->transport = NOTIFY_RMA;
    o->notify_poll = NOTIFY_POLL_AUTO;
    o->notify_shm = NOTIFY_SHM_AUTO;
    o->deadlock = DL_TIMEOUT;
    o->lock_timeout = 0.1;
    o->accounts = 1000;
    o->seed = 42;
    o->check = true;
    o->wait_bound_s = 60;
}

/* `flag` given, but the workload does not read it: one line naming both. */
static void only_with(bool given, const char *flag, const lock_opts *o, const char *which)
{
    if (given)
        opt_usage_error("--%s: --workload %s ignores it (%s only)", flag, workload_kind_names[o->workload], which);
}

/* --plan and its placement (the same flags and meaning as `rmabench join --plan`). */
static void check_plan(lock_opts *o, const lock_seen *seen)
{
    if (!o->plan) {
        if (seen->ranks || seen->ranks_per_host)
            opt_usage_error("--%s: only with --plan (a run takes its ranks from mpirun)",
                            seen->ranks ? "ranks" : "ranks-per-host");
        return;
    }
    if (!seen->ranks) opt_usage_error("--ranks: required with --plan");
    if (seen->output) opt_usage_error("--output: --plan runs nothing, so it writes no row");
    if (seen->model) opt_usage_error("--model: --plan runs nothing to compare with the model");
    if (!seen->ranks_per_host) o->plan_ranks_per_host = o->plan_ranks; /* one host */
    if (o->plan_ranks_per_host > o->plan_ranks)
        opt_usage_error("--ranks-per-host: %" PRId64 " is more than --ranks %" PRId64, o->plan_ranks_per_host,
                        o->plan_ranks);
}

/* Checks between flags, after parsing. */
static void check_opts(const lock_opts *o, const lock_seen *seen)
{
    int w = o->workload;
    if (seen->duration && seen->tpa) opt_usage_error("--duration: give either --duration or --transactions-per-agent");
    if (w == WL_TRACE && !o->trace) opt_usage_error("--workload: trace needs --trace FILE");
    if (!lock_workload_ops(w)) opt_usage_error("--workload: %s is not built into this rmabench", workload_kind_names[w]);
    if (w != WL_SYNTHETIC) {
        only_with(seen->locks_per_txn, "locks-per-txn", o, "synthetic");
        only_with(seen->locks_per_server, "locks-per-server", o, "synthetic");
    }
    if (w != WL_SYNTHETIC && w != WL_BANK) only_with(seen->remote_prob, "remote-prob", o, "synthetic and bank");
    if (w != WL_TPCC) {
        only_with(seen->isolation, "isolation", o, "tpcc");
        only_with(seen->warehouses, "warehouses", o, "tpcc");
    }
    if (w != WL_TRACE) only_with(seen->trace, "trace", o, "trace");
    if (w != WL_BANK) only_with(seen->accounts, "accounts", o, "bank");
    if (w == WL_DEADLOCK && (seen->duration || seen->tpa))
        opt_usage_error("--%s: --workload deadlock runs one transaction per agent",
                        seen->duration ? "duration" : "transactions-per-agent");
    if (seen->lock_timeout && o->deadlock != DL_TIMEOUT)
        opt_usage_error("--lock-timeout: --deadlock %s ignores it (timeout only)", deadlock_policy_names[o->deadlock]);
    /* synthetic and bank take every lock on a local server at --remote-prob 0: no 2PC, no vote */
    if (seen->vote_no_prob && (w == WL_SYNTHETIC || w == WL_BANK) && o->remote_prob == 0)
        opt_usage_error("--vote-no-prob: --remote-prob 0 runs no 2PC, so no server votes");
    if (o->trace && access(o->trace, R_OK) != 0) opt_usage_error("--trace: %s: cannot read", o->trace);
}

void lock_parse_opts(lock_opts *o, params_overrides *sets, int argc, char **argv)
{
    default_opts(o);
    lock_seen seen = {0};
    const char *set_help = NULL; /* --help only: params_take_sets takes every --set before opt_parse */
    const opt_spec common[] = {
        {"common flags", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"workload", OPT_CHOICE, &o->workload, "synthetic (benchmark), tpcc, trace, bank (correctness) or deadlock (test: 2 agents)", 0, 0, workload_kind_names, NULL},
        {"servers", OPT_INT, &o->servers, "lock-server ranks (0 = half of the ranks)", 0, 1e6, NULL, NULL},
        {"duration", OPT_DURATION, &o->duration, "run time of every agent", 1e-3, 86400, NULL, &seen.duration},
        {"transactions-per-agent", OPT_COUNT, &o->transactions_per_agent, "transactions per agent (instead of --duration)", 1, 1e12, NULL, &seen.tpa},
        {"transport", OPT_CHOICE, &o->transport, "rma: notified puts; msg: MPI_Isend / pre-posted MPI_Irecv; rdmo: composite remote operations, a lock request and the read of its row in one, a commit's writes and the release in one (locking/rdmo_link.h)", 0, 0, lock_transport_names, NULL},
        {"notify-poll", OPT_CHOICE, &o->notify_poll, "how targets poll mailboxes (rma) and the 2PC vote and acknowledgement words (both transports): Win_sync + loads, MPI_Fetch_and_op(NO_OP), or MPI_Iprobe + loads (auto: load on Open MPI, probe elsewhere)", 0, 0, notify_poll_names, NULL},
        {"notify-shm", OPT_CHOICE, &o->notify_shm, "rma: senders on the target's host store into its MPI_Win_allocate_shared mailbox (stores, MPI_Win_sync, C11 atomic notification) instead of MPI_Put + MPI_Accumulate, and 2PC votes and acknowledgements are atomic adds there; off: the RMA path between every pair (auto: both measured at startup between rank 0 and the next rank of its host, the library's default (on, off with Open MPI) kept unless the other is over 10% faster; the default unmeasured when ranks share cores)", 0, 0, notify_shm_names, NULL},
        {"deadlock", OPT_CHOICE, &o->deadlock, "timeout (bounded wait), nowait or waitdie", 0, 0, deadlock_policy_names, NULL},
        {"lock-timeout", OPT_DURATION, &o->lock_timeout, "--deadlock timeout only: longest wait at the head of a waiting group", 1e-6, 3600, NULL, &seen.lock_timeout},
        {"vote-no-prob", OPT_DOUBLE, &o->vote_no_prob, "probability that a server votes no in 2PC (bank: 0.1 unless given)", 0, 1, NULL, &seen.vote_no_prob},
        {"output", OPT_STRING, &o->output, "append one CSV row to this file", 0, 0, NULL, &seen.output},
        {"model", OPT_STRING, &o->model, "model parameter file: predicted vs measured transaction time and throughput (eq. 5.3, Table 5.1)", 0, 0, NULL, &seen.model},
        {"set", OPT_STRING, &set_help, "NAME=VALUE: override a --model parameter (repeatable, units as in the file, as rmamodel --set)", 0, 0, NULL, NULL},
        {"numa", OPT_CHOICE, &o->numa, "memory placement of mailboxes and data (auto: local on multi-node hosts, else off)", 0, 0, numa_policy_names, NULL},
        OPT_VERBOSE(&o->verbose),
        {"seed", OPT_INT, &o->seed, "workload and vote seed", 0, 9.2e18, NULL, NULL},
        {"check", OPT_BOOL, &o->check, "check every grant against the oracle's ledger of granted locks (--no-check: only the end-of-run, 2PC and Table 2.1 checks)", 0, 0, NULL, NULL},
        {"wait-bound", OPT_INT, &o->wait_bound_s, "seconds any blocking wait may take before the run is aborted", 1, 86400, NULL, NULL},
        OPT_END,
    };
    const opt_spec synthetic[] = {
        {"synthetic and bank (--workload synthetic|bank)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"remote-prob", OPT_DOUBLE, &o->remote_prob, "probability that a lock is on a remote server (bank: 0.5 unless given)", 0, 1, NULL, &seen.remote_prob},
        {"synthetic (--workload synthetic)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"locks-per-txn", OPT_INT, &o->locks_per_txn, "mean locks per transaction", 1, LOCK_TXN_MAX / 2, NULL, &seen.locks_per_txn},
        {"locks-per-server", OPT_COUNT, &o->locks_per_server, "lock ids per server", 1, 1e15, NULL, &seen.locks_per_server},
        OPT_END,
    };
    const opt_spec per_workload[] = {
        {"bank (--workload bank)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"accounts", OPT_COUNT, &o->accounts, "bank accounts (few: contention)", 2, 1e9, NULL, &seen.accounts},
        {"tpcc (--workload tpcc)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"isolation", OPT_CHOICE, &o->isolation, "isolation level", 0, 0, tpcc_isolation_names, &seen.isolation},
        {"warehouses", OPT_INT, &o->warehouses, "warehouses (0 = 2 per server, more when needed to give every agent its own home warehouse)", 0, 1e6, NULL, &seen.warehouses},
        {"trace (--workload trace)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"trace", OPT_STRING, &o->trace, "lock trace file (rmabench lock-trace)", 0, 0, NULL, &seen.trace},
        OPT_END,
    };
    const opt_spec plan[] = {
        {"plan without running (--plan)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"plan", OPT_BOOL, &o->plan, "print the plan of this run at --ranks (servers, agents, mailboxes, lock table bound, memory per rank and host, whether it fits this host) and exit; no MPI, no mpirun", 0, 0, NULL, NULL},
        {"ranks", OPT_INT, &o->plan_ranks, "--plan: ranks of the run (required)", 1, 1e7, NULL, &seen.ranks},
        {"ranks-per-host", OPT_INT, &o->plan_ranks_per_host, "--plan: ranks per host, in blocks (default: --ranks, one host)", 1, 1e7, NULL, &seen.ranks_per_host},
        OPT_END,
    };
    const opt_spec *tables[] = {common, synthetic, per_workload, plan, NULL};
    char err[512];
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    if (!rest) opt_usage_error("out of memory");
    int n = params_take_sets(argc, argv, 2, rest, sets, err, sizeof err);
    if (n < 0) opt_usage_error("%s", err);
    int rc = opt_parse(tables, n, rest, 2, err, sizeof err);
    free(rest); /* opt_parse kept pointers to argv's strings */
    if (rc == OPT_HELP) {
        if (bench_env_rank() == 0) opt_usage("rmabench lock [flags]", tables);
        exit(0);
    }
    if (rc == OPT_ERROR) opt_usage_error("%s", err);
    if (o->workload == WL_BANK && !seen.remote_prob) o->remote_prob = BANK_REMOTE_PROB;
    if (o->workload == WL_BANK && !seen.vote_no_prob) o->vote_no_prob = BANK_VOTE_NO_PROB;
    check_opts(o, &seen);
    check_plan(o, &seen);
    if (sets->n && !seen.model) opt_usage_error("--set: only with --model (it overrides a model parameter)");
}
