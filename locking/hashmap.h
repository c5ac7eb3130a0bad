/* Open-addressing hash map from 64-bit keys to pointers (linear probing, backward-shift delete).
 * Used by the lock table (lock id -> lock) and the transaction table (txn id -> held locks), so
 * that memory follows the entries in use, not the size of the id space. MPI-free. */
#ifndef RMB_HASHMAP_H
#define RMB_HASHMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t *keys;
    void **vals;     /* NULL: empty slot */
    size_t cap;      /* power of two */
    size_t n;
} u64map;

void u64map_init(u64map *m, size_t initial);
void u64map_free(u64map *m);
void *u64map_get(const u64map *m, uint64_t key);
/* val must not be NULL; replaces an existing value. */
void u64map_put(u64map *m, uint64_t key, void *val);
/* The value slot of key; when key is new it is inserted and *slot is NULL: the caller must store a
 * non-NULL value there before the next call on this map. One probe sequence for lookup + insert. */
void **u64map_slot(u64map *m, uint64_t key);
/* Returns the removed value or NULL. */
void *u64map_del(u64map *m, uint64_t key);

#endif
