/* TPC-C lock generator: which locks a lock-based engine with multi-granularity locking (MGL,
 * thesis Table 2.1) takes for each TPC-C transaction. No TPC-C data is generated.
 *
 * Lock hierarchy (a node is a container that takes intention locks; a row is a leaf)
 *
 *   warehouse w                    root node. There is no database-level lock: it would live on one
 *   |                              server and make every transaction remote; the warehouse is the
 *   |                              partition, each partition is its own root.
 *   +- warehouse row w
 *   +- item node  -> item row i      the read-only item table, replicated in every warehouse's block;
 *   |                                a transaction reads it in its home warehouse's block
 *   +- stock node -> stock row i
 *   +- district d (node, 10 per warehouse)
 *      +- district row d
 *      +- customer node -> customer row c (3000), last-name key n (1000: the by-name index)
 *      +- history node  -> history row (slot)
 *      +- orders node   -> order o (node) -> order row, new-order row, order-line row l (1..15)
 *                       -> customer-order key c (the orders-by-customer index)
 *
 * Lock id layout: warehouse w owns [w*B, (w+1)*B). Offsets inside the block:
 *   0 warehouse node, 1 warehouse row, 2 item node, 3 stock node,
 *   4 + (i-1) item row i, 4 + ITEMS + (i-1) stock row i,
 *   DIST0 + d*DSIZE + x: district d's locks, x = 0 district node, 1 district row, 2 customer node,
 *   3 history node, 4 orders node, then customer rows, last-name keys, customer-order keys,
 *   history slots, and ORDER_SLOTS order groups of ORDER_STRIDE ids (order node, order row,
 *   new-order row, 15 order lines). Orders and history grow without bound in TPC-C: order o uses
 *   group o mod ORDER_SLOTS and a history insert a random slot. A shared group or slot can only add
 *   a false conflict, never hide a real one. The transactions touch the last 3000 orders of a
 *   district and the oldest undelivered one; TPC-C's undelivered backlog grows (4.5% of transactions
 *   add an order to a district, 4% deliver one from each), by 5000 orders per district per million
 *   transactions of one generator, so delivery and new-order share groups only after ~1.4 million.
 *
 * How the locks of a transaction are derived: its statements (TPC-C 2.4-2.8) are replayed in order
 * as accesses: a read of a row (S), a write or insert (X), a range read (S on a node or an index
 * key). Before an access, every ancestor not yet locked is locked top-down, in IX when the
 * transaction writes anything below it, else IS. Each lock id is requested once, at its first use,
 * in the strongest mode the transaction needs there (the join of its accesses: S + IX = SIX), as an
 * engine that declares reads-for-update does; so no transaction needs a lock upgrade.
 *
 * Isolation levels
 *   serializable:   every read holds an S lock to commit (strict 2PL); scans lock ranges:
 *                   payment/order-status by last name take S on the last-name key (next-key style)
 *                   and on every matching customer; order-status takes S on the customer-order key
 *                   (its scan for the newest order) and S on the order node (the order row and all
 *                   its lines: an exact range lock); stock-level takes S on the district row, S on
 *                   each of the last 20 order nodes and S on each distinct stock row it checks.
 *                   New-order's insert into the orders-by-customer index takes X on the
 *                   customer-order key, so that order-status's range lock sees no phantom.
 *   read committed: reads take no row locks that outlive the statement: an engine reads the last
 *                   committed version or takes a statement-long S lock, which a strict-2PL lock
 *                   table cannot express, so they are left out. Writes and inserts hold X to commit
 *                   as above (no index-range locks). Every table node a statement read under keeps
 *                   IS to commit, like MySQL's metadata locks, so even a read-only transaction
 *                   holds a few locks (warehouse, district, table nodes).
 *
 * Specification parameters: mix 45/43/4/4/4; 10 districts, 3000 customers per district, 100000
 * items and stock rows, 5-15 lines per order; customer ids NURand(1023,1,3000), item ids
 * NURand(8191,1,100000), last names NURand(255,0,999) (60% of payments and order-status look the
 * customer up by name; the middle match by customer id is the one paid); 1% of order lines are
 * supplied by a remote warehouse, 15% of payments go to a remote warehouse's customer. With one
 * warehouse nothing is remote. Simplifications: an order's customer, line count and items are a
 * hash of (seed, warehouse, district, order id), so new-order, delivery and stock-level agree on
 * them without storing orders; order-status takes the customer's newest order to be one of the
 * district's last 3000 orders; the last-name population (names 0..999 for customers 1..1000,
 * NURand for the rest) is the same in every district; the 1% of new-orders that TPC-C rolls back
 * are not modelled; the generator tracks d_next_o_id and the oldest undelivered order of its home
 * warehouse only (one terminal stream per home warehouse, as in the thesis' setup).
 *
 * Locks per transaction (tests/tpcc/test_tpcc.c prints them; 100000 transactions, 4 warehouses,
 * seed 1): serializable 39.7, read committed 24.3, vs 53.2 and 27.9 in the thesis' MySQL traces.
 * Per type, serializable / read committed: new-order 43.1 / 30.2, payment 10.1 / 8.3, order-status
 * 8.9 / 4.0, delivery 170.9 / 170.9, stock-level 219.7 / 4.0 (0.5% of stock-levels escalate).
 * The differences: InnoDB locks index records, not a hierarchy. Its next-key locks take one lock
 * per scanned record plus the gap, where we take one S on an order node for all of an order's
 * lines (order-status ~10 fewer, stock-level ~180 fewer: 20 order nodes instead of ~200 order
 * lines); its table-level IS/IX exist once per table (9 tables) where ours sit on warehouse,
 * district and table nodes; and secondary indexes (customer by name, orders by customer) add
 * record locks on both the index and the clustered row. In read committed InnoDB still locks the
 * rows an UPDATE scans and checks for duplicates on insert, which we do not model. Both gaps shrink
 * the serializable count more than the read-committed one, hence a lower ratio (~1.6 vs 1.9). */
