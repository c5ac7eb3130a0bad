/* Streaming memory bandwidth per rank, all ranks of a host at once (the roofline of the joins'
 * phases): read, write with ordinary stores, write with non-temporal stores (SSE2
 * _mm_stream_si128 when the CPU has it, detected at run time; else the ordinary store loop) and
 * copy, on buffers far beyond the last-level cache, touched before timing. Used by `rmabench
 * membw`, `rmabench calibrate` (bw_mem_*) and `rmabench join --roofline`.
 * "Far beyond" is STREAM's rule: what the ranks sharing a last-level cache stream through one
 * kernel is at least MEMBW_LLC_FACTOR times that cache, else part of the figure is the cache's
 * bandwidth. The cache is the kernel's figure (bench/cache_size.h), not glibc's, which can
 * overstate the L3 tenfold. */
#ifndef RMB_MEMBW_H
#define RMB_MEMBW_H
#include <stdbool.h>
#include <stdint.h>

#include "bench/context.h"

enum { MEMBW_READ, MEMBW_WRITE, MEMBW_WRITE_NT, MEMBW_COPY, MEMBW_KERNELS };
extern const char *const membw_kernel_names[MEMBW_KERNELS]; /* "read", "write", "write_nt", "copy" */

typedef struct {
    /* GB/s (1e9 B/s). read: bytes read / s; write, write_nt: bytes written / s; copy: bytes read +
     * bytes written / s (STREAM's convention: a copy of n bytes moves 2n). */
    double rank_median[MEMBW_KERNELS]; /* median over ranks of each rank's median over repeats */
    double rank_min[MEMBW_KERNELS];    /* slowest rank's median */
    double host_min[MEMBW_KERNELS];    /* sum of a host's ranks' medians, smallest host */
    bool nt_native;                    /* write_nt used non-temporal stores */
    uint64_t bytes;                    /* per buffer and rank (copy uses two) */
    int repeats;
    uint64_t llc;                      /* last level of cache of the machine (bytes, all its instances; 0: unknown) */
    int llc_instances;                 /* caches of that level (rmb_llc_bytes); 0 or 1: one */
    int llc_ranks;                     /* most ranks of a machine, all streaming through its LLC */
} membw_result;

#define MEMBW_LLC_FACTOR 4
#define MEMBW_MIN_AUTO ((uint64_t)64 << 20)

/* Bytes per buffer and rank for `ranks` ranks sharing a last-level cache of `llc` bytes: at least
 * MEMBW_LLC_FACTOR x llc streamed by them together, at least MEMBW_MIN_AUTO, whole 2 MiB pages
 * (MPI-free). */
uint64_t membw_auto_bytes(uint64_t llc, int ranks);

/* Whether the buffers of m were far beyond the last-level cache (true when the cache is unknown). */
static inline bool membw_beyond_llc(const membw_result *m)
{
    return m->llc == 0 || (double)m->bytes * m->llc_ranks >= (double)MEMBW_LLC_FACTOR * (double)m->llc;
}

/* One phrase for headers: "2 ranks x 600 MiB = 4.0x the 300 MiB last-level cache", with
 * "(within 4x: partly the cache's bandwidth)" when the buffers were not far beyond it. */
void membw_describe_llc(const membw_result *m, char *buf, size_t n);

/* Whether this CPU gives the non-temporal store kernel (MPI-free). */
bool membw_nt_available(void);

/* Collective over ctx->comm: bytes = 0 takes membw_auto_bytes for this CPU's last-level cache and the
 * most ranks on one machine (ctx->ranks_per_machine). Checks that two buffers of `bytes` per rank fit the host (else exits 2
 * naming `flag`, with `advice`: mem_check_host), allocates and touches them, runs each kernel
 * `repeats` times with a barrier before every repetition, frees them. Identical result on every rank. */
void membw_measure(const bench_ctx *ctx, uint64_t bytes, int repeats, const char *flag, const char *advice,
                   membw_result *out);

/* The write rate a phase can reach: the better of ordinary and non-temporal stores (GB/s). */
static inline double membw_write_best(const membw_result *m)
{
    return m->rank_median[MEMBW_WRITE] > m->rank_median[MEMBW_WRITE_NT] ? m->rank_median[MEMBW_WRITE]
                                                                        : m->rank_median[MEMBW_WRITE_NT];
}

/* The roofline of a phase that reads `read` and writes `written` bytes, as seconds at the given
 * bandwidths (B/s): the part it reads and writes alike (min of the two) streams at the copy rate
 * (which counts both directions), the rest at the read or the write rate. 0 when no bytes move.
 * MPI-free. */
double membw_bound_seconds(double read, double written, double bw_read, double bw_write, double bw_copy);

#endif
