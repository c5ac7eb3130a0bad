/* rdmo/check.h, the checker of every rdmo run, against objects built by hand: it passes what the
 * objects' methods build from the workload, and reports each fault a design could make: a lost,
 * duplicated, unacknowledged, torn or unsealed record, a hole before the used mark; a miscounted,
 * missing, extra or misplaced key; a changed gather entry; a locked, torn or miscounted row. */
#include <stdlib.h>
#include <string.h>

#include "rdmo/check.h"
#include "tests/check.h"

enum { RANKS = 3, LEN = 24, APPENDS = 5 };

static unsigned char *page_of(uint64_t capacity, const uint64_t *acked)
{
    unsigned char *p = calloc(1, rdmo_page_bytes(capacity));
    unsigned char rec[LEN];
    for (uint32_t s = 0; s < APPENDS; s++)
        for (uint32_t r = 0; r < RANKS; r++) {
            if (s >= acked[r]) continue;
            uint64_t off;
            rdmo_workload_record(7, r, s, LEN, rec);
            CHECK(rdmo_page_append(p, capacity, rec, LEN, &off) == RDMO_OK);
        }
    return p;
}

static void check_page(void)
{
    const uint64_t acked[RANKS] = {0, APPENDS, 3}, cap = 4096;
    unsigned char *p = page_of(cap, acked);
    rdmo_verdict v = rdmo_check_page(p, cap, acked, RANKS, LEN, 7);
    CHECK(v.pass);
    CHECK_EQ_U64(v.checked, APPENDS + 3);
    uint64_t more[RANKS] = {0, APPENDS, 4}; /* an acknowledged append missing */
    v = rdmo_check_page(p, cap, more, RANKS, LEN, 7);
    CHECK(!v.pass && strstr(v.why, "lost append"));
    uint64_t fewer[RANKS] = {0, APPENDS, 2}; /* a record nobody was told of */
    CHECK(!rdmo_check_page(p, cap, fewer, RANKS, LEN, 7).pass);
    unsigned char *rec2 = p + RDMO_PAGE_HEADER + rdmo_record_bytes(LEN) * 2;
    rec2[8 + 17] ^= 1; /* torn payload */
    v = rdmo_check_page(p, cap, acked, RANKS, LEN, 7);
    CHECK(!v.pass && strstr(v.why, "torn"));
    rec2[8 + 17] ^= 1;
    rec2[7] &= 0x7f; /* the valid bit never set */
    v = rdmo_check_page(p, cap, acked, RANKS, LEN, 7);
    CHECK(!v.pass && strstr(v.why, "not valid"));
    rec2[7] |= 0x80;
    memcpy(rec2 + 8, p + RDMO_PAGE_HEADER + 8, LEN); /* a record twice */
    CHECK(!rdmo_check_page(p, cap, acked, RANKS, LEN, 7).pass);
    free(p);
    p = page_of(cap, acked);
    *(uint64_t *)(void *)p += rdmo_record_bytes(LEN); /* a reservation never written: a hole */
    CHECK(!rdmo_check_page(p, cap, acked, RANKS, LEN, 7).pass);
    free(p);
}

static void check_sums(void)
{
    const uint32_t keys = 50;
    const uint64_t buckets = 8, entries = 64, calls[RANKS] = {2, 0, 3};
    const int batch = 6;
    unsigned char *t = calloc(1, rdmo_table_bytes(buckets, entries));
    for (int r = 0; r < RANKS; r++)
        for (uint64_t i = 0; i < calls[r]; i++) {
            rdmo_pair p[6];
            int done;
            for (int j = 0; j < batch; j++) p[j] = rdmo_workload_pair(3, (uint32_t)r, i, j, keys);
            CHECK(rdmo_table_accumulate(t, buckets, entries, p, batch, &done) == RDMO_OK && done == batch);
        }
    rdmo_verdict v = rdmo_check_table_sums(t, buckets, entries, calls, RANKS, batch, keys, 3);
    CHECK(v.pass);
    const uint64_t more[RANKS] = {2, 1, 3};
    CHECK(!rdmo_check_table_sums(t, buckets, entries, more, RANKS, batch, keys, 3).pass);
    rdmo_entry *e = (rdmo_entry *)(void *)(t + rdmo_table_entries_at(buckets));
    e[0].a++; /* one accumulate counted twice */
    v = rdmo_check_table_sums(t, buckets, entries, calls, RANKS, batch, keys, 3);
    CHECK(!v.pass && strstr(v.why, "counts"));
    e[0].a--;
    const uint32_t key0 = e[0].key;
    e[0].key = keys + 1; /* a key nobody sent (in a bucket that is not its own, too) */
    CHECK(!rdmo_check_table_sums(t, buckets, entries, calls, RANKS, batch, keys, 3).pass);
    e[0].key = key0;
    uint32_t *heads = (uint32_t *)(void *)(t + 8);
    const uint32_t h = heads[rdmo_bucket(key0, buckets)];
    heads[rdmo_bucket(key0, buckets)] = 0; /* a chain lost */
    CHECK(!rdmo_check_table_sums(t, buckets, entries, calls, RANKS, batch, keys, 3).pass);
    heads[rdmo_bucket(key0, buckets)] = h;
    CHECK(rdmo_check_table_sums(t, buckets, entries, calls, RANKS, batch, keys, 3).pass);
    free(t);
}

