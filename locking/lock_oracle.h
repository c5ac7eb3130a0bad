/* The lock server's audit, written apart from the grant path (lock_table.c, modes.c) so that a
 * mistake there cannot hide itself:
 *   - Table 2.1 restated as the set of modes each mode conflicts with (lock_oracle_conflicts);
 *   - a ledger of granted (lock, transaction, modes), kept from the grants the server sends and
 *     the end-of-transaction messages it handles. Every grant is checked against the modes other
 *     transactions hold on that lock; a transaction's own modes never conflict (upgrades). A
 *     transaction holding S and IX conflicts exactly as SIX does, so the ledger keeps the set of
 *     modes granted, not their join;
 *   - the server's 2PC votes, kept per agent until the transaction's end message: an end that
 *     commits a transaction this server voted no on is a violation, and so is a vote never ended;
 *   - a self-check that the grant path's lock_compatible() agrees with the restated table on all
 *     36 pairs, so that a wrong table fails a run even when no two transactions ever meet.
 * At the end of a run the ledger must be empty, like the lock table. MPI-free. */
#ifndef RMB_LOCK_ORACLE_H
#define RMB_LOCK_ORACLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "locking/hashmap.h"
#include "locking/modes.h"

/* Bit set of lock modes (bit m: mode m). */
typedef uint8_t lock_mode_set;
static inline lock_mode_set lock_mode_bit(lock_mode m) { return (lock_mode_set)(1u << m); }
/* The modes that cannot be granted to another transaction beside `m` (Table 2.1, restated). */
lock_mode_set lock_oracle_conflicts(lock_mode m);
/* The pairs (of 36) on which `compatible` (the grant path's: lock_compatible) disagrees with the
 * restated table; the first one is printed. */
uint64_t lock_oracle_table_mismatches(bool (*compatible)(lock_mode req, lock_mode held));

typedef struct {
    uint64_t grants_checked, conflicts, releases;
    uint64_t table_mismatches;           /* pairs where lock_compatible() disagrees (of 36) */
    uint64_t votes, commits_after_no, votes_never_ended;
    uint64_t ledger_locks_end, ledger_txns_end; /* filled by lock_oracle_finish */
} oracle_stats;

typedef struct oracle_holder oracle_holder;
typedef struct oracle_lock oracle_lock;

typedef struct {
    uint64_t txn;
    uint8_t vote;          /* 0: none pending, 1: voted yes, 2: voted no */
} oracle_vote;

/* Transactions are found through their agent (each runs one at a time), so that the ledger costs
 * one hash lookup per grant and per released lock. */
typedef struct lock_oracle {
    bool ledger;           /* check grants (off with --no-check); votes are always audited */
    int nagents;
    u64map locks;          /* lock id -> oracle_lock* */
    oracle_holder **held;  /* [nagents]: the agent's (lock, transaction) entries, newest first */
    oracle_holder *spare_holders;
    oracle_lock *spare_locks;
    oracle_vote *votes;    /* [nagents] */
    oracle_stats st;
} lock_oracle;

/* Peak bytes of the ledger per (lock, transaction) pair held, and per agent: for plans. */
size_t lock_oracle_bytes_per_lock(void);
size_t lock_oracle_bytes_per_agent(void);

/* Also runs the 36-pair self-check of lock_compatible() (st.table_mismatches). */
void lock_oracle_init(lock_oracle *o, bool ledger, int nagents);
void lock_oracle_free(lock_oracle *o);

/* The server told txn (of agent, < nagents) it holds lock_id in mode m. Returns false (counted,
 * first few printed) when another transaction holds a conflicting mode there, or for an agent or
 * mode that does not exist. */
bool lock_oracle_grant(lock_oracle *o, uint32_t agent, uint64_t lock_id, uint64_t txn, lock_mode m);
/* txn of agent ended on this server: forget everything it holds here. Every grant that the lock
 * table's release hands out must be checked after this call. Returns the locks forgotten. */
int lock_oracle_release(lock_oracle *o, uint32_t agent, uint64_t txn);

/* This server voted on txn of agent. */
void lock_oracle_vote(lock_oracle *o, uint32_t agent, uint64_t txn, bool yes);
/* txn of agent ended here, committing or not. Returns false when it commits against a no vote. */
bool lock_oracle_end(lock_oracle *o, uint32_t agent, uint64_t txn, bool commit);

/* End of run: counts what the ledger still holds and the votes never ended into st. */
void lock_oracle_finish(lock_oracle *o);
static inline uint64_t lock_oracle_violations(const oracle_stats *s)
{
    return s->conflicts + s->table_mismatches + s->commits_after_no + s->votes_never_ended + s->ledger_locks_end +
           s->ledger_txns_end;
}

#endif
