/* What `rmabench join` prints (rank 0): the run header, each run's phase table with throughput
 * and verification, and the summary over --repeat runs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/host_steal.h"
#include "bench/memory.h"
#include "bench/options.h"
#include "bench/stats.h"
#include "bench/version.h"
#include "cmd/join/join_cmd.h"
#include "joins/radix/exchange_registry.h"
#include "joins/sortmerge/smj_plan.h"

/* A flag's value, or "auto" when it holds its auto value (0, or -1 for --passes). */
static const char *or_auto(int64_t v, int64_t auto_value, char *buf, size_t len)
{
    if (v == auto_value) return "auto";
    snprintf(buf, len, "%" PRId64, v);
    return buf;
}

/* One line per algorithm: the flags that shape its measurement, as given (auto where it resolves
 * them itself; those follow before its first run, print_resolved). */
static void print_algo_config(const join_session *js, int id, const join_plan *plan)
{
    const join_opts *o = &js->o;
    char a[24], b[24], c[24], bytes[32];
    if (id == ALGO_REFERENCE) {
        printf("# reference: no windows; per relation MPI_Alltoall (counts) + MPI_Alltoallv (tuples)\n");
        return;
    }
    printf("# %s: window %s, window-life %s, flush %s (%s), ", id == ALGO_RADIX ? "radix" : "sortmerge",
           win_flavor_names[o->window], win_life_names[o->window_life], rma_flush_names[o->flush], rma_flush_calls[o->flush]);
    if (id == ALGO_RADIX) {
        char budget[32];
        mem_format(plan->buffer_size, bytes, sizeof bytes); /* --buffer-size under --buffer-memory (radix.c) */
        mem_format(o->buffer_memory, budget, sizeof budget);
        printf("%" PRId64 " send buffers x %s per remote partition (--buffer-memory %s), radix bits %s, local bits %s, "
               "passes %s, scatter %s, assign %s, compress %s\n", o->buffers_per_partition, bytes, budget,
               or_auto(o->radix_bits, 0, a, sizeof a),
               or_auto(o->local_bits, 0, b, sizeof b), or_auto(o->passes, -1, c, sizeof c),
               join_scatter_names[o->scatter], join_assign_names[o->assign], !o->compress ? "off" : o->compress_given ? "on" : "auto");
        if (o->exchange != 0 || o->schedule != SCHEDULE_AS_IS) /* not the default design (the first) and order */
            printf("# radix: exchange %s, schedule %s\n", radix_exchange_names()[o->exchange], join_schedule_names[o->schedule]);
    } else {
        printf("%d send buffers x one run, run size %s, merge fan-in %s, merge bands %s, band count %s, ranges %s, simd "
               "%s, run sort %s\n",
               SMJ_SEND_BUFFERS, or_auto(o->run_size, 0, a, sizeof a), or_auto(o->merge_fanin, 0, b, sizeof b),
               or_auto(o->merge_bands, 0, c, sizeof c), join_band_count_names[o->band_count], join_ranges_names[o->ranges],
               join_simd_names[o->simd], join_run_sort_names[o->run_sort]);
    }
}

