/* `rmabench lock`: the distributed lock table (thesis chapter 5). Lock-server ranks and
 * transaction-agent ranks run a workload for a duration or a number of transactions per agent;
 * the run prints throughput, the latency breakdowns of thesis Fig. 5.6 and an invariant check
 * (`verification: PASS|FAIL`), and appends one CSV row with --output. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "locking/lock.h"
#include "cmd/lock/lock_compare.h"
#include "bench/memory.h"
#include "bench/numa_topology.h"
#include "bench/options.h"
#include "bench/phases.h"
#include "bench/record.h"
#include "locking/twopc.h"
#include "bench/version.h"
#include "rma/window.h"
#include "locking/workloads/registry.h"

const char *const workload_kind_names[] = {"synthetic", "tpcc", "trace", "bank", "deadlock", NULL};
const char *const isolation_names[] = {"serializable", "read-committed", NULL};

double lat_quantile_us(const uint64_t *hist, double q)
{
    uint64_t total = 0, seen = 0;
    for (int b = 0; b < LAT_BUCKETS; b++) total += hist[b];
    if (!total) return -1;
    for (int b = 0; b < LAT_BUCKETS; b++) {
        seen += hist[b];
        if ((double)seen >= q * (double)total) {
            if (b < LAT_FINE) return (b * 10.0 + 5.0) / 1000.0;
            if (b < LAT_BUCKETS - 1) return 100.0 + (b - LAT_FINE) + 0.5;
            return 10000.0;
        }
    }
    return -1;
}

/* --- options ----------------------------------------------------------------------------------- */

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

_Noreturn static void input_error(const char *fmt, const char *a)
{
    if (bench_env_rank() == 0) {
        fprintf(stderr, "rmabench: ");
        fprintf(stderr, fmt, a);
        fputc('\n', stderr);
    }
    exit(2);
}

static void parse_opts(lock_opts *o, int argc, char **argv)
{
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
        {"isolation", OPT_CHOICE, &o->isolation, "tpcc isolation level", 0, 0, isolation_names, NULL},
        {"warehouses", OPT_INT, &o->warehouses, "tpcc warehouses (0 = 2 per server)", 0, 1e6, NULL, NULL},
        {"trace", OPT_STRING, &o->trace, "lock trace file for --workload trace", 0, 0, NULL, NULL},
        {"accounts", OPT_COUNT, &o->accounts, "bank accounts (few: contention)", 2, 1e9, NULL, NULL},
        {"output", OPT_STRING, &o->output, "append one CSV row to this file", 0, 0, NULL, NULL},
        {"model", OPT_STRING, &o->model, "model parameter file: predicted vs measured transaction time and throughput (eq. 5.3, Table 5.1)", 0, 0, NULL, NULL},
        {"numa", OPT_CHOICE, &o->numa, "memory placement of mailboxes and data: local, interleave or off (auto: local on multi-node hosts)", 0, 0, numa_policy_names, NULL},
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
    if (rc == OPT_ERROR) input_error("%s", err);
    if (seen_duration && seen_tpa) input_error("--duration: give either --duration or --transactions-per-agent%s", "");
    if (o->workload == WL_TRACE && !o->trace) input_error("--workload: trace needs --trace FILE%s", "");
    if (o->trace && o->workload != WL_TRACE) input_error("--trace: only with --workload trace%s", "");
    if (o->trace && access(o->trace, R_OK) != 0) input_error("--trace: %s: cannot read", o->trace);
    if (!lock_workload_ops(o->workload))
        input_error("--workload: %s is not built into this rmabench (its generator has not landed)",
                    workload_kind_names[o->workload]);
}

static void command_line(int argc, char **argv, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < argc; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
    }
}

/* --- statistics -------------------------------------------------------------------------------- */

