/* Estimate a run's memory before allocating and refuse politely if it will not fit. Uses
 * /proc/meminfo's MemAvailable (libnuma's node sizes are far below the machine's memory on some
 * platforms and must not be used to refuse a run). */
#ifndef RMB_MEMORY_H
#define RMB_MEMORY_H
#include <stdint.h>

#include "bench/context.h"

/* Bytes available to new allocations on this host (MemAvailable), or -1 if unknown. */
int64_t mem_available_bytes(void);

/* Collective: sums bytes_per_rank over the ranks of each host and compares with that host's
 * MemAvailable (keeping 10% headroom). On failure, every rank exits 2 after rank 0 prints a line
 * naming `flag` and the sizes. */
void mem_check_or_exit(const bench_ctx *ctx, int64_t bytes_this_rank, const char *flag);

/* "1.5 GiB" style. */
void mem_format(int64_t bytes, char *buf, int len);

/* Large, page-aligned allocation for relation data, send buffers, hash tables (transparent huge
 * pages where allowed), placed by the run's --numa policy; freeing checks where a sample of its
 * pages went (bench/numa_policy.h). */
void *mem_alloc_large(uint64_t bytes);
void mem_free_large(void *p, uint64_t bytes);

#endif
