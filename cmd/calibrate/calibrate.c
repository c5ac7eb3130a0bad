/* `rmabench calibrate --output FILE`: measure every model parameter on these ranks and write them,
 * with units, the MPI library, hosts and ranks per host, to a parameter file (model/params.h):
 * FILE must be a regular file or a new one, written beside and renamed (bench/output_path.h). */
#include "cmd/calibrate/calibrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "bench/host_steal.h"
#include "bench/membw.h"
#include "bench/wait_bound.h"
#include "bench/memory.h"
#include "bench/options.h"
#include "bench/output_path.h"
#include "bench/stats.h"
#include "bench/version.h"
#include "rma/window.h"

double calibrate_first_touch(const bench_ctx *ctx, uint64_t bytes, int reps)
{
    double t[100];
    if (reps > 100) reps = 100;
    for (int k = 0; k < reps; k++) {
        MPI_Barrier(ctx->comm);
        double t0 = MPI_Wtime();
        char *b = bytes ? mem_alloc_large(bytes) : NULL;
        if (bytes && !b) calibrate_fail(ctx, "memory for the first-touch measurement");
        if (b) memset(b, 1, bytes);
        t[k] = MPI_Wtime() - t0; /* the joins free these buffers outside their phases */
        if (b) mem_free_large(b, bytes);
    }
    return stats_min(t, reps);
}

double calibrate_allreduce(const bench_ctx *ctx, double v, MPI_Op op)
{
    double r;
    MPI_CHECK(ctx->rank, MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, op, ctx->comm));
    if (op == MPI_SUM) r /= ctx->size; /* SUM is only used for the mean */
    return r;
}

/* The table on stdout (value, unit, spread over the rounds, description); on stderr one warning line
 * per parameter whose rounds spread above 10% (the file has them as comments too). */
static void print_params(const model_params *p)
{
    char sp[160], warn[320];
    for (int i = 0; i < MP_COUNT; i++) {
        double rel = params_spread_rel(p, i);
        if (rel >= 0) snprintf(sp, sizeof sp, "%5.1f%%", 100 * rel);
        else snprintf(sp, sizeof sp, "%6s", "");
        if (p->set[i])
            printf("%-22s %12.6g %-10s %s  %s%s%s\n", params_name(i), p->v[i] / params_scale(i), params_unit(i), sp,
                   p->how[i] ? p->how[i] : "", p->how[i] ? "; " : "", params_describe(i));
        else printf("%-22s %12s %-10s %6s  %s\n", params_name(i), "-", params_unit(i), "", params_describe(i));
    }
    printf("(the percentage: spread (max - min) / median of the parameter over its rounds)\n");
    fflush(stdout);
    for (int i = 0; i < MP_COUNT; i++)
        if (p->set[i] && params_spread_warning(p, i, warn, sizeof warn)) fprintf(stderr, "rmabench: calibrate: warning: %s\n", warn);
}

/* The memory roofline (bench/membw.h, as `rmabench membw`): streaming read, write (the better of
 * ordinary and non-temporal stores) and copy per rank, all ranks at once: bw_mem_*. Resolves
 * --membw-bytes (0: beyond the last-level cache) for the put curve's target window after it. */
static void calibrate_membw(const bench_ctx *ctx, calibrate_opts *o, model_params *p)
{
    membw_result m;
    membw_measure(ctx, (uint64_t)o->membw_bytes, (int)o->repeats, "--membw-bytes", "a smaller --membw-bytes", &m);
    o->membw_bytes = (int64_t)m.bytes;
    params_put(p, MP_bw_mem_read, m.rank_median[MEMBW_READ] * 1e9);
    params_put(p, MP_bw_mem_write, membw_write_best(&m) * 1e9);
    params_put(p, MP_bw_mem_copy, m.rank_median[MEMBW_COPY] * 1e9);
    char how[CALIBRATE_HOW];
    char llc[160];
    membw_describe_llc(&m, llc, sizeof llc);
    snprintf(how, sizeof how, "bench/membw streaming kernels, per buffer: %.160s", llc);
    for (int i = MP_bw_mem_read; i <= MP_bw_mem_copy; i++) calibrate_note(p, i, how, 0);
    if (!membw_beyond_llc(&m)) {
        char line[200];
        snprintf(line, sizeof line, "--membw-bytes: %.170s", llc);
        calibrate_warn(ctx, p, line);
    }
}

/* What the parameter file says about where it was measured, and the host's cores (rank 0). */
static void fill_info(model_params *p, const bench_ctx *ctx)
{
    snprintf(p->info[MI_mpi_library], sizeof p->info[MI_mpi_library], "%s", ctx->mpi_library);
    snprintf(p->info[MI_mpi_version], sizeof p->info[MI_mpi_version], "%.250s", ctx->mpi_version);
    snprintf(p->info[MI_hosts], sizeof p->info[MI_hosts], "%d", ctx->hosts);
    snprintf(p->info[MI_ranks], sizeof p->info[MI_ranks], "%d", ctx->size);
    snprintf(p->info[MI_ranks_per_host], sizeof p->info[MI_ranks_per_host], "%d", ctx->ranks_per_host);
    snprintf(p->info[MI_hostnames], sizeof p->info[MI_hostnames], "%.250s", ctx->hostnames);
    bench_timestamp(p->info[MI_calibrated_at], sizeof p->info[MI_calibrated_at]);
    snprintf(p->info[MI_git_commit], sizeof p->info[MI_git_commit], "%s", RMB_GIT_COMMIT);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    params_put(p, MP_cores_per_host, cores > 0 ? (double)cores : 0);
}

/* Rank 0: the parameter file, then what was measured and under which conditions; the exit status
 * (2: the file could not be written). phase_s: memory, compute, network, lock seconds. */
