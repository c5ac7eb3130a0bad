/* `rmabench join`: generate R and S in parallel, run the chosen join(s) --repeat times on the same
 * data, verify every run against the generator's expected count and checksum, print the phase
 * table and append one CSV row per run. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joins/join.h"
#include "cmd/join/join_compare.h"
#include "bench/memory.h"
#include "bench/numa_topology.h"
#include "bench/options.h"
#include "bench/record.h"
#include "bench/version.h"

static const char *const algo_names[] = {"radix", "sortmerge", "both", NULL};
static const char *const assign_names[] = {"round-robin", "sized", NULL};
static const char *const flush_names[] = {"window", "request", NULL};
static const char *const ranges_names[] = {"splitters", "equal", NULL};
static const char *const simd_names[] = {"auto", "avx512", "avx2", "scalar", NULL};

void join_default_opts(join_opts *o)
{
    memset(o, 0, sizeof *o);
    o->algo = ALGO_RADIX;
    o->tuples_per_rank = 16000000;
    o->ratio = 1;
    o->selectivity = 1.0;
    o->seed = 42;
    o->repeat = 1;
    o->window = RMA_JOIN_DEFAULT_FLAVOR; /* rma/window.h: create with MPICH < 4.1 */
    o->passes = -1;
    o->flush = FLUSH_WINDOW;
    o->buffer_size = 64 * 1024;
    o->buffers_per_partition = 2;
    o->compress = true;
    o->ranges = RANGES_SPLITTERS;
}

/* Parses argv[2..] into o (MPI-free; the fuzz tests call it): OPT_OK, OPT_HELP (usage printed on
 * rank 0) or OPT_ERROR with "--flag: reason" in err. */
