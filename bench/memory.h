/* Estimate a run's memory before allocating and refuse politely if it will not fit. Uses
 * /proc/meminfo's MemAvailable (libnuma's node sizes are far below the machine's memory on some
 * platforms and must not be used to refuse a run). */
#ifndef RMB_MEMORY_H
#define RMB_MEMORY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/context.h"

/* Bytes available to new allocations on this host (MemAvailable), or -1 if unknown. */
int64_t mem_available_bytes(void);

/* The one rule for a host, MPI-free (the run's check below and `--plan` both use it): host_need
 * fits when it is at most 90% of avail (or avail is unknown, <= 0). Returns 0, or -1 with
 * "FLAG: the run needs about X on one host but only Y is available; use ADVICE" in msg. */
int mem_host_verdict(int64_t host_need, int64_t avail, const char *flag, const char *advice, char *msg, size_t len);

/* What lowers one host's need, for the refusal: per_rank_data (the size flag is per rank, so more
 * hosts alone do not help), buffers (send buffers that --buffer-memory bounds are a sizeable part). */
const char *mem_advice(bool per_rank_data, bool buffers);

/* Collective: sums bytes_per_rank over the ranks of each host and compares with that host's
 * MemAvailable (mem_host_verdict). On failure, every rank exits 2 after rank 0 prints the line.
 * mem_check_or_exit gives mem_advice for the flag (--tuples-per-rank is per rank). */
void mem_check_host(const bench_ctx *ctx, int64_t bytes_this_rank, const char *flag, const char *advice);
void mem_check_or_exit(const bench_ctx *ctx, int64_t bytes_this_rank, const char *flag);

/* What a rank needs beyond what the operators plan (process image, MPI library): added by --plan,
 * which launches nothing; a run's MemAvailable already has it taken. It covers a small run's
 * resident image with shared libraries (docs/measurements.md, "From code comments"); the rest is
 * room for the library's per-peer state at thousands of ranks, which it sizes itself. */
#define MEM_RUNTIME_BYTES ((int64_t)32 << 20)

/* This process's peak resident memory so far (getrusage ru_maxrss), bytes. Pages of other ranks'
 * shared-memory windows it wrote into count too. */
int64_t mem_peak_rss_bytes(void);

/* "1.5 GiB" style. */
void mem_format(int64_t bytes, char *buf, int len);

/* Large, page-aligned allocation for relation data, send buffers, hash tables (transparent huge
 * pages where allowed), placed by the run's --numa policy; freeing checks where a sample of its
 * pages went (bench/numa_policy.h). */
void *mem_alloc_large(uint64_t bytes);
void mem_free_large(void *p, uint64_t bytes);

/* memcpy with non-temporal stores for the whole 16-byte words of dst, ending with a store fence:
 * for data written once and read later by another phase (or rank), which then neither reads dst's
 * lines from memory first nor evicts the cache; plain memcpy without SSE2. */
void mem_stream_copy(void *dst, const void *src, size_t bytes);

/* Large blocks kept mapped from one use to the next, one per slot and process: fresh pages only
 * where nothing could be reused, since on a virtual machine a fresh page can cost more than the
 * data written into it and freed memory goes back to the host within seconds. The slots: 0 the
 * radix send buffers (rma/putbuf.c), 1 and 2 the sort-merge join's packed R and S, 3 the samples of
 * keys for the sort-merge splitters (joins/sortmerge/range.c).
 * mem_kept_get: the slot's block when it holds `bytes` (*got: its size, *fresh = false), else a new
 * mem_alloc_large block (the old one freed; *fresh = true), NULL when out of memory. mem_kept_put:
 * gives a block of `bytes` back to its slot, freeing the smaller of it and what the slot holds. */
enum { MEM_KEPT_SLOTS = 4 };
void *mem_kept_get(int slot, uint64_t bytes, uint64_t *got, bool *fresh);
void mem_kept_put(int slot, void *p, uint64_t bytes);

#endif
