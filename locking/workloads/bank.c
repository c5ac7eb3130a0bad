/* bank: the correctness workload. Account a is lock a; its int64 balance lives in the data window
 * of the server owning lock a. Each transaction moves 1..100 from an account on a local server to
 * another account (on a remote server with probability --remote-prob), taking X locks on both in
 * the order drawn (so that opposite transfers can deadlock). The agent reads and writes the
 * balances with MPI_Get/MPI_Put after the grants; the driver checks at the end that the sum is
 * unchanged and that every account moved exactly by its committed transfers.
 *
 * deadlock: a forced deadlock for tests. Exactly two agents; agent a X-locks account a, both meet
 * (MPI_Barrier among agents), then agent a asks for account 1-a. Under --deadlock timeout agent 1
 * waits half a lock timeout first: both then wait for each other (a real cycle), and agent 0's
 * request, the older in the waiting group, is the one that times out. One
 * transaction per agent; expected result: one commit, one abort, no hang. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "locking/workloads/registry.h"

typedef struct {
    const lock_opts *o;
    const lock_roles *roles;
    int agent;
    uint64_t rng, done;
} bank_state;

static uint64_t bank_space(const lock_opts *o, const lock_roles *r, char *err, size_t errlen)
{
    if (o->accounts < 2 * (int64_t)r->nservers) {
        snprintf(err, errlen, "--accounts: %lld accounts cannot give each of %d servers two", (long long)o->accounts,
                 r->nservers);
        return 0;
    }
    return (uint64_t)o->accounts;
}

static void *bank_open(const lock_opts *o, const lock_roles *r, int agent, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    bank_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->o = o;
    s->roles = r;
    s->agent = agent;
    s->rng = (uint64_t)o->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)agent * 7919 + 11;
    return s;
}

static uint64_t account_on(bank_state *s, int srv)
{
    uint64_t lo = lock_range_lo(s->roles, srv), hi = lock_range_lo(s->roles, srv + 1);
    return lo + wl_rand_below(&s->rng, hi - lo);
}

static int bank_next(void *state, lock_request *reqs, int max, wl_txn *info, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    bank_state *s = state;
    if (max < 2) return 0;
    bool remote;
    int home = wl_pick_server(s->roles, s->agent, 0.0, &s->rng, &remote);
    uint64_t from = account_on(s, home), to;
    do {
        int srv = wl_pick_server(s->roles, s->agent, s->o->remote_prob, &s->rng, &remote);
        to = account_on(s, srv);
    } while (to == from);
    reqs[0] = (lock_request){from, LOCK_X};
    reqs[1] = (lock_request){to, LOCK_X};
    /* half of the transfers go the other way round: opposite lock orders meet */
    if (wl_rand(&s->rng) & 1) {
        lock_request t = reqs[0];
        reqs[0] = reqs[1];
        reqs[1] = t;
    }
    *info = (wl_txn){0};
    info->transfer = true;
    info->from = from;
    info->to = to;
    info->amount = 1 + (int64_t)wl_rand_below(&s->rng, 100);
    s->done++;
    return 2;
}

static void bank_close(void *state) { free(state); }

static void bank_record(record *rec, const lock_opts *o) { record_set(rec, "accounts", "%" PRId64, o->accounts); }

/* Unless told otherwise bank runs 2PC and sees no votes: it is the correctness workload. */
const wl_desc bank_workload = {
    .name = "bank",
    .purpose = "correctness",
    .reads = WL_FLAG_REMOTE_PROB | WL_FLAG_ACCOUNTS,
    .remote_prob = 0.5,
    .vote_no_prob = 0.1,
    .data = WL_DATA_BALANCES,
    .memory_flag = "--accounts", /* every rank sums its transfers per account */
    .lock_space = bank_space,
    .record_params = bank_record,
    .open = bank_open,
    .next = bank_next,
    .close = bank_close,
};

/* --- deadlock -------------------------------------------------------------------------------- */

static uint64_t deadlock_space(const lock_opts *o, const lock_roles *r, char *err, size_t errlen)
{
    (void)o;
    if (r->nagents != 2 || r->nservers > 2) {
        snprintf(err, errlen, "--workload: deadlock needs exactly 2 agents and at most 2 servers (have %d and %d)",
                 r->nagents, r->nservers);
        return 0;
    }
    return 2;
}

static int deadlock_next(void *state, lock_request *reqs, int max, wl_txn *info, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    bank_state *s = state;
    if (s->done++ || max < 2) return 0;
    reqs[0] = (lock_request){(uint64_t)s->agent, LOCK_X};
    reqs[1] = (lock_request){(uint64_t)(1 - s->agent), LOCK_X};
    *info = (wl_txn){0};
    info->sync_after_first = true;
    info->delay_after_sync = s->o->deadlock == DL_TIMEOUT && s->agent == 1 ? 0.5 * s->o->lock_timeout : 0;
    return 2;
}

const wl_desc deadlock_workload = {
    .name = "deadlock",
    .purpose = "test: 2 agents",
    .fixed_length = "runs one transaction per agent",
    .data = WL_DATA_NONE,
    .lock_space = deadlock_space,
    .open = bank_open,
    .next = deadlock_next,
    .close = bank_close,
};
