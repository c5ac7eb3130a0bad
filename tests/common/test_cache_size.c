/* Cache sizes (bench/cache_size.h): the parse of sysfs' size and CPU-list texts, and the sizes
 * this machine reports being ordered as caches are (L1 <= L2 <= the whole last level). */
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "bench/cache_size.h"

int main(void)
{
    static const struct {
        const char *text;
        uint64_t bytes; /* 0: refused */
    } sizes[] = {
        {"32768K\n", UINT64_C(32) << 20}, {"1024K", UINT64_C(1) << 20}, {"32M", UINT64_C(32) << 20},
        {"1G", UINT64_C(1) << 30}, {"512", 512}, {"", 0}, {"K", 0}, {"32 K", 0}, {"32KB", 0}, {"-1K", 0},
        {"99999999999999999999", 0}, {"17179869184G", 0}, /* 2^34 GiB: beyond 64 bits */
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (rmb_cache_parse_size(sizes[i].text) != sizes[i].bytes) fprintf(stderr, "size '%s'\n", sizes[i].text);
        CHECK(rmb_cache_parse_size(sizes[i].text) == sizes[i].bytes);
    }
    static const struct {
        const char *text;
        int cpus; /* 0: refused */
    } lists[] = {
        {"0-1\n", 2}, {"0", 1}, {"0,2,4-7", 6}, {"0-63,128-191", 128}, {"", 0}, {"3-1", 0}, {"0-", 0}, {"a", 0}, {"0;1", 0},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        if (rmb_cpu_list_count(lists[i].text) != lists[i].cpus) fprintf(stderr, "list '%s'\n", lists[i].text);
        CHECK(rmb_cpu_list_count(lists[i].text) == lists[i].cpus);
    }

    const uint64_t l1 = rmb_cache_bytes(1), l2 = rmb_cache_bytes(2);
    int instances = 0;
    const uint64_t llc = rmb_llc_bytes(&instances);
    printf("cache sizes: L1d %llu, L2 %llu, last level %llu bytes in %d instance(s)\n", (unsigned long long)l1,
           (unsigned long long)l2, (unsigned long long)llc, instances);
    CHECK(instances >= 1);
    if (l1 && l2) CHECK(l1 <= l2);
    if (l2 && llc) CHECK(l2 <= llc);
    if (llc) CHECK(llc % (uint64_t)instances == 0);
    CHECK_DONE();
}
