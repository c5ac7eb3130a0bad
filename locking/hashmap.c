#include "locking/hashmap.h"

#include <stdio.h>
#include <stdlib.h>

static inline size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

static void alloc_table(u64map *m, size_t cap)
{
    m->cap = cap;
    m->keys = malloc(cap * sizeof *m->keys);
    m->vals = calloc(cap, sizeof *m->vals);
    if (!m->keys || !m->vals) {
        fprintf(stderr, "rmabench: out of memory growing a hash map to %zu entries\n", cap);
        abort();
    }
}

void u64map_init(u64map *m, size_t initial)
{
    size_t cap = 16;
    while (cap < initial * 2) cap <<= 1;
    m->n = 0;
    alloc_table(m, cap);
}

void u64map_free(u64map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->n = 0;
}

void *u64map_get(const u64map *m, uint64_t key)
{
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->vals[i]) return NULL;
        if (m->keys[i] == key) return m->vals[i];
    }
}

static void insert_new(u64map *m, uint64_t key, void *val)
{
    size_t i = slot_of(key, m->cap);
    while (m->vals[i]) i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
}

void u64map_put(u64map *m, uint64_t key, void *val)
{
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->vals[i]) break;
        if (m->keys[i] == key) { m->vals[i] = val; return; }
    }
    if ((m->n + 1) * 2 > m->cap) { /* keep the load factor at most 1/2 */
        u64map old = *m;
        alloc_table(m, old.cap * 2);
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.vals[i]) insert_new(m, old.keys[i], old.vals[i]);
        free(old.keys);
        free(old.vals);
    }
    insert_new(m, key, val);
}

void **u64map_slot(u64map *m, uint64_t key)
{
    size_t i = slot_of(key, m->cap);
    for (; m->vals[i]; i = (i + 1) & (m->cap - 1))
        if (m->keys[i] == key) return &m->vals[i];
    if ((m->n + 1) * 2 > m->cap) {
        u64map_put(m, key, (void *)&m->n); /* grows; the placeholder is replaced below */
        for (i = slot_of(key, m->cap); m->keys[i] != key || !m->vals[i]; i = (i + 1) & (m->cap - 1)) {}
    } else {
        m->keys[i] = key;
        m->n++;
    }
    m->vals[i] = NULL;
    return &m->vals[i];
}

void *u64map_del(u64map *m, uint64_t key)
{
    size_t mask = m->cap - 1, i = slot_of(key, m->cap);
    while (m->vals[i] && m->keys[i] != key) i = (i + 1) & mask;
    if (!m->vals[i]) return NULL;
    void *val = m->vals[i];
    /* backward shift: move later entries of the probe run into the hole */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
        size_t home = slot_of(m->keys[j], m->cap);
        /* entry j may move to the hole if its home is not in (hole, j] (cyclically) */
        int in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!in_range) {
            m->keys[hole] = m->keys[j];
            m->vals[hole] = m->vals[j];
            hole = j;
        }
    }
    m->vals[hole] = NULL;
    m->n--;
    return val;
}
