/* `rmabench membw`: the machine's streaming memory bandwidth per rank with every rank of a host
 * streaming at once (bench/membw.h): read, write with ordinary and with non-temporal stores, copy;
 * the roofline the join's phase table compares each phase with (`rmabench join --roofline`, or
 * bw_mem_* from `rmabench calibrate`). Prints one line per kernel (O(1) in the rank count) and, with
 * --output, appends one CSV row (membw_read, membw_write, membw_write_nt, membw_copy: GB/s per rank,
 * the median over ranks). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/host_steal.h"
#include "bench/membw.h"
#include "bench/memory.h"
#include "bench/options.h"
#include "bench/provenance.h"
#include "bench/record.h"
#include "bench/version.h"
#include "bench/wait_bound.h"
#include "cmd/commands.h"
#include "cmd/results_schema.h"

int membw_main(int argc, char **argv)
{
    int64_t bytes = 0, repeats = 5, wait_bound = WAIT_BOUND_DEFAULT_S; /* bytes 0: bench/membw.h membw_auto_bytes */
    const char *output = NULL;
    bool verbose = false;
    const opt_spec specs[] = {
        {"bytes", OPT_BYTES, &bytes, "bytes per buffer and rank (copy uses two); default: the ranks of a machine together stream 4x its last-level cache, at least 64 MiB each",
         4096, 1ll << 40, NULL, NULL},
        {"repeats", OPT_INT, &repeats, "repetitions per kernel (median kept)", 1, 1000, NULL, NULL},
        {"output", OPT_STRING, &output, "CSV file to append one row to (the shared results schema)", 0, 0, NULL, NULL},
        OPT_VERBOSE(&verbose),
        OPT_WAIT_BOUND(&wait_bound),
        OPT_END,
    };
    const opt_spec *tables[] = {specs, NULL};
    char err[600];
    int rc = opt_parse(tables, argc, argv, 2, err, sizeof err);
    if (rc == OPT_HELP) {
        if (bench_env_rank() == 0) opt_usage("rmabench membw [flags]", tables);
        return 0;
    }
    if (rc == OPT_ERROR) opt_usage_error("%s", err);
    if (output && record_check_path(&results_schema, output, err, sizeof err)) opt_usage_error("--output: %s", err);

    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    wait_bound_start(&ctx, (double)wait_bound);
    membw_result m;
    const host_cpu_sample cpu0 = host_cpu_now();
    membw_measure(&ctx, (uint64_t)bytes, (int)repeats, "--bytes", "a smaller --bytes", &m);
    /* a roofline measured while the hypervisor took the CPUs is too low: say so */
    const double steal = host_steal_since(ctx.comm, cpu0);
    int status = 0;
    if (ctx.rank == 0) {
        char llc[160];
        membw_describe_llc(&m, llc, sizeof llc);
        printf("# rmabench membw: %s, median of %d; ", llc, m.repeats);
        bench_ctx_print_placement(&ctx, stdout, verbose);
        printf("; %s; commit %s\n", ctx.mpi_library, RMB_GIT_COMMIT);
        printf("# non-temporal stores: %s; copy counts bytes read + written\n",
               m.nt_native ? "SSE2 _mm_stream_si128" : "not available (ordinary stores)");
        printf("%-10s %16s %16s %16s\n", "kernel", "GB/s per rank", "min rank GB/s", "GB/s per host");
        for (int k = 0; k < MEMBW_KERNELS; k++)
            printf("%-10s %16.2f %16.2f %16.2f\n", membw_kernel_names[k], m.rank_median[k], m.rank_min[k], m.host_min[k]);
        host_steal_print(stdout, steal);
        fflush(stdout);
        if (output) {
            char command[1024];
            provenance_command_line(argc, argv, command, sizeof command);
            record *rec = record_new(&results_schema);
            provenance_columns(rec, &ctx, "membw", command, 0);
            provenance_outcome(rec, true);
            record_set(rec, "repeats", "%d", m.repeats);
            record_set(rec, "membw_bytes", "%" PRIu64, m.bytes);
            if (steal >= 0) record_set(rec, "host_steal", "%.4f", steal);
            for (int k = 0; k < MEMBW_KERNELS; k++) {
                char col[32];
                snprintf(col, sizeof col, "membw_%s", membw_kernel_names[k]);
                record_set(rec, col, "%.3f", m.rank_median[k]);
            }
            if (record_append(rec, output, err, sizeof err)) {
                fprintf(stderr, "rmabench: --output: %s\n", err);
                status = 2;
            }
            record_free(rec);
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, ctx.comm);
    bench_ctx_free(&ctx);
    MPI_Finalize();
    return status;
}
