/* mem_alloc_large (bench/memory.c) on huge pages from 1 MiB up: every 4 KiB page of a 1.5 MiB and a
 * 3 MiB allocation is written, and the minor faults taken (getrusage) must be those of 2 MiB pages,
 * not of 384 and 768 small ones (before the fix a mapping under 2 MiB stayed on small pages: 11 ms
 * per window under PVM). Skipped where the kernel gives no transparent huge pages on madvise. */
#include <stdio.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/phases.h"
#include "tests/check.h"

static int thp_on_madvise(void)
{
    char buf[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, "[always]") || strstr(buf, "[madvise]");
}

/* Under AddressSanitizer each store also reads its shadow memory, whose own pages fault (48 for
 * 1.5 MiB): the stores here are not instrumented, so that only the block's pages are counted. */
#ifdef __SANITIZE_ADDRESS__
__attribute__((no_sanitize_address))
#endif
static void touch_pages(char *p, uint64_t bytes)
{
    for (uint64_t i = 0; i < bytes; i += 4096) p[i] = 1;
}

static long faults_writing(uint64_t bytes)
{
    char *p = mem_alloc_large(bytes);
    CHECK(p != NULL);
    if (!p) return -1;
    long f0 = rmb_minflt();
    touch_pages(p, bytes);
    long f = rmb_minflt() - f0;
    mem_free_large(p, bytes);
    return f;
}

int main(void)
{
    if (!thp_on_madvise()) {
        printf("large_pages: skipped: no transparent huge pages on madvise here\n");
        return 77;
    }
    const uint64_t sizes[] = {(uint64_t)3 << 19, (uint64_t)3 << 20}; /* 1.5 MiB, 3 MiB */
    for (int i = 0; i < 2; i++) {
        long f = faults_writing(sizes[i]), small = (long)(sizes[i] / 4096);
        /* 1-2 huge pages; a page-table page or a fallback page at most besides: far below `small` */
        CHECK(f >= 0 && f <= small / 8);
        printf("large_pages: %llu bytes: %ld minor faults (%ld small pages)\n", (unsigned long long)sizes[i], f, small);
    }
    CHECK_DONE();
}
