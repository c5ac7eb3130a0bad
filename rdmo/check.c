#include "rdmo/check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rdmo_workload_record(uint64_t seed, uint32_t rank, uint32_t seq, uint32_t len, unsigned char *out)
{
    memcpy(out, &rank, 4);
    memcpy(out + 4, &seq, 4);
    const uint64_t h = rdmo_mix(seed ^ ((uint64_t)rank << 32 | seq));
    for (uint32_t i = 8; i < len; i++) out[i] = (unsigned char)((h >> (8 * (i % 8))) + i);
}

rdmo_pair rdmo_workload_pair(uint64_t seed, uint32_t rank, uint64_t i, int j, uint32_t keys)
{
    const uint64_t h = rdmo_mix(seed * 31 + rdmo_mix(((uint64_t)rank << 40) ^ (i << 8) ^ (uint64_t)j));
    return (rdmo_pair){(uint32_t)(h % keys) + 1, (h >> 32) & 0xffff};
}

void rdmo_workload_gather_entry(uint64_t seed, uint32_t key, uint32_t j, rdmo_entry *e)
{
    *e = (rdmo_entry){key, 0, (uint64_t)key << 20 | j, rdmo_mix(seed ^ ((uint64_t)key << 24) ^ j)};
}

static rdmo_verdict fail(rdmo_verdict v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static rdmo_verdict fail(rdmo_verdict v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v.why, sizeof v.why, fmt, ap);
    va_end(ap);
    v.pass = false;
    return v;
}

