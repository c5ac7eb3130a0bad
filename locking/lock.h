/* `rmabench lock`: options, roles, messages and statistics shared by the lock server loop
 * (server.c), the transaction agent loop (agent.c), 2PC (twopc.c) and the driver (lock_main.c). */
#ifndef RMB_LOCK_H
#define RMB_LOCK_H
#include <stdbool.h>
#include <stdint.h>

#include "bench/context.h"
#include "locking/lock_oracle.h"
#include "locking/lock_table.h"
#include "rdmo/rdmo.h"
#include "rma/notify.h"
#include "rma/peer_words.h"
#include "locking/workloads/workload.h"

/* --transport: the notified puts' two (rma/notify.h) and composite remote operations (locking/rdmo_link.h) */
typedef enum { LOCK_TRANSPORT_RMA = NOTIFY_RMA, LOCK_TRANSPORT_MSG = NOTIFY_MSG, LOCK_TRANSPORT_RDMO = 2 } lock_transport;
extern const char *const lock_transport_names[]; /* "rma", "msg", "rdmo", NULL */

typedef struct {
    int workload;            /* index into lock_workloads (locking/workloads/registry.h) */
    int64_t servers;         /* 0: half the ranks */
    double duration;         /* seconds; used when transactions_per_agent == 0 */
    int64_t transactions_per_agent;
    double remote_prob;
    int64_t locks_per_txn;
    int64_t locks_per_server; /* synthetic lock id space per server */
    int transport;           /* lock_transport: rma and msg are notify_transport's (rma/notify.h), rdmo is
                              * locking/rdmo_link.h's */
    int notify_poll;         /* notify_poll_mode */
    int notify_shm;          /* notify_shm_mode: same-host senders store into a shared-memory mailbox (rma/notify.h) */
    int numa;                /* --numa policy (bench/numa_policy.h), effective after numa_report_init */
    int deadlock;            /* deadlock_policy */
    double lock_timeout;     /* seconds */
    double vote_no_prob;
    int isolation;
    int64_t warehouses;      /* 0: 2 per server */
    const char *trace;
    int64_t accounts;
    const char *output;
    const char *model;
    int64_t seed;
    bool check;              /* the oracle's ledger checks every grant (lock_oracle.h); --no-check */
    int64_t wait_bound_s;    /* bound of every blocking wait (lock response, vote, ack) */
    bool plan;               /* --plan: print the plan (locking/lock_plan.h) for plan_ranks, no MPI */
    int64_t plan_ranks, plan_ranks_per_host;
    bool verbose;            /* --verbose: per-rank and per-server header lines */
} lock_opts;

/* Who is who: servers and agents spread evenly over hosts. Servers own equal contiguous ranges of
 * the lock id space in server index order. "Local" (no 2PC needed): on a server of the agent's own
 * host; when all ranks share one host, an agent and its home server (agent index mod servers) stand
 * for one machine, so that remote locks and 2PC can be exercised on one host. */
typedef struct {
    int nservers, nagents;
    int *server_rank, *agent_rank;   /* index -> world rank */
    int *role_index;                 /* world rank -> server or agent index */
    bool *is_server;                 /* world rank -> role */
    int my_index;
    bool i_am_server;
    uint64_t lock_space;
    bool one_host;
    int hosts;
    const int *rank_host;
} lock_roles;

void lock_roles_init(lock_roles *r, const bench_ctx *ctx, int nservers);
void lock_roles_free(lock_roles *r);
/* floor(lock_space * s / nservers) without overflow: lock_space = q * nservers + rem. */
static inline uint64_t lock_range_lo(const lock_roles *r, int s)
{
    uint64_t n = (uint64_t)r->nservers, q = r->lock_space / n, rem = r->lock_space % n;
    return q * (uint64_t)s + rem * (uint64_t)s / n;
}
/* Lock ids (and bank accounts) of this rank's server range; 0 on agents. */
static inline uint64_t lock_server_range(const lock_roles *r)
{
    return r->i_am_server ? lock_range_lo(r, r->my_index + 1) - lock_range_lo(r, r->my_index) : 0;
}
int lock_server_of(const lock_roles *r, uint64_t lock_id);
bool lock_server_is_local(const lock_roles *r, int agent, int server);
/* The agent's home server (a local one). */
int lock_home_server(const lock_roles *r, int agent);

/* Messages (32 bytes, one mailbox slot). Fields as in the thesis: tag, lock id, agent, mode,
 * granted flag; plus the global transaction id and, in answers, the server's timings. */
/* MSG_END_LOCK: the end of transaction txn (commit flag as END) and the first lock request of the
 * agent's next transaction (lock_id, mode, age; its id txn_next_id(txn)) at the same server, in one
 * message: the server releases, then decides the request, and the request's answer is the end's
 * acknowledgement. Sent where a transaction contacted one server and the next starts there. */
