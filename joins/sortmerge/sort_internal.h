/* Building blocks shared by the scalar and SIMD kernel files (not part of the kernel API). */
#ifndef RMB_SORT_INTERNAL_H
#define RMB_SORT_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

void smj_scalar_sort_small(const uint64_t *src, size_t n, uint64_t *dst);
void smj_scalar_merge2(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out);
void smj_scalar_merge3(const uint64_t *c, size_t nc, const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                       uint64_t *out);

#endif