#include "locking/workloads/tpcc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const tpcc_isolation_names[] = {"serializable", "read-committed", NULL};

#define DISTRICTS 10
#define CUSTOMERS 3000
#define ITEMS 100000
#define NAMES 1000
#define HIST_SLOTS 4096
#define ORDER_SLOTS 8192
#define LINES_MAX 15
#define LINES_MIN 5
#define ORDER_STRIDE (3 + LINES_MAX)
#define STOCK_LEVEL_ORDERS 20
#define ORDER_STATUS_WINDOW 3000
#define INITIAL_ORDERS 3000  /* orders 1..3000 per district at load time */
#define INITIAL_NEW_ORDERS 900 /* orders 2101..3000 are undelivered at load time */

/* warehouse block */
enum { W_NODE = 0, W_ROW = 1, ITEM_NODE = 2, STOCK_NODE = 3, ITEM_ROW0 = 4, STOCK_ROW0 = ITEM_ROW0 + ITEMS,
       DIST0 = STOCK_ROW0 + ITEMS };
/* district block */
enum { D_NODE = 0, D_ROW = 1, CUST_NODE = 2, HIST_NODE = 3, ORDERS_NODE = 4, CUST_ROW0 = 5,
       NAME_KEY0 = CUST_ROW0 + CUSTOMERS, CORDER_KEY0 = NAME_KEY0 + NAMES, HIST_ROW0 = CORDER_KEY0 + CUSTOMERS,
       ORDER0 = HIST_ROW0 + HIST_SLOTS, DSIZE = ORDER0 + ORDER_SLOTS * ORDER_STRIDE };
/* order group */
enum { O_NODE = 0, O_ROW = 1, NO_ROW = 2, OL_ROW0 = 3 };

#define BLOCK ((uint64_t)DIST0 + (uint64_t)DISTRICTS * DSIZE)

