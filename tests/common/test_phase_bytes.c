/* The joins' per-phase byte formulas (joins/radix/radix_bytes.c, joins/sortmerge/smj_bytes.c) on a
 * small plan computed by hand, every counted phase's roofline columns in the schema, and the
 * roofline time rule (bench/membw.h membw_bound_seconds). 2 ranks, |R| = 1000, |S| = 3000: n = 2000
 * tuples per rank, 16 B input tuples. */
#include <stdio.h>
#include <string.h>

#include "bench/membw.h"
#include "cmd/results_schema.h"
#include "joins/join.h"
#include "tests/check.h"

static int is(join_phase_bytes b, double read, double written) { return b.read == read && b.written == written; }

int main(void)
{
    /* radix, 8 B packed, 1 local pass: half of a rank's tuples go to the other rank's partitions */
    join_bytes_shape r = {.ranks = 2, .r_total = 1000, .s_total = 3000, .tuple_bytes = 8, .passes = 1};
    CHECK(is(radix_phase_bytes("histogram", &r), 16 * 2000, 0));
    /* input 32000 + send buffers read 0.5 x 8 x 2000; windows 8 x 2000 + send buffers 8000 */
    CHECK(is(radix_phase_bytes("network_partition", &r), 40000, 24000));
    CHECK(is(radix_phase_bytes("local_partition", &r), 16000, 16000));
    r.counted = 1; /* the pass counts its items: one more read */
    CHECK(is(radix_phase_bytes("local_partition", &r), 32000, 16000));
    r.counted = 0;
    CHECK(is(radix_phase_bytes("build_probe", &r), 16000, 0));
    CHECK(is(radix_phase_bytes("window_alloc", &r), 0, 0));
    CHECK(is(radix_phase_bytes("put", &r), 0, 0));
    r.passes = 2;
    CHECK(is(radix_phase_bytes("local_partition", &r), 32000, 32000));
    r.passes = 0;
    CHECK(is(radix_phase_bytes("local_partition", &r), 0, 0));
    r.direct_ranks = 2; /* --window shared on one host: the other rank's window is stored into directly */
    CHECK(is(radix_phase_bytes("network_partition", &r), 32000, 16000));
    r.ranks = 4; /* 2 hosts of 2: half of a rank's n = 1000 tuples go through send buffers */
    CHECK(is(radix_phase_bytes("network_partition", &r), 16000 + 4000, 8000 + 4000));
    r.direct_ranks = 0;
    r.ranks = 1; /* nothing leaves the rank: no send buffers */
    CHECK(is(radix_phase_bytes("network_partition", &r), 16 * 4000, 8 * 4000));

    /* sort-merge, 16 B, 2 merge passes */
    join_bytes_shape s = {.ranks = 2, .r_total = 1000, .s_total = 3000, .tuple_bytes = 16, .passes = 2, .counted = 1};
    CHECK(is(sortmerge_phase_bytes("partition", &s), 2 * 16 * 2000, 16 * 2000));
    s.counted = 0; /* band pieces sized from a sample: the input once, a line per 64th tuple */
    CHECK(is(sortmerge_phase_bytes("partition", &s), 16 * 2000 + 64 * 2000 / 64, 16 * 2000));
    s.counted = 1;
    CHECK(is(sortmerge_phase_bytes("sort", &s), 32000, 32000));
    CHECK(is(sortmerge_phase_bytes("merge", &s), 64000, 64000));
    CHECK(is(sortmerge_phase_bytes("match", &s), 32000, 0));
    CHECK(is(sortmerge_phase_bytes("window_alloc", &s), 0, 0));
    CHECK(is(sortmerge_phase_bytes("flush", &s), 0, 0));

    /* every declared phase of the RMA joins has its roofline columns */
    const join_algo *algos[] = {&radix_join_algo, &sortmerge_join_algo, &reference_join_algo};
    for (int a = 0; a < 3; a++)
        for (const phase_decl *d = algos[a]->phases; d->name; d++) {
            const char *suffix[] = {"gbs", "roofline", "faults"};
            for (int k = 0; k < 3; k++) {
                char col[64];
                snprintf(col, sizeof col, "t_%s_%s", d->name, suffix[k]);
                CHECK(record_schema_has(&results_schema, col));
            }
        }
    CHECK(radix_join_algo.bytes && sortmerge_join_algo.bytes && !reference_join_algo.bytes);
    CHECK(record_schema_has(&results_schema, "roofline_source"));

    /* roofline: 2 GB read and written alike at the copy rate (4 GB/s counts both: 1 s), the 2 GB
     * read beyond at 4 GB/s (0.5 s) */
    CHECK(membw_bound_seconds(4e9, 2e9, 4e9, 2e9, 4e9) == 1.5);
    CHECK(membw_bound_seconds(0, 3e9, 4e9, 2e9, 4e9) == 1.5);
    CHECK(membw_bound_seconds(1e9, 0, 1e9, 2e9, 4e9) == 1.0);
    CHECK(membw_bound_seconds(0, 0, 1e9, 2e9, 4e9) == 0);

    /* the roofline's buffers: a machine's ranks stream 4x its last-level cache (STREAM's rule), at
     * least 64 MiB each, whole 2 MiB pages */
    const uint64_t MiB = (uint64_t)1 << 20;
    CHECK(membw_auto_bytes(300 * MiB, 2) == 600 * MiB);
    CHECK(membw_auto_bytes(300 * MiB, 1) == 1200 * MiB);
    CHECK(membw_auto_bytes(32 * MiB, 64) == 64 * MiB);
    CHECK(membw_auto_bytes(0, 1) == 64 * MiB);
    CHECK(membw_auto_bytes(100 * MiB + 1, 1) == 402 * MiB);
    CHECK(membw_auto_bytes(300 * MiB, 0) == 1200 * MiB);
    membw_result m = {.bytes = 64 * MiB, .llc = 300 * MiB, .llc_ranks = 2};
    CHECK(!membw_beyond_llc(&m));
    char d[200];
    membw_describe_llc(&m, d, sizeof d);
    CHECK(strstr(d, "within 4x") != NULL);
    m.bytes = membw_auto_bytes(m.llc, m.llc_ranks);
    CHECK(membw_beyond_llc(&m));
    membw_describe_llc(&m, d, sizeof d);
    CHECK(strstr(d, "4.0x the 300.0 MiB last-level cache") != NULL && strstr(d, "within") == NULL);
    m.llc = 0;
    CHECK(membw_beyond_llc(&m));
    CHECK_DONE();
}
