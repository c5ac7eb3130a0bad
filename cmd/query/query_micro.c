/* rmabench query --micro: the seed's section 5.2 micro-benchmarks (joins/query/micro.h), one line
 * and one CSV row per point, the median of --repeat scans (after --warmup), every scan checked:
 *   prefetch  for each --micro-block-size, for each --micro-prefetch depth: compute rank M (the
 *             first) scans memory rank 0's table: blocks per second (Fig. 7b)
 *   readers   --block-size blocks; for reads, then for a broadcast, for each --micro-readers count
 *             r: compute ranks M .. M+r-1 scan the whole table at once: blocks per second per
 *             compute rank, the mean over them (Fig. 7c)
 *   alltoallv every rank sends --micro-blocks x --block-size bytes, an even share to every rank, in
 *             one MPI_Alltoallv: the bytes a rank sends to the others a second (the shuffle's
 *             transfer; jobs/query_params.py makes it the model's bw_alltoallv) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/memory.h"
#include "bench/provenance.h"
#include "bench/stats.h"
#include "cmd/query/query_cmd.h"
#include "cmd/results_schema.h"
#include "joins/query/micro.h"

typedef struct {
    const char *what;            /* "prefetch" or "readers" */
    int64_t block_bytes, depth, readers;
    bool bcast;
    double rate, seconds;        /* medians: blocks/s per reader, the slowest reader's seconds */
    uint64_t blocks;
    bool pass;
} micro_point;

/* --repeat scans after --warmup; the rate per reader (mean over readers) and the check of every scan. */
static void measure(query_session *qs, const micro_table *mt, micro_point *pt)
{
    const int n = (int)qs->o.repeat, M = (int)qs->o.memory_ranks;
    double *rates = calloc((size_t)n, sizeof(double)), *secs = calloc((size_t)n, sizeof(double));
    const uint64_t want = micro_expected_sum(mt->blocks, mt->block_bytes);
    pt->pass = true;
    for (int rep = -(int)qs->o.warmup; rep < n; rep++) {
        micro_result r;
        micro_scan(mt, M, (int)pt->readers, pt->bcast, (int)pt->depth, (uint64_t)qs->o.bcast_chunk, &r);
        int ok = !r.reader || (r.sum == want && r.blocks == mt->blocks), all_ok = 0;
        double mine[2] = {r.reader && r.seconds > 0 ? (double)r.blocks / r.seconds : 0, r.seconds}, sum[2];
        MPI_CHECK(qs->ctx.rank, MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, qs->ctx.comm));
        MPI_CHECK(qs->ctx.rank, MPI_Allreduce(&mine[0], &sum[0], 1, MPI_DOUBLE, MPI_SUM, qs->ctx.comm));
        MPI_CHECK(qs->ctx.rank, MPI_Allreduce(&mine[1], &sum[1], 1, MPI_DOUBLE, MPI_MAX, qs->ctx.comm));
        pt->pass = pt->pass && all_ok;
        if (rep < 0) continue;
        rates[rep] = sum[0] / (double)pt->readers;
        secs[rep] = sum[1];
    }
    pt->rate = stats_median(rates, n);
    pt->seconds = stats_median(secs, n);
    pt->blocks = mt->blocks;
    free(rates);
    free(secs);
}

static int report_point(query_session *qs, const micro_point *pt)
{
    if (qs->ctx.rank == 0) {
        char b[32];
        mem_format(pt->block_bytes, b, sizeof b);
        printf("%-8s block %-8s prefetch %-4" PRId64 " readers %-3" PRId64 " %-5s %10.4f M blocks/s per reader  %8.4f s  %s\n",
               pt->what, b, pt->depth, pt->readers, pt->bcast ? "bcast" : "read", pt->rate / 1e6, pt->seconds,
               pt->pass ? "PASS" : "FAIL");
        fflush(stdout);
    }
    if (!qs->o.output) return 0;
    record *rec = NULL;
    if (qs->ctx.rank == 0) {
        rec = record_new(&results_schema);
        query_record_common(qs, rec, "pull", true);
        provenance_outcome(rec, pt->pass);
        record_set(rec, "micro", "%s", pt->what);
        record_set(rec, "prefetch", "%" PRId64, pt->depth); /* a broadcast reads nothing: --prefetch as given */
        record_set(rec, "block_size", "%" PRId64, pt->block_bytes);
        record_set(rec, "readers", "%" PRId64, pt->readers);
        record_set(rec, "replicate", "%s", pt->bcast ? "bcast" : "read");
        if (pt->bcast) record_set(rec, "bcast_chunk", "%" PRId64, qs->o.bcast_chunk);
        record_set(rec, "blocks", "%" PRIu64, pt->blocks);
        record_set(rec, "blocks_per_s", "%.1f", pt->rate);
        record_set(rec, "t_total_max", "%.6f", pt->seconds);
        record_set(rec, "repeat_index", "%d", 0);
    }
    return query_record_append(qs, rec);
}