static uint64_t wb(int w) { return (uint64_t)w * BLOCK; }
static uint64_t id_wnode(int w) { return wb(w) + W_NODE; }
static uint64_t id_wrow(int w) { return wb(w) + W_ROW; }
static uint64_t id_item_node(int w) { return wb(w) + ITEM_NODE; }
static uint64_t id_stock_node(int w) { return wb(w) + STOCK_NODE; }
static uint64_t id_item(int w, int i) { return wb(w) + ITEM_ROW0 + (uint64_t)(i - 1); }
static uint64_t id_stock(int w, int i) { return wb(w) + STOCK_ROW0 + (uint64_t)(i - 1); }
static uint64_t db(int w, int d) { return wb(w) + DIST0 + (uint64_t)d * DSIZE; }
static uint64_t id_dnode(int w, int d) { return db(w, d) + D_NODE; }
static uint64_t id_drow(int w, int d) { return db(w, d) + D_ROW; }
static uint64_t id_cust_node(int w, int d) { return db(w, d) + CUST_NODE; }
static uint64_t id_orders_node(int w, int d) { return db(w, d) + ORDERS_NODE; }
static uint64_t id_cust(int w, int d, int c) { return db(w, d) + CUST_ROW0 + (uint64_t)(c - 1); }
static uint64_t id_name(int w, int d, int n) { return db(w, d) + NAME_KEY0 + (uint64_t)n; }
static uint64_t id_corder(int w, int d, int c) { return db(w, d) + CORDER_KEY0 + (uint64_t)(c - 1); }
static uint64_t id_hist(int w, int d, int slot) { return db(w, d) + HIST_ROW0 + (uint64_t)slot; }
static uint64_t og(int w, int d, uint32_t o) { return db(w, d) + ORDER0 + (uint64_t)(o % ORDER_SLOTS) * ORDER_STRIDE; }
static uint64_t id_order_node(int w, int d, uint32_t o) { return og(w, d, o) + O_NODE; }
static uint64_t id_order_row(int w, int d, uint32_t o) { return og(w, d, o) + O_ROW; }
static uint64_t id_neworder_row(int w, int d, uint32_t o) { return og(w, d, o) + NO_ROW; }
static uint64_t id_line(int w, int d, uint32_t o, int l) { return og(w, d, o) + OL_ROW0 + (uint64_t)(l - 1); }

uint64_t tpcc_lock_space(int warehouses)
{
    if (warehouses < 1 || warehouses > TPCC_MAX_WAREHOUSES) return 0;
    return (uint64_t)warehouses * BLOCK;
}

int tpcc_lock_warehouse(uint64_t lock_id) { return (int)(lock_id / BLOCK); }

/* ---- decoding ---------------------------------------------------------------------------- */

typedef enum {
    K_WNODE, K_WROW, K_ITEM_NODE, K_STOCK_NODE, K_ITEM, K_STOCK, K_DNODE, K_DROW, K_CUST_NODE, K_HIST_NODE,
    K_ORDERS_NODE, K_CUST, K_NAME, K_CORDER, K_HIST, K_ORDER_NODE, K_ORDER_ROW, K_NEWORDER_ROW, K_LINE
} kind;

typedef struct {
    kind k;
    int w, d;
    uint64_t x; /* row index inside its table (item, customer, slot, order group, line) */
    uint64_t order_group;
} decoded;

static decoded decode(uint64_t id)
{
    decoded r = {0};
    r.w = (int)(id / BLOCK);
    uint64_t o = id % BLOCK;
    if (o < DIST0) {
        if (o == W_NODE) r.k = K_WNODE;
        else if (o == W_ROW) r.k = K_WROW;
        else if (o == ITEM_NODE) r.k = K_ITEM_NODE;
        else if (o == STOCK_NODE) r.k = K_STOCK_NODE;
        else if (o < STOCK_ROW0) { r.k = K_ITEM; r.x = o - ITEM_ROW0 + 1; }
        else { r.k = K_STOCK; r.x = o - STOCK_ROW0 + 1; }
        return r;
    }
    o -= DIST0;
    r.d = (int)(o / DSIZE);
    o %= DSIZE;
    if (o == D_NODE) r.k = K_DNODE;
    else if (o == D_ROW) r.k = K_DROW;
    else if (o == CUST_NODE) r.k = K_CUST_NODE;
    else if (o == HIST_NODE) r.k = K_HIST_NODE;
    else if (o == ORDERS_NODE) r.k = K_ORDERS_NODE;
    else if (o < NAME_KEY0) { r.k = K_CUST; r.x = o - CUST_ROW0 + 1; }
    else if (o < CORDER_KEY0) { r.k = K_NAME; r.x = o - NAME_KEY0; }
    else if (o < HIST_ROW0) { r.k = K_CORDER; r.x = o - CORDER_KEY0 + 1; }
    else if (o < ORDER0) { r.k = K_HIST; r.x = o - HIST_ROW0; }
    else {
        o -= ORDER0;
        r.order_group = o / ORDER_STRIDE;
        uint64_t in = o % ORDER_STRIDE;
        if (in == O_NODE) r.k = K_ORDER_NODE;
        else if (in == O_ROW) r.k = K_ORDER_ROW;
        else if (in == NO_ROW) r.k = K_NEWORDER_ROW;
        else { r.k = K_LINE; r.x = in - OL_ROW0 + 1; }
    }
    return r;
}