/* MSG_WRITE (--transport rdmo only): rows of a committed transaction that did not fit its end's request. */
enum { MSG_LOCK = 1, MSG_RESPONSE = 2, MSG_VOTE = 3, MSG_END = 4, MSG_DONE = 5, MSG_END_LOCK = 6, MSG_WRITE = 7 };
typedef struct {
    uint8_t type, mode, granted, commit; /* commit: END and END_LOCK only */
    uint32_t agent;
    uint64_t txn;
    uint64_t lock_id;
    union {
        uint64_t age;                           /* MSG_LOCK, MSG_END_LOCK: wait-die age */
        struct { uint32_t queue_ns, server_ns; } t; /* MSG_RESPONSE */
    } u;
} lock_msg;
_Static_assert(sizeof(lock_msg) == 32, "lock message must fill one 32-byte slot");

/* Statistics of one agent (summed over agents by the driver). */
#define LOCK_TXN_TYPES 5 /* per-type counters: the workload's types 0..4 (tpcc: TPCC_NTYPES) */
typedef struct {
    uint64_t committed, aborted, lock_requests, remote_requests, refused, twopc, votes_no;
    uint64_t commits_against_vote; /* commits although the vote word held a no (must stay 0) */
    double t_lock, t_data, t_vote, t_end;        /* per-transaction phases, seconds summed */
    double t_req_total, t_req_queue, t_req_server; /* per lock request, seconds summed */
    double elapsed;
    /* summed by lock_run_reduce apart from the above; twopc_participants_max: the maximum */
    uint64_t committed_type[LOCK_TXN_TYPES], aborted_type[LOCK_TXN_TYPES];
    uint64_t twopc_participants;     /* servers asked to vote, summed over 2PC transactions */
    uint64_t data_bytes_read, data_bytes_written; /* row images (tpcc) or balances (bank) */
    uint64_t twopc_participants_max;
} agent_stats;

/* Latency histogram for medians: 10 ns buckets below 100 us, 1 us buckets up to 10 ms, then one
 * overflow bucket. */
#define LAT_FINE 10000
#define LAT_COARSE 9900
#define LAT_BUCKETS (LAT_FINE + LAT_COARSE + 1)
static inline int lat_bucket(double seconds)
{
    double ns = seconds * 1e9;
    if (ns < 0) ns = 0;
    if (ns < 100000.0) return (int)(ns / 10.0);
    if (ns < 10e6) return LAT_FINE + (int)((ns - 100000.0) / 1000.0);
    return LAT_BUCKETS - 1;
}
/* Quantile q (0.5: median) in microseconds (bucket middle) of a histogram; -1 when empty. */
double lat_quantile_us(const uint64_t *hist, double q);

/* Bank data: one int64 balance per account (= lock id) in the servers' data windows. */
#define BANK_INITIAL_BALANCE 1000

struct lock_workload;
typedef struct {
    const bench_ctx *ctx;
    const lock_opts *o;
    const lock_roles *roles;
    notify_ep *ep;
    peer_words votes;     /* agents: the 2PC vote word and the end acknowledgements (locking/twopc.h) */
    MPI_Win data_win;     /* servers: bank balances of their lock range, or tpcc row images */
    int64_t *data_base;
    unsigned char *rows;  /* tpcc agents: the images of one transaction's rows, LOCK_TXN_MAX x TPCC_ROW_STRIDE */
    notify_poll_mode poll;
    MPI_Comm agent_comm;  /* agents only (the deadlock workload meets there) */
    double step_start;    /* server: when the message being handled was taken from the mailbox */
    struct server_audit *audit; /* server: the oracle and the grants it has yet to see (server.c) */
    /* --transport rdmo (locking/rdmo_link.h); rdmo NULL otherwise */
    rdmo_ep *rdmo;
    uint16_t rdmo_obj;
    rdmo_token *tokens;   /* server: the request of each agent waiting for its answer */
    uint32_t *reads;      /* server: the row bytes each agent's lock request asked for */
    unsigned char *data_mem; /* server: its data window (tpcc row images, bank balances) */
} lock_run;

/* server.c */
typedef struct {
    lt_stats lt;
    oracle_stats oracle;
    uint64_t messages, votes_yes, votes_no, ends;
    uint64_t ends_with_request; /* of the ends, those that came with the next request (MSG_END_LOCK) */
    double t_busy;
    uint64_t active_locks_end, active_txns_end;
} server_stats;
void lock_server_run(lock_run *run, server_stats *st);
/* Peak bytes a server holds per agent (its running transaction, grants awaiting the audit, the
 * ledger's per-agent heads and votes): for plans (locking/lock_plan.h). */
size_t lock_server_bytes_per_agent(void);

/* agent.c */
void lock_agent_run(lock_run *run, struct lock_workload *wl, agent_stats *st, uint64_t *rtt_hist,
                    int64_t *bank_delta /* [accounts] or NULL */);
/* Bytes an agent holds per server (whom the running transaction contacted): for plans. */
size_t lock_agent_bytes_per_server(void);
/* Seconds per transaction of the agent's own work beside its messages, over `txns` transactions of
 * wl (opened for the agent roles->my_index): every request granted at once, no MPI (calibrate's
 * t_agent). -1 when out of memory. */
double lock_agent_own_work(const lock_opts *o, const lock_roles *roles, struct lock_workload *wl, int txns);

#endif