int join_parse_opts(join_opts *o, int argc, char **argv, char *err, size_t errlen)
{
    const opt_spec specs[] = {
        {"algo", OPT_CHOICE, &o->algo, "join algorithm", 0, 0, algo_names, NULL},
        {"tuples-per-rank", OPT_COUNT, &o->tuples_per_rank, "tuples of R per rank (S: ratio times as many)", 1, 1e12, NULL, NULL},
        {"r-tuples", OPT_COUNT, &o->r_total, "total tuples of R (instead of --tuples-per-rank)", 1, 1e13, NULL, NULL},
        {"uneven", OPT_BOOL, &o->uneven, "rank i holds a share proportional to i+1", 0, 0, NULL, NULL},
        {"ratio", OPT_INT, &o->ratio, "|S| / |R|: partners per R tuple (1:N)", 1, 64, NULL, NULL},
        {"selectivity", OPT_DOUBLE, &o->selectivity, "fraction of S tuples with a partner", 0, 1, NULL, NULL},
        {"skew", OPT_DOUBLE, &o->skew, "Zipf factor of S's references to R (0 = uniform)", 0, 10, NULL, NULL},
        {"seed", OPT_INT, &o->seed, "generator seed", 0, 9.2e18, NULL, NULL},
        {"repeat", OPT_INT, &o->repeat, "runs on the same data; the median is reported", 1, 1000, NULL, NULL},
        {"warmup", OPT_INT, &o->warmup,
         "runs before the --repeat ones, verified but neither printed as runs nor recorded (a process's first run pays for cold caches and fresh memory)",
         0, 100, NULL, NULL},
        {"output", OPT_STRING, &o->output, "append one CSV row per run to this file", 0, 0, NULL, NULL},
        {"model", OPT_STRING, &o->model, "model parameter file: print predicted vs measured", 0, 0, NULL, NULL},
        {"window", OPT_CHOICE, &o->window, "MPI_Win_allocate (default; create with MPICH < 4.1), MPI_Win_create on MPI_Alloc_mem, or on huge-page-able anonymous memory", 0, 0, win_flavor_names, NULL},
        {"window-pool", OPT_BOOL, &o->window_pool, "keep the windows across --repeat runs (first run pays the allocation)", 0, 0, NULL, NULL},
        {"radix-bits", OPT_INT, &o->radix_bits, "network fan-out bits (0 = enough partitions for every rank)", 0, 20, NULL, NULL},
        {"local-bits", OPT_INT, &o->local_bits, "fan-out bits per local pass (0 = auto)", 0, 16, NULL, NULL},
        {"passes", OPT_INT, &o->passes, "local partitioning passes (-1 = until partitions fit L2)", -1, 4, NULL, NULL},
        {"assign", OPT_CHOICE, &o->assign, "partition-to-rank assignment", 0, 0, assign_names, NULL},
        {"flush", OPT_CHOICE, &o->flush, "buffer reuse: MPI_Win_flush to the target, or MPI_Rput + wait", 0, 0, flush_names, NULL},
        {"buffer-size", OPT_BYTES, &o->buffer_size, "bytes per network send buffer", 256, 1 << 30, NULL, NULL},
        {"buffers-per-partition", OPT_INT, &o->buffers_per_partition, "send buffers per remote partition", 1, 64, NULL, NULL},
        {"compress", OPT_BOOL, &o->compress, "pack key and rid into 8 bytes during the network pass", 0, 0, NULL, NULL},
        {"ranges", OPT_CHOICE, &o->ranges, "sort-merge range boundaries", 0, 0, ranges_names, NULL},
        {"run-size", OPT_COUNT, &o->run_size, "sort-merge run length in tuples (0 = fit L2)", 0, 1e9, NULL, NULL},
        {"merge-fanin", OPT_INT, &o->merge_fanin, "sort-merge multi-way merge fan-in (0 = auto)", 0, 4096, NULL, NULL},
        {"simd", OPT_CHOICE, &o->simd, "SIMD kernels (auto = best the CPU has)", 0, 0, simd_names, NULL},
        {"numa", OPT_CHOICE, &o->numa, "memory placement: local, interleave or off (auto: local on multi-node hosts)", 0, 0, numa_policy_names, NULL},
        OPT_END,
    };
    const opt_spec *tables[] = {specs, NULL};
    int rc = opt_parse(tables, argc, argv, 2, err, errlen);
    if (rc == OPT_HELP && bench_env_rank() == 0) opt_usage("rmabench join [flags]", tables);
    if (rc == OPT_OK && o->selectivity <= 0) {
        snprintf(err, errlen, "--selectivity: must be greater than 0");
        rc = OPT_ERROR;
    }
    return rc;
}