uint64_t tpcc_lock_parent(uint64_t id)
{
    decoded r = decode(id);
    switch (r.k) {
    case K_WNODE: return TPCC_NO_PARENT;
    case K_WROW: case K_ITEM_NODE: case K_STOCK_NODE: case K_DNODE: return id_wnode(r.w);
    case K_ITEM: return id_item_node(r.w);
    case K_STOCK: return id_stock_node(r.w);
    case K_DROW: case K_CUST_NODE: case K_HIST_NODE: case K_ORDERS_NODE: return id_dnode(r.w, r.d);
    case K_CUST: case K_NAME: return id_cust_node(r.w, r.d);
    case K_CORDER: case K_ORDER_NODE: return id_orders_node(r.w, r.d);
    case K_HIST: return db(r.w, r.d) + HIST_NODE;
    case K_ORDER_ROW: case K_NEWORDER_ROW: case K_LINE: return id - (id - db(r.w, r.d) - ORDER0) % ORDER_STRIDE;
    }
    return TPCC_NO_PARENT;
}

const char *tpcc_lock_kind(uint64_t id)
{
    static const char *const names[] = {"warehouse-node", "warehouse", "item-node", "stock-node", "item", "stock",
        "district-node", "district", "customer-node", "history-node", "orders-node", "customer", "last-name-key",
        "customer-order-key", "history", "order-node", "order", "new-order", "order-line"};
    return names[decode(id).k];
}

unsigned tpcc_row_bytes(uint64_t id)
{
    switch (decode(id).k) {
    case K_WROW: return 89;
    case K_DROW: return 95;
    case K_CUST: return 655;
    case K_HIST: return 46;
    case K_NEWORDER_ROW: return 8;
    case K_ORDER_ROW: return 24;
    case K_LINE: return 54;
    case K_ITEM: return 82;
    case K_STOCK: return 306;
    default: return 0;
    }
}

const char *tpcc_lock_describe(uint64_t id, char *buf, size_t len)
{
    decoded r = decode(id);
    unsigned long long x = (unsigned long long)r.x, g = (unsigned long long)r.order_group;
    switch (r.k) {
    case K_WNODE: snprintf(buf, len, "w%d", r.w); break;
    case K_WROW: snprintf(buf, len, "w%d/row", r.w); break;
    case K_ITEM_NODE: snprintf(buf, len, "w%d/item", r.w); break;
    case K_STOCK_NODE: snprintf(buf, len, "w%d/stock", r.w); break;
    case K_ITEM: snprintf(buf, len, "w%d/item[%llu]", r.w, x); break;
    case K_STOCK: snprintf(buf, len, "w%d/stock[%llu]", r.w, x); break;
    case K_DNODE: snprintf(buf, len, "w%d/d%d", r.w, r.d); break;
    case K_DROW: snprintf(buf, len, "w%d/d%d/row", r.w, r.d); break;
    case K_CUST_NODE: snprintf(buf, len, "w%d/d%d/customer", r.w, r.d); break;
    case K_HIST_NODE: snprintf(buf, len, "w%d/d%d/history", r.w, r.d); break;
    case K_ORDERS_NODE: snprintf(buf, len, "w%d/d%d/orders", r.w, r.d); break;
    case K_CUST: snprintf(buf, len, "w%d/d%d/customer[%llu]", r.w, r.d, x); break;
    case K_NAME: snprintf(buf, len, "w%d/d%d/customer/last-name[%llu]", r.w, r.d, x); break;
    case K_CORDER: snprintf(buf, len, "w%d/d%d/orders/by-customer[%llu]", r.w, r.d, x); break;
    case K_HIST: snprintf(buf, len, "w%d/d%d/history[%llu]", r.w, r.d, x); break;
    case K_ORDER_NODE: snprintf(buf, len, "w%d/d%d/order{%llu}", r.w, r.d, g); break;
    case K_ORDER_ROW: snprintf(buf, len, "w%d/d%d/order{%llu}/row", r.w, r.d, g); break;
    case K_NEWORDER_ROW: snprintf(buf, len, "w%d/d%d/order{%llu}/new-order", r.w, r.d, g); break;
    case K_LINE: snprintf(buf, len, "w%d/d%d/order{%llu}/line[%llu]", r.w, r.d, g, x); break;
    }
    return buf;
}

