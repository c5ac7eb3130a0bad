/* The hash tables of a star query's dimensions, MPI-free, for both designs: the compute ranks'
 * tables of the pulled dimensions (one per partition of every dimension) and the shuffling
 * engine's table of each network partition's dimension rows. A table maps a dimension key to the
 * row's record id (the one column the query takes from a dimension): open addressing with linear
 * probing in slots of (key, rid), at least two slots per key, keys of one partition sharing their
 * low `shift` bits (the partition number), so the hash takes the bits above them. Key 0 marks an
 * empty slot (keys start at 1: joins/query/star.h). */
#ifndef RMB_QUERY_TABLE_H
#define RMB_QUERY_TABLE_H
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint64_t *slots; /* 2 words a slot: key, rid */
    uint64_t mask;   /* slots - 1 */
    int shift;
} query_table;

/* Slots for up to n keys: the power of two at or above 2n (at least 2). */
uint64_t query_table_capacity(uint64_t n);
/* A table over mem (2 * capacity words, capacity a power of two), emptied. */
void query_table_init(query_table *t, uint64_t *mem, uint64_t capacity, int shift);

static inline uint64_t query_table_slot(const query_table *t, uint64_t key)
{
    return ((key >> t->shift) * UINT64_C(0x9E3779B97F4A7C15) >> 32) & t->mask;
}
/* Insert a key (unique: a dimension's primary key) and its rid; false when the table is full. */
bool query_table_put(query_table *t, uint64_t key, uint64_t rid);
/* The rid of key, or false when the key is not in the table. */
static inline bool query_table_get(const query_table *t, uint64_t key, uint64_t *rid)
{
    for (uint64_t i = query_table_slot(t, key);; i = (i + 1) & t->mask) {
        const uint64_t k = t->slots[2 * i];
        if (k == key) {
            *rid = t->slots[2 * i + 1];
            return true;
        }
        if (k == 0) return false;
    }
}

#endif
