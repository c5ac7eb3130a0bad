#include "locking/lock_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const deadlock_policy_names[] = {"timeout", "nowait", "waitdie", NULL};

lock_mode lock_mode_sup(lock_mode a, lock_mode b)
{
    uint32_t g[LOCK_NMODES] = {0};
    g[a]++;
    g[b]++;
    return lock_mode_of(g);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "rmabench: out of memory in the lock table\n");
        abort();
    }
    return p;
}

void lt_init(lock_table *t, deadlock_policy policy, double timeout_s)
{
    memset(t, 0, sizeof *t);
    t->policy = policy;
    t->timeout_s = timeout_s;
    u64map_init(&t->locks, 1024);
    txn_table_init(&t->txns);
}

static void free_lock(lt_lock *l)
{
    while (l->head) {
        lt_waiter *w = l->head;
        l->head = w->next;
        free(w);
    }
    free(l->holders);
    free(l);
}

void lt_free(lock_table *t)
{
    for (size_t i = 0; i < t->locks.cap; i++)
        if (t->locks.vals[i]) free_lock(t->locks.vals[i]);
    for (size_t i = 0; i < t->nspare; i++) free_lock(t->spare_locks[i]);
    free(t->spare_locks);
    while (t->spare_waiters) {
        lt_waiter *w = t->spare_waiters;
        t->spare_waiters = w->next;
        free(w);
    }
    u64map_free(&t->locks);
    txn_table_free(&t->txns);
}

/* hash maps keep a load factor of at least 1/4 (they double at 1/2): four slots of key and value */
#define MAP_SLOT_BYTES (4 * (sizeof(uint64_t) + sizeof(void *)))

size_t lt_bytes_per_lock(void)
{
    /* an entry starts with 4 holders (get_or_create); lists double, so 2 words per id in txn lists */
    return sizeof(lt_lock) + 4 * sizeof(lt_holder) + MAP_SLOT_BYTES + 2 * sizeof(uint64_t) + sizeof(lt_lock *);
}

/* a transaction entry starts with 16 lock ids (txn_table.c) */
size_t lt_bytes_per_txn(void)
{
    return sizeof(txn_entry) + 16 * sizeof(uint64_t) + MAP_SLOT_BYTES + sizeof(txn_entry *) + sizeof(lt_waiter);
}

/* --- lock entries (recycled: a server touches millions of short-lived locks) ------------------ */

static lt_lock *get_or_create(lock_table *t, uint64_t id)
{
    void **slot = u64map_slot(&t->locks, id);
    if (*slot) return *slot;
    lt_lock *l;
    if (t->nspare) {
        l = t->spare_locks[--t->nspare];
    } else {
        l = xmalloc(sizeof *l);
        l->capholders = 4;
        l->holders = xmalloc(l->capholders * sizeof *l->holders);
    }
    l->id = id;
    memset(l->granted, 0, sizeof l->granted);
    l->nholders = 0;
    l->head = l->tail = NULL;
    l->wprev = l->wnext = NULL;
    l->in_wait_list = false;
    *slot = l;
    return l;
}

static void drop_if_unused(lock_table *t, lt_lock *l)
{
    if (l->nholders || l->head) return;
    /* no holder left: a counter above 0 would be a release that reached the holders only */
    static const uint32_t zero[LOCK_NMODES];
    if (memcmp(l->granted, zero, sizeof zero) != 0) t->st.counter_leaks++;
    u64map_del(&t->locks, l->id);
    if (t->nspare == t->capspare) {
        t->capspare = t->capspare ? 2 * t->capspare : 64;
        t->spare_locks = realloc(t->spare_locks, t->capspare * sizeof *t->spare_locks);
        if (!t->spare_locks) abort();
    }
    t->spare_locks[t->nspare++] = l;
}

static void wait_list_add(lock_table *t, lt_lock *l)
{
    if (l->in_wait_list) return;
    l->in_wait_list = true;
    l->wprev = NULL;
    l->wnext = t->waiting;
    if (t->waiting) t->waiting->wprev = l;
    t->waiting = l;
}

static void wait_list_remove(lock_table *t, lt_lock *l)
{
    if (!l->in_wait_list) return;
    l->in_wait_list = false;
    if (l->wprev) l->wprev->wnext = l->wnext;
    else t->waiting = l->wnext;
    if (l->wnext) l->wnext->wprev = l->wprev;
    l->wprev = l->wnext = NULL;
}

/* --- granted group ------------------------------------------------------------------------------ */

static bool compatible_with_group(const uint32_t granted[LOCK_NMODES], lock_mode m)
{
    for (int g = LOCK_IS; g < LOCK_NMODES; g++)
        if (granted[g] && !lock_compatible(m, (lock_mode)g)) return false;
    return true;
}

static void add_holder(lock_table *t, lt_lock *l, const lt_request *r)
{
    if (l->nholders == l->capholders) {
        l->capholders *= 2;
        l->holders = realloc(l->holders, l->capholders * sizeof *l->holders);
        if (!l->holders) abort();
    }
    l->holders[l->nholders++] = (lt_holder){r->txn, r->age, r->mode};
    l->granted[r->mode]++;
    txn_table_add(&t->txns, r->txn, l->id);
}

static int find_holder(const lt_lock *l, uint64_t txn)
{
    for (uint32_t i = 0; i < l->nholders; i++)
        if (l->holders[i].txn == txn) return (int)i;
    return -1;
}

