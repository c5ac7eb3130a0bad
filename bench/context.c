#include "bench/context.h"

#include "bench/ranges.h"
#include "bench/yield_wait.h"

#include "bench/options.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Name prefixes of the variables that tune an MPI library or its transports. */
static const char *const mpi_env_prefixes[] = {"OMPI_MCA_", "MPIR_CVAR_", "MPICH_", "UCX_", "FI_", "PSM2_", "I_MPI_"};
/* What the launchers set for every child (`mpirun -n 1 env` under Open MPI 4.1.4, hydra of MPICH
 * 4.0.2), so that a plain run records nothing, and the oversubscription flags, recorded as the
 * column oversubscribed. A trailing '*' matches any rest of the name. */
static const char *const mpi_env_ignored[] = {
    "OMPI_MCA_orte_*", "OMPI_MCA_ess", "OMPI_MCA_ess_*", "OMPI_MCA_pmix*", "OMPI_MCA_initial_wdir",
    "OMPI_MCA_shmem_RUNTIME_QUERY_hint", "OMPI_MCA_mpi_oversubscribe", "OMPI_MCA_rmaps_base_oversubscribe",
    "MPIR_CVAR_CH3_INTERFACE_HOSTNAME",
};

static bool name_matches(const char *entry, size_t namelen, const char *pattern)
{
    size_t n = strlen(pattern);
    if (n > 0 && pattern[n - 1] == '*') return namelen >= n - 1 && strncmp(entry, pattern, n - 1) == 0;
    return namelen == n && strncmp(entry, pattern, n) == 0;
}

/* Whether an environment entry ("NAME=VALUE") tunes the MPI library beyond a plain run. */
static bool is_mpi_tuning(const char *entry)
{
    const char *eq = strchr(entry, '=');
    if (!eq) return false;
    size_t namelen = (size_t)(eq - entry);
    bool tuning = false;
    for (size_t i = 0; i < sizeof mpi_env_prefixes / sizeof *mpi_env_prefixes && !tuning; i++)
        tuning = strncmp(entry, mpi_env_prefixes[i], strlen(mpi_env_prefixes[i])) == 0;
    for (size_t i = 0; i < sizeof mpi_env_ignored / sizeof *mpi_env_ignored && tuning; i++)
        tuning = !name_matches(entry, namelen, mpi_env_ignored[i]);
    return tuning;
}

static int compare_entries(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* ';' separates entries and a backslash escapes: both escaped in a value, control characters too
 * (the run header prints it on one line; the CSV writer quotes commas and double quotes). */
static void put_escaped(FILE *f, const char *v)
{
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == ';' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\x%02x", c);
        else fputc(c, f);
    }
}

static _Noreturn void env_out_of_memory(void)
{
    fprintf(stderr, "rmabench: out of memory for the MPI environment\n");
    abort();
}

extern char **environ;

static char *mpi_env_now(void)
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++) n += is_mpi_tuning(*e);
    const char **pick = malloc((n ? n : 1) * sizeof *pick);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!pick || !f) env_out_of_memory();
    n = 0;
    for (char **e = environ; e && *e; e++)
        if (is_mpi_tuning(*e)) pick[n++] = *e;
    qsort(pick, n, sizeof *pick, compare_entries); /* the launch's order is no configuration */
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(pick[i], '=');
        fprintf(f, "%s%.*s=", i ? ";" : "", (int)(eq - pick[i]), pick[i]);
        put_escaped(f, eq + 1);
    }
    if (fclose(f) != 0 || !out) env_out_of_memory();
    free(pick);
    return out;
}

/* The MPI environment the launch gave this process, taken before MPI_Init changes it (Open MPI
 * 4.1.4 adds PSM2_DEVICES=self,shm when every rank shares a host) and before the defaults below.
 * Process-wide like the environment itself; NULL until bench_pre_init. */
static char *launch_env;

void bench_pre_init(void)
{
    if (!launch_env) launch_env = mpi_env_now();
#ifdef OPEN_MPI
    /* Debian's openmpi-mca-params.conf excludes osc pt2pt; without it MPI_Win_create fails at one
     * rank. Allowing it keeps osc rdma for 2+ ranks (checked on Open MPI 4.1.4). */
    setenv("OMPI_MCA_osc", "^ucx", 0);
#endif
}

char *bench_mpi_env(void)
{
    char *env = launch_env ? strdup(launch_env) : mpi_env_now();
    if (!env) env_out_of_memory();
    return env;
}

int bench_host_size_of(const bench_ctx *ctx, int h)
{
    int n = 0;
    for (int r = 0; r < ctx->size; r++) n += ctx->rank_host[r] == h;
    return n;
}

