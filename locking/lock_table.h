/* The lock table of one lock server (thesis §5.2.2, Fig. 5.2): per active lock, one granted counter
 * per mode (the lock mode follows from them, Table 2.1b), the holders, and a FIFO waiting group.
 * A request is granted when it is compatible with every granted mode and nothing waits before it.
 * Only locks in use are stored (hash map), so memory follows the active locks, not the id space.
 *
 * Deadlock handling (--deadlock):
 *   timeout  the thesis' bounded wait: a request that has waited at the head of a waiting group
 *            for longer than the lock timeout is refused (lt_expire, called while the server idles).
 *   nowait   a request that cannot be granted at once is refused.
 *   waitdie  a request that cannot be granted waits only if it is older than every holder and every
 *            waiter of the lock (wait-die); otherwise it is refused ("dies"). Waits-for edges then
 *            always point from older to younger transactions, so no cycle can form. Age: the agent's
 *            stamp (local transaction number << 32 | agent id): smaller is older.
 * Upgrades: a transaction asking for a mode on a lock it already holds gets the least mode covering
 *   both (S + IX = SIX). If that is the mode it holds, the request is granted at once. Otherwise the
 *   upgrade is granted at once when the new mode is compatible with every other holder, and refused
 *   at once (in every deadlock mode) when it is not: two upgraders waiting on one lock would
 *   deadlock, and an upgrade that jumps the FIFO queue could starve waiters.
 * MPI-free; time is passed in by the caller (seconds). */
#ifndef RMB_LOCK_TABLE_H
#define RMB_LOCK_TABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "locking/hashmap.h"
#include "locking/modes.h"
#include "locking/txn_table.h"

typedef enum { DL_TIMEOUT = 0, DL_NOWAIT = 1, DL_WAITDIE = 2 } deadlock_policy;
extern const char *const deadlock_policy_names[]; /* "timeout", "nowait", "waitdie", NULL */

/* The least mode covering a and b (join in the lattice NL < IS < IX,S < SIX < X). */
lock_mode lock_mode_sup(lock_mode a, lock_mode b);

typedef struct {
    uint64_t txn, age, lock_id;
    uint32_t agent;
    lock_mode mode;
} lt_request;

typedef enum { LT_GRANTED = 0, LT_REFUSED = 1, LT_WAITING = 2 } lt_outcome;
typedef enum { LT_WHY_NONE = 0, LT_WHY_CONFLICT, LT_WHY_TIMEOUT, LT_WHY_DIE, LT_WHY_UPGRADE } lt_reason;

/* An answer decided later than its request (grant after a release, refusal after a timeout). */
typedef struct {
    lt_request req;
    bool granted;
    lt_reason why;
    double since;   /* when the request entered the waiting group */
    double proc0;   /* server processing before it entered the waiting group (s) */
} lt_answer;
typedef void (*lt_emit_fn)(void *arg, const lt_answer *a);

typedef struct lt_waiter {
    struct lt_waiter *next;
    lt_request req;
    double since, proc0;
} lt_waiter;

typedef struct {
    uint64_t txn, age;
    lock_mode mode;
} lt_holder;

typedef struct lt_lock {
    uint64_t id;
    uint32_t granted[LOCK_NMODES];
    lt_holder *holders;
    uint32_t nholders, capholders;
    lt_waiter *head, *tail;
    struct lt_lock *wprev, *wnext; /* list of locks with waiters (scanned for timeouts) */
    bool in_wait_list;
} lt_lock;

typedef struct {
    uint64_t requests, granted_now, waited, refused, timeouts, dies, upgrades, upgrade_refusals;
    uint64_t counter_leaks; /* lock entries dropped with no holder but a granted counter above 0 */
} lt_stats;

typedef struct {
    deadlock_policy policy;
    double timeout_s;
    u64map locks;        /* lock id -> lt_lock* */
    txn_table txns;
    lt_lock *waiting;    /* head of the list of locks with a non-empty waiting group */
    lt_lock **spare_locks;
    size_t nspare, capspare;
    lt_waiter *spare_waiters;
    lt_stats st;
} lock_table;

void lt_init(lock_table *t, deadlock_policy policy, double timeout_s);
void lt_free(lock_table *t);

/* Decide a request at time now; proc0 = processing time so far (kept for a later answer). On
 * LT_REFUSED, *why says why. LT_WAITING: the answer comes through lt_release_all or lt_expire. */
lt_outcome lt_request_lock(lock_table *t, const lt_request *r, double now, double proc0, lt_reason *why);
/* Release every lock txn holds in this table (commit or abort) and grant what becomes grantable
 * (emit). Returns the number of locks released. */
int lt_release_all(lock_table *t, uint64_t txn, double now, lt_emit_fn emit, void *arg);
/* Timeout policy: refuse heads of waiting groups older than the timeout, grant what follows.
 * Returns the number of refusals. */
int lt_expire(lock_table *t, double now, lt_emit_fn emit, void *arg);
static inline bool lt_has_waiters(const lock_table *t) { return t->waiting != NULL; }

/* The granted mode of txn on lock_id (LOCK_NL when none), and the lock's mode (Table 2.1b). */
lock_mode lt_held_mode(const lock_table *t, uint64_t lock_id, uint64_t txn);
lock_mode lt_lock_mode(const lock_table *t, uint64_t lock_id);
/* Peak bytes a lock table holds per (lock, transaction) pair held (entry, holders, hash slots at
 * the lowest load factor, the transaction's lock list), and per running transaction (its entry,
 * hash slots, one waiting request): for plans (locking/lock_plan.h). */
size_t lt_bytes_per_lock(void);
size_t lt_bytes_per_txn(void);
static inline size_t lt_active_locks(const lock_table *t) { return t->locks.n; }
static inline size_t lt_active_txns(const lock_table *t) { return txn_table_size(&t->txns); }

#endif
