/* What both designs share: the phases they declare and the schema their options resolve to. */
#include "joins/query/query.h"

#include "joins/query/layout.h"

const phase_decl query_pull_phases[] = {
    {"replicate", false}, {"probe", false}, {"fetch_wait", true}, {"wait", false}, {NULL, false},
};
const phase_decl query_shuffle_phases[] = {
    {"histogram", false}, {"exchange", false}, {"build_probe", false}, {"wait", false}, {NULL, false},
};

uint64_t query_rows_per_block(uint64_t block_bytes, uint64_t row_bytes)
{
    return block_bytes > QUERY_BLOCK_HEADER ? (block_bytes - QUERY_BLOCK_HEADER) / row_bytes : 0;
}

void query_schema(const query_opts *o, int rank, int ranks, star_schema *s)
{
    const int dims = (int)o->tables - 1;
    uint64_t rows[STAR_MAX_DIMS];
    int words[STAR_MAX_DIMS], bits[STAR_MAX_DIMS];
    for (int j = 0; j < dims; j++) {
        const double share = star_ssb_dim_share[j] * (double)o->fact_rows;
        rows[j] = o->dim_rows[j] > 0 ? (uint64_t)o->dim_rows[j] : share < 1 ? 1 : (uint64_t)share;
        words[j] = (int)(o->dim_width[j] / 8);
        bits[j] = 0;
        if (o->partitions > 0)
            while ((INT64_C(1) << bits[j]) < o->partitions) bits[j]++;
    }
    if (o->partitions == 0) {
        const uint64_t rpb = query_rows_per_block((uint64_t)o->block_size, (uint64_t)o->fact_width);
        star_auto_part_bits(dims, rows, rpb ? (uint64_t)o->fact_rows / rpb : 0, bits);
    }
    star_init(s, dims, (uint64_t)o->fact_rows, rows, (int)(o->fact_width / 8), words, o->selectivity, bits,
              (uint64_t)o->seed, rank, ranks);
}
