#include "joins/query/star.h"

#include <string.h>

/* SSB at scale factor 1: lineorder 6M rows; customer 30K, part 200K, supplier 2K. Row bytes are the
 * sums of the schema's column widths (4-byte integers and dates, strings at their declared length)
 * rounded up to 8: lineorder 82 -> 88, customer 116 -> 120, part 98 -> 104, supplier 106 -> 112. */
const double star_ssb_dim_share[STAR_MAX_DIMS] = {30000.0 / 6e6, 200000.0 / 6e6, 2000.0 / 6e6};
const int star_ssb_dim_bytes[STAR_MAX_DIMS] = {120, 104, 112};
const char *const star_dim_names[STAR_MAX_DIMS] = {"customer", "part", "supplier"};

static inline uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Independent draws per table and purpose: the seed, the dimension and a purpose salt. */
enum { SALT_PARTNER = 1, SALT_FILTER = 2, SALT_KEYS = 3 };
static inline uint64_t salt(const star_schema *s, int j, int what)
{
    return mix64(s->seed * 0x100 + (uint64_t)(j * 4 + what));
}

void star_slice(uint64_t total, int rank, int ranks, uint64_t *off, uint64_t *n)
{
    workload_slice(total, rank, ranks, false, off, n);
}

void star_init(star_schema *s, int dims, uint64_t fact_rows, const uint64_t *dim_rows, int fact_words,
               const int *dim_words, const double *selectivity, const int *part_bits, uint64_t seed, int rank, int ranks)
{
    memset(s, 0, sizeof *s);
    s->dims = dims;
    s->fact_rows = fact_rows;
    s->fact_words = fact_words;
    s->seed = seed;
    int shift = 0;
    for (int j = 0; j < dims; j++) {
        s->dim_rows[j] = dim_rows[j];
        s->dim_words[j] = dim_words[j];
        s->selectivity[j] = selectivity[j];
        s->sel_threshold[j] = selectivity[j] >= 1.0 ? UINT64_MAX : (uint64_t)(selectivity[j] * 18446744073709551616.0);
        s->part_bits[j] = part_bits[j];
        s->cell_shift[j] = shift;
        shift += part_bits[j];
        /* the dimension's keys: the binary join's R of |D_j| rows under a seed of its own */
        workload_init(&s->keys[j], dim_rows[j], 1, 1.0, 0, salt(s, j, SALT_KEYS), rank, ranks, false);
    }
    s->cell_bits = shift;
}

static int table_bits_for(uint64_t rows)
{
    int b = 0;
    /* 2 slots of 16 bytes per key (query_table_capacity) */
    while (b < 20 && (rows >> b) * 32 > STAR_TABLE_BYTES) b++;
    return b;
}

void star_auto_part_bits(int dims, const uint64_t *dim_rows, uint64_t fact_blocks, int *part_bits)
{
    int cap = 0, total = 0;
    while (cap < STAR_MAX_CELL_BITS && (fact_blocks >> (cap + 1)) >= 4) cap++;
    for (int j = 0; j < dims; j++) total += part_bits[j] = table_bits_for(dim_rows[j]);
    while (total > cap) { /* the dimension with the most partitions gives one bit back */
        int big = 0;
        for (int j = 1; j < dims; j++)
            if (part_bits[j] > part_bits[big]) big = j;
        part_bits[big]--;
        total--;
    }
}

bool star_dim_passes(const star_schema *s, int j, uint64_t rid)
{
    return s->sel_threshold[j] == UINT64_MAX || mix64(rid ^ salt(s, j, SALT_FILTER)) < s->sel_threshold[j];
}

/* The filler words of a row: not read by the query, only carried. */
static inline uint64_t filler(uint64_t rid, int w) { return rid * 0xD6E8FEB86659FD93ull + (uint64_t)w; }

void star_fact_rows(const star_schema *s, uint64_t first, uint64_t n, uint64_t *out, uint64_t expected[2])
{
    const int W = s->fact_words, k = s->dims;
    uint64_t m = 0, c = 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t g = first + i;
        uint64_t *row = out + i * (uint64_t)W, h = g;
        bool hit = true;
        for (int j = 0; j < k; j++) {
            const uint64_t p = mix64(g ^ salt(s, j, SALT_PARTNER)) % s->dim_rows[j];
            const uint64_t key = workload_perm(&s->keys[j], p) + 1;
            row[star_fk_word(j)] = key;
            hit = hit && star_dim_passes(s, j, p);
            h = star_step(h, p, key);
        }
        row[1] = g;
        for (int w = k + 1; w < W; w++) row[w] = filler(g, w);
        m += hit;
        c += hit ? h : 0;
    }
    expected[0] += m;
    expected[1] += c;
}

void star_dim_rows(const star_schema *s, int j, uint64_t first, uint64_t n, uint64_t *out)
{
    const int W = s->dim_words[j];
    enum { CHUNK = 1024 };
    tuple_t t[CHUNK];
    workload w = s->keys[j];
    for (uint64_t i = 0; i < n; i += CHUNK) {
        const uint64_t len = n - i < CHUNK ? n - i : CHUNK;
        w.r_off = first + i; /* generate_range numbers rows from the slice's first */
        generate_range(&w, 0, t, 0, len);
        for (uint64_t r = 0; r < len; r++) {
            uint64_t *row = out + (i + r) * (uint64_t)W;
            row[0] = t[r].key;
            row[1] = t[r].rid;
            for (int x = 2; x < W; x++) row[x] = filler(t[r].rid, x);
        }
    }
}
