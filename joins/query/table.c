#include "joins/query/table.h"

#include <string.h>

uint64_t query_table_capacity(uint64_t n)
{
    uint64_t c = 2;
    while (c < 2 * n) c <<= 1;
    return c;
}

void query_table_init(query_table *t, uint64_t *mem, uint64_t capacity, int shift)
{
    t->slots = mem;
    t->mask = capacity - 1;
    t->shift = shift;
    memset(mem, 0, 2 * capacity * sizeof *mem);
}

bool query_table_put(query_table *t, uint64_t key, uint64_t rid)
{
    uint64_t i = query_table_slot(t, key);
    for (uint64_t probes = 0; probes <= t->mask; probes++, i = (i + 1) & t->mask)
        if (t->slots[2 * i] == 0) {
            t->slots[2 * i] = key;
            t->slots[2 * i + 1] = rid;
            return true;
        }
    return false;
}
