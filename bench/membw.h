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

/* The memory a measurement of `bytes` needs per rank: two buffers. */
static inline uint64_t membw_rank_bytes(uint64_t bytes) { return 2 * bytes; }

/* Whether this CPU gives the non-temporal store kernel (MPI-free). */
bool membw_nt_available(void);

/* Collective over ctx->comm: allocates two buffers of `bytes` per rank (the caller checks the
 * memory first: mem_check_host), touches them, runs each kernel `repeats` times with a barrier
 * before every repetition, frees them. Identical result on every rank. */
void membw_measure(const bench_ctx *ctx, uint64_t bytes, int repeats, membw_result *out);

/* The roofline of a phase that reads `read` and writes `written` bytes, as seconds at the given
 * bandwidths (B/s): the part it reads and writes alike (min of the two) streams at the copy rate
 * (which counts both directions), the rest at the read or the write rate. 0 when no bytes move.
 * MPI-free. */
double membw_bound_seconds(double read, double written, double bw_read, double bw_write, double bw_copy);

#endif
