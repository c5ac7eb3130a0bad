#include "bench/membw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cache_size.h"
#include "bench/memory.h"
#include "bench/stats.h"

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#define MEMBW_X86 1
#else
#define MEMBW_X86 0
#endif

const char *const membw_kernel_names[MEMBW_KERNELS] = {"read", "write", "write_nt", "copy"};

bool membw_nt_available(void)
{
#if MEMBW_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse2");
#else
    return false;
#endif
}

uint64_t membw_auto_bytes(uint64_t llc, int ranks)
{
    if (ranks < 1) ranks = 1;
    uint64_t b = (MEMBW_LLC_FACTOR * llc + (uint64_t)ranks - 1) / (uint64_t)ranks;
    if (b < MEMBW_MIN_AUTO) b = MEMBW_MIN_AUTO;
    const uint64_t page = (uint64_t)2 << 20;
    return (b + page - 1) / page * page;
}

void membw_describe_llc(const membw_result *m, char *buf, size_t n)
{
    char b[32], c[32];
    mem_format((int64_t)m->bytes, b, (int)sizeof b);
    if (m->llc == 0) {
        snprintf(buf, n, "%s per buffer and rank (last-level cache unknown)", b);
        return;
    }
    char each[48] = "";
    if (m->llc_instances > 1) { /* "2 x 32.0 MiB": several caches of the last level */
        mem_format((int64_t)(m->llc / (uint64_t)m->llc_instances), c, (int)sizeof c);
        snprintf(each, sizeof each, " (%d x %s)", m->llc_instances, c);
    }
    mem_format((int64_t)m->llc, c, (int)sizeof c);
    snprintf(buf, n, "%d rank(s) x %s = %.1fx the %s last-level cache%s%s", m->llc_ranks, b,
             (double)m->bytes * m->llc_ranks / (double)m->llc, c, each,
             membw_beyond_llc(m) ? "" : " (within 4x: partly the cache's bandwidth, not memory's)");
}

static volatile uint64_t sink; /* keeps the read kernel's sum alive */

/* Four independent sums: no dependency chain limits the loads. */
static void k_read(const uint64_t *a, uint64_t n)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (uint64_t i = 0; i + 4 <= n; i += 4) {
        s0 += a[i];
        s1 += a[i + 1];
        s2 += a[i + 2];
        s3 += a[i + 3];
    }
    sink = s0 + s1 + s2 + s3;
}

/* Values that vary with i: the compiler cannot turn the loop into memset (glibc's memset switches
 * to non-temporal stores for large sizes, which is the other kernel). */
static void k_write(uint64_t *a, uint64_t n, uint64_t v)
{
    for (uint64_t i = 0; i < n; i++) a[i] = i + v;
}

/* Same reason: + v keeps it from becoming memcpy. */
static void k_copy(uint64_t *restrict b, const uint64_t *restrict a, uint64_t n, uint64_t v)
{
    for (uint64_t i = 0; i < n; i++) b[i] = a[i] + v;
}

#if MEMBW_X86
__attribute__((target("sse2"))) static void k_write_nt_sse2(uint64_t *a, uint64_t n, uint64_t v)
{
    __m128i *p = (__m128i *)(void *)a; /* a is page-aligned (mem_alloc_large) */
    __m128i x = _mm_set_epi64x((long long)(v + 1), (long long)v), inc = _mm_set1_epi64x(2);
    for (uint64_t i = 0; i < n / 2; i++) {
        _mm_stream_si128(p + i, x);
        x = _mm_add_epi64(x, inc);
    }
    _mm_sfence();
}
#endif

/* Non-temporal stores where the CPU has them (nt: membw_nt_available), else the ordinary loop. */
static void k_write_nt(uint64_t *a, uint64_t n, uint64_t v, bool nt)
{
#if MEMBW_X86
    if (nt) {
        k_write_nt_sse2(a, n, v);
        return;
    }
#endif
    (void)nt;
    k_write(a, n, v);
}

double membw_bound_seconds(double read, double written, double bw_read, double bw_write, double bw_copy)
{
    double both = read < written ? read : written;
    double t = 0;
    if (both > 0) t += 2 * both / bw_copy;
    if (read > both) t += (read - both) / bw_read;
    if (written > both) t += (written - both) / bw_write;
    return t;
}

static void fail(const bench_ctx *ctx, const char *what)
{
    fprintf(stderr, "rmabench: rank %d: cannot allocate %s\n", ctx->rank, what);
    MPI_Abort(ctx->comm, 1);
}

