/* Each policy on the machine the tests run on: setup resolves it, allocations under it succeed,
 * the kernel really holds the policy (get_mempolicy on the range and on the thread), touching
 * keeps the data, and the placement check reports 100% where there is one node. Without libnuma
 * (build option off), the same calls work, local/interleave fall back to off with a warning, and
 * nothing is measured. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "tests/check.h"
#include "bench/numa_policy.h"
#include "bench/rmb_config.h"
#if RMB_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif

#define BYTES (8u << 20)

static int range_mode(void *p)
{
#if RMB_HAVE_NUMA
    int mode = -1;
    if (get_mempolicy(&mode, NULL, 0, p, MPOL_F_ADDR) != 0) return -2;
    return mode;
#else
    (void)p;
    return -1;
#endif
}

static int thread_mode(void)
{
#if RMB_HAVE_NUMA
    int mode = -1;
    if (get_mempolicy(&mode, NULL, 0, NULL, 0) != 0) return -2;
    return mode;
#else
    return -1;
#endif
}

int main(void)
{
    char warn[256];
    int eff = numa_setup(NUMA_AUTO, warn, sizeof warn);
    CHECK(warn[0] == 0);
    CHECK(eff == (numa_is_available() && numa_node_count() > 1 ? NUMA_LOCAL : NUMA_OFF));

    const int policies[] = {NUMA_LOCAL, NUMA_INTERLEAVE, NUMA_OFF};
    for (int i = 0; i < 3; i++) {
        int want = policies[i];
        eff = numa_setup(want, warn, sizeof warn);
        void *p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(p != MAP_FAILED);
        if (p == MAP_FAILED) continue;
        numa_apply_range(p, BYTES);
        /* untouched pages are not counted: nothing to measure yet */
        CHECK(numa_placement_check(p, BYTES) < 0);
        memset(p, 0xab, BYTES);
        double f = numa_placement_check(p, BYTES);
        if (numa_is_available()) {
            CHECK(eff == want);
            CHECK(warn[0] == 0);
            CHECK(strlen(numa_intended_nodes()) > 0);
#if RMB_HAVE_NUMA
            int expect = want == NUMA_LOCAL ? MPOL_PREFERRED : want == NUMA_INTERLEAVE ? MPOL_INTERLEAVE : MPOL_DEFAULT;
            CHECK(range_mode(p) == expect);
            CHECK(thread_mode() == MPOL_DEFAULT);
            numa_policy_push();
            CHECK(thread_mode() == (want == NUMA_OFF ? MPOL_DEFAULT : expect));
            numa_policy_push(); /* nests */
            numa_policy_pop();
            CHECK(thread_mode() == (want == NUMA_OFF ? MPOL_DEFAULT : expect));
            numa_policy_pop();
            CHECK(thread_mode() == MPOL_DEFAULT);
#endif
            if (numa_node_count() == 1) CHECK(f == 1.0);
            else CHECK(f >= 0 && f <= 1);
        } else {
            CHECK(eff == NUMA_OFF);
            CHECK((want == NUMA_OFF) == (warn[0] == 0));
            CHECK(strstr(warn, want == NUMA_LOCAL ? "--numa local" : "--numa") != NULL || want == NUMA_OFF);
            CHECK(f < 0);
            CHECK(range_mode(p) == -1 && thread_mode() == -1);
            numa_policy_push();
            numa_policy_pop();
        }
        /* first touch of a window keeps every byte (remote writers may be there already) */
        unsigned char *c = p;
        for (uint32_t k = 0; k < BYTES; k += 4093) c[k] = (unsigned char)(k * 7);
        numa_touch_pages(p, BYTES);
        int same = 1;
        for (uint32_t k = 0; k < BYTES; k += 4093) same &= c[k] == (unsigned char)(k * 7);
        CHECK(same);
        munmap(p, BYTES);
    }
    uint64_t checks = 0, pages = 0;
    numa_placement_stats(&checks, &pages, NULL);
    if (numa_is_available()) {
        CHECK_EQ_U64(checks, 6); /* 3 before touching (nothing counted), 3 after */
        CHECK_EQ_U64(pages, 3 * NUMA_SAMPLE_PAGES);
        if (numa_node_count() == 1) CHECK(numa_placement_worst() == 1.0);
    } else {
        CHECK_EQ_U64(checks, 0);
        CHECK(numa_placement_worst() < 0);
    }
    CHECK_DONE();
}