/* Before an algorithm's first run (warm-up or measured): what it resolved. */
static void print_resolved(const join_session *js, const join_run_result *res)
{
    if (res->index != -(int)js->o.warmup) return;
    const join_output *out = &res->out;
    char bytes[32];
    if (res->algo_id == ALGO_RADIX)
        printf("# radix resolved: radix bits %" PRId64 " (%" PRId64 " partitions), %" PRId64
               " local partitioning pass(es), the first of %" PRId64 " bits%s, scatter %s; kernels %s\n", out->radix_bits,
               (int64_t)1 << out->radix_bits, out->passes, out->local_bits,
               out->passes > out->local_counted ? ", counted in the histogram phase" : "", out->scatter_used,
               out->simd_used);
    else if (res->algo_id == ALGO_SORTMERGE) {
        mem_format(out->run_size * out->tuple_bytes, bytes, sizeof bytes);
        printf("# sortmerge resolved: run size %" PRId64 " tuples (send buffers %d x %s), merge fan-in %" PRId64
               ", %" PRId64 " key band(s) per range (band count %s), %" PRId64 " merge pass(es), simd %s, run sort %s\n",
               out->run_size, SMJ_SEND_BUFFERS, bytes, out->merge_fanin, out->merge_bands, out->band_count_used,
               out->passes, out->simd_used, out->run_sort_used);
        if (out->run_size_how) printf("# run size auto: %s\n", out->run_size_how);
        if (out->merge_bands_how) printf("# merge bands auto: %s\n", out->merge_bands_how);
    }
}

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
    printf("# ");
    bench_ctx_print_placement(ctx, stdout, o->verbose);
    printf("; %s; commit %s\n", ctx->mpi_library, RMB_GIT_COMMIT);
    printf("# ");
    bench_ctx_print_environment(ctx, stdout);
    printf("\n");
    printf("# generate: %.3f s; expected matches %" PRIu64 ", checksum 0x%016" PRIx64 "\n", js->t_generate,
           js->expected[0], js->expected[1]);
    for (int a = 0; a < js->nalgos; a++) {
        print_algo_config(js, join_algo_id(js->algos[a]), &js->plans[a]);
        printf("# %s tuples: %s\n", js->algos[a]->name, js->plans[a].format); /* the format the plan chose */
    }
    for (int i = 0; i < js->nrefused; i++) printf("# %s: refused: %s\n", js->refused[i]->name, js->refusal[i]);
    if (js->window_auto) { /* what --window auto chose, and from what */
        char costs[400];
        rma_window_pick_costs(&js->window_pick, costs, sizeof costs);
        printf("# window auto: %s (%s%s%s)\n", win_flavor_names[js->window_pick.chosen], js->window_pick.source,
               costs[0] ? ": " : "", costs);
    }
    if (js->flush_auto)
        printf("# flush auto: %s (%s)\n", rma_flush_names[js->o.flush], js->flush_why);
    char held[32];
    mem_format(js->window_kept_plan, held, sizeof held);
    printf("# window-life %s: windows of up to %s per rank%s", win_life_names[o->window_life], held,
           o->window_life == WIN_LIFE_JOIN ? ", allocated and freed by every join" : ", made by the first join and kept");
    if (o->queries > 1)
        printf("; %" PRId64 " queries, query q on --seed + q, each generated untimed before it", o->queries);
    printf("\n");
    numa_report_print_header(&js->numa);
    if (js->floor_us > 0)
        printf("# floor: a cache-line round trip between ranks 0 and %d through shared memory: %.3f us (C11 stores and loads, "
               "no MPI; rma/floor.h): the machine's state, beside which the phases ran\n", js->floor_peer, js->floor_us);
    const join_roofline *r = &js->roof;
    if (r->on)
        printf("# roofline (%s): read %.2f, write %.2f, copy %.2f GB/s per rank; a phase's roofline = its bytes (from the "
               "plan) at these rates over its time\n", r->source, r->read / 1e9, r->write / 1e9, r->copy / 1e9);
    fflush(stdout);
}

void join_report_warmup(const join_session *js, const join_run_result *res)
{
    if (js->ctx.rank != 0) return;
    print_resolved(js, res);
    printf("%s warm-up run %d/%d: total %.4f s, verification: %s\n", res->algo->name, res->index + (int)js->o.warmup + 1,
           (int)js->o.warmup, res->st.total_max, res->pass ? "PASS" : "FAIL");
    fflush(stdout);
}

void join_report_query(const join_session *js, double t_generate)
{
    if (js->ctx.rank != 0) return;
    printf("# query %d/%d: seed %" PRIu64 ", generated in %.3f s (untimed); expected matches %" PRIu64 ", checksum 0x%016" PRIx64 "\n",
           js->query + 1, (int)js->o.queries, js->wl.seed, t_generate, js->expected[0], js->expected[1]);
    fflush(stdout);
}

