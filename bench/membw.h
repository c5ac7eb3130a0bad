/* Streaming memory bandwidth per rank, all ranks of a host at once (the roofline of the joins'
 * phases; issue 16): read, write with ordinary stores, write with non-temporal stores (SSE2
 * _mm_stream_si128 when the CPU has it, detected at run time; else the ordinary store loop) and
 * copy, on buffers far beyond the last-level cache, touched before timing. Used by `rmabench
 * membw`, `rmabench calibrate` (bw_mem_*) and `rmabench join --roofline`. */
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
} membw_result;

/* Whether this CPU gives the non-temporal store kernel (MPI-free). */
bool membw_nt_available(void);

/* Collective over ctx->comm: checks that two buffers of `bytes` per rank fit the host (else exits 2
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