static uint64_t word_at(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* --- page --------------------------------------------------------------------------------------- */

typedef struct {
    uint64_t *first;    /* [ranks + 1]: rank r's bits start at first[r] */
    unsigned char *bit; /* seen */
} seen_set;

static bool seen_open(seen_set *s, const uint64_t *counts, int ranks)
{
    s->first = calloc((size_t)ranks + 1, sizeof *s->first);
    if (!s->first) return false;
    for (int r = 0; r < ranks; r++) s->first[r + 1] = s->first[r] + counts[r];
    s->bit = calloc(s->first[ranks] / 8 + 1, 1);
    return s->bit != NULL;
}

static void seen_close(seen_set *s)
{
    free(s->first);
    free(s->bit);
}

/* true the first time (r, i) is marked */
static bool seen_mark(seen_set *s, int r, uint64_t i)
{
    const uint64_t k = s->first[r] + i;
    const bool fresh = !(s->bit[k / 8] & (1u << (k % 8)));
    s->bit[k / 8] |= (unsigned char)(1u << (k % 8));
    return fresh;
}

static rdmo_verdict record_check(rdmo_verdict v, const unsigned char *rec, uint64_t off, uint32_t len, uint32_t want_len,
                                 const uint64_t *acked, int ranks, uint64_t seed, seen_set *seen, unsigned char *want)
{
    uint32_t rank, seq;
    if (len != want_len) return fail(v, "record at byte %" PRIu64 " holds %u bytes, appends were %u", off, len, want_len);
    memcpy(&rank, rec + 8, 4);
    memcpy(&seq, rec + 12, 4);
    if ((int)rank >= ranks || seq >= acked[rank])
        return fail(v, "record at byte %" PRIu64 " claims rank %u's append %u, which was never acknowledged", off, rank, seq);
    rdmo_workload_record(seed, rank, seq, len, want);
    if (memcmp(want, rec + 8, len) != 0)
        return fail(v, "record at byte %" PRIu64 " (rank %u, append %u) is torn: its payload differs from the one appended",
                    off, rank, seq);
    if (!seen_mark(seen, (int)rank, seq)) return fail(v, "rank %u's append %u is in the page twice", rank, seq);
    return v;
}

rdmo_verdict rdmo_check_page(const unsigned char *page, uint64_t capacity, const uint64_t *acked, int ranks,
                             uint32_t payload_len, uint64_t seed)
{
    rdmo_verdict v = {true, 0, ""};
    const uint64_t used = word_at(page), limit = used < capacity ? used : capacity;
    const unsigned char *area = page + RDMO_PAGE_HEADER;
    seen_set seen;
    unsigned char *want = malloc(payload_len + 8);
    if (!want || !seen_open(&seen, acked, ranks)) return fail(v, "out of memory for the page check");
    uint64_t off = 0;
    while (v.pass && off + 8 <= limit) {
        const uint64_t hdr = word_at(area + off);
        if (hdr == 0 && used > capacity) break; /* the page filled: reservations beyond it wrote nothing */
        if (!(hdr & RDMO_RECORD_VALID)) {
            v = fail(v, "record at byte %" PRIu64 " is not valid (header %#" PRIx64 ", used %" PRIu64 ")", off, hdr, used);
            break;
        }
        const uint32_t len = (uint32_t)hdr;
        if (off + 8 + len > limit) {
            v = fail(v, "record at byte %" PRIu64 " of %u bytes runs past the used mark %" PRIu64, off, len, limit);
            break;
        }
        v = record_check(v, area + off, off, len, payload_len, acked, ranks, seed, &seen, want);
        off += 8 + ((uint64_t)len + 7) / 8 * 8;
        v.checked++;
    }
    if (v.pass && used <= capacity && off != used)
        v = fail(v, "the records end at byte %" PRIu64 " but the used mark says %" PRIu64, off, used);
    for (int r = 0; v.pass && r < ranks; r++)
        for (uint64_t i = 0; v.pass && i < acked[r]; i++)
            if (seen_mark(&seen, r, i)) v = fail(v, "lost append: rank %d's append %" PRIu64 " was acknowledged but is not in the page", r, i);
    seen_close(&seen);
    free(want);
    return v;
}

/* --- table ------------------------------------------------------------------------------------ */

typedef struct {
    uint32_t key;
    uint64_t cnt, sum;
    bool seen;
} want_entry;

static int cmp_want(const void *a, const void *b)
{
    const uint32_t x = ((const want_entry *)a)->key, y = ((const want_entry *)b)->key;
    return x < y ? -1 : x > y;
}

/* Every entry reachable from a bucket, in its own bucket; f checks it. */
typedef rdmo_entry_check entry_fn;
static rdmo_verdict walk_table(rdmo_verdict v, const unsigned char *t, uint64_t buckets, uint64_t entries, entry_fn f, void *arg)
{
    const uint64_t pool = word_at(t);
    const unsigned char *en = t + ((8 + 4 * buckets + 63) / 64 * 64);
    if (pool > entries) return fail(v, "the pool counter %" PRIu64 " exceeds the table's %" PRIu64 " entries", pool, entries);
    for (uint64_t b = 0; v.pass && b < buckets; b++) {
        uint32_t cur;
        memcpy(&cur, t + 8 + 4 * b, 4);
        for (uint64_t steps = 0; v.pass && cur; steps++) {
            if (cur > pool || steps > pool) return fail(v, "bucket %" PRIu64 "'s chain leaves the allocated entries", b);
            rdmo_entry e;
            memcpy(&e, en + (uint64_t)(cur - 1) * sizeof e, sizeof e);
            if ((((uint64_t)e.key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) % buckets != b)
                return fail(v, "key %u is in bucket %" PRIu64 ", not its own", e.key, b);
            v = f(v, &e, arg);
            v.checked++;
            cur = e.next;
        }
    }
    return v;
}

rdmo_verdict rdmo_check_walk_table(const unsigned char *table, uint64_t buckets, uint64_t entries, rdmo_entry_check f,
                                   void *arg)
{
    return walk_table((rdmo_verdict){true, 0, ""}, table, buckets, entries, f, arg);
}

typedef struct {
    want_entry *w;
    size_t n;
} want_set;

static rdmo_verdict sums_entry(rdmo_verdict v, const rdmo_entry *e, void *arg)
{
    want_set *ws = arg;
    want_entry k = {e->key, 0, 0, false};
    want_entry *w = bsearch(&k, ws->w, ws->n, sizeof k, cmp_want);
    if (!w) return fail(v, "key %u is in the table but no origin accumulated it", e->key);
    if (w->seen) return fail(v, "key %u has two entries", e->key);
    w->seen = true;
    if (e->a != w->cnt || e->b != w->sum)
        return fail(v, "key %u counts %" PRIu64 " pairs summing to %" PRIu64 "; its origins sent %" PRIu64 " summing to %" PRIu64,
                    e->key, e->a, e->b, w->cnt, w->sum);
    return v;
}

rdmo_verdict rdmo_check_table_sums(const unsigned char *table, uint64_t buckets, uint64_t entries, const uint64_t *calls,
                                   int ranks, int batch, uint32_t keys, uint64_t seed)
{
    rdmo_verdict v = {true, 0, ""};
    want_entry *w = calloc((size_t)keys + 1, sizeof *w);
    if (!w) return fail(v, "out of memory for the table check");
    for (uint32_t k = 0; k <= keys; k++) w[k].key = k; /* keys 1..keys, index = key */
    for (int r = 0; r < ranks; r++)
        for (uint64_t i = 0; i < calls[r]; i++)
            for (int j = 0; j < batch; j++) {
                const rdmo_pair p = rdmo_workload_pair(seed, (uint32_t)r, i, j, keys);
                w[p.key].cnt++;
                w[p.key].sum += p.value;
            }
    size_t n = 0;
    for (uint32_t k = 1; k <= keys; k++)
        if (w[k].cnt) w[n++] = w[k];
    want_set ws = {w, n};
    v = walk_table(v, table, buckets, entries, sums_entry, &ws);
    for (size_t i = 0; v.pass && i < n; i++)
        if (!w[i].seen) v = fail(v, "key %u was accumulated %" PRIu64 " times but is not in the table", w[i].key, w[i].cnt);
    free(w);
    return v;
}

typedef struct {
    uint64_t seed;
    uint32_t keys, matches;
    unsigned char *seen;
} built_set;

static rdmo_verdict built_entry(rdmo_verdict v, const rdmo_entry *e, void *arg)
{
    built_set *bs = arg;
    const uint32_t j = (uint32_t)(e->a & 0xfffff);
    rdmo_entry want;
    if (e->key == 0 || e->key > bs->keys || j >= bs->matches || e->a >> 20 != e->key)
        return fail(v, "an entry {key %u, a %#" PRIx64 "} that the table was not built with", e->key, e->a);
    rdmo_workload_gather_entry(bs->seed, e->key, j, &want);
    if (e->b != want.b) return fail(v, "entry %u of key %u changed", j, e->key);
    const uint64_t k = (uint64_t)(e->key - 1) * bs->matches + j;
    if (bs->seen[k]) return fail(v, "entry %u of key %u is in the table twice", j, e->key);
    bs->seen[k] = 1;
    return v;
}

rdmo_verdict rdmo_check_table_built(const unsigned char *table, uint64_t buckets, uint64_t entries, uint32_t keys,
                                    uint32_t matches, uint64_t seed)
{
    rdmo_verdict v = {true, 0, ""};
    built_set bs = {seed, keys, matches, calloc((size_t)keys * matches + 1, 1)};
    if (!bs.seen) return fail(v, "out of memory for the table check");
    v = walk_table(v, table, buckets, entries, built_entry, &bs);
    if (v.pass && v.checked != (uint64_t)keys * matches)
        v = fail(v, "the table holds %" PRIu64 " entries, it was built with %" PRIu64, v.checked, (uint64_t)keys * matches);
    free(bs.seen);
    return v;
}

bool rdmo_check_gather_answer(uint64_t seed, uint32_t key, uint32_t matches, const rdmo_entry *got, int n)
{
    if (n != (int)matches) return false;
    uint64_t seen = 0; /* matches <= RDMO_GATHER_MAX = 64 */
    for (int i = 0; i < n; i++) {
        const uint32_t j = (uint32_t)(got[i].a & 0xfffff);
        rdmo_entry want;
        if (got[i].key != key || j >= matches || got[i].a >> 20 != key || (seen >> j & 1)) return false;
        rdmo_workload_gather_entry(seed, key, j, &want);
        if (got[i].b != want.b) return false;
        seen |= UINT64_C(1) << j;
    }
    return true;
}

/* --- rows ------------------------------------------------------------------------------------- */

bool rdmo_check_row_read(uint64_t version, const uint64_t *data, uint64_t data_words)
{
    for (uint64_t w = 0; w < data_words; w++)
        if (data[w] != version) return false;
    return true;
}

rdmo_verdict rdmo_check_rows(const unsigned char *rows, uint64_t nrows, uint64_t data_words, uint64_t seals)
{
    rdmo_verdict v = {true, 0, ""};
    uint64_t moved = 0;
    const uint64_t stride = 16 + 8 * data_words;
    uint64_t *data = malloc(8 * data_words + 8);
    if (!data) return fail(v, "out of memory for the rows check");
    for (uint64_t r = 0; v.pass && r < nrows; r++) {
        const unsigned char *row = rows + r * stride;
        uint32_t lock;
        memcpy(&lock, row, 4);
        const uint64_t version = word_at(row + 8);
        memcpy(data, row + 16, 8 * data_words);
        if (lock != 0) v = fail(v, "row %" PRIu64 " is still locked by rank %u", r, lock - 1);
        else if (version < RDMO_ROW_INITIAL) v = fail(v, "row %" PRIu64 " has version %" PRIu64, r, version);
        else if (!rdmo_check_row_read(version, data, data_words))
            v = fail(v, "row %" PRIu64 " is torn: its data words differ from its version %" PRIu64, r, version);
        moved += version - RDMO_ROW_INITIAL;
        v.checked++;
    }
    if (v.pass && moved != seals)
        v = fail(v, "the rows' versions moved by %" PRIu64 " but %" PRIu64 " seals were acknowledged", moved, seals);
    free(data);
    return v;
}
