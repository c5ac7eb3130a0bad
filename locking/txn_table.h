/* Transaction table of one lock server (thesis Fig. 5.3): for every running transaction, keyed by
 * its 64-bit global id (agent id << 32 | local number), the ids of the locks it holds on this
 * server. Commit or abort releases them all with one message (strict 2PL: no shrinking phase).
 * The mode each lock is held in lives in the lock's holder list (an upgrade changes it there).
 * MPI-free. */
#ifndef RMB_TXN_TABLE_H
#define RMB_TXN_TABLE_H
#include <stddef.h>
#include <stdint.h>

#include "locking/hashmap.h"

static inline uint64_t txn_global_id(uint32_t agent, uint32_t local) { return (uint64_t)agent << 32 | local; }
static inline uint32_t txn_agent_of(uint64_t txn) { return (uint32_t)(txn >> 32); }
/* The id of the agent's transaction after txn (MSG_END_LOCK carries only the ended one's). */
static inline uint64_t txn_next_id(uint64_t txn) { return txn_global_id(txn_agent_of(txn), (uint32_t)txn + 1); }

typedef struct {
    uint64_t *locks;
    uint32_t n, cap;
} txn_entry;

typedef struct {
    u64map map;     /* txn id -> txn_entry* */
    txn_entry **spare;
    size_t nspare, capspare;
} txn_table;

void txn_table_init(txn_table *t);
void txn_table_free(txn_table *t);
/* Record that txn now holds lock_id (once per lock; upgrades do not add). */
void txn_table_add(txn_table *t, uint64_t txn, uint64_t lock_id);
/* The locks of txn, or NULL when it holds none here. */
const txn_entry *txn_table_get(const txn_table *t, uint64_t txn);
/* Forget txn (after its locks were released). */
void txn_table_remove(txn_table *t, uint64_t txn);
static inline size_t txn_table_size(const txn_table *t) { return t->map.n; }

#endif
