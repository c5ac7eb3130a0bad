#include "locking/lock_oracle.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B(m) (1u << LOCK_##m)
/* Table 2.1 read the other way: what each mode excludes. NL excludes nothing; X everything held. */
static const lock_mode_set conflicts[LOCK_NMODES] = {
    [LOCK_NL] = 0,
    [LOCK_IS] = B(X),
    [LOCK_IX] = B(S) | B(SIX) | B(X),
    [LOCK_S] = B(IX) | B(SIX) | B(X),
    [LOCK_SIX] = B(IX) | B(S) | B(SIX) | B(X),
    [LOCK_X] = B(IS) | B(IX) | B(S) | B(SIX) | B(X),
};
#undef B

lock_mode_set lock_oracle_conflicts(lock_mode m) { return (unsigned)m < LOCK_NMODES ? conflicts[m] : 0xff; }

/* One transaction's modes on one lock, linked into the lock's holders and its agent's entries. */
struct oracle_holder {
    oracle_holder *next_in_lock, *next_of_agent;
    oracle_lock *lock;
    uint64_t txn;
    lock_mode_set modes;
};

struct oracle_lock {
    oracle_lock *next_spare;
    oracle_holder *holders;
    uint64_t id;
    uint32_t with_mode[LOCK_NMODES]; /* holders whose set contains the mode */
};

enum { PRINT_AT_MOST = 3 };

size_t lock_oracle_bytes_per_lock(void)
{
    /* a lock and a holder per pair, four hash slots (load factor 1/4 to 1/2) */
    return sizeof(oracle_lock) + sizeof(oracle_holder) + 4 * (sizeof(uint64_t) + sizeof(void *));
}

size_t lock_oracle_bytes_per_agent(void) { return sizeof(oracle_holder *) + sizeof(oracle_vote); }

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "rmabench: out of memory in the lock oracle\n");
        abort();
    }
    return p;
}

uint64_t lock_oracle_table_mismatches(bool (*compatible)(lock_mode req, lock_mode held))
{
    uint64_t bad = 0;
    for (int r = 0; r < LOCK_NMODES; r++)
        for (int h = 0; h < LOCK_NMODES; h++) {
            bool restated = !(conflicts[r] & (1u << h));
            if (compatible((lock_mode)r, (lock_mode)h) == restated) continue;
            if (bad++ == 0)
                fprintf(stderr, "rmabench: lock oracle: lock_compatible(%s, %s) says %s, Table 2.1 says %s\n",
                        lock_mode_names[r], lock_mode_names[h], restated ? "no" : "yes", restated ? "yes" : "no");
        }
    return bad;
}

void lock_oracle_init(lock_oracle *o, bool ledger, int nagents)
{
    memset(o, 0, sizeof *o);
    o->ledger = ledger;
    o->nagents = nagents > 0 ? nagents : 0;
    u64map_init(&o->locks, ledger ? 1024 : 1);
    size_t n = o->nagents ? (size_t)o->nagents : 1;
    o->held = calloc(n, sizeof *o->held);
    o->votes = calloc(n, sizeof *o->votes);
    if (!o->held || !o->votes) {
        fprintf(stderr, "rmabench: out of memory in the lock oracle\n");
        abort();
    }
    o->st.table_mismatches = lock_oracle_table_mismatches(lock_compatible);
}

void lock_oracle_free(lock_oracle *o)
{
    for (int a = 0; a < o->nagents; a++)
        for (oracle_holder *h = o->held[a], *next; h; h = next) {
            next = h->next_of_agent;
            free(h);
        }
    for (size_t i = 0; i < o->locks.cap; i++) free(o->locks.vals[i]);
    for (oracle_lock *l = o->spare_locks, *next; l; l = next) {
        next = l->next_spare;
        free(l);
    }
    for (oracle_holder *h = o->spare_holders, *next; h; h = next) {
        next = h->next_of_agent;
        free(h);
    }
    u64map_free(&o->locks);
    free(o->held);
    free(o->votes);
}

static void report_conflict(const lock_oracle *o, uint64_t txn, lock_mode m, const oracle_lock *l)
{
    if (o->st.conflicts > PRINT_AT_MOST) return;
    fprintf(stderr, "rmabench: lock oracle: lock %" PRIu64 " granted in %s to transaction %" PRIx64 " while held in",
            l->id, lock_mode_names[m], txn);
    for (const oracle_holder *h = l->holders; h; h = h->next_in_lock) {
        if (h->txn == txn) continue;
        for (int k = 0; k < LOCK_NMODES; k++)
            if (h->modes & (1u << k)) fprintf(stderr, " %s", lock_mode_names[k]);
        fprintf(stderr, " (by %" PRIx64 ")", h->txn);
    }
    fprintf(stderr, "\n");
}

