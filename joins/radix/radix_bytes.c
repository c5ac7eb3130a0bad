/* The bytes each radix join phase moves per rank (joins/join.h join_phase_bytes), from the sizes
 * and the resolved plan; n = (|R| + |S|) / P tuples per rank, 16 B input tuples (joins/tuple.h),
 * t = the window format's bytes (8 packed or 16), and a share (P - 1) / P of a rank's tuples
 * belongs to partitions other ranks own (the assignment spreads partitions evenly):
 *   histogram          reads the input: 16 n (the histograms stay in cache)
 *   network_partition  reads the input, 16 n; writes every tuple once into a window, t n (its own
 *                      through a staging line and memcpy, the others' by MPI_Put); the remote share
 *                      is staged through the send buffers: written and read once more there (under
 *                      --window shared the share of ranks off this rank's host, whose windows it
 *                      does not store into itself)
 *   local_partition    per pass reads and writes the rank's received tuples: passes x t n each way,
 *                      and reads them once more in each pass that counts them (the first pass's
 *                      counts come from the histogram phase where they fit: join_output.local_counted)
 *   build_probe        reads R's and S's final partitions once: t n (the hash table fits the L2)
 *   window_alloc, put, flush: none counted (allocation and first touch; time inside network_partition) */
#include <string.h>

#include "joins/join.h"
#include "joins/tuple.h"

join_phase_bytes radix_phase_bytes(const char *phase, const join_bytes_shape *s)
{
    join_phase_bytes b = {0, 0};
    if (s->ranks < 1) return b;
    const double P = s->ranks, n = ((double)s->r_total + (double)s->s_total) / P, t = s->tuple_bytes;
    const double direct = s->direct_ranks > 1 && s->direct_ranks <= s->ranks ? s->direct_ranks : 1;
    const double in = sizeof(tuple_t), remote = (P - direct) / P;
    if (strcmp(phase, "histogram") == 0) b.read = in * n;
    else if (strcmp(phase, "network_partition") == 0) {
        b.read = in * n + remote * t * n;
        b.written = t * n + remote * t * n;
    } else if (strcmp(phase, "local_partition") == 0) {
        b.written = s->passes * t * n;
        b.read = (s->passes + s->counted) * t * n;
    }
    else if (strcmp(phase, "build_probe") == 0) b.read = t * n;
    return b;
}