static int run_prefetch(query_session *qs, bool *all_pass)
{
    for (int b = 0; b < qs->o.n_block; b++) {
        micro_table mt;
        micro_table_open(&mt, &qs->ctx, (uint64_t)qs->o.micro_blocks, (uint64_t)qs->o.list_block[b], qs->o.window);
        for (int d = 0; d < qs->o.n_prefetch; d++) {
            micro_point pt = {"prefetch", qs->o.list_block[b], qs->o.list_prefetch[d], 1, false, 0, 0, 0, true};
            measure(qs, &mt, &pt);
            *all_pass = *all_pass && pt.pass;
            if (report_point(qs, &pt)) return QUERY_EXIT_USAGE;
        }
        micro_table_close(&mt);
    }
    return 0;
}

static int run_readers(query_session *qs, bool *all_pass)
{
    micro_table mt;
    micro_table_open(&mt, &qs->ctx, (uint64_t)qs->o.micro_blocks, (uint64_t)qs->o.block_size, qs->o.window);
    const int C = qs->ctx.size - (int)qs->o.memory_ranks, n = qs->o.n_readers ? qs->o.n_readers : C;
    for (int m = 0; m < 2; m++)
        for (int i = 0; i < n; i++) {
            const int64_t r = qs->o.n_readers ? qs->o.list_readers[i] : i + 1;
            micro_point pt = {"readers", qs->o.block_size, qs->o.prefetch, r, m == 1, 0, 0, 0, true};
            measure(qs, &mt, &pt);
            *all_pass = *all_pass && pt.pass;
            if (report_point(qs, &pt)) return QUERY_EXIT_USAGE;
        }
    micro_table_close(&mt);
    return 0;
}

static int run_alltoallv(query_session *qs, bool *all_pass)
{
    const int n = (int)qs->o.repeat;
    const uint64_t bytes = (uint64_t)qs->o.micro_blocks * (uint64_t)qs->o.block_size;
    double *secs = calloc((size_t)n, sizeof(double));
    bool pass = true;
    micro_result r = {0};
    for (int rep = -(int)qs->o.warmup; rep < n; rep++) {
        micro_alltoallv(&qs->ctx, bytes, &r);
        int ok = r.sum == 0, all_ok = 0;
        double slowest = 0;
        MPI_CHECK(qs->ctx.rank, MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, qs->ctx.comm));
        MPI_CHECK(qs->ctx.rank, MPI_Allreduce(&r.seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, qs->ctx.comm));
        pass = pass && all_ok;
        if (rep >= 0) secs[rep] = slowest;
    }
    const double med = stats_median(secs, n);
    free(secs);
    *all_pass = *all_pass && pass;
    if (qs->ctx.rank == 0) {
        printf("alltoallv %.1f MiB a rank, %.1f MiB to the others: %.4f s, %.3f GB/s a rank  %s\n", bytes / 1048576.0,
               r.blocks / 1048576.0, med, r.blocks / med / 1e9, pass ? "PASS" : "FAIL");
        fflush(stdout);
    }
    if (!qs->o.output) return 0;
    record *rec = NULL;
    if (qs->ctx.rank == 0) {
        rec = record_new(&results_schema);
        query_record_common(qs, rec, "shuffle", false);
        provenance_outcome(rec, pass);
        record_set(rec, "micro", "alltoallv");
        record_set(rec, "block_size", "%" PRId64, qs->o.block_size);
        record_set(rec, "blocks", "%" PRId64, qs->o.micro_blocks);
        record_set(rec, "moved_bytes", "%" PRIu64, r.blocks);
        record_set(rec, "t_total_max", "%.6f", med);
        record_set(rec, "repeat_index", "%d", 0);
    }
    return query_record_append(qs, rec) ? QUERY_EXIT_USAGE : 0;
}

int query_micro_main(query_session *qs)
{
    const query_opts *o = &qs->o;
    if (qs->ctx.rank == 0) {
        char c[32];
        opt_format_count(o->micro_blocks, c, sizeof c);
        printf("# rmabench query --micro %s: memory rank 0 holds %s blocks of 8-byte integers; compute ranks from rank "
               "%" PRId64 " scan them (the sum of each block); median of %" PRId64 " scan(s) after %" PRId64 " warm-up(s)\n# ",
               query_micro_names[o->micro], c, o->memory_ranks, o->repeat, o->warmup);
        bench_ctx_print_placement(&qs->ctx, stdout, o->verbose);
        printf("; %s\n", qs->ctx.mpi_library);
    }
    bool pass = true;
    const int rc = o->micro == MICRO_PREFETCH ? run_prefetch(qs, &pass)
                   : o->micro == MICRO_READERS ? run_readers(qs, &pass)
                                               : run_alltoallv(qs, &pass);
    if (qs->ctx.rank == 0) printf("verification: %s\n", pass ? "PASS" : "FAIL");
    return rc ? rc : pass ? QUERY_EXIT_OK : QUERY_EXIT_FAILED;
}
