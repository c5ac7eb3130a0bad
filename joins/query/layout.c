#include "joins/query/layout.h"

#include <stdlib.h>
#include <string.h>

#include "joins/query/query_opts.h"

uint64_t pull_table_cells(const star_schema *s, int t)
{
    return UINT64_C(1) << (t == 0 ? s->cell_bits : s->part_bits[t - 1]);
}

static uint64_t table_row_bytes(const star_schema *s, int t)
{
    return 8 * (uint64_t)(t == 0 ? s->fact_words : s->dim_words[t - 1]);
}

static uint64_t table_rows(const star_schema *s, int t) { return t == 0 ? s->fact_rows : s->dim_rows[t - 1]; }

int pull_layout_init(pull_layout *L, const star_schema *s, int memory_ranks, uint64_t block_bytes,
                     uint64_t *const *rows)
{
    memset(L, 0, sizeof *L);
    L->tables = 1 + s->dims;
    L->memory_ranks = memory_ranks;
    L->block_bytes = block_bytes;
    uint64_t at = 0;
    for (int t = 0; t < L->tables; t++) {
        const uint64_t n = pull_table_cells(s, t);
        L->row_bytes[t] = table_row_bytes(s, t);
        L->rows_per_block[t] = query_rows_per_block(block_bytes, L->row_bytes[t]);
        L->cells[t] = n;
        L->cell_rows[t] = malloc(n * sizeof(uint64_t));
        L->cell_first[t] = malloc((n + 1) * sizeof(uint64_t));
        if (!L->cell_rows[t] || !L->cell_first[t]) return -1;
        memcpy(L->cell_rows[t], rows[t], n * sizeof(uint64_t));
        L->first_block[t] = at;
        uint64_t b = 0;
        for (uint64_t c = 0; c < n; c++) {
            L->cell_first[t][c] = b;
            b += (rows[t][c] + L->rows_per_block[t] - 1) / L->rows_per_block[t];
        }
        L->cell_first[t][n] = b;
        at += b;
    }
    L->first_block[L->tables] = at;
    L->window_blocks = (at + (uint64_t)memory_ranks - 1) / (uint64_t)memory_ranks;
    return 0;
}

void pull_layout_free(pull_layout *L)
{
    for (int t = 0; t < L->tables; t++) {
        free(L->cell_rows[t]);
        free(L->cell_first[t]);
    }
    memset(L, 0, sizeof *L);
}

uint64_t pull_window_blocks_bound(const star_schema *s, int memory_ranks, uint64_t block_bytes)
{
    uint64_t all = 0;
    for (int t = 0; t < 1 + s->dims; t++) {
        const uint64_t rpb = query_rows_per_block(block_bytes, table_row_bytes(s, t));
        all += (table_rows(s, t) + rpb - 1) / rpb + pull_table_cells(s, t);
    }
    return (all + (uint64_t)memory_ranks - 1) / (uint64_t)memory_ranks;
}

void pull_local_range(const pull_layout *L, int t, int m, uint64_t *lo, uint64_t *hi)
{
    const uint64_t M = (uint64_t)L->memory_ranks, fb = L->first_block[t], fe = L->first_block[t + 1];
    const uint64_t b0 = fb + ((uint64_t)m + M - fb % M) % M; /* the first block at or after fb on m */
    *lo = b0 / M;
    *hi = b0 < fe ? *lo + (fe - 1 - b0) / M + 1 : *lo;
}