enum { AU_COMMITTED, AU_ABORTED, AU_REQS, AU_REMOTE, AU_REFUSED, AU_TWOPC, AU_VOTES_NO, AU_N };
enum { AD_LOCK, AD_DATA, AD_VOTE, AD_END, AD_REQ_TOTAL, AD_REQ_QUEUE, AD_REQ_SERVER, AD_ELAPSED, AD_N };
enum { SU_REQUESTS, SU_GRANTED_NOW, SU_WAITED, SU_REFUSED, SU_TIMEOUTS, SU_DIES, SU_UPGRADES, SU_UPGRADE_REFUSALS,
       SU_INVARIANT, SU_MESSAGES, SU_VOTES_YES, SU_VOTES_NO, SU_ENDS, SU_LOCKS_LEFT, SU_TXNS_LEFT, SU_N };

int lock_main(int argc, char **argv)
{
    lock_opts o;
    default_opts(&o);
    parse_opts(&o, argc, argv);
    char err[512];
    if (o.output && record_check_path(o.output, err, sizeof err)) input_error("--output: %s", err);
    lock_model_ctx lm; /* --model: a bad file exits 2 here, before MPI ("--model: FILE:LINE: reason") */
    lock_compare_load(&lm, o.model, bench_env_rank());

    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    /* blocking flushes to a rank that stopped would hang under MPICH: bounded like every wait */
    blocking_watchdog_start(ctx.rank, (double)o.wait_bound_s);
    /* numa (bench/numa_policy.h): policy for the mailboxes, receive buffers and data window */
    numa_report numa;
    numa_report_init(&ctx, o.numa, &numa);
    o.numa = numa.policy;
    if (ctx.size < 2) bench_usage_error(&ctx, "lock: needs at least 2 ranks (one lock server and one agent)");
    int nservers = o.servers ? (int)o.servers : ctx.size / 2;
    if (nservers >= ctx.size)
        bench_usage_error(&ctx, "--servers: %d of %d ranks leaves no transaction agent", nservers, ctx.size);
    lock_roles roles;
    lock_roles_init(&roles, &ctx, nservers);
    const wl_ops *wops = lock_workload_ops(o.workload);
    roles.lock_space = wops->lock_space(&o, &roles, err, sizeof err);
    if (roles.lock_space == 0) bench_usage_error(&ctx, "%s", err);
    bool bank = o.workload == WL_BANK;

    /* memory: balances on servers, per-account deltas everywhere (bank), latency histograms */
    int64_t need = 2 * (int64_t)LAT_BUCKETS * 8;
    uint64_t my_range = roles.i_am_server ? lock_range_lo(&roles, roles.my_index + 1) - lock_range_lo(&roles, roles.my_index) : 0;
    if (bank) need += (int64_t)my_range * 8 + 2 * o.accounts * 8;
    mem_check_or_exit(&ctx, need, bank ? "--accounts" : "--locks-per-server");

    /* communication: mailboxes, vote words, data */
    notify_ep ep;
    notify_open(&ep, ctx.world, (notify_transport)o.transport, (notify_poll_mode)o.notify_poll,
                roles.i_am_server ? roles.nagents : 1, (int)sizeof(lock_msg), ctx.oversubscribed);
    lock_run run = {&ctx, &o, &roles, &ep, MPI_WIN_NULL, NULL, MPI_WIN_NULL, NULL, ep.poll, MPI_COMM_NULL, 0};
    if (o.transport == NOTIFY_MSG) run.poll = notify_poll_resolve((notify_poll_mode)o.notify_poll);
    MPI_CHECK(ctx.rank, MPI_Win_allocate(64, 1, MPI_INFO_NULL, ctx.world, &run.vote_base, &run.vote_win));
    MPI_Win_set_errhandler(run.vote_win, MPI_ERRORS_RETURN);
    memset(run.vote_base, 0, 64);
    MPI_CHECK(ctx.rank, MPI_Win_lock_all(MPI_MODE_NOCHECK, run.vote_win));
    rma_window data;
    if (bank) {
        rma_window_alloc(&data, my_range * sizeof(int64_t), WIN_ALLOCATE, ctx.world);
        run.data_win = data.win;
        run.data_base = data.base;
        for (uint64_t i = 0; i < my_range; i++) run.data_base[i] = BANK_INITIAL_BALANCE;
        rma_window_lock_all(&data);
        MPI_CHECK(ctx.rank, MPI_Win_sync(data.win));
    }
    MPI_CHECK(ctx.rank, MPI_Comm_split(ctx.world, roles.i_am_server, ctx.rank, &run.agent_comm));

    /* the workload, on agents (a bad trace file fails every rank with exit 2) */
    lock_workload wl = {wops, NULL};
    int bad = 0, any_bad = 0;
    if (!roles.i_am_server) {
        wl.state = wops->open(&o, &roles, roles.my_index, err, sizeof err);
        if (!wl.state) {
            fprintf(stderr, "rmabench: %s\n", err);
            bad = 1;
        }
    }
    MPI_CHECK(ctx.rank, MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, ctx.world));
    if (any_bad) {
        MPI_Finalize();
        exit(2);
    }

    char command[1024];
    command_line(argc, argv, command, sizeof command);
    if (ctx.rank == 0) {
        printf("# rmabench lock: workload %s, %d server(s), %d agent(s), transport %s", workload_kind_names[o.workload],
               roles.nservers, roles.nagents, notify_transport_names[o.transport]);
        if (o.transport == NOTIFY_RMA) printf(" (poll %s)", notify_poll_names[ep.poll]);
        printf(", deadlock %s", deadlock_policy_names[o.deadlock]);
        if (o.deadlock == DL_TIMEOUT) printf(" (%g ms)", o.lock_timeout * 1e3);
        printf(", seed %" PRId64 "\n", o.seed);
        printf("# ranks %d on %d host(s), %d per host (%s); %s; commit %s\n", ctx.size, ctx.hosts, ctx.ranks_per_host,
               ctx.hostnames, ctx.mpi_library, RMB_GIT_COMMIT);
        printf("# lock space %" PRIu64 " ids; locality: %s\n", roles.lock_space,
               roles.one_host ? "one host, so agent i and server i mod servers stand for one machine" : "by host");
        printf("# lock servers at ranks");
        for (int s = 0; s < roles.nservers; s++) printf("%s%d", s ? "," : " ", roles.server_rank[s]);
        printf("; wait bound %" PRId64 " s\n", o.wait_bound_s);
        numa_report_print_header(&numa);
        fflush(stdout);
    }

    uint64_t *hist = calloc(LAT_BUCKETS, sizeof *hist);
    int64_t *delta = bank ? calloc((size_t)o.accounts, sizeof *delta) : NULL;
    agent_stats ast;
    server_stats sst;
    memset(&ast, 0, sizeof ast);
    memset(&sst, 0, sizeof sst);
    MPI_CHECK(ctx.rank, MPI_Barrier(ctx.world));
    if (roles.i_am_server) lock_server_run(&run, &sst);
    else lock_agent_run(&run, &wl, &ast, hist, delta);
    MPI_CHECK(ctx.rank, MPI_Barrier(ctx.world));
    if (wl.state) wops->close(wl.state);

    /* reduce */
    uint64_t au[AU_N] = {ast.committed, ast.aborted, ast.lock_requests, ast.remote_requests, ast.refused, ast.twopc,
                         ast.votes_no}, aus[AU_N];
    double ad[AD_N] = {ast.t_lock, ast.t_data, ast.t_vote, ast.t_end, ast.t_req_total, ast.t_req_queue,
                       ast.t_req_server, ast.elapsed}, ads[AD_N];
    uint64_t su[SU_N] = {sst.lt.requests, sst.lt.granted_now, sst.lt.waited, sst.lt.refused, sst.lt.timeouts,
                         sst.lt.dies, sst.lt.upgrades, sst.lt.upgrade_refusals, sst.lt.invariant_failures,
                         sst.messages, sst.votes_yes, sst.votes_no, sst.ends, sst.active_locks_end,
                         sst.active_txns_end}, sus[SU_N];
    double elapsed = 0;
    uint64_t *hist_sum = calloc(LAT_BUCKETS, sizeof *hist_sum);
    MPI_CHECK(ctx.rank, MPI_Reduce(au, aus, AU_N, MPI_UINT64_T, MPI_SUM, 0, ctx.world));
    MPI_CHECK(ctx.rank, MPI_Reduce(ad, ads, AD_N, MPI_DOUBLE, MPI_SUM, 0, ctx.world));
    MPI_CHECK(ctx.rank, MPI_Reduce(su, sus, SU_N, MPI_UINT64_T, MPI_SUM, 0, ctx.world));
    MPI_CHECK(ctx.rank, MPI_Reduce(&ast.elapsed, &elapsed, 1, MPI_DOUBLE, MPI_MAX, 0, ctx.world));
    MPI_CHECK(ctx.rank, MPI_Reduce(hist, hist_sum, LAT_BUCKETS, MPI_UINT64_T, MPI_SUM, 0, ctx.world));

    /* bank: every account moved exactly by its committed transfers, and the sum is unchanged */
    uint64_t bank_bad[2] = {0, 0}, bank_bad_sum[2] = {0, 0};
    int64_t sum_local = 0, sum = 0;
    if (bank) {
        int64_t *total = calloc((size_t)o.accounts, sizeof *total);
        MPI_CHECK(ctx.rank, MPI_Allreduce(delta, total, (int)o.accounts, MPI_INT64_T, MPI_SUM, ctx.world));
        if (roles.i_am_server) {
            MPI_CHECK(ctx.rank, MPI_Win_sync(data.win));
            uint64_t lo = lock_range_lo(&roles, roles.my_index);
            for (uint64_t i = 0; i < my_range; i++) {
                sum_local += run.data_base[i];
                if (run.data_base[i] != BANK_INITIAL_BALANCE + total[lo + i]) {
                    if (bank_bad[0]++ < 3)
                        fprintf(stderr, "rmabench: rank %d: account %" PRIu64 " holds %" PRId64 ", committed transfers say %" PRId64 "\n",
                                ctx.rank, lo + i, run.data_base[i], BANK_INITIAL_BALANCE + total[lo + i]);
                }
            }
        }
        MPI_CHECK(ctx.rank, MPI_Reduce(bank_bad, bank_bad_sum, 2, MPI_UINT64_T, MPI_SUM, 0, ctx.world));
        MPI_CHECK(ctx.rank, MPI_Reduce(&sum_local, &sum, 1, MPI_INT64_T, MPI_SUM, 0, ctx.world));
        free(total);
    }

    /* windows and mailboxes go before the numa report, so that their placement checks count */
    if (bank) rma_window_free(&data);
    notify_close(&ep);
    numa_report_run(&ctx, &numa);

    int exit_code = 0;
    if (ctx.rank == 0) {
        uint64_t txns = aus[AU_COMMITTED] + aus[AU_ABORTED];
        double per_txn = txns ? 1e6 / (double)txns : 0, per_req = aus[AU_REQS] ? 1e6 / (double)aus[AU_REQS] : 0;
        double t_rtt = ads[AD_REQ_TOTAL] - ads[AD_REQ_QUEUE] - ads[AD_REQ_SERVER];
        double median = lat_quantile_us(hist_sum, 0.5);
        double el = elapsed > 0 ? elapsed : 1e-9;
        bool inv_ok = sus[SU_INVARIANT] == 0 && sus[SU_LOCKS_LEFT] == 0 && sus[SU_TXNS_LEFT] == 0;
        bool bank_ok = !bank || (bank_bad_sum[0] == 0 && sum == o.accounts * BANK_INITIAL_BALANCE);
        bool pass = inv_ok && bank_ok;
        exit_code = pass ? 0 : 1;
        printf("committed: %" PRIu64 " (%.1f txn/s)\n", aus[AU_COMMITTED], aus[AU_COMMITTED] / el);
        printf("aborted: %" PRIu64 " (%.1f txn/s; %" PRIu64 " refused lock requests, %" PRIu64 " no votes)\n",
               aus[AU_ABORTED], aus[AU_ABORTED] / el, aus[AU_REFUSED], aus[AU_VOTES_NO]);
        printf("lock requests: %" PRIu64 " (%.0f requests/s), %.2f locks/txn, remote share %.3f, 2PC transactions %" PRIu64 "\n",
               aus[AU_REQS], aus[AU_REQS] / el, txns ? (double)aus[AU_REQS] / (double)txns : 0,
               aus[AU_REQS] ? (double)aus[AU_REMOTE] / (double)aus[AU_REQS] : 0, aus[AU_TWOPC]);
        printf("transaction latency (us, mean): lock acquisition %.3f, data access %.3f, vote %.3f, end of transaction %.3f\n",
               ads[AD_LOCK] * per_txn, ads[AD_DATA] * per_txn, ads[AD_VOTE] * per_txn, ads[AD_END] * per_txn);
        printf("lock request latency (us, mean): round trip %.3f, waiting group %.3f, server processing %.3f, total %.3f\n",
               t_rtt * per_req, ads[AD_REQ_QUEUE] * per_req, ads[AD_REQ_SERVER] * per_req, ads[AD_REQ_TOTAL] * per_req);
        printf("lock request round trip: median %.3f us (p90 %.3f, p99 %.3f)\n", median, lat_quantile_us(hist_sum, 0.9),
               lat_quantile_us(hist_sum, 0.99));
        printf("servers: %" PRIu64 " messages, %" PRIu64 " granted at once, %" PRIu64 " waited, %" PRIu64
               " refused (%" PRIu64 " timeouts, %" PRIu64 " wait-die, %" PRIu64 " upgrades refused of %" PRIu64 ")\n",
               sus[SU_MESSAGES], sus[SU_GRANTED_NOW], sus[SU_WAITED], sus[SU_REFUSED], sus[SU_TIMEOUTS], sus[SU_DIES],
               sus[SU_UPGRADE_REFUSALS], sus[SU_UPGRADES]);
        printf("invariants: %s (%" PRIu64 " violations%s, %" PRIu64 " locks and %" PRIu64 " transactions left at the end)\n",
               inv_ok ? "ok" : "BROKEN", sus[SU_INVARIANT], o.check_invariants ? "" : ", per-grant check off",
               sus[SU_LOCKS_LEFT], sus[SU_TXNS_LEFT]);
        if (bank)
            printf("bank: sum of balances %" PRId64 " (expected %" PRId64 "), %" PRIu64 " accounts differ from their committed transfers\n",
                   sum, o.accounts * BANK_INITIAL_BALANCE, bank_bad_sum[0]);
        numa_report_print_run(&numa);
        printf("verification: %s\n", pass ? "PASS" : "FAIL");

        /* --model: eq. 5.3 for what the agents really did (their mean locks per transaction and
         * remote share); measured t_tx is an agent's mean time per transaction (aborted ones too,
         * as in the model's agents / t_tx), measured throughput the committed transactions. */
        record *rec = o.output ? record_new() : NULL;
        lock_compare(&lm,
                     &(lock_model_input){
                         .agents = roles.nagents,
                         .locks_per_txn = txns ? (double)aus[AU_REQS] / (double)txns : (double)o.locks_per_txn,
                         .remote_prob = aus[AU_REQS] ? (double)aus[AU_REMOTE] / (double)aus[AU_REQS] : o.remote_prob,
                         .single_host = ctx.hosts == 1,
                         .measured_t_tx_us = txns ? ads[AD_ELAPSED] * per_txn : 0,
                         .measured_throughput = aus[AU_COMMITTED] / el,
                     },
                     rec);
        fflush(stdout);

        if (rec) {
            char ts[32];
            bench_timestamp(ts, sizeof ts);
            record_set(rec, "timestamp", "%s", ts);
            record_set(rec, "bench", "lock");
            record_set(rec, "status", "ok");
            record_set(rec, "exit_code", "%d", exit_code);
            const char *job = getenv("SLURM_JOB_ID");
            record_set(rec, "job_id", "%s", job ? job : "");
            record_set(rec, "git_commit", "%s", RMB_GIT_COMMIT);
            record_set(rec, "mpi_library", "%s", ctx.mpi_library);
            record_set(rec, "mpi_version", "%s", ctx.mpi_version);
            record_set(rec, "hosts", "%d", ctx.hosts);
            record_set(rec, "ranks", "%d", ctx.size);
            record_set(rec, "ranks_per_host", "%d", ctx.ranks_per_host);
            record_set(rec, "hostnames", "%s", ctx.hostnames);
            record_set(rec, "seed", "%" PRId64, o.seed);
            record_set(rec, "command", "%s", command);
            record_set(rec, "workload", "%s", workload_kind_names[o.workload]);
            record_set(rec, "servers", "%d", roles.nservers);
            record_set(rec, "agents", "%d", roles.nagents);
            record_set(rec, "transport", "%s", notify_transport_names[o.transport]);
            record_set(rec, "deadlock", "%s", deadlock_policy_names[o.deadlock]);
            record_set(rec, "lock_timeout", "%g", o.lock_timeout);
            record_set(rec, "remote_prob", "%g", o.remote_prob);
            if (o.workload == WL_SYNTHETIC) record_set(rec, "locks_per_txn", "%" PRId64, o.locks_per_txn);
            if (o.workload == WL_TPCC) {
                record_set(rec, "isolation", "%s", isolation_names[o.isolation]);
                record_set(rec, "warehouses", "%" PRId64, o.warehouses);
            }
            if (bank) record_set(rec, "accounts", "%" PRId64, o.accounts);
            if (o.transactions_per_agent) record_set(rec, "transactions_per_agent", "%" PRId64, o.transactions_per_agent);
            else record_set(rec, "duration", "%g", o.duration);
            record_set(rec, "vote_no_prob", "%g", o.vote_no_prob);
            record_set(rec, "committed", "%" PRIu64, aus[AU_COMMITTED]);
            record_set(rec, "aborted", "%" PRIu64, aus[AU_ABORTED]);
            record_set(rec, "commits_per_s", "%.1f", aus[AU_COMMITTED] / el);
            record_set(rec, "aborts_per_s", "%.1f", aus[AU_ABORTED] / el);
            record_set(rec, "throughput", "%.1f", aus[AU_COMMITTED] / el);
            record_set(rec, "lock_requests_per_s", "%.1f", aus[AU_REQS] / el);
            record_set(rec, "locks_per_txn_measured", "%.3f", txns ? (double)aus[AU_REQS] / (double)txns : 0);
            record_set(rec, "remote_share", "%.4f", aus[AU_REQS] ? (double)aus[AU_REMOTE] / (double)aus[AU_REQS] : 0);
            record_set(rec, "twopc_txns", "%" PRIu64, aus[AU_TWOPC]);
            record_set(rec, "lat_txn_lock_us", "%.4f", ads[AD_LOCK] * per_txn);
            record_set(rec, "lat_txn_data_us", "%.4f", ads[AD_DATA] * per_txn);
            record_set(rec, "lat_txn_vote_us", "%.4f", ads[AD_VOTE] * per_txn);
            record_set(rec, "lat_txn_end_us", "%.4f", ads[AD_END] * per_txn);
            record_set(rec, "lat_req_rtt_us", "%.4f", t_rtt * per_req);
            record_set(rec, "lat_req_rtt_median_us", "%.4f", median);
            record_set(rec, "lat_req_queue_us", "%.4f", ads[AD_REQ_QUEUE] * per_req);
            record_set(rec, "lat_req_server_us", "%.4f", ads[AD_REQ_SERVER] * per_req);
            record_set(rec, "timeouts", "%" PRIu64, sus[SU_TIMEOUTS]);
            record_set(rec, "verification", "%s", pass ? "PASS" : "FAIL");
            numa_report_columns(&numa, rec);
            if (record_append(rec, o.output, err, sizeof err)) {
                fprintf(stderr, "rmabench: --output: %s\n", err);
                exit_code = 2;
            }
            record_free(rec);
        }
    }
    MPI_CHECK(ctx.rank, MPI_Bcast(&exit_code, 1, MPI_INT, 0, ctx.world));

    free(hist);
    free(hist_sum);
    free(delta);
    MPI_CHECK(ctx.rank, MPI_Win_unlock_all(run.vote_win));
    MPI_CHECK(ctx.rank, MPI_Win_free(&run.vote_win));
    MPI_Comm_free(&run.agent_comm);
    lock_roles_free(&roles);
    numa_report_free(&numa);
    bench_ctx_free(&ctx);
    MPI_Finalize();
    return exit_code;
}