/* Parses argv into o; exits 0 on --help, 2 on bad input (before MPI_Init). */
static void parse_opts(join_opts *o, int argc, char **argv)
{
    char err[512];
    int rc = join_parse_opts(o, argc, argv, err, sizeof err);
    if (rc == OPT_HELP) exit(0);
    if (rc == OPT_ERROR) {
        if (bench_env_rank() == 0) fprintf(stderr, "rmabench: %s\n", err);
        exit(2);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void set_common_columns(record *rec, const bench_ctx *ctx, const join_opts *o, const workload *w,
                               const char *command)
{
    char ts[32];
    bench_timestamp(ts, sizeof ts);
    record_set(rec, "timestamp", "%s", ts);
    record_set(rec, "bench", "join");
    record_set(rec, "status", "ok");
    record_set(rec, "exit_code", "0");
    const char *job = getenv("SLURM_JOB_ID");
    record_set(rec, "job_id", "%s", job ? job : "");
    record_set(rec, "git_commit", "%s", RMB_GIT_COMMIT);
    record_set(rec, "mpi_library", "%s", ctx->mpi_library);
    record_set(rec, "mpi_version", "%s", ctx->mpi_version);
    record_set(rec, "hosts", "%d", ctx->hosts);
    record_set(rec, "ranks", "%d", ctx->size);
    record_set(rec, "ranks_per_host", "%d", ctx->ranks_per_host);
    record_set(rec, "hostnames", "%s", ctx->hostnames);
    record_set(rec, "seed", "%" PRId64, o->seed);
    record_set(rec, "repeats", "%" PRId64, o->repeat);
    record_set(rec, "warmups", "%" PRId64, o->warmup);
    record_set(rec, "command", "%s", command);
    record_set(rec, "r_tuples", "%" PRIu64, w->r_total);
    record_set(rec, "s_tuples", "%" PRIu64, w->s_total);
    record_set(rec, "tuples_per_rank", "%" PRIu64, w->r_total / (uint64_t)ctx->size);
    record_set(rec, "uneven", "%d", o->uneven);
    record_set(rec, "ratio", "%" PRId64, o->ratio);
    record_set(rec, "selectivity", "%g", o->selectivity);
    record_set(rec, "skew", "%g", o->skew);
    /* pooled windows are a different measurement: keep them apart in plots */
    record_set(rec, "window", "%s%s", win_flavor_names[o->window], o->window_pool ? "+pool" : "");
}

/* The algorithm's parameters as it resolved them (auto values made explicit): every algorithm fills
 * radix_bits/local_bits/passes or run_size/merge_fanin/simd_used/passes in join_output. */
static void set_algo_columns(record *rec, const join_opts *o, int algo, const join_output *out)
{
    record_set(rec, "algo", "%s", algo_names[algo]);
    if (algo == ALGO_RADIX) {
        record_set(rec, "radix_bits", "%" PRId64, out->radix_bits);
        record_set(rec, "local_fanout_bits", "%" PRId64, out->local_bits);
        record_set(rec, "passes", "%" PRId64, out->passes);
        record_set(rec, "assign", "%s", assign_names[o->assign]);
        record_set(rec, "flush", "%s", flush_names[o->flush]);
        record_set(rec, "buffer_size", "%" PRId64, o->buffer_size);
        record_set(rec, "buffers_per_partition", "%" PRId64, o->buffers_per_partition);
        record_set(rec, "compress", "%d", o->compress);
    } else {
        record_set(rec, "ranges", "%s", ranges_names[o->ranges]);
        record_set(rec, "run_size", "%" PRId64, out->run_size);
        record_set(rec, "merge_fanin", "%" PRId64, out->merge_fanin);
        record_set(rec, "simd", "%s", out->simd_used);
        record_set(rec, "passes", "%" PRId64, out->passes); /* merge passes: the thesis' d */
    }
}

static void set_phase_columns(record *rec, const phase_stats *st)
{
    for (int i = 0; i < st->n; i++) {
        char col[64];
        snprintf(col, sizeof col, "t_%s_avg", st->name[i]);
        if (record_has_column(col) == 0) record_set(rec, col, "%.6f", st->avg[i]);
        snprintf(col, sizeof col, "t_%s_max", st->name[i]);
        if (record_has_column(col) == 0) record_set(rec, col, "%.6f", st->max[i]);
    }
    record_set(rec, "t_imbalance_avg", "%.6f", st->imbalance);
    record_set(rec, "t_imbalance_max", "%.6f", st->imbalance);
    record_set(rec, "t_total_avg", "%.6f", st->total_avg);
    record_set(rec, "t_total_max", "%.6f", st->total_max);
}

static void join_command_line(int argc, char **argv, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < argc; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
    }
}

int join_main(int argc, char **argv)
{
    join_opts o;
    join_default_opts(&o);
    parse_opts(&o, argc, argv);
    join_model_ctx jm;
    join_compare_load(&jm, o.model, o.algo);
    char err[512];
    /* An unusable --output fails before any work. */
    if (o.output && record_check_path(o.output, err, sizeof err)) {
        if (bench_env_rank() == 0) fprintf(stderr, "rmabench: --output: %s\n", err);
        exit(2);
    }

    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);

    uint64_t r_total = o.r_total > 0 ? (uint64_t)o.r_total : (uint64_t)o.tuples_per_rank * (uint64_t)ctx.size;
    if (r_total < (uint64_t)ctx.size)
        bench_usage_error(&ctx, "--r-tuples: %" PRIu64 " tuples cannot give each of %d ranks at least one", r_total, ctx.size);
    workload wl;
    workload_init(&wl, r_total, (int)o.ratio, o.selectivity, o.skew, (uint64_t)o.seed, ctx.rank, ctx.size, o.uneven);

    const join_algo *algos[2];
    int nalgos = 0;
    if (o.algo == ALGO_RADIX || o.algo == ALGO_BOTH) algos[nalgos++] = &radix_join_algo;
    if (o.algo == ALGO_SORTMERGE || o.algo == ALGO_BOTH) algos[nalgos++] = &sortmerge_join_algo;

    /* Checks and the memory estimate happen before the relations are allocated. */
    int64_t need = 0;
    for (int a = 0; a < nalgos; a++) {
        if (algos[a]->check(&o, &wl, ctx.size, err, sizeof err)) bench_usage_error(&ctx, "%s", err);
        int64_t m = algos[a]->memory_bytes(&o, &wl, ctx.size);
        if (m > need) need = m;
    }
    need += (int64_t)((wl.r_n + wl.s_n) * sizeof(tuple_t));
    mem_check_or_exit(&ctx, need, o.r_total > 0 ? "--r-tuples" : "--tuples-per-rank");

    /* bad input is judged first, then placement is reported: numa (bench/numa_policy.h): policy for every large allocation from here on, binding report */
    numa_report numa;
    numa_report_init(&ctx, o.numa, &numa);
    o.numa = numa.policy;

    /* generate (not timed as part of the join) */
    double t0 = rmb_now();
    tuple_t *r = mem_alloc_large(wl.r_n * sizeof(tuple_t)), *s = mem_alloc_large(wl.s_n * sizeof(tuple_t));
    if (!r || !s) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate the relations (%" PRIu64 " + %" PRIu64 " tuples)\n",
                ctx.rank, wl.r_n, wl.s_n);
        MPI_Abort(ctx.world, 2);
    }
    generate_r(&wl, r);
    generate_s(&wl, s);
    numa_placement_check(r, wl.r_n * sizeof(tuple_t)); /* numa: where the generated relations went */
    numa_placement_check(s, wl.s_n * sizeof(tuple_t));
    uint64_t exp_local[2], expected[2];
    workload_expected(&wl, &exp_local[0], &exp_local[1]);
    MPI_CHECK(ctx.rank, MPI_Allreduce(exp_local, expected, 2, MPI_UINT64_T, MPI_SUM, ctx.world));
    double t_gen = rmb_now() - t0, t_gen_max;
    MPI_Reduce(&t_gen, &t_gen_max, 1, MPI_DOUBLE, MPI_MAX, 0, ctx.world);

    char command[1024];
    join_command_line(argc, argv, command, sizeof command);
    if (ctx.rank == 0) {
        char rn[32], sn[32];
        opt_format_count((int64_t)wl.r_total, rn, sizeof rn);
        opt_format_count((int64_t)wl.s_total, sn, sizeof sn);
        printf("# rmabench join: |R| = %s, |S| = %s (1:%d, selectivity %g, skew %g, seed %" PRId64 ")\n", rn, sn,
               (int)o.ratio, o.selectivity, o.skew, o.seed);
        printf("# ranks %d on %d host(s), %d per host (%s); %s; commit %s\n", ctx.size, ctx.hosts, ctx.ranks_per_host,
               ctx.hostnames, ctx.mpi_library, RMB_GIT_COMMIT);
        printf("# generate: %.3f s; expected matches %" PRIu64 ", checksum 0x%016" PRIx64 "\n", t_gen_max, expected[0],
               expected[1]);
        numa_report_print_header(&numa);
        fflush(stdout);
    }

    int failures = 0, output_failed = 0;
    for (int a = 0; a < nalgos && !output_failed; a++) {
        int algo = algos[a] == &radix_join_algo ? ALGO_RADIX : ALGO_SORTMERGE;
        double *totals = calloc((size_t)o.repeat, sizeof(double));
        for (int rep = -(int)o.warmup; rep < o.repeat; rep++) {
            join_input in = {&ctx, &o, &wl, r, s, wl.r_n, wl.s_n};
            join_output out;
            memset(&out, 0, sizeof out);
            phases_init(&out.phases);
            MPI_Barrier(ctx.world);
            algos[a]->run(&in, &out);

            /* validate: reduce the join's count and checksum, compare with the generator's */
            uint64_t got_local[2] = {out.matches, out.checksum}, got[2];
            MPI_CHECK(ctx.rank, MPI_Allreduce(got_local, got, 2, MPI_UINT64_T, MPI_SUM, ctx.world));
            int pass = got[0] == expected[0] && got[1] == expected[1];
            failures += !pass;
            phase_stats st;
            phases_reduce(&out.phases, ctx.world, &st);
            if (rep < 0) { /* warm-up: verified, one line, not recorded */
                if (ctx.rank == 0) {
                    printf("%s warm-up run %d/%d: total %.4f s, verification: %s\n", algos[a]->name, rep + (int)o.warmup + 1,
                           (int)o.warmup, st.total_max, pass ? "PASS" : "FAIL");
                    fflush(stdout);
                }
                continue;
            }
            totals[rep] = st.total_max;
            double tput = (double)(wl.r_total + wl.s_total) / st.total_max;
            numa_report_run(&ctx, &numa); /* numa: worst rank's placement so far */
            if (ctx.rank == 0) {
                char title[64];
                snprintf(title, sizeof title, "%s run %d/%d", algos[a]->name, rep + 1, (int)o.repeat);
                phases_print(&st, title);
                printf("throughput: %.2f M input tuples/s\n", tput / 1e6);
                numa_report_print_run(&numa);
                printf("matches: %" PRIu64 " (expected %" PRIu64 "), checksum 0x%016" PRIx64 " (expected 0x%016" PRIx64 ")\n",
                       got[0], expected[0], got[1], expected[1]);
                printf("verification: %s\n", pass ? "PASS" : "FAIL");
                fflush(stdout);
            }
            join_compare(&jm, &ctx, &o, &wl, algo, &out, &st);
            if (o.output && ctx.rank == 0) {
                record *rec = record_new();
                set_common_columns(rec, &ctx, &o, &wl, command);
                set_algo_columns(rec, &o, algo, &out);
                set_phase_columns(rec, &st);
                record_set(rec, "repeat_index", "%d", rep);
                record_set(rec, "throughput", "%.1f", tput);
                record_set(rec, "matches", "%" PRIu64, got[0]);
                record_set(rec, "checksum", "0x%016" PRIx64, got[1]);
                record_set(rec, "expected_matches", "%" PRIu64, expected[0]);
                record_set(rec, "expected_checksum", "0x%016" PRIx64, expected[1]);
                record_set(rec, "verification", "%s", pass ? "PASS" : "FAIL");
                join_compare_record(&jm, rec);
                numa_report_columns(&numa, rec);
                if (record_append(rec, o.output, err, sizeof err)) {
                    fprintf(stderr, "rmabench: --output: %s\n", err);
                    output_failed = 1;
                }
                record_free(rec);
            }
            /* Every rank leaves together with exit 2 (MPI_Abort hangs MPICH 4.0 while the other
             * ranks sit in MPI_Finalize: tests/faults/output.sh). */
            if (o.output) MPI_CHECK(ctx.rank, MPI_Bcast(&output_failed, 1, MPI_INT, 0, ctx.world));
            if (output_failed) break;
        }
        if (ctx.rank == 0 && o.repeat > 1 && !output_failed) {
            double med = median(totals, (int)o.repeat);
            printf("summary %s: median total %.4f s, median throughput %.2f M input tuples/s over %d runs\n",
                   algos[a]->name, med, (double)(wl.r_total + wl.s_total) / med / 1e6, (int)o.repeat);
        }
        free(totals);
    }
    mem_free_large(r, wl.r_n * sizeof(tuple_t));
    mem_free_large(s, wl.s_n * sizeof(tuple_t));
    numa_report_free(&numa);
    bench_ctx_free(&ctx);
    rma_window_pool_drain(); /* --window-pool */
    MPI_Finalize();
    return output_failed ? 2 : failures ? 1 : 0;
}
