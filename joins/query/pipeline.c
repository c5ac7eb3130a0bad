#include "joins/query/pipeline.h"

#include "joins/query/layout.h"

static inline uint64_t block_rows(const uint64_t *block, uint64_t rows_per_block)
{
    return block[1] < rows_per_block ? block[1] : rows_per_block;
}

int query_build_block(const star_schema *s, int j, query_table *tables, const uint64_t *block, uint64_t rows_per_block)
{
    const uint64_t n = block_rows(block, rows_per_block), W = (uint64_t)s->dim_words[j];
    const uint64_t parts = UINT64_C(1) << s->part_bits[j];
    query_table *t = &tables[block[0] & (parts - 1)];
    const uint64_t *row = block + QUERY_BLOCK_HEADER / 8;
    for (uint64_t i = 0; i < n; i++, row += W)
        if (star_dim_passes(s, j, row[1]) && !query_table_put(t, row[0], row[1])) return -1;
    return 0;
}

void query_pipeline_block(const star_schema *s, query_table *const *tables, const uint64_t *block,
                          uint64_t rows_per_block, uint64_t out[2])
{
    const uint64_t n = block_rows(block, rows_per_block), W = (uint64_t)s->fact_words, cell = block[0];
    const query_table *t[STAR_MAX_DIMS];
    for (int j = 0; j < s->dims; j++) t[j] = &tables[j][star_cell_part(s, cell, j)];
    const uint64_t *row = block + QUERY_BLOCK_HEADER / 8;
    uint64_t m = 0, c = 0;
    for (uint64_t i = 0; i < n; i++, row += W) {
        uint64_t h = row[1], rid;
        int j = 0;
        for (; j < s->dims; j++) {
            const uint64_t key = row[star_fk_word(j)];
            if (!query_table_get(t[j], key, &rid)) break;
            h = star_step(h, rid, key);
        }
        if (j == s->dims) {
            m++;
            c += h;
        }
    }
    out[0] += m;
    out[1] += c;
}