const char *tpcc_txn_name(int t)
{
    static const char *const names[] = {"new-order", "payment", "order-status", "delivery", "stock-level"};
    return t >= 0 && t < TPCC_NTYPES ? names[t] : "?";
}

/* ---- randomness -------------------------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A small counter-based stream: hash streams give per-order contents, the generator's own stream
 * gives the transaction sequence. */
typedef struct { uint64_t key, ctr; } stream;
static uint64_t next64(stream *s) { return mix64(s->key ^ mix64(++s->ctr)); }
static int uniform(stream *s, int lo, int hi) { return lo + (int)(next64(s) % (uint64_t)(hi - lo + 1)); }
static int chance(stream *s, int percent) { return (int)(next64(s) % 100) < percent; }
/* TPC-C 2.1.6 non-uniform random */
static int nurand(stream *s, int a, int c, int lo, int hi) { return ((uniform(s, 0, a) | uniform(s, lo, hi)) + c) % (hi - lo + 1) + lo; }

enum { TAG_ORDER = 1, TAG_NAMES = 2, TAG_TXNS = 3 };

/* ---- generator --------------------------------------------------------------------------- */

#define LIST_CAP 512  /* locks of one transaction before the LOCK_TXN_MAX check */
#define SET_CAP 1024  /* open-addressing index over the list */

struct tpcc_gen {
    int warehouses, home, isolation;
    uint64_t seed;
    stream rng;
    int c_last, c_id, c_item;                  /* NURand run-time constants */
    uint32_t next_o_id[DISTRICTS], oldest_new_order[DISTRICTS];
    uint16_t name_start[NAMES + 1], by_name[CUSTOMERS]; /* customers grouped by last name */
    /* the transaction being built */
    int n;
    uint64_t ids[LIST_CAP];
    lock_mode modes[LIST_CAP];
    int16_t slot_of[SET_CAP];                  /* -1 free, else index into ids */
    int16_t used[LIST_CAP];                    /* slots to clear */
};

/* An order's contents are a pure function of (seed, w, d, o), so every transaction agrees on them. */
typedef struct {
    int customer, lines;
    int item[LINES_MAX + 1], supply[LINES_MAX + 1];
} order_info;

static order_info order_of(const tpcc_gen *g, int w, int d, uint32_t o)
{
    stream s = {mix64(g->seed ^ mix64(TAG_ORDER ^ mix64((uint64_t)w ^ mix64((uint64_t)d ^ mix64(o))))), 0};
    order_info oi;
    oi.customer = nurand(&s, 1023, g->c_id, 1, CUSTOMERS);
    oi.lines = uniform(&s, LINES_MIN, LINES_MAX);
    for (int l = 1; l <= oi.lines; l++) {
        oi.item[l] = nurand(&s, 8191, g->c_item, 1, ITEMS);
        oi.supply[l] = w;
        if (chance(&s, 1) && g->warehouses > 1) { /* 2.4.1.5: 1% from a remote warehouse */
            int r = uniform(&s, 0, g->warehouses - 2);
            oi.supply[l] = r >= w ? r + 1 : r;
        }
    }
    return oi;
}

