/* The flags of `rmabench lock`, in groups (common, then the workload flags grouped by the workloads
 * that read them, as their descriptors say: locking/workloads/registry.h), and their checks. A flag
 * the chosen workload or deadlock policy would ignore is refused, naming both; only flags given
 * count. MPI-free (parsed before MPI_Init). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/numa_policy.h"
#include "bench/options.h"
#include "bench/text_input.h"
#include "cmd/lock/lock_cmd.h"
#include "locking/workloads/tpcc.h"
#include "model/params.h"

/* Which flags were given. */
typedef struct {
    bool duration, tpa, remote_prob, vote_no_prob, locks_per_txn, locks_per_server, lock_timeout;
    bool isolation, warehouses, trace, accounts;
    bool ranks, ranks_per_host, output, model;
} lock_seen;

static void default_opts(lock_opts *o)
{
    memset(o, 0, sizeof *o);
    o->workload = 0; /* the first of the registry, synthetic */
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

/* A workload flag: the bit the workloads' descriptors read it by, and its option. */
typedef struct {
    unsigned bit;
    const char *metavar; /* what a workload that needs it is told to give: "--trace FILE" */
    opt_spec spec;
} workload_flag;
enum { NFLAGS = 7 };

/* --help's groups of the workload flags, from the descriptors: a heading ("synthetic and bank
 * (--workload synthetic|bank)") before each run of flags with the same readers. */
static void workload_groups(const workload_flag *f, opt_spec *out, char (*heading)[256])
{
    int k = 0;
    char prev[96] = "";
    for (int i = 0; i < NFLAGS; i++) {
        char who[96], bar[96];
        lock_workload_readers(f[i].bit, ", ", " and ", who, sizeof who);
        if (i == 0 || strcmp(who, prev) != 0) {
            lock_workload_readers(f[i].bit, "|", "|", bar, sizeof bar);
            snprintf(heading[i], sizeof heading[i], "%s (--workload %s)", who, bar);
            out[k++] = (opt_spec){heading[i], OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL};
            snprintf(prev, sizeof prev, "%s", who);
        }
        out[k++] = f[i].spec;
    }
    out[k] = (opt_spec)OPT_END;
}

/* "(bank: 0.5 unless given)": the workloads whose descriptor sets another default than 0. */
static void default_note(char *buf, size_t len, const char *what, bool vote)
{
    snprintf(buf, len, "%s", what);
    for (int i = 0; lock_workloads[i]; i++) {
        double v = vote ? lock_workloads[i]->vote_no_prob : lock_workloads[i]->remote_prob;
        size_t n = strlen(buf);
        if (v != 0) snprintf(buf + n, len - n, " (%s: %g unless given)", lock_workloads[i]->name, v);
    }
}

/* The workload flags the chosen workload does not read, or needs and lacks. */
static void check_workload_flags(const lock_opts *o, const workload_flag *f)
{
    const wl_desc *d = lock_workload_of(o);
    for (int i = 0; i < NFLAGS; i++)
        if ((d->needs & f[i].bit) && !*f[i].spec.seen)
            opt_usage_error("--workload: %s needs --%s %s", d->name, f[i].spec.name, f[i].metavar);
    for (int i = 0; i < NFLAGS; i++) {
        if (!*f[i].spec.seen || (d->reads & f[i].bit)) continue;
        char who[96];
        lock_workload_readers(f[i].bit, ", ", " and ", who, sizeof who);
        opt_usage_error("--%s: --workload %s ignores it (%s only)", f[i].spec.name, d->name, who);
    }
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

/* --trace: opened once before MPI_Init (bench/text_input.h: a regular file, or one line naming why
 * not: a FIFO would block every rank), then read by the workload after it. */
static void check_trace(const char *path)
{
    if (!path) return;
    char err[600];
    FILE *f = text_open(path, err, sizeof err);
    if (!f) opt_usage_error("--trace: %s", err);
    fclose(f);
}

/* The texts of --help that name workloads, from their descriptors. */
typedef struct {
    char workload[256], remote_prob[160], vote_no_prob[160];
    char heading[NFLAGS][256];
} lock_help;

static void help_from_workloads(lock_help *h)
{
    h->workload[0] = 0;
    for (int i = 0; lock_workloads[i]; i++) {
        const wl_desc *d = lock_workloads[i];
        size_t n = strlen(h->workload);
        snprintf(h->workload + n, sizeof h->workload - n, "%s%s%s%s%s", i == 0 ? "" : lock_workloads[i + 1] ? ", " : " or ",
                 d->name, d->purpose ? " (" : "", d->purpose ? d->purpose : "", d->purpose ? ")" : "");
    }
    default_note(h->remote_prob, sizeof h->remote_prob, "probability that a lock is on a remote server", false);
    default_note(h->vote_no_prob, sizeof h->vote_no_prob, "probability that a server votes no in 2PC", true);
}

/* The workload flags in --help's order. */
static void workload_flags(lock_opts *o, lock_seen *seen, const lock_help *help, workload_flag *f)
{
    const workload_flag table[NFLAGS] = {
        {WL_FLAG_REMOTE_PROB, "P",
         {"remote-prob", OPT_DOUBLE, &o->remote_prob, help->remote_prob, 0, 1, NULL, &seen->remote_prob}},
        {WL_FLAG_LOCKS_PER_TXN, "N",
         {"locks-per-txn", OPT_INT, &o->locks_per_txn, "mean locks per transaction", 1, LOCK_TXN_MAX / 2, NULL,
          &seen->locks_per_txn}},
        {WL_FLAG_LOCKS_PER_SERVER, "N",
         {"locks-per-server", OPT_COUNT, &o->locks_per_server, "lock ids per server", 1, 1e15, NULL, &seen->locks_per_server}},
        {WL_FLAG_ACCOUNTS, "N",
         {"accounts", OPT_COUNT, &o->accounts, "bank accounts (few: contention)", 2, 1e9, NULL, &seen->accounts}},
        {WL_FLAG_ISOLATION, "LEVEL",
         {"isolation", OPT_CHOICE, &o->isolation, "isolation level", 0, 0, tpcc_isolation_names, &seen->isolation}},
        {WL_FLAG_WAREHOUSES, "N",
         {"warehouses", OPT_INT, &o->warehouses,
          "warehouses (0 = 2 per server, more when needed to give every agent its own home warehouse)", 0, 1e6, NULL,
          &seen->warehouses}},
        {WL_FLAG_TRACE, "FILE",
         {"trace", OPT_STRING, &o->trace, "lock trace file (rmabench lock-trace)", 0, 0, NULL, &seen->trace}},
    };
    memcpy(f, table, sizeof table);
}

/* Checks between flags, after parsing. */
static void check_opts(const lock_opts *o, const lock_seen *seen, const workload_flag *flags)
{
    const wl_desc *d = lock_workload_of(o);
    if (seen->duration && seen->tpa) opt_usage_error("--duration: give either --duration or --transactions-per-agent");
    check_workload_flags(o, flags);
    if (d->fixed_length && (seen->duration || seen->tpa))
        opt_usage_error("--%s: --workload %s %s", seen->duration ? "duration" : "transactions-per-agent", d->name,
                        d->fixed_length);
    if (seen->lock_timeout && o->deadlock != DL_TIMEOUT)
        opt_usage_error("--lock-timeout: --deadlock %s ignores it (timeout only)", deadlock_policy_names[o->deadlock]);
    /* a workload that reads --remote-prob takes every lock on a local server at 0: no 2PC, no vote */
    if (seen->vote_no_prob && (d->reads & WL_FLAG_REMOTE_PROB) && o->remote_prob == 0)
        opt_usage_error("--vote-no-prob: --remote-prob 0 runs no 2PC, so no server votes");
    check_trace(o->trace);
}

void lock_parse_opts(lock_opts *o, params_overrides *sets, int argc, char **argv)
{
    lock_help texts, *help = &texts;
    help_from_workloads(help);
    default_opts(o);
    lock_seen seen = {0};
    const char *set_help = NULL; /* --help only: params_take_sets takes every --set before opt_parse */
    const opt_spec common[] = {
        {"common flags", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"workload", OPT_CHOICE, &o->workload, help->workload, 0, 0, lock_workload_names(), NULL},
        {"servers", OPT_INT, &o->servers, "lock-server ranks (0 = half of the ranks)", 0, 1e6, NULL, NULL},
        {"duration", OPT_DURATION, &o->duration, "run time of every agent", 1e-3, 86400, NULL, &seen.duration},
        {"transactions-per-agent", OPT_COUNT, &o->transactions_per_agent, "transactions per agent (instead of --duration)", 1, 1e12, NULL, &seen.tpa},
        {"transport", OPT_CHOICE, &o->transport, "rma: notified puts; msg: MPI_Isend / pre-posted MPI_Irecv; rdmo: composite remote operations, a lock request and the read of its row in one, a commit's writes and the release in one (locking/rdmo_link.h)", 0, 0, lock_transport_names, NULL},
        {"notify-poll", OPT_CHOICE, &o->notify_poll, "how targets poll mailboxes (rma) and the 2PC vote and acknowledgement words (both transports): Win_sync + loads, MPI_Fetch_and_op(NO_OP), or MPI_Iprobe + loads (auto: load on Open MPI, probe elsewhere)", 0, 0, notify_poll_names, NULL},
        {"notify-shm", OPT_CHOICE, &o->notify_shm, "rma: senders on the target's host store into its MPI_Win_allocate_shared mailbox (stores, MPI_Win_sync, C11 atomic notification) instead of MPI_Put + MPI_Accumulate, and 2PC votes and acknowledgements are atomic adds there; off: the RMA path between every pair (auto: both measured at startup between rank 0 and the next rank of its host, the library's default (on, off with Open MPI) kept unless the other is over 10% faster; the default unmeasured when ranks share cores)", 0, 0, notify_shm_names, NULL},
        {"deadlock", OPT_CHOICE, &o->deadlock, "timeout (bounded wait), nowait or waitdie", 0, 0, deadlock_policy_names, NULL},
        {"lock-timeout", OPT_DURATION, &o->lock_timeout, "--deadlock timeout only: longest wait at the head of a waiting group", 1e-6, 3600, NULL, &seen.lock_timeout},
        {"vote-no-prob", OPT_DOUBLE, &o->vote_no_prob, help->vote_no_prob, 0, 1, NULL, &seen.vote_no_prob},
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
    workload_flag flags[NFLAGS];
    opt_spec per_workload[2 * NFLAGS + 1];
    workload_flags(o, &seen, help, flags);
    workload_groups(flags, per_workload, help->heading);
    const opt_spec plan[] = {
        {"plan without running (--plan)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"plan", OPT_BOOL, &o->plan, "print the plan of this run at --ranks (servers, agents, mailboxes, lock table bound, memory per rank and host, whether it fits this host) and exit; no MPI, no mpirun", 0, 0, NULL, NULL},
        {"ranks", OPT_INT, &o->plan_ranks, "--plan: ranks of the run (required)", 1, 1e7, NULL, &seen.ranks},
        {"ranks-per-host", OPT_INT, &o->plan_ranks_per_host, "--plan: ranks per host, in blocks (default: --ranks, one host)", 1, 1e7, NULL, &seen.ranks_per_host},
        OPT_END,
    };
    const opt_spec *tables[] = {common, per_workload, plan, NULL};
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
    if (!seen.remote_prob) o->remote_prob = lock_workload_of(o)->remote_prob;
    if (!seen.vote_no_prob) o->vote_no_prob = lock_workload_of(o)->vote_no_prob;
    check_opts(o, &seen, flags);
    check_plan(o, &seen);
    if (sets->n && !seen.model) opt_usage_error("--set: only with --model (it overrides a model parameter)");
}
