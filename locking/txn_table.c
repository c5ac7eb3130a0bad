#include "locking/txn_table.h"

#include <stdio.h>
#include <stdlib.h>

static void *xrealloc(void *p, size_t bytes)
{
    p = realloc(p, bytes);
    if (!p) {
        fprintf(stderr, "rmabench: out of memory in the transaction table\n");
        abort();
    }
    return p;
}

void txn_table_init(txn_table *t)
{
    u64map_init(&t->map, 64);
    t->spare = NULL;
    t->nspare = t->capspare = 0;
}

static void free_entry(void *p)
{
    txn_entry *e = p;
    free(e->locks);
    free(e);
}

void txn_table_free(txn_table *t)
{
    for (size_t i = 0; i < t->map.cap; i++)
        if (t->map.vals[i]) free_entry(t->map.vals[i]);
    for (size_t i = 0; i < t->nspare; i++) free_entry(t->spare[i]);
    free(t->spare);
    u64map_free(&t->map);
}

void txn_table_add(txn_table *t, uint64_t txn, uint64_t lock_id)
{
    void **slot = u64map_slot(&t->map, txn);
    txn_entry *e = *slot;
    if (!e) {
        /* entries are recycled: a server runs millions of short transactions */
        if (t->nspare) {
            e = t->spare[--t->nspare];
        } else {
            e = xrealloc(NULL, sizeof *e);
            e->cap = 16;
            e->locks = xrealloc(NULL, e->cap * sizeof *e->locks);
        }
        e->n = 0;
        *slot = e;
    }
    if (e->n == e->cap) {
        e->cap *= 2;
        e->locks = xrealloc(e->locks, e->cap * sizeof *e->locks);
    }
    e->locks[e->n++] = lock_id;
}

const txn_entry *txn_table_get(const txn_table *t, uint64_t txn) { return u64map_get(&t->map, txn); }

void txn_table_remove(txn_table *t, uint64_t txn)
{
    txn_entry *e = u64map_del(&t->map, txn);
    if (!e) return;
    if (t->nspare == t->capspare) {
        t->capspare = t->capspare ? 2 * t->capspare : 16;
        t->spare = xrealloc(t->spare, t->capspare * sizeof *t->spare);
    }
    t->spare[t->nspare++] = e;
}
