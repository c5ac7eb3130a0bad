/* `rmabench lock --plan --ranks N [--ranks-per-host M]`: the plan a run of these flags would use
 * (locking/lock_plan.h, the same function the run calls), for ranks placed in blocks of M per host,
 * printed in a fixed number of lines whatever N is, without MPI. Sizes are printed in bytes and
 * readable units: "NAME: BYTES B (1.5 MiB)", so that scripts and tests can read them. */
#include <inttypes.h>
#include <stdio.h>

#include "bench/memory.h"
#include "bench/options.h"
#include "cmd/lock/lock_cmd.h"
#include "locking/lock_plan.h"

/* "BYTES B (1.5 MiB)" */
static const char *sz(uint64_t bytes, char *buf, int len)
{
    char h[32];
    mem_format((int64_t)bytes, h, sizeof h);
    snprintf(buf, (size_t)len, "%" PRIu64 " B (%s)", bytes, h);
    return buf;
}

static void print_roles(const lock_plan *p, const lock_opts *o)
{
    printf("# rmabench lock --plan: %d ranks on %d host(s), %d per host; workload %s, transport %s; nothing run\n",
           p->ranks, p->hosts, p->ranks_per_host, lock_workload_of(o)->name, lock_transport_names[o->transport]);
    printf("servers: %d (%d-%d per host)\n", p->nservers, p->servers_per_host_min, p->servers_per_host_max);
    printf("agents: %d (%d-%d per host)\n", p->nagents, p->agents_per_host_min, p->agents_per_host_max);
    printf("lock space: %" PRIu64 " ids, at most %" PRIu64 " per server\n", p->lock_space, p->range_max);
}

static void print_buffers(const lock_plan *p, const lock_opts *o)
{
    char a[64], b[64];
    const char *what = o->transport == NOTIFY_MSG ? "receive buffers" : o->transport == LOCK_TRANSPORT_RDMO ? "RDMO request and answer slots" : "window";
    printf("mailbox per server: %s, %d slots of %d B (%s)\n", sz(p->server_mailbox, a, sizeof a), p->server_slots,
           p->msg_bytes, what);
    printf("mailbox per agent: %s, %d slot (%s)\n", sz(p->agent_mailbox, a, sizeof a), p->agent_slots, what);
    printf("mailbox bookkeeping: server %s, agent %s (%s)\n", sz(p->server_mailbox_aux, a, sizeof a),
           sz(p->agent_mailbox_aux, b, sizeof b),
           o->transport == NOTIFY_MSG ? "request handles" : o->transport == LOCK_TRANSPORT_RDMO ? "stamps, tokens, calls" : "notification words as last seen, pending");
    printf("vote counters: %s per rank (2PC vote and acknowledgement words)\n", sz(p->vote_window, a, sizeof a));
    printf("lock table per server: at most %s for %" PRIu64 " (lock, transaction) pairs (%d agents x %d locks)%s\n",
           sz(p->server_table, a, sizeof a), p->table_pairs_max, p->nagents, p->max_locks_per_txn,
           o->check ? ", ledger included" : "");
    printf("per-agent state per server: %s (%d x %" PRIu64 " B)\n",
           sz((uint64_t)p->nagents * p->server_per_agent, a, sizeof a), p->nagents, p->server_per_agent);
    printf("per-server state per agent: %s (%d x %" PRIu64 " B)\n",
           sz((uint64_t)p->nservers * p->agent_per_server, a, sizeof a), p->nservers, p->agent_per_server);
    printf("role tables per rank: %s (O(ranks) words); latency histograms %s\n", sz(p->roles, a, sizeof a),
           sz(p->histograms, b, sizeof b));
}

/* Returns 2 when the busiest host would not fit this host's memory (the run's check: 90%). */
static int print_memory(const lock_plan *p, const lock_opts *o)
{
    char a[64], b[64];
    printf("data per rank: server %s, agent %s\n", sz(p->server_data + p->rank_data, a, sizeof a),
           sz(p->rank_data, b, sizeof b));
    printf("memory per server: %s\n", sz(p->server_bytes, a, sizeof a));
    printf("memory per agent: %s\n", sz(p->agent_bytes, a, sizeof a));
    printf("memory per rank: %s, beyond data %s\n", sz(p->rank_max, a, sizeof a), sz(p->rank_beyond_data, b, sizeof b));
    int64_t avail = mem_available_bytes();
    bool fits = avail <= 0 || (double)p->host_max <= 0.9 * (double)avail;
    printf("memory per host: %s; this host has %s available: %s\n", sz(p->host_max, a, sizeof a),
           avail > 0 ? sz((uint64_t)avail, b, sizeof b) : "an unknown amount",
           avail <= 0 ? "not checked" : fits ? "fits" : "does not fit");
    printf("not counted: the MPI library's per-peer state, the workload generator (O(1) in ranks)\n");
    fflush(stdout);
    if (fits) return 0;
    mem_format((int64_t)p->host_max, a, sizeof a);
    mem_format(avail, b, sizeof b);
    /* the words of the run's refusal (bench/memory.c, mem_check_or_exit) */
    fprintf(stderr, "rmabench: %s: the run needs about %s on one host but only %s is available; use fewer tuples or more hosts\n",
            lock_plan_memory_flag(o), a, b);
    return 2;
}

int lock_plan_print(const lock_opts *o)
{
    if (bench_env_rank() != 0) { /* started by a launcher anyway: one rank prints, all exit alike */
        if (freopen("/dev/null", "w", stdout) == NULL || freopen("/dev/null", "w", stderr) == NULL) return 2;
    }
    bench_ctx ctx;
    lock_plan_placement(&ctx, (int)o->plan_ranks, (int)o->plan_ranks_per_host);
    lock_plan p;
    lock_roles roles;
    char err[512];
    int rc = lock_plan_make(&p, &roles, o, &ctx, err, sizeof err);
    if (rc) fprintf(stderr, "rmabench: %s\n", err);
    else {
        print_roles(&p, o);
        print_buffers(&p, o);
        rc = print_memory(&p, o);
        lock_roles_free(&roles);
    }
    lock_plan_placement_free(&ctx);
    return rc;
}
