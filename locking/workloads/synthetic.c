/* synthetic (thesis §5.4.1): on average --locks-per-txn locks per transaction (uniform in
 * [1, 2L-1]), modes uniformly at random among IS, IX, S, SIX and X, each lock on a remote server with
 * probability --remote-prob, uniform within that server's range of --locks-per-server ids. No data
 * access. A transaction may draw one id twice: the second request is an upgrade. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "locking/workloads/registry.h"

typedef struct {
    const lock_opts *o;
    const lock_roles *roles;
    int agent;
    uint64_t rng;
} synthetic_state;

static uint64_t synthetic_space(const lock_opts *o, const lock_roles *r, char *err, size_t errlen)
{
    if ((uint64_t)o->locks_per_txn > LOCK_TXN_MAX) {
        snprintf(err, errlen, "--locks-per-txn: at most %d (twice the mean must fit one transaction)", LOCK_TXN_MAX / 2);
        return 0;
    }
    return (uint64_t)o->locks_per_server * (uint64_t)r->nservers;
}

static void *synthetic_open(const lock_opts *o, const lock_roles *r, int agent, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    synthetic_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->o = o;
    s->roles = r;
    s->agent = agent;
    s->rng = (uint64_t)o->seed * 0x100000001b3ULL + (uint64_t)agent + 1;
    return s;
}

static int synthetic_next(void *state, lock_request *reqs, int max, wl_txn *info, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    synthetic_state *s = state;
    int64_t l = s->o->locks_per_txn;
    int n = l <= 1 ? 1 : 1 + (int)wl_rand_below(&s->rng, (uint64_t)(2 * l - 1));
    if (n > max) n = max;
    for (int i = 0; i < n; i++) {
        bool remote;
        int srv = wl_pick_server(s->roles, s->agent, s->o->remote_prob, &s->rng, &remote);
        uint64_t lo = lock_range_lo(s->roles, srv), hi = lock_range_lo(s->roles, srv + 1);
        reqs[i].lock_id = lo + wl_rand_below(&s->rng, hi - lo);
        reqs[i].mode = (lock_mode)(LOCK_IS + (int)wl_rand_below(&s->rng, 5));
    }
    *info = (wl_txn){0};
    return n;
}

static void synthetic_close(void *state) { free(state); }

/* uniform in [1, 2L-1] */
static int synthetic_max_locks(const lock_opts *o)
{
    int64_t n = o->locks_per_txn <= 1 ? 1 : 2 * o->locks_per_txn - 1;
    return n < LOCK_TXN_MAX ? (int)n : LOCK_TXN_MAX;
}

static void synthetic_record(record *rec, const lock_opts *o)
{
    record_set(rec, "locks_per_txn", "%" PRId64, o->locks_per_txn);
}

const wl_desc synthetic_workload = {
    .name = "synthetic",
    .purpose = "benchmark",
    .reads = WL_FLAG_REMOTE_PROB | WL_FLAG_LOCKS_PER_TXN | WL_FLAG_LOCKS_PER_SERVER,
    .data = WL_DATA_NONE,
    .max_locks = synthetic_max_locks,
    .lock_space = synthetic_space,
    .record_params = synthetic_record,
    .open = synthetic_open,
    .next = synthetic_next,
    .close = synthetic_close,
};
