/* Where the pulled tables lie in the memory ranks' windows, MPI-free (the run and --plan share it).
 * Table 0 is the fact table, table 1 + j dimension j. A table is split into cells (the fact table:
 * one per combination of its keys' partitions; a dimension: one per partition, star.h), a cell
 * into blocks of block_bytes: a header (QUERY_BLOCK_HEADER bytes: the cell, the rows) and whole
 * rows. The blocks of all tables are numbered in one sequence, table by table, cell by cell, and
 * dealt out round robin: block b lies on memory rank b mod M at byte (b / M) * block_bytes of its
 * window, so every table is spread evenly over the memory ranks (the seed: co-location plays no
 * role, only even spreading), and one memory rank's blocks of one table are contiguous in its
 * window. The layout needs the global rows of every cell (O(cells) words: 2^STAR_MAX_CELL_BITS at
 * most), never a list of blocks. */
#ifndef RMB_QUERY_LAYOUT_H
#define RMB_QUERY_LAYOUT_H
#include <stdint.h>

#include "joins/query/star.h"

#define QUERY_BLOCK_HEADER 16
#define QUERY_MAX_TABLES (1 + STAR_MAX_DIMS)

typedef struct {
    int tables;                                  /* 1 + dims */
    int memory_ranks;
    uint64_t block_bytes;
    uint64_t row_bytes[QUERY_MAX_TABLES], rows_per_block[QUERY_MAX_TABLES];
    uint64_t cells[QUERY_MAX_TABLES];
    uint64_t *cell_rows[QUERY_MAX_TABLES];       /* [cells] global rows of each cell */
    uint64_t *cell_first[QUERY_MAX_TABLES];      /* [cells + 1] first block of each cell, in the table */
    uint64_t first_block[QUERY_MAX_TABLES + 1];  /* global number of each table's first block; [tables]: all */
    uint64_t window_blocks;                      /* the most blocks a memory rank holds */
} pull_layout;

/* Cells of table t of a schema. */
uint64_t pull_table_cells(const star_schema *s, int t);
/* The layout from the cells' global rows (rows[t][c]; copied). Returns 0, or -1 (no memory). */
int pull_layout_init(pull_layout *L, const star_schema *s, int memory_ranks, uint64_t block_bytes,
                     uint64_t *const *rows);
void pull_layout_free(pull_layout *L);
/* The most blocks a memory rank can hold for this schema whatever the cells' sizes (each cell
 * wastes at most one partial block): what --plan and the capacity check use before any data. */
uint64_t pull_window_blocks_bound(const star_schema *s, int memory_ranks, uint64_t block_bytes);

static inline int pull_block_rank(const pull_layout *L, uint64_t b) { return (int)(b % (uint64_t)L->memory_ranks); }
static inline uint64_t pull_block_disp(const pull_layout *L, uint64_t b)
{
    return b / (uint64_t)L->memory_ranks * L->block_bytes;
}
/* Table t's blocks on memory rank m: its window's blocks [*lo, *hi). */
void pull_local_range(const pull_layout *L, int t, int m, uint64_t *lo, uint64_t *hi);

#endif