static int write_and_report(const bench_ctx *ctx, model_params *p, const char *output, bool force, double took,
                            const double phase_s[4], double steal, double delay)
{
    char err[600];
    fill_info(p, ctx);
    /* what the machine's other work took from the calibration (model/validate.sh pools calibrations) */
    snprintf(p->info[MI_interference], sizeof p->info[MI_interference], "host steal %.4f, run delay %.4f", steal, delay);
    if (params_write(p, output, force, err, sizeof err)) {
        fprintf(stderr, "rmabench: --output: %s\n", err);
        return 2;
    }
    printf("# rmabench calibrate: %d ranks on %d host(s), %d per host; %s; %.1f s (memory %.1f, compute %.1f, network %.1f, lock %.1f)\n",
           ctx->size, ctx->hosts, ctx->ranks_per_host, ctx->mpi_library, took, phase_s[0], phase_s[1], phase_s[2], phase_s[3]);
    printf("# ");
    bench_ctx_print_environment(ctx, stdout);
    printf("\n");
    host_steal_print(stdout, steal);
    host_run_delay_print(stdout, delay);
    print_params(p);
    printf("wrote %s\n", output);
    return 0;
}

int calibrate_main(int argc, char **argv)
{
    const char *output = NULL;
    bool force = false;
    int64_t wait_bound = WAIT_BOUND_DEFAULT_S;
    calibrate_opts o = {.tuples = 4000000, .put_bytes = 16 << 20, .repeats = 3, .rounds = 3, .membw_bytes = 0};
    join_opts jdef;
    join_default_opts(&jdef);
    o.window = jdef.window;
    const opt_spec specs[] = {
        {"output", OPT_STRING, &output, "parameter file to write (required)", 0, 0, NULL, NULL},
        OPT_FORCE(&force),
        {"tuples", OPT_COUNT, &o.tuples, "tuples per relation and rank of the primitives' sample (out of the last-level cache: the default 4M is 128 MiB)", 1000, 1e9, NULL, NULL},
        {"tuples-per-rank", OPT_COUNT, &o.tuples_per_rank,
         "R tuples per rank of the joins to model: the radix local plan is the join's at this size (default: the join's default)",
         1, 1e12, NULL, NULL},
        {"put-bytes", OPT_BYTES, &o.put_bytes, "bytes each rank puts per bandwidth measurement", 1 << 16, 1ll << 34, NULL, NULL},
        {"window", OPT_CHOICE, &o.window, "window flavour of the joins to model (the join's --window)", 0, 0,
         win_flavor_names, NULL},
        {"membw-bytes", OPT_BYTES, &o.membw_bytes,
         "bytes per buffer and rank of the memory bandwidth measurement (bw_mem_*, as rmabench membw --bytes; default: 4x the last-level cache over a machine's ranks, at least 64 MiB)", 4096,
         1ll << 40, NULL, NULL},
        {"repeats", OPT_INT, &o.repeats, "repetitions per measurement (the fastest kept)", 1, 100, NULL, NULL},
        {"rounds", OPT_INT, &o.rounds, "rounds of the compute kernels, each of --repeats (per parameter the fastest round kept; a derived one's median)", 1,
         CALIBRATE_ROUNDS_MAX, NULL, NULL},
        OPT_WAIT_BOUND(&wait_bound),
        OPT_END,
    };
    const opt_spec *tables[] = {specs, NULL};
    char err[600];
    int rc = opt_parse(tables, argc, argv, 2, err, sizeof err);
    if (rc == OPT_HELP) {
        if (bench_env_rank() == 0) opt_usage("rmabench calibrate --output FILE [flags]", tables);
        exit(0);
    }
    if (rc == OPT_OK && !output) {
        snprintf(err, sizeof err, "--output: required (the parameter file to write)");
        rc = OPT_ERROR;
    }
    if (rc == OPT_ERROR) opt_usage_error("%s", err);
    /* judged before MPI_Init: a device, directory or FIFO is refused, never replaced; an existing
     * file only with --force */
    if (output_path_check(output, force ? OUTPUT_REPLACE : OUTPUT_NEW, err, sizeof err)) opt_usage_error("--output: %s", err);

    if (o.tuples_per_rank <= 0) o.tuples_per_rank = jdef.tuples_per_rank; /* the join's default */

    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    wait_bound_start(&ctx, (double)wait_bound);
    double t0 = MPI_Wtime();
    const host_cpu_sample cpu0 = host_cpu_now(); /* rates measured under steal read low */
    model_params p;
    params_init(&p);
    calibrate_membw(&ctx, &o, &p); /* first: the plausibility check compares rates with a copy */
    calibrate_window(&ctx, &o, &p); /* before the parts that allocate windows: resolves --window auto */
    double t1 = MPI_Wtime();
    calibrate_compute(&ctx, &o, &p);
    double t2 = MPI_Wtime();
    calibrate_network(&ctx, &o, &p);
    double t3 = MPI_Wtime();
    calibrate_lock(&ctx, &o, &p);
    calibrate_rdmo(&ctx, &o, &p);
    double took = MPI_Wtime() - t0;
    const double steal = host_steal_since(ctx.comm, cpu0), delay = host_run_delay_since(ctx.comm, cpu0);
    calibrate_plausibility(&ctx, &p);

    const double phase_s[4] = {t1 - t0, t2 - t1, t3 - t2, took - (t3 - t0)};
    int status = ctx.rank == 0 ? write_and_report(&ctx, &p, output, force, took, phase_s, steal, delay) : 0;
    MPI_Bcast(&status, 1, MPI_INT, 0, ctx.comm);
    bench_ctx_free(&ctx);
    MPI_Finalize();
    return status;
}
