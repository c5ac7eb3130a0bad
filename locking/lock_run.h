/* One run of the lock benchmark as an operator (thesis §5.2): open the communication (mailboxes as
 * notified-put endpoints, the agents' vote words, the bank's data window), run this rank's role
 * (lock server or transaction agent) until every agent is done, reduce the statistics over ranks
 * and verify (locking/lock_verify.h). The command (cmd/lock/) parses, reports and records. */
#ifndef RMB_LOCK_RUN_H
#define RMB_LOCK_RUN_H
#include <stdbool.h>
#include <stdint.h>

#include "locking/lock.h"
#include "locking/lock_plan.h"
#include "locking/workloads/registry.h"
#include "rma/window.h"

/* Collective: mailboxes and vote words as planned (locking/lock_plan.h), the bank's data window
 * (balances of this server's accounts), the agents' communicator, and the workload on agents. A workload that cannot open (a bad trace
 * file) fails every rank with exit 2. */
void lock_run_open(lock_run *run, const bench_ctx *ctx, const lock_opts *o, const lock_roles *roles,
                   const lock_plan *plan, notify_ep *ep, rma_window *data, lock_workload *wl);
void lock_run_close(lock_run *run, rma_window *data, lock_workload *wl);

/* What every rank contributed, summed (and the agents' elapsed time as the maximum) on rank 0. */
typedef struct {
    agent_stats agents;
    server_stats servers;
    uint64_t *rtt_hist;       /* [LAT_BUCKETS] lock-request round trips of every agent */
    double elapsed;           /* slowest agent */
    /* bank: accounts whose balance differs from their committed transfers, and the sum of balances */
    uint64_t bank_accounts_wrong;
    int64_t bank_sum;
} lock_totals;

/* Collective: runs this rank's role. rtt_hist and bank_delta are the agent's. */
void lock_run_role(lock_run *run, lock_workload *wl, agent_stats *ast, server_stats *sst, uint64_t *rtt_hist,
                   int64_t *bank_delta);
/* Collective: sums everything onto rank 0 (tot->rtt_hist allocated there; free with lock_totals_free). */
void lock_run_reduce(lock_run *run, const agent_stats *ast, const server_stats *sst, const uint64_t *rtt_hist,
                     const int64_t *bank_delta, lock_totals *tot);
void lock_totals_free(lock_totals *tot);

#endif
