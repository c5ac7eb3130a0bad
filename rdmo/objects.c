#include "rdmo/objects.h"

#include <string.h>

const char *const rdmo_status_names[] = {"ok", "full", "busy", "queue full", "no such object", "no such method",
                                         "bound reached", "not the lock holder", "malformed payload"};

void rdmo_space_init(rdmo_space *s) { memset(s, 0, sizeof *s); }

static uint16_t add(rdmo_space *s, uint8_t type, uint64_t bytes, uint64_t n1, uint64_t n2)
{
    if (s->n == RDMO_MAX_OBJECTS) return 0;
    rdmo_object *o = &s->obj[s->n];
    *o = (rdmo_object){(uint16_t)(s->n + 1), type, s->heap_bytes, bytes, n1, n2};
    s->heap_bytes += (bytes + 63) / 64 * 64;
    return (uint16_t)++s->n;
}

uint16_t rdmo_space_add_page(rdmo_space *s, uint64_t capacity) { return add(s, OBJ_PAGE, rdmo_page_bytes(capacity), capacity, 0); }
uint16_t rdmo_space_add_table(rdmo_space *s, uint64_t buckets, uint64_t entries)
{
    return add(s, OBJ_TABLE, rdmo_table_bytes(buckets, entries), buckets, entries);
}
uint16_t rdmo_space_add_rows(rdmo_space *s, uint64_t rows, uint64_t data_words)
{
    return add(s, OBJ_ROWS, rows * rdmo_row_bytes(data_words), rows, data_words);
}
uint16_t rdmo_space_add_custom(rdmo_space *s) { return add(s, OBJ_CUSTOM, 0, 0, 0); }

const rdmo_object *rdmo_space_find(const rdmo_space *s, uint16_t id)
{
    return id >= 1 && id <= s->n ? &s->obj[id - 1] : NULL;
}

int rdmo_page_append(unsigned char *page, uint64_t capacity, const void *payload, uint32_t len, uint64_t *offset)
{
    uint64_t *used = (uint64_t *)(void *)page;
    const uint64_t need = rdmo_record_bytes(len);
    if (*used + need > capacity) return RDMO_FULL;
    unsigned char *rec = page + RDMO_PAGE_HEADER + *used;
    memcpy(rec + 8, payload, len);
    *(uint64_t *)(void *)rec = RDMO_RECORD_VALID | len; /* the valid header last */
    *offset = *used;
    *used += need;
    return RDMO_OK;
}

static uint32_t *heads(unsigned char *t) { return (uint32_t *)(void *)(t + 8); }
static rdmo_entry *entries_of(unsigned char *t, uint64_t buckets)
{
    return (rdmo_entry *)(void *)(t + rdmo_table_entries_at(buckets));
}

int rdmo_table_insert(unsigned char *t, uint64_t buckets, uint64_t entries, uint32_t key, uint64_t a, uint64_t b)
{
    uint64_t *pool = (uint64_t *)(void *)t;
    if (*pool >= entries) return RDMO_FULL;
    const uint64_t e = (*pool)++, h = rdmo_bucket(key, buckets);
    entries_of(t, buckets)[e] = (rdmo_entry){key, heads(t)[h], a, b};
    heads(t)[h] = (uint32_t)(e + 1);
    return RDMO_OK;
}

int rdmo_table_accumulate(unsigned char *t, uint64_t buckets, uint64_t entries, const rdmo_pair *p, int n, int *done)
{
    rdmo_entry *en = entries_of(t, buckets);
    for (int i = 0; i < n; i++) {
        uint32_t cur = heads(t)[rdmo_bucket(p[i].key, buckets)];
        while (cur && en[cur - 1].key != p[i].key) cur = en[cur - 1].next;
        if (cur) {
            en[cur - 1].a += 1;
            en[cur - 1].b += p[i].value;
        } else if (rdmo_table_insert(t, buckets, entries, p[i].key, 1, p[i].value) != RDMO_OK) {
            *done = i;
            return RDMO_FULL;
        }
    }
    *done = n;
    return RDMO_OK;
}

int rdmo_table_gather(const unsigned char *t, uint64_t buckets, uint32_t key, int max, int bound, rdmo_entry *out, int *n)
{
    const rdmo_entry *en = (const rdmo_entry *)(const void *)(t + rdmo_table_entries_at(buckets));
    uint32_t cur = ((const uint32_t *)(const void *)(t + 8))[rdmo_bucket(key, buckets)];
    int found = 0, steps = 0;
    for (; cur && found < max; cur = en[cur - 1].next) {
        if (steps++ == bound) {
            *n = found;
            return RDMO_EBOUND;
        }
        if (en[cur - 1].key == key) out[found++] = en[cur - 1];
    }
    *n = found;
    return RDMO_OK;
}

static uint64_t *row_at(unsigned char *rows, uint64_t data_words, uint32_t row)
{
    return (uint64_t *)(void *)(rows + (uint64_t)row * rdmo_row_bytes(data_words));
}

int rdmo_rows_read(unsigned char *rows, uint64_t data_words, uint32_t row, uint32_t me, bool keep, uint64_t *version,
                   uint64_t *data)
{
    uint64_t *r = row_at(rows, data_words, row);
    uint32_t *lock = (uint32_t *)(void *)r;
    if (*lock != 0) return RDMO_BUSY; /* the handler runs one method at a time: retrying here changes nothing */
    *version = r[1];
    memcpy(data, r + 2, data_words * 8);
    if (keep) *lock = me;
    return RDMO_OK;
}

int rdmo_rows_write_seal(unsigned char *rows, uint64_t data_words, uint32_t row, uint32_t me, uint64_t version,
                         const uint64_t *data)
{
    uint64_t *r = row_at(rows, data_words, row);
    uint32_t *lock = (uint32_t *)(void *)r;
    if (*lock != me) return RDMO_ENOTHOLDER;
    r[1] = version;
    memcpy(r + 2, data, data_words * 8);
    *lock = 0; /* the seal */
    return RDMO_OK;
}
