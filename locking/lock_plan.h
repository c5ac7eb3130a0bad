/* The plan of a lock run, MPI-free: servers and agents over the hosts, the lock space and the
 * servers' ranges, the mailboxes, and the peak memory of a server and of an agent. A real run
 * takes its roles, its mailbox sizes and its memory check from it (cmd/lock/lock_setup.c), and
 * `rmabench lock --plan` prints it for any rank count without starting MPI (cmd/lock/lock_plan.c).
 *
 * Memory per rank grows with the rank count P only by words: a server keeps one 32-byte mailbox
 * slot, a vote entry and a running transaction per agent; every rank keeps its role tables (one int
 * per rank). The lock table itself follows the locks held, which are at most every agent's largest
 * transaction, bounded again by the server's range. What the MPI library keeps per peer (window
 * and connection state) and the workload generator's own state (O(1) in P) are not counted. */
#ifndef RMB_LOCK_PLAN_H
#define RMB_LOCK_PLAN_H
#include <stddef.h>
#include <stdint.h>

#include "locking/lock.h"

typedef struct {
    int ranks, hosts, ranks_per_host;           /* ranks_per_host: most on one host */
    int nservers, nagents;
    int servers_per_host_min, servers_per_host_max, agents_per_host_min, agents_per_host_max;
    uint64_t lock_space, range_max;             /* lock ids, and the largest server range */
    int max_locks_per_txn;                      /* most locks one transaction of the workload takes */
    /* mailboxes: a server has one slot per agent, an agent one (the server answering it) */
    int msg_bytes, server_slots, agent_slots;
    uint64_t server_mailbox, agent_mailbox;     /* window (rma) or receive buffers (msg) */
    uint64_t server_mailbox_aux, agent_mailbox_aux; /* notification words seen, or request handles */
    uint64_t vote_window;                       /* every rank: 2PC vote and acknowledgement words */
    /* a server's lock table and ledger */
    uint64_t table_pairs_max;                   /* (lock, transaction) pairs held at once, at most */
    uint64_t server_table, server_per_agent;    /* bytes: for those pairs; per agent (O(P) words) */
    uint64_t agent_per_server;                  /* an agent's contacts: O(P) words */
    uint64_t roles;                             /* every rank: role and host tables, O(P) words */
    uint64_t histograms;                        /* every rank: latency histogram and its sum */
    /* data: bank balances (servers) and every rank's per-account transfer sums (bank); tpcc: the
     * servers' row images and an agent's images of one transaction (counted on every rank) */
    uint64_t server_data, rank_data;
    /* peaks, data included */
    uint64_t server_bytes, agent_bytes, rank_max, host_max;
    uint64_t rank_beyond_data;                  /* the larger of a server's and an agent's, less data */
} lock_plan;

/* The plan for ctx's placement (size, hosts, rank_host; on a real run, the run's) and o. Fills
 * roles (free with lock_roles_free) from ctx->rank's view. Returns 0, or 2 with the one-line reason
 * a run gives ("--servers: ...") in err. */
int lock_plan_make(lock_plan *p, lock_roles *roles, const lock_opts *o, const bench_ctx *ctx, char *err,
                   size_t errlen);

/* A placement without MPI for --plan: ranks in blocks of ranks_per_host per host (the last host
 * may hold fewer). ctx->rank_host is allocated: free with lock_plan_placement_free. */
void lock_plan_placement(bench_ctx *ctx, int ranks, int ranks_per_host);
void lock_plan_placement_free(bench_ctx *ctx);

/* The flag a memory refusal names: what makes the run's memory large. */
const char *lock_plan_memory_flag(const lock_opts *o);

#endif
