#include "bench/memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench/numa_policy.h"

int64_t mem_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return -1;
    char line[256];
    int64_t kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %" SCNd64 " kB", &kb) == 1) break;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

void mem_format(int64_t bytes, char *buf, int len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) { v /= 1024; u++; }
    snprintf(buf, (size_t)len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

void mem_check_or_exit(const bench_ctx *ctx, int64_t bytes_this_rank, const char *flag)
{
    int64_t host_sum = 0;
    MPI_Allreduce(&bytes_this_rank, &host_sum, 1, MPI_INT64_T, MPI_SUM, ctx->host);
    int64_t avail = mem_available_bytes();
    int bad = avail > 0 && (double)host_sum > 0.9 * (double)avail;
    struct { int bad; int rank; } mine = {bad, ctx->rank}, first;
    MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MAXLOC, ctx->comm);
    if (!first.bad) return;
    /* The failing host's leader tells rank 0 the numbers. */
    int64_t nums[2] = {host_sum, avail};
    if (first.rank != 0) {
        if (ctx->rank == first.rank) MPI_Send(nums, 2, MPI_INT64_T, 0, 77, ctx->comm);
        if (ctx->rank == 0) MPI_Recv(nums, 2, MPI_INT64_T, first.rank, 77, ctx->comm, MPI_STATUS_IGNORE);
    }
    char need[32], have[32];
    mem_format(nums[0], need, sizeof need);
    mem_format(nums[1], have, sizeof have);
    bench_usage_error(ctx, "%s: the run needs about %s on one host but only %s is available; use fewer tuples or more hosts",
                      flag, need, have);
}

void *mem_alloc_large(uint64_t bytes)
{
    if (bytes == 0) bytes = 64;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    numa_apply_range(p, bytes); /* the run's --numa policy, for pages touched later by anyone */
    return p;
}

void mem_free_large(void *p, uint64_t bytes)
{
    if (!p) return;
    numa_placement_check(p, bytes ? bytes : 64); /* after use, where the pages really went */
    munmap(p, bytes ? bytes : 64);
}