tpcc_gen *tpcc_open(int warehouses, int home, int isolation, uint64_t seed)
{
    if (warehouses < 1 || warehouses > TPCC_MAX_WAREHOUSES || home < 0 || home >= warehouses ||
        (isolation != TPCC_SERIALIZABLE && isolation != TPCC_READ_COMMITTED))
        return NULL;
    tpcc_gen *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->warehouses = warehouses;
    g->home = home;
    g->isolation = isolation;
    g->seed = seed;
    /* The stream depends on seed and home warehouse, not on the isolation level. */
    g->rng = (stream){mix64(seed ^ mix64(TAG_TXNS ^ ((uint64_t)home << 8))), 0};
    stream c = {mix64(seed ^ TAG_NAMES), 0};
    /* 2.1.6.1: the run-time C for last names differs from the load-time one by 65..119, not 96 or 112 */
    int c_load = uniform(&c, 0, 255), delta;
    do delta = uniform(&c, 65, 119); while (delta == 96 || delta == 112);
    g->c_last = (c_load + delta) % 256;
    g->c_id = uniform(&c, 0, 1023);
    g->c_item = uniform(&c, 0, 8191);
    /* last names of customers 1..3000 (4.3.2.3: 0..999 for the first 1000, NURand for the rest) */
    uint16_t name[CUSTOMERS + 1];
    int count[NAMES] = {0};
    for (int cu = 1; cu <= CUSTOMERS; cu++) {
        name[cu] = (uint16_t)(cu <= NAMES ? cu - 1 : nurand(&c, 255, c_load, 0, NAMES - 1));
        count[name[cu]]++;
    }
    g->name_start[0] = 0;
    for (int i = 0; i < NAMES; i++) g->name_start[i + 1] = (uint16_t)(g->name_start[i] + count[i]);
    int fill[NAMES];
    for (int i = 0; i < NAMES; i++) fill[i] = g->name_start[i];
    for (int cu = 1; cu <= CUSTOMERS; cu++) g->by_name[fill[name[cu]]++] = (uint16_t)cu;
    for (int d = 0; d < DISTRICTS; d++) {
        g->next_o_id[d] = INITIAL_ORDERS + 1;
        g->oldest_new_order[d] = INITIAL_ORDERS - INITIAL_NEW_ORDERS + 1;
    }
    memset(g->slot_of, -1, sizeof g->slot_of);
    return g;
}

void tpcc_close(tpcc_gen *g) { free(g); }

/* Least mode that grants both (Table 2.1 lattice: IS < IX, S < SIX < X, IX + S = SIX). */
static lock_mode join_modes(lock_mode a, lock_mode b)
{
    if (a == b) return a;
    if (a == LOCK_NL) return b;
    if (b == LOCK_NL) return a;
    if (a == LOCK_X || b == LOCK_X) return LOCK_X;
    if (a == LOCK_IS) return b;
    if (b == LOCK_IS) return a;
    return LOCK_SIX; /* {IX,S}, {IX,SIX}, {S,SIX} */
}

static int find_or_add(tpcc_gen *g, uint64_t id)
{
    unsigned h = (unsigned)(mix64(id) % SET_CAP);
    while (g->slot_of[h] >= 0) {
        if (g->ids[g->slot_of[h]] == id) return g->slot_of[h];
        h = (h + 1) % SET_CAP;
    }
    if (g->n == LIST_CAP) abort(); /* cannot happen: the largest transaction has < 330 locks */
    g->slot_of[h] = (int16_t)g->n;
    g->used[g->n] = (int16_t)h;
    g->ids[g->n] = id;
    g->modes[g->n] = LOCK_NL;
    return g->n++;
}

/* One access: lock every missing ancestor top-down in an intention mode, then the object itself. */
static void lock_access(tpcc_gen *g, uint64_t id, lock_mode m)
{
    uint64_t chain[8];
    int depth = 0;
    for (uint64_t p = tpcc_lock_parent(id); p != TPCC_NO_PARENT; p = tpcc_lock_parent(p)) chain[depth++] = p;
    lock_mode intent = lock_mode_exclusive_type(m) ? LOCK_IX : LOCK_IS;
    for (int i = depth - 1; i >= 0; i--) {
        int k = find_or_add(g, chain[i]);
        g->modes[k] = join_modes(g->modes[k], intent);
    }
    int k = find_or_add(g, id);
    g->modes[k] = join_modes(g->modes[k], m);
}

static bool serializable(const tpcc_gen *g) { return g->isolation == TPCC_SERIALIZABLE; }

