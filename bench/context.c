#include "bench/context.h"
#include "bench/ranges.h"

#include "bench/options.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void bench_pre_init(void)
{
#ifdef OPEN_MPI
    /* Debian's openmpi-mca-params.conf excludes osc pt2pt; without it MPI_Win_create fails at one
     * rank. Allowing it keeps osc rdma for 2+ ranks (checked on Open MPI 4.1.4). */
    setenv("OMPI_MCA_osc", "^ucx", 0);
#endif
}

_Noreturn void bench_mpi_fail(int rank, const char *call, int err, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(err, msg, &len);
    const char *paren = strchr(call, '(');
    int namelen = paren ? (int)(paren - call) : (int)strlen(call);
    fprintf(stderr, "rmabench: rank %d: %.*s failed: %s (%s:%d)\n", rank, namelen, call, msg, file, line);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

_Noreturn void bench_usage_error(const bench_ctx *ctx, const char *fmt, ...)
{
    if (ctx->rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        opt_print_usage_error(fmt, ap);
        va_end(ap);
    }
    MPI_Barrier(ctx->comm);
    MPI_Finalize();
    exit(2);
}

static void short_library_name(const char *full, char *out, int len)
{
    int major = 0, minor = 0, patch = 0;
    const char *p;
    if ((p = strstr(full, "Open MPI v")) && sscanf(p, "Open MPI v%d.%d.%d", &major, &minor, &patch) >= 2)
        snprintf(out, len, "Open MPI %d.%d.%d", major, minor, patch);
    else if ((p = strstr(full, "MPICH Version:")) && sscanf(p, "MPICH Version: %d.%d.%d", &major, &minor, &patch) >= 2)
        snprintf(out, len, "MPICH %d.%d.%d", major, minor, patch);
    else if ((p = strstr(full, "MPICH")))
        snprintf(out, len, "MPICH");
    else
        snprintf(out, len, "%.*s", len - 1, full);
}

bool bench_mpi_init(int *argc, char ***argv)
{
    int done = 0;
    MPI_Initialized(&done);
    if (done) return false;
    bench_pre_init();
    MPI_Init(argc, argv);
    return true;
}

void bench_ctx_init(bench_ctx *ctx, MPI_Comm comm)
{
    memset(ctx, 0, sizeof *ctx);
    MPI_Comm_dup(comm, &ctx->comm);
    MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    MPI_Comm_size(ctx->comm, &ctx->size);

    int len = 0;
    MPI_Get_processor_name(ctx->hostname, &len);
    char full[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    MPI_Get_library_version(full, &len);
    for (char *c = full; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    while (len > 0 && full[len - 1] == ' ') full[--len] = 0;
    snprintf(ctx->mpi_version, sizeof ctx->mpi_version, "%s", full);
    short_library_name(full, ctx->mpi_library, sizeof ctx->mpi_library);

    /* Hosts by processor name: robust where ranks of several "hosts" share one kernel (network
     * namespaces), where MPI_COMM_TYPE_SHARED would merge them. */
    char *names = malloc((size_t)ctx->size * MPI_MAX_PROCESSOR_NAME);
    MPI_CHECK(ctx->rank, MPI_Allgather(ctx->hostname, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names,
                                       MPI_MAX_PROCESSOR_NAME, MPI_CHAR, ctx->comm));
    ctx->rank_host = malloc(sizeof(int) * (size_t)ctx->size);
    int hosts = 0;
    for (int r = 0; r < ctx->size; r++) {
        const char *n = names + (size_t)r * MPI_MAX_PROCESSOR_NAME;
        int h = -1;
        for (int q = 0; q < r && h < 0; q++)
            if (strcmp(n, names + (size_t)q * MPI_MAX_PROCESSOR_NAME) == 0) h = ctx->rank_host[q];
        if (h < 0) {
            h = hosts++;
            size_t used = strlen(ctx->hostnames);
            snprintf(ctx->hostnames + used, sizeof ctx->hostnames - used, "%s%s", h ? ";" : "", n);
        }
        ctx->rank_host[r] = h;
    }
    free(names);
    ctx->hosts = hosts;
    ctx->host_id = ctx->rank_host[ctx->rank];
    MPI_Comm_split(ctx->comm, ctx->host_id, ctx->rank, &ctx->host);
    MPI_Comm_rank(ctx->host, &ctx->host_rank);
    MPI_Comm_size(ctx->host, &ctx->host_size);
    MPI_Allreduce(&ctx->host_size, &ctx->ranks_per_host, 1, MPI_INT, MPI_MAX, ctx->comm);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    ctx->online_cores = cores > 0 ? (int)cores : 1;
    ctx->oversubscribed = ctx->host_size > ctx->online_cores;
}

void bench_ctx_print_placement(const bench_ctx *ctx, FILE *f, bool verbose)
{
    int *per_host = calloc((size_t)ctx->hosts, sizeof *per_host), runs = 0;
    for (int r = 0; r < ctx->size; r++) {
        per_host[ctx->rank_host[r]]++;
        runs += r == 0 || ctx->rank_host[r] != ctx->rank_host[r - 1];
    }
    int lo = ctx->size;
    for (int h = 0; h < ctx->hosts; h++) lo = per_host[h] < lo ? per_host[h] : lo;
    free(per_host);
    fprintf(f, "ranks %d on %d host(s), ", ctx->size, ctx->hosts);
    if (lo == ctx->ranks_per_host) fprintf(f, "%d per host (", lo);
    else fprintf(f, "%d-%d per host (", lo, ctx->ranks_per_host);
    ranges_print_names(f, ctx->hostnames, ctx->hosts, verbose ? ctx->hosts : 4);
    /* a host's ranks in one block (--map-by slot, Slurm block) or spread (--map-by node, cyclic) */
    fprintf(f, ")%s", ctx->hosts == 1 ? "" : runs == ctx->hosts ? ", ranks in blocks by host" : ", ranks interleaved over hosts");
}

void bench_ctx_free(bench_ctx *ctx)
{
    free(ctx->rank_host);
    MPI_Comm_free(&ctx->host);
    MPI_Comm_free(&ctx->comm);
}

void bench_timestamp(char *buf, int len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, (size_t)len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