static oracle_lock *ledger_lock(lock_oracle *o, uint64_t lock_id)
{
    void **slot = u64map_slot(&o->locks, lock_id);
    oracle_lock *l = *slot;
    if (l) return l;
    if (o->spare_locks) {
        l = o->spare_locks;
        o->spare_locks = l->next_spare;
    } else {
        l = xmalloc(sizeof *l);
    }
    memset(l, 0, sizeof *l);
    l->id = lock_id;
    *slot = l;
    return l;
}

bool lock_oracle_grant(lock_oracle *o, uint32_t agent, uint64_t lock_id, uint64_t txn, lock_mode m)
{
    if (!o->ledger) return true;
    o->st.grants_checked++;
    if ((unsigned)m >= LOCK_NMODES || agent >= (uint32_t)o->nagents) { /* nothing that can be kept */
        o->st.conflicts++;
        return false;
    }
    oracle_lock *l = ledger_lock(o, lock_id);
    oracle_holder *own = l->holders;
    while (own && own->txn != txn) own = own->next_in_lock;
    lock_mode_set own_modes = own ? own->modes : 0, bit = lock_mode_bit(m);
    bool ok = true;
    for (int k = 0; k < LOCK_NMODES; k++)
        if ((conflicts[m] >> k & 1) && l->with_mode[k] > (uint32_t)(own_modes >> k & 1)) ok = false;
    if (!ok) {
        o->st.conflicts++;
        report_conflict(o, txn, m, l);
    }
    if (own) {
        if (!(own->modes & bit)) l->with_mode[m]++;
        own->modes |= bit;
        return ok;
    }
    oracle_holder *h = o->spare_holders;
    if (h) o->spare_holders = h->next_of_agent;
    else h = xmalloc(sizeof *h);
    *h = (oracle_holder){l->holders, o->held[agent], l, txn, bit};
    o->held[agent] = h;
    l->holders = h;
    l->with_mode[m]++;
    return ok;
}

int lock_oracle_release(lock_oracle *o, uint32_t agent, uint64_t txn)
{
    if (!o->ledger || agent >= (uint32_t)o->nagents) return 0;
    int n = 0;
    for (oracle_holder **p = &o->held[agent], *h; (h = *p);) {
        if (h->txn != txn) { /* an earlier transaction of the agent that never ended: kept */
            p = &h->next_of_agent;
            continue;
        }
        *p = h->next_of_agent;
        oracle_lock *l = h->lock;
        oracle_holder **q = &l->holders;
        while (*q != h) q = &(*q)->next_in_lock;
        *q = h->next_in_lock;
        for (int k = 0; k < LOCK_NMODES; k++) l->with_mode[k] -= h->modes >> k & 1;
        if (!l->holders) {
            u64map_del(&o->locks, l->id);
            l->next_spare = o->spare_locks;
            o->spare_locks = l;
        }
        h->next_of_agent = o->spare_holders;
        o->spare_holders = h;
        n++;
    }
    o->st.releases += (uint64_t)n;
    return n;
}

void lock_oracle_vote(lock_oracle *o, uint32_t agent, uint64_t txn, bool yes)
{
    if (agent >= (uint32_t)o->nagents) return;
    oracle_vote *v = &o->votes[agent];
    /* an agent runs one transaction at a time: a vote still pending belongs to one never ended */
    if (v->vote) o->st.votes_never_ended++;
    *v = (oracle_vote){txn, yes ? 1 : 2};
    o->st.votes++;
}

bool lock_oracle_end(lock_oracle *o, uint32_t agent, uint64_t txn, bool commit)
{
    if (agent >= (uint32_t)o->nagents) return true;
    oracle_vote *v = &o->votes[agent];
    if (!v->vote) return true;
    if (v->txn != txn) { /* the voted transaction's end never came */
        o->st.votes_never_ended++;
        v->vote = 0;
        return true;
    }
    bool ok = !(commit && v->vote == 2);
    if (!ok && o->st.commits_after_no++ < PRINT_AT_MOST)
        fprintf(stderr, "rmabench: lock oracle: transaction %" PRIx64 " committed although this server voted no\n", txn);
    v->vote = 0;
    return ok;
}

void lock_oracle_finish(lock_oracle *o)
{
    o->st.ledger_locks_end = o->locks.n;
    u64map txns; /* the distinct transactions still holding something */
    u64map_init(&txns, 16);
    for (int a = 0; a < o->nagents; a++) {
        for (oracle_holder *h = o->held[a]; h; h = h->next_of_agent) *u64map_slot(&txns, h->txn) = h;
        if (o->votes[a].vote) o->st.votes_never_ended++;
    }
    o->st.ledger_txns_end = txns.n;
    u64map_free(&txns);
}
