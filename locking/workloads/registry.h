/* The lock workloads behind `--workload`, dispatched through one table (registry.c). tpcc and trace
 * are adapters over the generator and trace reader of locking/workloads/{tpcc,trace}.c. */
#ifndef RMB_LOCK_REGISTRY_H
#define RMB_LOCK_REGISTRY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "locking/lock.h"

/* What the agent needs to know about a transaction beyond its locks. */
typedef struct {
    int type;               /* workload's transaction type (tpcc: 0..4), else 0 */
    bool transfer;          /* bank: move `amount` from account `from` to account `to` */
    uint64_t from, to;
    int64_t amount;
    bool sync_after_first;  /* deadlock: all agents meet after their first lock ... */
    double delay_after_sync; /* ... and this agent waits this long before its next request */
} wl_txn;

typedef struct wl_ops {
    const char *name;
    /* Lock id space for these options and servers; 0 with a reason in err for bad input. Called on
     * every rank before anything is allocated. */
    uint64_t (*lock_space)(const lock_opts *o, const lock_roles *roles, char *err, size_t errlen);
    /* Per agent. NULL with a reason in err on failure. */
    void *(*open)(const lock_opts *o, const lock_roles *roles, int agent, char *err, size_t errlen);
    /* Locks of the next transaction in acquisition order: > 0 count, 0 end of workload, -1 error
     * (reason in err). */
    int (*next)(void *state, lock_request *reqs, int max, wl_txn *info, char *err, size_t errlen);
    void (*close)(void *state);
} wl_ops;

typedef struct lock_workload {
    const wl_ops *ops;
    void *state;
} lock_workload;

/* NULL for an unknown kind. */
const wl_ops *lock_workload_ops(int kind);

extern const wl_ops synthetic_workload_ops, bank_workload_ops, deadlock_workload_ops;
extern const wl_ops tpcc_workload_ops, trace_workload_ops;

/* tpcc: the home warehouse of an agent (pure, for tests): distinct for every agent when there are
 * at least as many warehouses as agents, on the agent's own machine while that machine holds
 * warehouses no other of its agents took. */
int tpcc_home_warehouse(const lock_roles *r, int64_t warehouses, int agent);

/* splitmix64: small, seedable, good enough for workload choices. */
static inline uint64_t wl_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline double wl_rand01(uint64_t *s) { return (double)(wl_rand(s) >> 11) * 0x1.0p-53; }
static inline uint64_t wl_rand_below(uint64_t *s, uint64_t n) { return n ? wl_rand(s) % n : 0; }

/* A server for a lock of `agent`: a remote one with probability remote_prob (when one exists),
 * else a local one. *remote says which. */
int wl_pick_server(const lock_roles *r, int agent, double remote_prob, uint64_t *rng, bool *remote);

#endif
