/* The star schema of `rmabench query` and its generator (Graph500's "generate" phase), MPI-free:
 * one fact table F and 1..3 dimension tables D_1..D_k (the Star Schema Benchmark's lineorder and
 * customer, part, supplier), rows of fixed widths. Every row is a pure function of its index and
 * the seed, so any rank generates any slice, and the query's result follows from the generator
 * alone (star_fact_rows' expected count and checksum).
 *
 *   D_j row i  (dim_words[j] words):  key = perm_j(i) + 1, rid = i, then filler
 *                                     keys unique, dense in [1, |D_j|], randomly placed (joins/generate.h)
 *   F row g    (fact_words words):    fk_1, rid = g, fk_2 .. fk_k, then filler
 *                                     fk_j = perm_j(p_j(g)) + 1, p_j(g) a uniform draw from [0, |D_j|):
 *                                     every fact row references one row of every dimension (foreign keys)
 *   the query: SELECT count(*), sum(term) FROM F, D_1..D_k WHERE F.fk_j = D_j.key AND filter_j(D_j)
 *     filter_j keeps D_j row i with probability selectivity_j (a hash of i): SSB's predicates on the
 *     dimensions, applied where a dimension's rows are read (the compute ranks' hash tables, the
 *     shuffling engine's scan before its shuffle)
 *     term of a result row: h_k, with h_0 = F.rid and h_j = match_term(D_j.rid, h_(j-1), fk_j):
 *     not symmetric, depends on every key and record id of the row, so a result row that pairs
 *     the wrong dimension row, is missed or is repeated does not reproduce the sum; with one
 *     dimension it is the binary join's checksum (R = the dimension, S = the fact table).
 *
 * The fact row's layout is the one a shuffling engine materialises between its joins (a row whose
 * first two words are the next join key and the running term h): its first word is the first
 * join key, its second the term so far, then the keys still to join, then the filler that stands
 * for the columns the query carries (the widths are SSB's row sizes by default).
 *
 * Partitioning by every join key (the seed's multi-way partitioning): dimension j is split into
 * 2^part_bits[j] partitions by the low bits of its key, the fact table into cells, one per
 * combination of its keys' partitions (cell = the partition numbers' bits side by side). */
#ifndef RMB_QUERY_STAR_H
#define RMB_QUERY_STAR_H
#include <stdbool.h>
#include <stdint.h>

#include "joins/generate.h"

#define STAR_MAX_DIMS 3
/* Most cells of the fact table (2^16): the layout's arrays stay O(cells) words per rank. */
#define STAR_MAX_CELL_BITS 16

typedef struct {
    int dims;                              /* k: dimension tables joined (tables - 1) */
    uint64_t fact_rows, dim_rows[STAR_MAX_DIMS];
    int fact_words, dim_words[STAR_MAX_DIMS]; /* row widths in 8-byte words */
    double selectivity[STAR_MAX_DIMS];
    uint64_t sel_threshold[STAR_MAX_DIMS]; /* row i passes iff hash(i) < threshold (UINT64_MAX: all) */
    int part_bits[STAR_MAX_DIMS];          /* partitions of dimension j: 2^part_bits[j] */
    int cell_shift[STAR_MAX_DIMS];         /* bit of partition j's number inside a cell number */
    int cell_bits;                         /* sum of part_bits */
    uint64_t seed;
    workload keys[STAR_MAX_DIMS];          /* perm_j (workload_perm) and the rank's slice of D_j */
} star_schema;

/* The schema with every size resolved; part_bits given (star_auto_part_bits chooses them).
 * rank, ranks: the slices star_dim_slice gives. */
void star_init(star_schema *s, int dims, uint64_t fact_rows, const uint64_t *dim_rows, int fact_words,
               const int *dim_words, const double *selectivity, const int *part_bits, uint64_t seed, int rank, int ranks);

/* SSB's shapes (scale factor 1: lineorder 6M rows; customer 30K, part 200K, supplier 2K rows; row
 * sizes of the schema's columns rounded up to words): the defaults of `rmabench query`. */
enum { STAR_SSB_FACT_BYTES = 88 };
extern const double star_ssb_dim_share[STAR_MAX_DIMS]; /* |D_j| / |F| */
extern const int star_ssb_dim_bytes[STAR_MAX_DIMS];
extern const char *const star_dim_names[STAR_MAX_DIMS]; /* "customer", "part", "supplier" */

/* Partition bits per join key when not given: the fewest with which a partition's hash table
 * (query_table_capacity slots of 16 bytes) fits STAR_TABLE_BYTES (cache-resident probes), then
 * fewer, largest first, until the fact table's cells number at most fact_blocks / 4 (cells of
 * several blocks: a block holds one cell) and 2^STAR_MAX_CELL_BITS. */
#define STAR_TABLE_BYTES (UINT64_C(256) << 10)
void star_auto_part_bits(int dims, const uint64_t *dim_rows, uint64_t fact_blocks, int *part_bits);

/* Dimension j's partition of a key, and the cell of a fact row. */
static inline uint64_t star_partition(const star_schema *s, int j, uint64_t key)
{
    return key & ((UINT64_C(1) << s->part_bits[j]) - 1);
}
/* Word of fact-row join key j (0-based): the first key leads the row, the others follow the rid. */
static inline int star_fk_word(int j) { return j == 0 ? 0 : j + 1; }
static inline uint64_t star_cell(const star_schema *s, const uint64_t *row)
{
    uint64_t c = 0;
    for (int j = 0; j < s->dims; j++) c |= star_partition(s, j, row[star_fk_word(j)]) << s->cell_shift[j];
    return c;
}
static inline uint64_t star_cell_part(const star_schema *s, uint64_t cell, int j)
{
    return (cell >> s->cell_shift[j]) & ((UINT64_C(1) << s->part_bits[j]) - 1);
}

/* One step of the result's term (see above). */
static inline uint64_t star_step(uint64_t h, uint64_t dim_rid, uint64_t key) { return match_term(dim_rid, h, key); }

/* Whether dimension j's row with record id rid passes the query's filter. */
bool star_dim_passes(const star_schema *s, int j, uint64_t rid);

/* Fact rows [first, first + n) into out (fact_words each); adds to expected[0], expected[1] the
 * count and the sum of terms of those that are result rows. */
void star_fact_rows(const star_schema *s, uint64_t first, uint64_t n, uint64_t *out, uint64_t expected[2]);
/* Dimension j's rows [first, first + n) into out (dim_words[j] each). */
void star_dim_rows(const star_schema *s, int j, uint64_t first, uint64_t n, uint64_t *out);

/* Slice [off, off + n) of a table of `total` rows for rank `rank` of `ranks` (even shares). */
void star_slice(uint64_t total, int rank, int ranks, uint64_t *off, uint64_t *n);

#endif