static void check_built(void)
{
    const uint32_t keys = 20, matches = 4;
    const uint64_t buckets = 10, entries = keys * matches;
    unsigned char *t = calloc(1, rdmo_table_bytes(buckets, entries));
    for (uint32_t j = 0; j < matches; j++)
        for (uint32_t k = 1; k <= keys; k++) {
            rdmo_entry e;
            rdmo_workload_gather_entry(5, k, j, &e);
            CHECK(rdmo_table_insert(t, buckets, entries, k, e.a, e.b) == RDMO_OK);
        }
    CHECK(rdmo_check_table_built(t, buckets, entries, keys, matches, 5).pass);
    rdmo_entry got[8];
    int n = 0;
    CHECK(rdmo_table_gather(t, buckets, 7, 8, 1000, got, &n) == RDMO_OK);
    CHECK(rdmo_check_gather_answer(5, 7, matches, got, n));
    CHECK(!rdmo_check_gather_answer(5, 7, matches, got, n - 1)); /* one match missing */
    got[1].b ^= 4;
    CHECK(!rdmo_check_gather_answer(5, 7, matches, got, n)); /* a changed entry */
    got[1] = got[0];
    CHECK(!rdmo_check_gather_answer(5, 7, matches, got, n)); /* an entry twice */
    rdmo_entry *e = (rdmo_entry *)(void *)(t + rdmo_table_entries_at(buckets));
    e[3].b++;
    CHECK(!rdmo_check_table_built(t, buckets, entries, keys, matches, 5).pass);
    free(t);
}

static void check_rows(void)
{
    enum { ROWS = 3, W = 4 };
    unsigned char *rows = calloc(ROWS, rdmo_row_bytes(W));
    for (int r = 0; r < ROWS; r++) {
        uint64_t *row = (uint64_t *)(void *)(rows + r * rdmo_row_bytes(W));
        for (int w = 1; w < 2 + W; w++) row[w] = RDMO_ROW_INITIAL;
    }
    uint64_t v, d[W], nd[W] = {2, 2, 2, 2};
    CHECK(rdmo_rows_read(rows, W, 1, 9, true, &v, d) == RDMO_OK && v == 1 && rdmo_check_row_read(v, d, W));
    CHECK(rdmo_rows_read(rows, W, 1, 8, false, &v, d) == RDMO_BUSY);
    CHECK(!rdmo_check_rows(rows, ROWS, W, 0).pass); /* still locked */
    CHECK(rdmo_rows_write_seal(rows, W, 1, 8, 2, nd) == RDMO_ENOTHOLDER);
    CHECK(rdmo_rows_write_seal(rows, W, 1, 9, 2, nd) == RDMO_OK);
    CHECK(rdmo_check_rows(rows, ROWS, W, 1).pass);
    CHECK(!rdmo_check_rows(rows, ROWS, W, 2).pass); /* a seal acknowledged but not applied */
    uint64_t *row1 = (uint64_t *)(void *)(rows + rdmo_row_bytes(W));
    row1[3] = 1; /* torn */
    rdmo_verdict vd = rdmo_check_rows(rows, ROWS, W, 1);
    CHECK(!vd.pass && strstr(vd.why, "torn"));
    CHECK(!rdmo_check_row_read(2, row1 + 2, W));
    free(rows);
}

int main(void)
{
    check_page();
    check_sums();
    check_built();
    check_rows();
    CHECK_DONE();
}
