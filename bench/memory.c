#include "bench/memory.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

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

int mem_host_verdict(int64_t host_need, int64_t avail, const char *flag, const char *advice, char *msg, size_t len)
{
    if (avail <= 0 || (double)host_need <= 0.9 * (double)avail) return 0;
    char need[32], have[32];
    mem_format(host_need, need, sizeof need);
    mem_format(avail, have, sizeof have);
    snprintf(msg, len, "%s: the run needs about %s on one host but only %s is available; use %s", flag, need, have,
             advice);
    return -1;
}

const char *mem_advice(bool per_rank_data, bool buffers)
{
    if (per_rank_data)
        return buffers ? "fewer ranks per host (the same ranks on more hosts), fewer tuples per rank, or a smaller --buffer-memory"
                       : "fewer ranks per host (the same ranks on more hosts) or fewer tuples per rank";
    return buffers ? "more hosts, fewer ranks per host, or a smaller --buffer-memory"
                   : "more hosts, fewer ranks per host, or a smaller size";
}

void mem_check_host(const bench_ctx *ctx, int64_t bytes_this_rank, const char *flag, const char *advice)
{
    int64_t host_sum = 0;
    MPI_Allreduce(&bytes_this_rank, &host_sum, 1, MPI_INT64_T, MPI_SUM, ctx->host);
    int64_t avail = mem_available_bytes();
    char msg[512];
    int bad = mem_host_verdict(host_sum, avail, flag, advice, msg, sizeof msg) != 0;
    struct { int bad; int rank; } mine = {bad, ctx->rank}, first;
    MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MAXLOC, ctx->comm);
    if (!first.bad) return;
    /* The failing host's leader tells rank 0 the numbers. */
    int64_t nums[2] = {host_sum, avail};
    if (first.rank != 0) {
        if (ctx->rank == first.rank) MPI_Send(nums, 2, MPI_INT64_T, 0, 77, ctx->comm);
        if (ctx->rank == 0) MPI_Recv(nums, 2, MPI_INT64_T, first.rank, 77, ctx->comm, MPI_STATUS_IGNORE);
    }
    mem_host_verdict(nums[0], nums[1], flag, advice, msg, sizeof msg);
    bench_usage_error(ctx, "%s", msg);
}

void mem_check_or_exit(const bench_ctx *ctx, int64_t bytes_this_rank, const char *flag)
{
    mem_check_host(ctx, bytes_this_rank, flag, mem_advice(strcmp(flag, "--tuples-per-rank") == 0, false));
}

int64_t mem_peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return (int64_t)ru.ru_maxrss * 1024; /* kilobytes on Linux */
}

/* Lengths of 1 MiB and more are rounded up to whole 2 MiB pages: Linux places such mappings on a
 * huge-page boundary only when the length is a multiple of 2 MiB, and an unaligned mapping's head
 * and tail stay 4 KiB pages (up to 512 faults each, costly under a hypervisor, PLATFORM-NOTES).
 * From 1 MiB, not 2: a window just under 2 MiB would otherwise take hundreds of faults where one
 * huge page takes one (docs/measurements.md, "From code comments"); the rounding wastes at most 1
 * MiB of a mapping at least that big. */
static uint64_t large_length(uint64_t bytes)
{
    const uint64_t huge = (uint64_t)2 << 20;
    if (bytes == 0) return 64;
    return bytes >= huge / 2 ? (bytes + huge - 1) & ~(huge - 1) : bytes;
}

void *mem_alloc_large(uint64_t bytes)
{
    bytes = large_length(bytes);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    numa_apply_range(p, bytes); /* the run's --numa policy, for pages touched later by anyone */
    return p;
}

static struct {
    void *p;
    uint64_t bytes;
} kept[MEM_KEPT_SLOTS];

void *mem_kept_get(int slot, uint64_t bytes, uint64_t *got, bool *fresh)
{
    if (kept[slot].p && kept[slot].bytes >= bytes) {
        void *p = kept[slot].p;
        *got = kept[slot].bytes;
        *fresh = false;
        kept[slot].p = NULL;
        return p;
    }
    mem_free_large(kept[slot].p, kept[slot].bytes); /* too small: its pages go, the new block's come */
    kept[slot].p = NULL;
    *got = (bytes + 63) & ~(uint64_t)63;
    *fresh = true;
    return mem_alloc_large(*got);
}

void mem_kept_put(int slot, void *p, uint64_t bytes)
{
    if (!p) return;
    if (kept[slot].p && kept[slot].bytes >= bytes) {
        mem_free_large(p, bytes);
        return;
    }
    mem_free_large(kept[slot].p, kept[slot].bytes);
    kept[slot].p = p;
    kept[slot].bytes = bytes;
}

void mem_free_large(void *p, uint64_t bytes)
{
    if (!p) return;
    bytes = large_length(bytes);
    numa_placement_check(p, bytes); /* after use, where the pages really went */
    munmap(p, bytes);
}

void mem_stream_copy(void *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = (16 - (uintptr_t)d % 16) % 16;
    if (head > bytes) head = bytes;
    memcpy(d, s, head);
    size_t i = head;
    for (; i + 16 <= bytes; i += 16)
        _mm_stream_si128((__m128i *)(void *)(d + i), _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
    memcpy(d + i, s + i, bytes - i);
    _mm_sfence();
#else
    memcpy(dst, src, bytes);
#endif
}
