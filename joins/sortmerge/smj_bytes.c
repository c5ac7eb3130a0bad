/* The bytes each sort-merge join phase moves per rank (joins/join.h join_phase_bytes), from the
 * sizes and the resolved plan; n = (|R| + |S|) / P tuples per rank, 16 B input tuples
 * (joins/tuple.h), t = the format's bytes (8 packed or 16), d = merge passes:
 *   partition     reads the input twice where it counts (range.c: the histogram, then the
 *                 scatter): 32 n; with band pieces sized from a sample (smj_bands.h) once, and a
 *                 64-byte line for every SMJ_SLOT_STRIDE-th tuple: 16 n + 64 n / stride; writes the
 *                 packed groups per target: t n (splitter sample and histogram: negligible)
 *   sort          reads the packed groups, t n; writes every tuple once into a window, t n (the run
 *                 being sorted and its send buffer stay in cache)
 *   merge         d passes, each reading and writing the received tuples: d x t n each way
 *   match         one scan over sorted R and S: reads t n
 *   window_alloc, put, flush: none counted (allocation and first touch; time inside sort) */
#include <string.h>

#include "joins/join.h"
#include "joins/sortmerge/smj_bands.h"
#include "joins/tuple.h"

join_phase_bytes sortmerge_phase_bytes(const char *phase, const join_bytes_shape *s)
{
    join_phase_bytes b = {0, 0};
    if (s->ranks < 1) return b;
    const double n = ((double)s->r_total + (double)s->s_total) / s->ranks, t = s->tuple_bytes;
    const double in = sizeof(tuple_t);
    if (strcmp(phase, "partition") == 0) {
        b.read = in * n * (1 + smj_count_share(!s->counted));
        b.written = t * n;
    } else if (strcmp(phase, "sort") == 0) b.read = b.written = t * n;
    else if (strcmp(phase, "merge") == 0) b.read = b.written = s->passes * t * n;
    else if (strcmp(phase, "match") == 0) b.read = t * n;
    return b;
}
