/* The star query's MPI-free parts (joins/query/): the generator's expected result does not depend
 * on how the fact table is sliced, its keys are a dimension's and every row's cell is in range; the
 * layout's bound holds every cell size, each memory rank's blocks of a table are the contiguous
 * range pull_local_range says; a table finds every key it holds and none it does not; the pipeline
 * counts a block's rows whose keys are all in the tables, and a filter drops the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joins/query/layout.h"
#include "joins/query/pipeline.h"
#include "tests/check.h"

static star_schema schema(int dims, double sel)
{
    star_schema s;
    const uint64_t rows[3] = {500, 3000, 70};
    const int words[3] = {15, 13, 14}, bits[3] = {2, 3, 1};
    const double sels[3] = {sel, 1, 1};
    star_init(&s, dims, 20000, rows, 11, words, sels, bits, 7, 0, 1);
    return s;
}

static void test_generator(void)
{
    const star_schema s = schema(3, 0.5);
    uint64_t *rows = malloc(20000 * 11 * sizeof *rows), whole[2] = {0, 0}, parts[2] = {0, 0};
    star_fact_rows(&s, 0, 20000, rows, whole);
    for (uint64_t off = 0; off < 20000; off += 2857) /* uneven slices, the last one short */
        star_fact_rows(&s, off, off + 2857 > 20000 ? 20000 - off : 2857, rows, parts);
    CHECK_EQ_U64(whole[0], parts[0]); /* the expected result does not depend on the slices */
    CHECK_EQ_U64(whole[1], parts[1]);
    CHECK(whole[0] > 8000 && whole[0] < 12000); /* selectivity 0.5 keeps about half */
    star_fact_rows(&s, 0, 20000, rows, whole);
    for (uint64_t i = 0; i < 20000; i++) {
        const uint64_t *r = rows + i * 11;
        CHECK(r[1] == i && r[0] >= 1 && r[0] <= 500 && r[3] >= 1 && r[3] <= 70);
        CHECK(star_cell(&s, r) < (UINT64_C(1) << s.cell_bits));
    }
    free(rows);
}

static void test_layout(void)
{
    const star_schema s = schema(3, 1);
    uint64_t *rows[4];
    srand(3);
    for (int t = 0; t < 4; t++) {
        const uint64_t n = pull_table_cells(&s, t), total = t ? s.dim_rows[t - 1] : s.fact_rows;
        rows[t] = calloc(n, sizeof(uint64_t));
        for (uint64_t i = 0; i < total; i++) rows[t][(uint64_t)rand() % (i % 7 ? n : 1)]++; /* skewed cells */
    }
    for (int M = 1; M <= 5; M++) {
        pull_layout L;
        CHECK(pull_layout_init(&L, &s, M, 2048, rows) == 0);
        CHECK(L.window_blocks <= pull_window_blocks_bound(&s, M, 2048));
        for (int t = 0; t < 4; t++) {
            uint64_t seen = 0;
            for (int m = 0; m < M; m++) {
                uint64_t lo, hi;
                pull_local_range(&L, t, m, &lo, &hi);
                for (uint64_t b = L.first_block[t]; b < L.first_block[t + 1]; b++)
                    if (pull_block_rank(&L, b) == m) {
                        CHECK(b / (uint64_t)M >= lo && b / (uint64_t)M < hi);
                        seen++;
                    }
                seen -= hi - lo; /* every block of the range is one of the table's on m */
            }
            CHECK_EQ_U64(seen, 0); /* the ranges cover exactly the table's blocks */
        }
        pull_layout_free(&L);
    }
    for (int t = 0; t < 4; t++) free(rows[t]);
}

static void test_table_and_pipeline(void)
{
    const star_schema s = schema(1, 0.5);
    uint64_t mem[2 * 2048], *dim = calloc(500 * 15 + 2, sizeof(uint64_t));
    query_table t[4];
    for (int p = 0; p < 4; p++) query_table_init(&t[p], mem + p * 2 * 512, 512, 2);
    star_dim_rows(&s, 0, 0, 500, dim);
    uint64_t kept = 0;
    for (uint64_t i = 0; i < 500; i++) {
        const uint64_t *r = dim + i * 15;
        if (!star_dim_passes(&s, 0, r[1])) continue;
        CHECK(query_table_put(&t[star_partition(&s, 0, r[0])], r[0], r[1]));
        kept++;
    }
    uint64_t hits = 0, rid = 0;
    for (uint64_t key = 1; key <= 1000; key++)
        hits += query_table_get(&t[key & 3], key, &rid) && key <= 500;
    CHECK_EQ_U64(hits, kept); /* the tables find exactly the rows put */
    /* a block of cell 1 holding two fact rows: one whose key is in the tables, one whose is not */
    uint64_t block[2 + 2 * 11] = {1, 2}, out[2] = {0, 0};
    uint64_t in = 0;
    for (uint64_t key = 1; key <= 500 && !in; key++)
        if ((key & 3) == 1 && query_table_get(&t[1], key, &rid)) in = key;
    block[2] = in, block[3] = 77, block[13] = 4 * 499 + 1, block[14] = 78; /* 1997: no such key */
    query_table *const tables[1] = {t};
    query_pipeline_block(&s, tables, block, 2, out);
    query_table_get(&t[1], in, &rid);
    CHECK_EQ_U64(out[0], 1); /* the pipeline's count and term of a block */
    CHECK_EQ_U64(out[1], star_step(77, rid, in));
    free(dim);
}

int main(void)
{
    test_generator();
    test_layout();
    test_table_and_pipeline();
    CHECK_DONE();
}
