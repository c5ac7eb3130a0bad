/* What `rmabench join` prints (rank 0): the run header, each run's phase table with throughput
 * and verification, and the summary over --repeat runs. */
#include <inttypes.h>
#include <stdio.h>

#include "bench/options.h"
#include "bench/stats.h"
#include "bench/version.h"
#include "cmd/join/join_cmd.h"

void join_report_header(const join_session *js)
{
    if (js->ctx.rank != 0) return;
    const join_opts *o = &js->o;
    const bench_ctx *ctx = &js->ctx;
    char rn[32], sn[32];
    opt_format_count((int64_t)js->wl.r_total, rn, sizeof rn);
    opt_format_count((int64_t)js->wl.s_total, sn, sizeof sn);
    printf("# rmabench join: |R| = %s, |S| = %s (1:%d, selectivity %g, skew %g, seed %" PRId64 ")\n", rn, sn,
           (int)o->ratio, o->selectivity, o->skew, o->seed);
    printf("# ranks %d on %d host(s), %d per host (%s); %s; commit %s\n", ctx->size, ctx->hosts, ctx->ranks_per_host,
           ctx->hostnames, ctx->mpi_library, RMB_GIT_COMMIT);
    printf("# generate: %.3f s; expected matches %" PRIu64 ", checksum 0x%016" PRIx64 "\n", js->t_generate,
           js->expected[0], js->expected[1]);
    numa_report_print_header(&js->numa);
    fflush(stdout);
}

void join_report_warmup(const join_session *js, const join_run_result *res)
{
    if (js->ctx.rank != 0) return;
    printf("%s warm-up run %d/%d: total %.4f s, verification: %s\n", res->algo->name, res->index + (int)js->o.warmup + 1,
           (int)js->o.warmup, res->st.total_max, res->pass ? "PASS" : "FAIL");
    fflush(stdout);
}

void join_report_run(const join_session *js, const join_run_result *res)
{
    if (js->ctx.rank != 0) return;
    char title[64];
    snprintf(title, sizeof title, "%s run %d/%d", res->algo->name, res->index + 1, (int)js->o.repeat);
    phases_print(&res->st, title);
    printf("throughput: %.2f M input tuples/s\n", res->throughput / 1e6);
    numa_report_print_run(&js->numa);
    printf("matches: %" PRIu64 " (expected %" PRIu64 "), checksum 0x%016" PRIx64 " (expected 0x%016" PRIx64 ")\n",
           res->got[0], js->expected[0], res->got[1], js->expected[1]);
    printf("verification: %s\n", res->pass ? "PASS" : "FAIL");
    fflush(stdout);
}

void join_report_summary(const join_session *js, const join_algo *algo, double *totals, int n)
{
    if (js->ctx.rank != 0 || n < 2) return;
    double med = stats_median(totals, n);
    printf("summary %s: median total %.4f s, median throughput %.2f M input tuples/s over %d runs\n", algo->name, med,
           (double)(js->wl.r_total + js->wl.s_total) / med / 1e6, n);
    fflush(stdout);
}
