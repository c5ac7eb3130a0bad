/* TPC-C lock generator: for the five TPC-C transaction types in the standard mix, the locks a
 * lock-based engine with multi-granularity locking (thesis Table 2.1) takes, in acquisition order.
 * It generates no TPC-C data; it models only which rows and containers each transaction locks.
 * The lock hierarchy, the lock id layout and how each lock is derived are documented in tpcc.c.
 *
 * Warehouses are numbered 0..warehouses-1. Warehouse w's locks lie in [w*B, (w+1)*B) with
 * B = tpcc_lock_space(1); the item table (read-only, identical in every warehouse) is replicated in
 * every warehouse's block and read in the home warehouse's block. The generator is deterministic:
 * the same (warehouses, home_warehouse, seed) give the same transactions, and the two isolation
 * levels give the same transactions with different locks (read committed takes a subset). MPI-free. */
#ifndef RMB_TPCC_H
#define RMB_TPCC_H
#include <stddef.h>
#include <stdint.h>

#include "locking/workloads/workload.h"

typedef struct tpcc_gen tpcc_gen;

enum { TPCC_NEW_ORDER = 0, TPCC_PAYMENT, TPCC_ORDER_STATUS, TPCC_DELIVERY, TPCC_STOCK_LEVEL, TPCC_NTYPES };
enum { TPCC_SERIALIZABLE = 0, TPCC_READ_COMMITTED = 1 };

#define TPCC_MAX_WAREHOUSES 1000000
#define TPCC_NO_PARENT UINT64_MAX

/* NULL when an argument is out of range (warehouses < 1 or > TPCC_MAX_WAREHOUSES, home warehouse
 * outside [0, warehouses), isolation not 0 or 1) or memory runs out. */
/* The isolation levels by index: "serializable" (0), "read-committed" (1), NULL. */
extern const char *const tpcc_isolation_names[];
tpcc_gen *tpcc_open(int warehouses, int home_warehouse, int isolation /*0 serializable, 1 read-committed*/, uint64_t seed);
/* The locks of the next transaction in acquisition order (each lock id at most once, in the
 * strongest mode the transaction needs; every lock's parent comes earlier in an intention mode that
 * covers it). Returns the count (1..LOCK_TXN_MAX), or -1 when the transaction has more than max
 * locks (then it is skipped; max = LOCK_TXN_MAX never fails). txn_type may be NULL. */
int tpcc_next(tpcc_gen *g, lock_request *reqs, int max, int *txn_type);
/* Total lock ids of a database with that many warehouses (0 when warehouses is out of range). */
uint64_t tpcc_lock_space(int warehouses);
void tpcc_close(tpcc_gen *g);
/* "new-order", "payment", "order-status", "delivery", "stock-level"; "?" for anything else. */
const char *tpcc_txn_name(int txn_type);

/* Row images (the agents' data access once their locks are granted, locking/agent.c): the bytes of
 * the row a lock guards, from the TPC-C schema (clause 1.3: warehouse 89, district 95, customer 655,
 * history 46, new-order 8, order 24, order-line 54, item 82, stock 306); 0 for a node or an index
 * key, which guard no row of their own. A server keeps TPCC_ROW_SLOTS images of TPCC_ROW_STRIDE
 * bytes: the row of lock id x of its range is slot (x - range start) mod TPCC_ROW_SLOTS, a bounded
 * arena (the full tables would take ~1 GB per warehouse); rows sharing a slot are different rows
 * that may be accessed at once, which only mixes bytes no one checks. */
#define TPCC_ROW_MAX 655
#define TPCC_ROW_STRIDE 656
#define TPCC_ROW_SLOTS 16384
unsigned tpcc_row_bytes(uint64_t lock_id);

/* Decoding lock ids (for tests, summaries and readable traces). */
int tpcc_lock_warehouse(uint64_t lock_id);
/* The lock's parent in the hierarchy, TPCC_NO_PARENT for a warehouse (the roots). */
uint64_t tpcc_lock_parent(uint64_t lock_id);
/* What the lock guards: "warehouse-node", "warehouse", "item-node", "item", "stock-node", "stock",
 * "district-node", "district", "customer-node", "customer", "last-name-key", "history-node",
 * "history", "orders-node", "customer-order-key", "order-node", "order", "new-order", "order-line". */
const char *tpcc_lock_kind(uint64_t lock_id);
/* "w3/d4/order{3012}/line[5]" and the like; returns buf. */
const char *tpcc_lock_describe(uint64_t lock_id, char *buf, size_t len);

#endif
