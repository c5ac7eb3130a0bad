/* What `rmabench query` prints (rank 0): the header (schema, placement, each design's
 * configuration, the load), each run's phase table, its data moved and its verification, and the
 * median over the --repeat runs. */
#include <inttypes.h>
#include <stdio.h>

#include "bench/memory.h"
#include "bench/stats.h"
#include "bench/version.h"
#include "cmd/query/query_cmd.h"
#include "joins/radix/radix_plan.h"

static void print_schema_line(const query_session *qs)
{
    const star_schema *s = &qs->s;
    char c[32];
    opt_format_count((int64_t)s->fact_rows, c, sizeof c);
    printf("# rmabench query: %d tables: lineorder %s x %d B", 1 + s->dims, c, 8 * s->fact_words);
    for (int j = 0; j < s->dims; j++) {
        opt_format_count((int64_t)s->dim_rows[j], c, sizeof c);
        printf(", %s %s x %d B (selectivity %g)", star_dim_names[j], c, 8 * s->dim_words[j], s->selectivity[j]);
    }
    printf("; seed %" PRId64 "\n", qs->o.seed);
}

static void print_pull_config(const query_session *qs)
{
    const query_opts *o = &qs->o;
    const pull_state *ps = &qs->pull;
    char bs[32], lb[32];
    mem_format(o->block_size, bs, sizeof bs);
    mem_format((int64_t)ps->load_bytes, lb, sizeof lb);
    printf("# pull: %d memory rank(s), %d compute rank(s); blocks of %s (%" PRIu64 " lineorder rows), prefetch %" PRId64
           ", claim %" PRId64 " blocks, replicate %s; window %s; partitions per key",
           ps->memory_ranks, ps->compute_ranks, bs, ps->L.rows_per_block[0], o->prefetch, o->claim,
           query_replicate_names[o->replicate], win_flavor_names[ps->data.flavor]);
    for (int j = 0; j < qs->s.dims; j++) printf("%s%d", j ? "," : " ", 1 << qs->s.part_bits[j]);
    printf(" (%" PRIu64 " fact cells)\n", UINT64_C(1) << qs->s.cell_bits);
    printf("# pull load (apart from the query): generate %.3f s, load %.3f s: %s put into %" PRIu64 " blocks\n",
           ps->t_generate, ps->t_load, lb, ps->L.first_block[ps->L.tables]);
}

void query_report_header(const query_session *qs)
{
    if (qs->ctx.rank != 0) return;
    print_schema_line(qs);
    printf("# ");
    bench_ctx_print_placement(&qs->ctx, stdout, qs->o.verbose);
    printf("; %s; commit %s\n# ", qs->ctx.mpi_library, RMB_GIT_COMMIT);
    bench_ctx_print_environment(&qs->ctx, stdout);
    printf("\n");
    if (qs->pull_on) print_pull_config(qs);
    if (qs->shuffle_on) {
        join_opts jo = {0};
        jo.radix_bits = qs->o.radix_bits;
        const int bits = radix_plan_bits(&jo, qs->ctx.size);
        printf("# shuffle: %d ranks, %d join(s), each %d partitions (%d radix bits), rows moved whole by %s; "
               "generate %.3f s\n", qs->ctx.size, qs->s.dims, 1 << bits, bits,
               qs->o.exchange == QUERY_EXCHANGE_PUT ? "MPI_Rput into the owners' windows" : "MPI_Alltoallv",
               qs->sh.t_generate);
    }
    printf("# expected: %" PRIu64 " result rows, checksum 0x%016" PRIx64 "\n", qs->expected[0], qs->expected[1]);
    fflush(stdout);
}

void query_report_run(const query_session *qs, const query_run_result *res)
{
    if (qs->ctx.rank != 0) return;
    char title[64], moved[32];
    const char *name = query_design_names[res->design];
    if (res->index < 0) {
        printf("%s warm-up run %d/%d: total %.4f s, verification: %s\n", name, res->index + (int)qs->o.warmup + 1,
               (int)qs->o.warmup, res->st.total_max, res->pass ? "PASS" : "FAIL");
        fflush(stdout);
        return;
    }
    snprintf(title, sizeof title, "%s run %d/%d", name, res->index + 1, (int)qs->o.repeat);
    phases_print_roofline(&res->st, title, NULL, NULL);
    mem_format((int64_t)res->moved_bytes, moved, sizeof moved);
    if (res->design == QUERY_PULL)
        printf("moved: %s (dimensions to every compute rank, %" PRIu64 " fact blocks)\n", moved, res->blocks);
    else
        printf("moved: %s (rows shuffled to other ranks over %d join(s))\n", moved, qs->s.dims);
    printf("throughput: %.2f M fact rows/s\n", (double)qs->s.fact_rows / res->st.total_max / 1e6);
    if (res->model_s > 0)
        printf("model: %.4f s predicted, %.4f s measured (measured / model %.2f)\n", res->model_s, res->st.total_max,
               res->st.total_max / res->model_s);
    printf("matches: %" PRIu64 " (expected %" PRIu64 "), checksum 0x%016" PRIx64 " (expected 0x%016" PRIx64 ")\n",
           res->got[0], qs->expected[0], res->got[1], qs->expected[1]);
    printf("verification: %s\n", res->pass ? "PASS" : "FAIL");
    fflush(stdout);
}

void query_report_summary(const query_session *qs, int design, double *totals, int n)
{
    if (qs->ctx.rank != 0 || n < 1) return;
    const double med = stats_median(totals, n);
    printf("summary %s: median total %.4f s over %d run(s), %.2f M fact rows/s\n", query_design_names[design], med, n,
           (double)qs->s.fact_rows / med / 1e6);
    fflush(stdout);
}
