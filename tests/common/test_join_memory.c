/* Memory of a join rank beyond its data, as plan() bounds it (MPI-free, any rank count): with the
 * default flags, send buffers, tables and per-rank arrays stay within 256 MiB less the process
 * allowance at every rank count up to 8192, for both joins at 1:1 and 1:8 (issue 13); the radix
 * send buffers fill --buffer-memory at most and shrink as partitions grow, in whole cache lines,
 * and a budget that cannot give each buffer a line is refused naming --buffer-memory. */
#include <stdio.h>
#include <string.h>

#include "bench/memory.h"
#include "cmd/join/join_cmd.h"
#include "rma/putbuf.h"
#include "tests/check.h"

static int plan_of(const join_algo *a, const join_opts *o, uint64_t per_rank, int ratio, int ranks, join_plan *p,
                   char *err, size_t len)
{
    workload w;
    workload_init(&w, per_rank * (uint64_t)ranks, ratio, 1.0, 0, 42, 0, ranks, false);
    return a->plan(o, &w, ranks, p, err, len);
}

static void beyond_data(void)
{
    join_opts o;
    join_default_opts(&o);
    char err[512];
    const int64_t bound = ((int64_t)256 << 20) - MEM_RUNTIME_BYTES;
    int64_t prev_size = INT64_MAX;
    for (int ranks = 2; ranks <= 8192; ranks *= 2)
        for (int ratio = 1; ratio <= 8; ratio *= 8) {
            join_plan p;
            CHECK(plan_of(&radix_join_algo, &o, 40000000, ratio, ranks, &p, err, sizeof err) == 0);
            CHECK(p.buffer_bytes + p.other_bytes <= bound);
            CHECK(p.buffer_bytes <= o.buffer_memory);
            CHECK(p.buffer_size % 64 == 0 && p.buffer_size >= 64 && p.buffer_size <= o.buffer_size);
            CHECK_EQ_U64((uint64_t)p.buffers, (uint64_t)(p.partitions - 1) * (uint64_t)o.buffers_per_partition);
            if (ratio == 1) {
                CHECK(p.buffer_size <= prev_size); /* more partitions, never larger buffers */
                prev_size = p.buffer_size;
            }
            CHECK(plan_of(&sortmerge_join_algo, &o, 40000000, ratio, ranks, &p, err, sizeof err) == 0);
            CHECK(p.buffer_bytes + p.other_bytes <= bound);
        }
    /* at 128 ranks the thesis' 64 KiB buffers still fit the default budget: 1023 x 2 x 64 KiB < 128 MiB */
    join_plan p;
    CHECK(plan_of(&radix_join_algo, &o, 40000000, 1, 128, &p, err, sizeof err) == 0);
    CHECK_EQ_U64((uint64_t)p.buffer_size, 65536);
}

static void budget(void)
{
    CHECK_EQ_U64(putbuf_size_for_budget(65536, UINT64_C(1) << 27, 65534), 2048);
    CHECK_EQ_U64(putbuf_size_for_budget(65536, UINT64_C(1) << 30, 10), 65536);
    CHECK_EQ_U64(putbuf_size_for_budget(65536, 1000, 10), 64);
    CHECK_EQ_U64(putbuf_size_for_budget(65536, 639, 10), 0);
    join_opts o;
    join_default_opts(&o);
    o.buffer_memory = 4096;
    char err[512];
    join_plan p;
    /* 2 ranks: 16 partitions, 15 remote x 2 buffers x 64 B = 1920 <= 4096: accepted with 128 B buffers */
    CHECK(plan_of(&radix_join_algo, &o, 1000, 1, 2, &p, err, sizeof err) == 0);
    CHECK_EQ_U64((uint64_t)p.buffer_size, 128);
    /* 64 ranks: 511 remote x 2 x 64 B > 4096: refused naming the flag */
    CHECK(plan_of(&radix_join_algo, &o, 1000, 1, 64, &p, err, sizeof err) != 0);
    CHECK(strncmp(err, "--buffer-memory: ", 17) == 0);
}

int main(void)
{
    beyond_data();
    budget();
    CHECK_DONE();
}
