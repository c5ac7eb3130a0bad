/* Rounds of the join primitives (calibrate_radix.c, calibrate_sortmerge.c), combined per parameter
 * as params_pool_kind says (the fastest round of a timed rate, the median of a derived one): on a
 * shared or virtual machine a slowdown of a second or so takes all repetitions of the primitives it
 * overlaps, and only lengthens them. Plus the first touch of fresh memory per byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/calibrate/calibrate.h"
#include "bench/memory.h"
#include "bench/stats.h"

/* the fewest bytes per tuple each primitive moves to or from memory (calibrate_note) */
static double mem_bytes[MP_COUNT];

void calibrate_note(model_params *p, int i, const char *how, double bytes_per_tuple)
{
    snprintf(p->bench[i], sizeof p->bench[i], "%s", how);
    mem_bytes[i] = bytes_per_tuple;
}

void calibrate_plausibility(const bench_ctx *ctx, model_params *p)
{
    if (!p->set[MP_bw_mem_copy]) return;
    const double copy = params_get(p, MP_bw_mem_copy); /* bytes read + written per second */
    for (int i = 0; i < MP_COUNT; i++) {
        if (!p->set[i] || mem_bytes[i] <= 0) continue;
        const double bytes_per_s = params_get(p, i) * mem_bytes[i];
        if (bytes_per_s <= copy) continue;
        char line[400];
        if (!strcmp(params_unit(i), "GB/s")) /* a bandwidth: mem_bytes[i] bytes of memory per byte it moves */
            snprintf(line, sizeof line,
                     "# warning: implausible: %s = %.4g GB/s moves %.0f B of memory per byte at %.1f GB/s, faster than a memory copy (bw_mem_copy %.1f GB/s): its target is in cache\n",
                     params_name(i), params_get(p, i) / params_scale(i), mem_bytes[i], bytes_per_s / 1e9, copy / 1e9);
        else
            snprintf(line, sizeof line,
                     "# warning: implausible: %s = %.4g %s moves %.0f B per tuple at %.1f GB/s, faster than a memory copy (bw_mem_copy %.1f GB/s): its sample is in cache or too small (--tuples)\n",
                     params_name(i), params_get(p, i) / params_scale(i), params_unit(i), mem_bytes[i], bytes_per_s / 1e9,
                     copy / 1e9);
        calibrate_warn(ctx, p, line + strlen("# warning: "));
    }
}

void calibrate_warn(const bench_ctx *ctx, model_params *p, const char *text)
{
    const size_t len = strlen(p->warnings), n = strlen(text);
    const char *nl = n > 0 && text[n - 1] == '\n' ? "" : "\n";
    /* whole lines only: a warning cut at the buffer's end would leave the file's last line without
     * its newline, which the reader refuses as a file cut short */
    static const char more[] = "# warning: more warnings on stderr\n";
    char line[1024];
    int w = snprintf(line, sizeof line, "# warning: %s%s", text, nl);
    if (w > 0 && (size_t)w < sizeof line && len + (size_t)w + sizeof more <= sizeof p->warnings)
        memcpy(p->warnings + len, line, (size_t)w + 1);
    else if (!strstr(p->warnings, more) && len + sizeof more <= sizeof p->warnings)
        memcpy(p->warnings + len, more, sizeof more);
    if (ctx->rank == 0) fprintf(stderr, "rmabench: calibrate: warning: %s%s", text, nl);
}

/* rank_spread's samples: the sum of (slowest - mean) / mean over every repetition, and their count */
static double spread_sum;
static long spread_n;

void calibrate_spread_add(const bench_ctx *ctx, const double *t, int reps)
{
    enum { MAX_REPS = 128 };
    if (ctx->size < 2 || reps < 1) return;
    if (reps > MAX_REPS) reps = MAX_REPS;
    double mx[MAX_REPS], sum[MAX_REPS];
    MPI_Allreduce(t, mx, reps, MPI_DOUBLE, MPI_MAX, ctx->comm);
    MPI_Allreduce(t, sum, reps, MPI_DOUBLE, MPI_SUM, ctx->comm);
    /* the least disturbed repetition's (calibrate_rate_of's): another program's turn on one rank's
     * core would read as the ranks' own spread */
    const int k = stats_argmin(mx, reps);
    const double mean = sum[k] / ctx->size;
    if (mean > 0) spread_sum += (mx[k] - mean) / mean, spread_n++;
}

/* rank_spread = sigma, the relative standard deviation of one rank's time for the same work: the
 * mean (slowest - mean) / mean over the samples is sigma times the expected largest of `size`
 * standard normal draws (model_max_normal), which the model then takes for the join's rank count. */
static void put_rank_spread(const bench_ctx *ctx, model_params *p)
{
    if (spread_n == 0) return;
    const double c = model_max_normal(ctx->size);
    params_put(p, MP_rank_spread, spread_sum / (double)spread_n / c);
    char how[CALIBRATE_HOW];
    snprintf(how, sizeof how, "mean (slowest - mean) / mean of the %d ranks' times, the least disturbed repetition of %ld compute primitives (P_*), / %.4f (E[max of %d normals])",
             ctx->size, spread_n, c, ctx->size);
    calibrate_note(p, MP_rank_spread, how, 0);
    spread_sum = 0, spread_n = 0;
}