void join_report_run(const join_session *js, const join_run_result *res)
{
    if (js->ctx.rank != 0) return;
    print_resolved(js, res);
    char title[64], held[32], plan[32];
    if (js->o.queries > 1)
        snprintf(title, sizeof title, "%s query %d/%d", res->algo->name, res->query + 1, (int)js->o.queries);
    else
        snprintf(title, sizeof title, "%s run %d/%d", res->algo->name, res->index + 1, (int)js->o.repeat);
    phases_print_roofline(&res->st, title, res->has_bytes ? res->gbs : NULL, js->roof.on && res->has_bytes ? res->frac : NULL);
    join_roofline_print_in_cache(js, res);
    join_roofline_print_bound(js, res);
    printf("throughput: %.2f M input tuples/s\n", res->throughput / 1e6);
    if (res->algo_id != ALGO_REFERENCE) {
        mem_format(res->window_held, held, sizeof held);
        mem_format(js->window_kept_plan, plan, sizeof plan);
        printf("window memory: %s run, %s per rank held at most so far (plan %s)", res->first ? "first" : "steady", held, plan);
        if (res->window_regrown) printf("; kept windows grew beyond their plan %" PRId64 " time(s)", res->window_regrown);
        printf("\n");
    }
    host_steal_print(stdout, res->steal);
    host_run_delay_print(stdout, res->run_delay);
    numa_report_print_run(&js->numa);
    printf("matches: %" PRIu64 " (expected %" PRIu64 "), checksum 0x%016" PRIx64 " (expected 0x%016" PRIx64 ")\n",
           res->got[0], js->expected[0], res->got[1], js->expected[1]);
    printf("verification: %s\n", res->pass ? "PASS" : "FAIL");
    fflush(stdout);
}

/* The steady state: the runs after the first (all, when warm-ups took the first's part): median,
 * range and spread ((max - min) / median) of the totals, the median window_alloc and total without
 * it, their ratio, and the throughput. */
static void print_steady(const join_session *js, const join_series *s, int from, const char *unit)
{
    const int n = s->n - from;
    double *tot = malloc(3 * (size_t)n * sizeof *tot), *alloc = tot + n, *less = tot + 2 * n;
    if (!tot) return;
    for (int i = 0; i < n; i++) {
        tot[i] = s->total[from + i];
        alloc[i] = s->alloc[from + i];
        less[i] = tot[i] - alloc[i];
    }
    const double med = stats_median(tot, n), lo = tot[0], hi = tot[n - 1], alloc_med = stats_median(alloc, n);
    const double less_med = stats_median(less, n);
    printf("steady state, %s %d-%d: median total %.4f s [%.4f-%.4f], spread %.1f%%, window_alloc %.4f s, without it "
           "%.4f s (total / that %.2f), %.2f M input tuples/s", unit, from + 1, s->n, med, lo, hi, 100 * (hi - lo) / med,
           alloc_med, less_med, med / less_med, (double)(js->wl.r_total + js->wl.s_total) / med / 1e6);
    free(tot);
}

void join_report_summary(const join_session *js, const join_algo *algo, const join_series *s)
{
    const int n = s->n;
    if (js->ctx.rank != 0 || n < 2) return;
    double *tot = malloc((size_t)n * sizeof *tot), most = -1;
    int known = 0, stolen = 0;
    if (!tot) return;
    for (int i = 0; i < n; i++) {
        tot[i] = s->total[i];
        if (s->steal[i] < 0) continue;
        known++;
        stolen += s->steal[i] >= 0.01;
        if (s->steal[i] > most) most = s->steal[i];
    }
    const double med = stats_median(tot, n), fastest = stats_min(tot, n);
    free(tot);
    /* the fastest beside the median: the least disturbed run (model/validate.sh's estimator) */
    printf("summary %s: median total %.4f s, median throughput %.2f M input tuples/s over %d runs, fastest %.4f s", algo->name, med,
           (double)(js->wl.r_total + js->wl.s_total) / med / 1e6, n, fastest);
    if (known) printf("; host steal up to %.1f%% (%d of %d runs at 1%% or more)", 100 * most, stolen, known);
    /* the first run pays what later ones reuse (windows under --window-life pool): apart */
    const char *unit = js->o.queries > 1 ? "query" : "run", *units = js->o.queries > 1 ? "queries" : "runs";
    printf("\nsummary %s, window-life %s: ", algo->name, win_life_names[js->o.window_life]);
    if (s->first_measured)
        printf("first %s %.4f s (window_alloc %.4f s); ", unit, s->total[0], s->alloc[0]);
    else
        printf("no first %s (after %d warm-up run(s)); ", unit, (int)js->o.warmup);
    print_steady(js, s, s->first_measured ? 1 : 0, units);
    printf("\n");
    fflush(stdout);
}
