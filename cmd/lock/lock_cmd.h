/* `rmabench lock`, read as its phases:
 *   lock_opts.c     the flags and their checks; MPI-free
 *   lock_plan.c     --plan: the run's plan (locking/lock_plan.h) for any rank count; MPI-free
 *   lock_setup.c    MPI, the plan (roles, mailboxes, the memory check), placement, the operator's
 *                   communication (locking/lock_run.h), the run header
 *   lock_main.c     run every rank's role, reduce, verify (locking/lock_verify.h), report, record
 *   lock_report.c   throughput, latency breakdowns (thesis Fig. 5.6), servers, invariants
 *   lock_record.c   the CSV row (cmd/results_schema.h)
 *   lock_compare.c  --model: eq. 5.3 beside the measured transaction time (Table 5.1) */
#ifndef RMB_LOCK_CMD_H
#define RMB_LOCK_CMD_H
#include "bench/numa_topology.h"
#include "cmd/lock/lock_compare.h"
#include "locking/lock_run.h"
#include "locking/lock_verify.h"
#include "rma/notify_pick.h"

/* Parses argv[2..] into o (defaults first) and the --set overrides of --model into sets (argv is
 * not changed); exits 0 after --help, 2 on bad input. MPI-free. */
void lock_parse_opts(lock_opts *o, params_overrides *sets, int argc, char **argv);
/* --plan: prints the plan for o->plan_ranks ranks; returns the exit code (2: refused, or it does
 * not fit this host's memory, with the line a run would print). MPI-free. */
int lock_plan_print(const lock_opts *o);

typedef struct {
    lock_opts o;
    bench_ctx ctx;
    numa_report numa;
    lock_roles roles;
    lock_plan plan;           /* locking/lock_plan.h: what --plan prints */
    notify_ep ep;
    uint64_t mailbox_bytes[2]; /* rank 0: largest server and agent mailbox as allocated */
    const char *notify_shm;   /* notify_shm_state (rma/notify.h); msg: NULL */
    notify_shm_pick shm_pick; /* how --notify-shm was resolved (o.notify_shm holds the result, on or off) */
    double floor_us;          /* rma_floor_round_trip_us, server 0 to agent 0; -1: not measured */
    double steal;             /* hypervisor steal during the run, worst host (bench/host_steal.h); -1 unknown */
    double run_delay;         /* share of the run the busiest rank waited for a CPU (bench/host_steal.h); -1 unknown */
    /* rank 0: what the pollers backed off to during the run (rma/notify.h: notify_backoff), summed
     * over the agents [0] and over the servers [1] */
    notify_backoff backoff[2];
    lock_run run;
    rma_window data;          /* bank balances (servers) */
    lock_workload wl;         /* agents */
    lock_model_ctx model;     /* --model */
    char command[1024];
    bool own_mpi; /* this command initialised MPI (not a driver that runs several commands) */
} lock_session;

/* Collective: flags, MPI, roles and checks (exit 2 together on bad input), the communication. */
void lock_setup(lock_session *ls, int argc, char **argv);
void lock_teardown(lock_session *ls);
void lock_report_header(const lock_session *ls);

/* Derived figures of a run (rank 0), shared by the report, --model and the CSV row. */
typedef struct {
    uint64_t txns;            /* committed + aborted */
    double elapsed;           /* slowest agent, > 0 */
    double per_txn_us, per_req_us; /* 1e6 / count: seconds summed over agents -> mean microseconds */
    double t_rtt;             /* seconds summed: request total less waiting group and server */
    double locks_per_txn, remote_share;
    double median_rtt_us;
} lock_figures;
lock_figures lock_figures_of(const lock_totals *t);

void lock_report_run(const lock_session *ls, const lock_totals *t, const lock_figures *f, lock_verdict v);
/* Rank 0: appends the CSV row (--output); returns the exit code (2 when the row cannot be written). */
int lock_record_run(const lock_session *ls, const lock_totals *t, const lock_figures *f, lock_verdict v,
                    int exit_code);

#endif