/* Grant waiters from the head while they fit the granted group (strict FIFO). */
static void grant_waiters(lock_table *t, lt_lock *l, double now, lt_emit_fn emit, void *arg)
{
    while (l->head && compatible_with_group(l->granted, l->head->req.mode)) {
        lt_waiter *w = l->head;
        l->head = w->next;
        if (!l->head) l->tail = NULL;
        add_holder(t, l, &w->req);
        lt_answer a = {w->req, true, LT_WHY_NONE, w->since, w->proc0};
        w->next = t->spare_waiters;
        t->spare_waiters = w;
        emit(arg, &a);
    }
    (void)now;
    if (!l->head) wait_list_remove(t, l);
}

/* --- requests -------------------------------------------------------------------------------- */

static bool older_than_everyone(const lt_lock *l, uint64_t age)
{
    for (uint32_t i = 0; i < l->nholders; i++)
        if (l->holders[i].age <= age) return false;
    for (const lt_waiter *w = l->head; w; w = w->next)
        if (w->req.age <= age) return false;
    return true;
}

lt_outcome lt_request_lock(lock_table *t, const lt_request *r, double now, double proc0, lt_reason *why)
{
    t->st.requests++;
    *why = LT_WHY_NONE;
    lt_lock *l = get_or_create(t, r->lock_id);

    int h = l->nholders ? find_holder(l, r->txn) : -1;
    if (h >= 0) { /* upgrade (or a repeated request) */
        lock_mode old = l->holders[h].mode, want = lock_mode_sup(old, r->mode);
        if (want == old) { t->st.granted_now++; return LT_GRANTED; }
        t->st.upgrades++;
        l->granted[old]--;
        if (!compatible_with_group(l->granted, want)) {
            l->granted[old]++;
            t->st.upgrade_refusals++;
            t->st.refused++;
            *why = LT_WHY_UPGRADE;
            return LT_REFUSED;
        }
        l->holders[h].mode = want;
        l->granted[want]++;
        t->st.granted_now++;
        return LT_GRANTED;
    }

    if (!l->head && compatible_with_group(l->granted, r->mode)) {
        add_holder(t, l, r);
        t->st.granted_now++;
        return LT_GRANTED;
    }

    /* conflict */
    if (t->policy == DL_NOWAIT || (t->policy == DL_WAITDIE && !older_than_everyone(l, r->age))) {
        t->st.refused++;
        if (t->policy == DL_WAITDIE) t->st.dies++;
        *why = t->policy == DL_NOWAIT ? LT_WHY_CONFLICT : LT_WHY_DIE;
        drop_if_unused(t, l);
        return LT_REFUSED;
    }
    lt_waiter *w = t->spare_waiters;
    if (w) t->spare_waiters = w->next;
    else w = xmalloc(sizeof *w);
    w->next = NULL;
    w->req = *r;
    w->since = now;
    w->proc0 = proc0;
    if (l->tail) l->tail->next = w;
    else l->head = w;
    l->tail = w;
    wait_list_add(t, l);
    t->st.waited++;
    return LT_WAITING;
}

int lt_release_all(lock_table *t, uint64_t txn, double now, lt_emit_fn emit, void *arg)
{
    const txn_entry *e = txn_table_get(&t->txns, txn);
    if (!e) return 0;
    int released = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        lt_lock *l = u64map_get(&t->locks, e->locks[i]);
        if (!l) continue;
        int h = find_holder(l, txn);
        if (h < 0) continue;
        l->granted[l->holders[h].mode]--;
        l->holders[h] = l->holders[--l->nholders];
        released++;
        grant_waiters(t, l, now, emit, arg);
        drop_if_unused(t, l);
    }
    txn_table_remove(&t->txns, txn);
    return released;
}

int lt_expire(lock_table *t, double now, lt_emit_fn emit, void *arg)
{
    if (t->policy != DL_TIMEOUT) return 0;
    int refused = 0;
    for (lt_lock *l = t->waiting, *next; l; l = next) {
        next = l->wnext;
        /* Bounded wait: the head of the waiting group must be granted within the timeout. A
         * request counts from when it joined the group, so a queue behind a long holder drains. */
        bool changed = false;
        while (l->head && now - l->head->since > t->timeout_s) {
            lt_waiter *w = l->head;
            l->head = w->next;
            if (!l->head) l->tail = NULL;
            lt_answer a = {w->req, false, LT_WHY_TIMEOUT, w->since, w->proc0};
            w->next = t->spare_waiters;
            t->spare_waiters = w;
            t->st.timeouts++;
            t->st.refused++;
            refused++;
            changed = true;
            emit(arg, &a);
        }
        if (changed) grant_waiters(t, l, now, emit, arg);
        if (!l->head) wait_list_remove(t, l);
        drop_if_unused(t, l);
    }
    return refused;
}

lock_mode lt_held_mode(const lock_table *t, uint64_t lock_id, uint64_t txn)
{
    const lt_lock *l = u64map_get(&t->locks, lock_id);
    if (!l) return LOCK_NL;
    int h = find_holder(l, txn);
    return h < 0 ? LOCK_NL : l->holders[h].mode;
}

lock_mode lt_lock_mode(const lock_table *t, uint64_t lock_id)
{
    const lt_lock *l = u64map_get(&t->locks, lock_id);
    return l ? lock_mode_of(l->granted) : LOCK_NL;
}