/* A read of a row: S to commit under serializable; under read committed only IS on its table node. */
static void read_row(tpcc_gen *g, uint64_t row, uint64_t table_node)
{
    if (serializable(g)) lock_access(g, row, LOCK_S);
    else lock_access(g, table_node, LOCK_IS);
}

static int pick_other_warehouse(tpcc_gen *g)
{
    int r = uniform(&g->rng, 0, g->warehouses - 2);
    return r >= g->home ? r + 1 : r;
}

/* A customer chosen as in 2.5.1.2 / 2.6.1.2: 60% by last name (the middle match), 40% by id.
 * Locks the lookup; the chosen customer's row is locked in `chosen_mode`. Returns the customer id. */
static int customer_lookup(tpcc_gen *g, int w, int d, lock_mode chosen_mode)
{
    bool by_name = chance(&g->rng, 60);
    int name = nurand(&g->rng, 255, g->c_last, 0, NAMES - 1);
    int id = nurand(&g->rng, 1023, g->c_id, 1, CUSTOMERS);
    if (!by_name) {
        if (chosen_mode == LOCK_X) lock_access(g, id_cust(w, d, id), LOCK_X);
        else read_row(g, id_cust(w, d, id), id_cust_node(w, d));
        return id;
    }
    int first = g->name_start[name], n = g->name_start[name + 1] - first;
    int chosen = g->by_name[first + (n - 1) / 2];
    if (serializable(g)) lock_access(g, id_name(w, d, name), LOCK_S); /* range lock on the last-name key */
    for (int i = 0; i < n; i++) {
        int c = g->by_name[first + i];
        if (c == chosen && chosen_mode == LOCK_X) lock_access(g, id_cust(w, d, c), LOCK_X);
        else read_row(g, id_cust(w, d, c), id_cust_node(w, d));
    }
    return chosen;
}

/* 2.4 new-order: read warehouse and customer, update district, insert order and new-order, per
 * line read the item, update the stock, insert the order line. */
static void new_order(tpcc_gen *g)
{
    int w = g->home, d = uniform(&g->rng, 0, DISTRICTS - 1);
    uint32_t o = g->next_o_id[d]++;
    order_info oi = order_of(g, w, d, o);
    read_row(g, id_wrow(w), id_wnode(w));
    lock_access(g, id_drow(w, d), LOCK_X);
    read_row(g, id_cust(w, d, oi.customer), id_cust_node(w, d));
    lock_access(g, id_order_row(w, d, o), LOCK_X);
    if (serializable(g)) lock_access(g, id_corder(w, d, oi.customer), LOCK_X); /* index insert: next-key */
    lock_access(g, id_neworder_row(w, d, o), LOCK_X);
    for (int l = 1; l <= oi.lines; l++) {
        read_row(g, id_item(w, oi.item[l]), id_item_node(w));
        lock_access(g, id_stock(oi.supply[l], oi.item[l]), LOCK_X);
        lock_access(g, id_line(w, d, o, l), LOCK_X);
    }
}

/* 2.5 payment: update warehouse and district, look up and update the customer (15% in a remote
 * warehouse), insert history. */
static void payment(tpcc_gen *g)
{
    int w = g->home, d = uniform(&g->rng, 0, DISTRICTS - 1);
    int cw = w, cd = d;
    bool remote = chance(&g->rng, 15);
    int other = g->warehouses > 1 ? pick_other_warehouse(g) : w;
    int other_d = uniform(&g->rng, 0, DISTRICTS - 1);
    if (remote && g->warehouses > 1) { cw = other; cd = other_d; }
    int slot = uniform(&g->rng, 0, HIST_SLOTS - 1);
    lock_access(g, id_wrow(w), LOCK_X);
    lock_access(g, id_drow(w, d), LOCK_X);
    customer_lookup(g, cw, cd, LOCK_X);
    lock_access(g, id_hist(w, d, slot), LOCK_X);
}

