/* Building blocks shared by the scalar and SIMD kernel files (not part of the kernel API). */
#ifndef RMB_SORT_INTERNAL_H
#define RMB_SORT_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

void smj_scalar_sort_small(const uint64_t *src, size_t n, uint64_t *dst);
void smj_scalar_merge2(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out);
/* How many of the c smallest values of sorted a[0..na) and b[0..nb) come from a (merge-path split):
 * a[0..i) and b[0..c-i) merged are the first c values of the merge. */
size_t smj_corank(size_t c, const uint64_t *a, size_t na, const uint64_t *b, size_t nb);
void smj_scalar_merge3(const uint64_t *c, size_t nc, const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                       uint64_t *out);

/* The passes of a multi-way merge, for either format: the runs (starts, lens: in items of `item`
 * bytes inside data) are merged `fanin` consecutive ones at a time, each group by merge(ctx, runs,
 * lens, k, out) into the other buffer, ping-ponging between data and scratch until one run is
 * left. Returns the buffer holding it and the passes in *passes (the thesis' d); NULL when memory
 * is missing or merge returns nonzero. With bands (smj_bands.h; NULL: one band): the runs come
 * band by band, band b's band_runs[b] of them, every band's keys below the next band's; a group
 * never spans two bands, and the passes end when every band is one run, the bands in order
 * (a band of one run is copied by a pass that the others need). */
typedef int (*smj_group_merge)(void *ctx, const void *const *runs, const size_t *lens, int k, void *out);
void *smj_run_passes(void *data, void *scratch, size_t item, const size_t *starts, const size_t *lens, int runs,
                     const int *band_runs, int bands, int fanin, int *passes, smj_group_merge merge, void *ctx);

#endif