/* Each parameter the rounds set, combined over them (params_pool_value), into p (every rank agrees:
 * inputs were reduced). alone: only the rates that have a P_x_alone twin, into the twin. */
static void keep_rounds(const calibrate_opts *o, const model_params *round, int alone, int ranks_per_host, model_params *p)
{
    for (int i = 0; i < MP_COUNT; i++) {
        const int to = alone ? params_alone_of(i) : i;
        if (!round[0].set[i] || to < 0 || p->set[to]) continue;
        double v[CALIBRATE_ROUNDS_MAX];
        for (int k = 0; k < o->rounds; k++) v[k] = round[k].v[i];
        if (strncmp(params_name(i), "P_", 2) == 0) params_put_spread(p, to, v, (int)o->rounds); /* rates only */
        params_put(p, to, params_pool_value(i, v, (int)o->rounds));
        if (!alone) memcpy(p->bench[i], round[o->rounds - 1].bench[i], sizeof p->bench[i]);
        else snprintf(p->bench[to], sizeof p->bench[to], "as %s, by 1 of the %d ranks of each host (the others wait)", params_name(i),
                      ranks_per_host);
    }
}

void calibrate_compute(const bench_ctx *ctx, const calibrate_opts *o, model_params *p)
{
    join_opts jo;
    join_default_opts(&jo);
    jo.window = o->window;
    /* the sample: a one-rank workload of --tuples R tuples on every rank (dense keys: every S
     * tuple finds its R, as in the join) */
    workload w;
    workload_init(&w, (uint64_t)o->tuples, 1, 1.0, 0, (uint64_t)jo.seed, 0, 1, false);
    /* tuples 32 B, packed copy 8 B + partitioned 16 B per tuple, sort-merge 3 x 8 B */
    int64_t need = (int64_t)(w.r_n + w.s_n) * (32 + 24 + 24) + (64 << 20);
    mem_check_or_exit(ctx, need, "--tuples");
    calibrate_opts oo = *o;
    if (oo.tuples_per_rank <= 0) oo.tuples_per_rank = jo.tuples_per_rank; /* the join's default */
    /* first touch of fresh private memory at the size of the sort-merge join's packed relations, up
     * to 1 GiB: it is a rate per byte, and the calibration must fit beside its sample whatever size
     * of join it models */
    uint64_t touch_bytes = 2 * (uint64_t)oo.tuples_per_rank * 8;
    if (touch_bytes > (UINT64_C(1) << 30)) touch_bytes = UINT64_C(1) << 30;
    mem_check_or_exit(ctx, need + (int64_t)touch_bytes, "--tuples-per-rank (the first-touch measurement at the join's size)");
    tuple_t *r = mem_alloc_large(w.r_n * sizeof(tuple_t)), *s = mem_alloc_large(w.s_n * sizeof(tuple_t));
    if (!r || !s) calibrate_fail(ctx, "the relations");
    generate_r(&w, r);
    generate_s(&w, s);
    params_put(p, MP_tuples_per_rank, (double)oo.tuples_per_rank);

    double touch = calibrate_first_touch(ctx, touch_bytes, (int)o->repeats + 2);
    params_put(p, MP_t_touch_per_byte, calibrate_allreduce(ctx, touch, MPI_MAX) / (double)touch_bytes);
    char how[CALIBRATE_HOW];
    snprintf(how, sizeof how, "mem_alloc_large + memset + free, %llu bytes per rank, slowest rank", (unsigned long long)touch_bytes);
    calibrate_note(p, MP_t_touch_per_byte, how, 0);

    model_params *round = malloc((size_t)o->rounds * sizeof *round);
    if (!round) calibrate_fail(ctx, "the calibration rounds");
    /* all ranks at once, then (when a host has several) each host's first rank alone: P_*_alone */
    for (oo.alone = 0; oo.alone <= (ctx->ranks_per_host > 1); oo.alone++) {
        for (int k = 0; k < o->rounds; k++) {
            round[k] = *p;
            oo.warmup = k == 0; /* caches, page tables and the MPI library are warm after the first round */
            calibrate_radix(ctx, &oo, &jo, &w, r, s, &round[k]);
            calibrate_sortmerge(ctx, &oo, &jo, &w, r, s, &round[k]);
        }
        keep_rounds(o, round, oo.alone, ctx->ranks_per_host, p);
        if (!oo.alone) put_rank_spread(ctx, p);
    }
    free(round);
    mem_free_large(r, w.r_n * sizeof(tuple_t));
    mem_free_large(s, w.s_n * sizeof(tuple_t));
    if (ctx->rank == 0)
        snprintf(p->info[MI_kernels], sizeof p->info[MI_kernels],
                 "primitives of the joins' kernels (radix_kernels.h, smj_kernels.h), each alone, %lld tuples per relation per rank",
                 (long long)o->tuples);
}