/* 2.6 order-status: look up the customer, find its newest order, read the order and its lines. */
static void order_status(tpcc_gen *g)
{
    int w = g->home, d = uniform(&g->rng, 0, DISTRICTS - 1);
    int c = customer_lookup(g, w, d, LOCK_S);
    uint32_t back = (uint32_t)uniform(&g->rng, 1, ORDER_STATUS_WINDOW);
    uint32_t o = g->next_o_id[d] > back ? g->next_o_id[d] - back : 1;
    if (serializable(g)) {
        lock_access(g, id_corder(w, d, c), LOCK_S);         /* scan for the customer's newest order */
        lock_access(g, id_order_node(w, d, o), LOCK_S);     /* the order row and all its lines */
    } else {
        lock_access(g, id_orders_node(w, d), LOCK_IS);
    }
}

/* 2.7 delivery: for each district with an undelivered order, delete the oldest new-order row,
 * update the order and its lines, update the customer's balance. */
static void delivery(tpcc_gen *g)
{
    int w = g->home;
    (void)uniform(&g->rng, 1, 10); /* carrier id: keeps the stream's shape, no lock depends on it */
    for (int d = 0; d < DISTRICTS; d++) {
        if (g->oldest_new_order[d] >= g->next_o_id[d]) { /* 2.7.4.2: an empty district is skipped */
            lock_access(g, id_orders_node(w, d), LOCK_IS);
            continue;
        }
        uint32_t o = g->oldest_new_order[d]++;
        order_info oi = order_of(g, w, d, o);
        lock_access(g, id_neworder_row(w, d, o), LOCK_X);
        lock_access(g, id_order_row(w, d, o), LOCK_X);
        for (int l = 1; l <= oi.lines; l++) lock_access(g, id_line(w, d, o, l), LOCK_X);
        lock_access(g, id_cust(w, d, oi.customer), LOCK_X);
    }
}

static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

/* 2.8 stock-level: read the district's next order id, scan the lines of its last 20 orders, read
 * the home stock of each distinct item. */
static void stock_level(tpcc_gen *g)
{
    int w = g->home, d = uniform(&g->rng, 0, DISTRICTS - 1);
    (void)uniform(&g->rng, 10, 20); /* threshold */
    read_row(g, id_drow(w, d), id_dnode(w, d));
    int items[STOCK_LEVEL_ORDERS * LINES_MAX], n = 0;
    for (uint32_t o = g->next_o_id[d] - STOCK_LEVEL_ORDERS; o < g->next_o_id[d]; o++) {
        order_info oi = order_of(g, w, d, o);
        if (serializable(g)) lock_access(g, id_order_node(w, d, o), LOCK_S); /* range lock: all its lines */
        else lock_access(g, id_orders_node(w, d), LOCK_IS);
        for (int l = 1; l <= oi.lines; l++) items[n++] = oi.item[l];
    }
    qsort(items, (size_t)n, sizeof items[0], cmp_int);
    int distinct = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || items[i] != items[i - 1]) items[distinct++] = items[i];
    if (!serializable(g)) {
        lock_access(g, id_stock_node(w), LOCK_IS);
    } else if (g->n + 1 + distinct > LOCK_TXN_MAX) {
        lock_access(g, id_stock_node(w), LOCK_S); /* lock escalation: the row locks would not fit */
    } else {
        for (int i = 0; i < distinct; i++) lock_access(g, id_stock(w, items[i]), LOCK_S);
    }
}

int tpcc_next(tpcc_gen *g, lock_request *reqs, int max, int *txn_type)
{
    for (int i = 0; i < g->n; i++) g->slot_of[g->used[i]] = -1;
    g->n = 0;
    int r = uniform(&g->rng, 0, 99), t;
    if (r < 45) t = TPCC_NEW_ORDER;
    else if (r < 88) t = TPCC_PAYMENT;
    else if (r < 92) t = TPCC_ORDER_STATUS;
    else if (r < 96) t = TPCC_DELIVERY;
    else t = TPCC_STOCK_LEVEL;
    switch (t) {
    case TPCC_NEW_ORDER: new_order(g); break;
    case TPCC_PAYMENT: payment(g); break;
    case TPCC_ORDER_STATUS: order_status(g); break;
    case TPCC_DELIVERY: delivery(g); break;
    default: stock_level(g); break;
    }
    if (txn_type) *txn_type = t;
    if (g->n > max || g->n > LOCK_TXN_MAX) return -1;
    for (int i = 0; i < g->n; i++) reqs[i] = (lock_request){g->ids[i], g->modes[i]};
    return g->n;
}