int bench_rank_on_host(const bench_ctx *ctx, int h, int pos)
{
    int seen = 0;
    for (int r = 0; r < ctx->size; r++)
        if (ctx->rank_host[r] == h && seen++ == pos) return r;
    return -1;
}

int bench_next_on_host(const bench_ctx *ctx)
{
    return ctx->host_size > 1 ? bench_rank_on_host(ctx, ctx->host_id, (ctx->host_rank + 1) % ctx->host_size) : -1;
}

int bench_online_cores(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

bool bench_oversubscribed(int ranks_on_host, int cores) { return ranks_on_host > cores; }

bool bench_poll_yields(int ranks_on_host, int cores) { return bench_oversubscribed(ranks_on_host, cores); }

bool bench_mpi_yields_when_idle(void)
{
#ifdef OPEN_MPI
    const char *y = getenv("OMPI_MCA_mpi_yield_when_idle"), *o = getenv("OMPI_MCA_mpi_oversubscribe");
    if (y) return strcmp(y, "0") != 0 && strcmp(y, "false") != 0;
    return o && strcmp(o, "1") == 0;
#else
    return false;
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

/* This kernel's boot id (128 bits): "hosts" with the same one are namespaces or containers of one
 * machine and share its cores. Where it cannot be read, {UINT64_MAX, host}: unique per host (a
 * random UUID's top word is never all ones, its version nibble is 4). */
static void boot_id(int host, uint64_t id[2])
{
    id[0] = UINT64_MAX;
    id[1] = (uint64_t)host;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return;
    char hex[33];
    int n = 0, c;
    while (n < 32 && (c = fgetc(f)) != EOF && c != '\n')
        if (c != '-') hex[n++] = (char)c;
    fclose(f);
    hex[n] = 0;
    uint64_t w[2];
    if (n == 32 && sscanf(hex, "%16" SCNx64 "%16" SCNx64, &w[0], &w[1]) == 2 && w[0] != UINT64_MAX) {
        id[0] = w[0];
        id[1] = w[1];
    }
}

/* Collective: the ranks sharing this rank's kernel (O(P) words, freed here). */
static int ranks_on_my_kernel(const bench_ctx *ctx)
{
    uint64_t mine[2], *all = malloc(2 * sizeof *all * (size_t)ctx->size);
    boot_id(ctx->host_id, mine);
    MPI_CHECK(ctx->rank, MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, ctx->comm));
    int n = 0;
    for (int r = 0; r < ctx->size; r++) n += all[2 * r] == mine[0] && all[2 * r + 1] == mine[1];
    free(all);
    return n;
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
    ctx->online_cores = bench_online_cores();
    /* namespace "hosts" of one machine (jobs/netem.sh) take turns on its cores: spinning there would
     * take the core from the rank it waits for, as on one oversubscribed host */
    ctx->machine_ranks = ranks_on_my_kernel(ctx);
    if (ctx->machine_ranks < ctx->host_size) ctx->machine_ranks = ctx->host_size;
    ctx->oversubscribed = bench_oversubscribed(ctx->machine_ranks, ctx->online_cores);
    ctx->poll_yield = bench_poll_yields(ctx->machine_ranks, ctx->online_cores);
    rmb_waits_yield(ctx->poll_yield); /* the blocking waits too (bench/yield_wait.h) */
    /* one reduction, O(1) per rank: the maximum of -cores is the fewest cores */
    int mine[5] = {-ctx->online_cores, ctx->online_cores, ctx->oversubscribed, ctx->poll_yield, ctx->machine_ranks}, all[5];
    MPI_CHECK(ctx->rank, MPI_Allreduce(mine, all, 5, MPI_INT, MPI_MAX, ctx->comm));
    ctx->host_cores_min = -all[0];
    ctx->host_cores_max = all[1];
    ctx->any_oversubscribed = all[2];
    ctx->any_poll_yield = all[3];
    ctx->ranks_per_machine = all[4];
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

void bench_ctx_print_environment(const bench_ctx *ctx, FILE *f)
{
    char *env = bench_mpi_env();
    fprintf(f, "environment: %d", ctx->host_cores_min);
    if (ctx->host_cores_max != ctx->host_cores_min) fprintf(f, "-%d", ctx->host_cores_max);
    fprintf(f, " cores/host");
    if (ctx->ranks_per_machine > ctx->ranks_per_host)
        fprintf(f, ", hosts share a machine: up to %d ranks on its cores", ctx->ranks_per_machine);
    fprintf(f, ", oversubscribed: %s, polling yields: %s, MPI env: %s", ctx->any_oversubscribed ? "yes" : "no",
            ctx->any_poll_yield ? "yes" : "no", *env ? env : "none");
    free(env);
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