void membw_measure(const bench_ctx *ctx, uint64_t bytes, int repeats, const char *flag, const char *advice,
                   membw_result *out)
{
    memset(out, 0, sizeof *out);
    out->llc = rmb_llc_bytes(&out->llc_instances);
    out->llc_ranks = ctx->ranks_per_machine > 0 ? ctx->ranks_per_machine : 1;
    if (bytes == 0) { /* the same size on every rank: the largest any rank asks for */
        uint64_t mine = membw_auto_bytes(out->llc, ctx->machine_ranks > 0 ? ctx->machine_ranks : 1);
        MPI_Allreduce(&mine, &bytes, 1, MPI_UINT64_T, MPI_MAX, ctx->comm);
    }
    bytes &= ~(uint64_t)63;
    if (bytes < 64) bytes = 64;
    mem_check_host(ctx, (int64_t)(2 * bytes), flag, advice); /* two buffers per rank */
    if (repeats < 1) repeats = 1;
    out->bytes = bytes;
    out->repeats = repeats;
    out->nt_native = membw_nt_available();
    const uint64_t n = bytes / 8;
    uint64_t *a = mem_alloc_large(bytes), *b = mem_alloc_large(bytes);
    if (!a || !b) fail(ctx, "the membw buffers");
    k_write(a, n, 1); /* first touch, untimed */
    k_write(b, n, 2);
    double *t = malloc((size_t)repeats * sizeof *t), mine[MEMBW_KERNELS];
    if (!t) fail(ctx, "the membw timings");
    for (int k = 0; k < MEMBW_KERNELS; k++) {
        for (int r = 0; r < repeats; r++) {
            MPI_Barrier(ctx->comm); /* all ranks of the host stream at once */
            double t0 = MPI_Wtime();
            switch (k) {
            case MEMBW_READ: k_read(a, n); break;
            case MEMBW_WRITE: k_write(a, n, (uint64_t)r); break;
            case MEMBW_WRITE_NT: k_write_nt(a, n, (uint64_t)r, out->nt_native); break;
            default: k_copy(b, a, n, (uint64_t)r); break;
            }
            t[r] = MPI_Wtime() - t0;
        }
        double med = stats_median(t, repeats);
        double moved = (double)bytes * (k == MEMBW_COPY ? 2 : 1);
        mine[k] = med > 0 ? moved / med / 1e9 : 0;
    }
    free(t);
    mem_free_large(a, bytes);
    mem_free_large(b, bytes);

    /* rank 0 reduces over ranks (O(P) values on one rank, O(1) printed) */
    double *all = ctx->rank == 0 ? malloc((size_t)ctx->size * MEMBW_KERNELS * sizeof *all) : NULL;
    if (ctx->rank == 0 && !all) fail(ctx, "the membw results");
    MPI_Gather(mine, MEMBW_KERNELS, MPI_DOUBLE, all, MEMBW_KERNELS, MPI_DOUBLE, 0, ctx->comm);
    double res[3 * MEMBW_KERNELS] = {0};
    if (ctx->rank == 0) {
        double *col = malloc((size_t)ctx->size * sizeof *col), *host = calloc((size_t)ctx->hosts, sizeof *host);
        if (!col || !host) fail(ctx, "the membw results");
        for (int k = 0; k < MEMBW_KERNELS; k++) {
            memset(host, 0, (size_t)ctx->hosts * sizeof *host);
            double mn = 0;
            for (int r = 0; r < ctx->size; r++) {
                col[r] = all[(size_t)r * MEMBW_KERNELS + (size_t)k];
                host[ctx->rank_host[r]] += col[r];
                if (r == 0 || col[r] < mn) mn = col[r];
            }
            double hmin = host[0];
            for (int h = 1; h < ctx->hosts; h++)
                if (host[h] < hmin) hmin = host[h];
            res[k] = stats_median(col, ctx->size);
            res[MEMBW_KERNELS + k] = mn;
            res[2 * MEMBW_KERNELS + k] = hmin;
        }
        free(col);
        free(host);
        free(all);
    }
    MPI_Bcast(res, 3 * MEMBW_KERNELS, MPI_DOUBLE, 0, ctx->comm);
    for (int k = 0; k < MEMBW_KERNELS; k++) {
        out->rank_median[k] = res[k];
        out->rank_min[k] = res[MEMBW_KERNELS + k];
        out->host_min[k] = res[2 * MEMBW_KERNELS + k];
    }
}
