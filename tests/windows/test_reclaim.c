/* Unit test (no MPI at run time) of what --window auto knows about the host and how it rates the
 * flavours with it (bench/host_reclaim.h, rma_window_rate in rma/window_auto.h), on sysfs trees of
 * its own:
 * - free page reporting is seen only for a virtio device of id 5 (the balloon) whose negotiated
 *   feature bit 5 is set; its block is 2^page_reporting_order pages, or a huge page where the
 *   kernel does not say; THP "never" means no huge pages; takes_huge when the block is no larger
 *   than a huge page;
 * - the rating: create-huge at the cheaper 4 KiB flavour's cost where the host takes huge pages
 *   back and the windows hold two huge pages, so that rma_window_cheapest takes that 4 KiB flavour;
 *   unchanged below two huge pages, without reporting, or where create-huge is dearer anyway. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host_reclaim.h"
#include "rma/window_auto.h"
#include "tests/check.h"

static char root[64];

static void put(const char *path, const char *text)
{
    char full[512], dir[512];
    snprintf(full, sizeof full, "%s/%s", root, path);
    for (char *p = strchr(full + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
        snprintf(dir, sizeof dir, "%.*s", (int)(p - full), full);
        mkdir(dir, 0700);
    }
    FILE *f = fopen(full, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

static host_reclaim read_tree(void)
{
    host_reclaim r;
    host_reclaim_read(root, &r);
    return r;
}

static void reclaim(void)
{
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    put("kernel/mm/transparent_hugepage/enabled", "always [madvise] never");
    put("kernel/mm/transparent_hugepage/hpage_pmd_size", "2097152");
    put("bus/virtio/devices/virtio0/device", "0x0001"); /* a network device with bit 5 set */
    put("bus/virtio/devices/virtio0/features", "11000101101110110000");
    host_reclaim r = read_tree();
    CHECK(!r.reporting && !r.takes_huge && r.huge_bytes == 2097152);
    put("bus/virtio/devices/virtio3/device", "0x0005");
    put("bus/virtio/devices/virtio3/features", "01100001000000000000"); /* no FREE_PAGE_REPORTING */
    r = read_tree();
    CHECK(!r.reporting && !r.takes_huge);
    put("bus/virtio/devices/virtio3/features", "01100101000000000000");
    r = read_tree(); /* no order given: a huge page's block */
    CHECK(r.reporting && r.order == -1 && r.block_bytes == 2097152 && r.takes_huge);
    put("module/page_reporting/parameters/page_reporting_order", "9");
    r = read_tree();
    CHECK(r.order == 9 && r.block_bytes == page << 9 && r.takes_huge == (page << 9 <= 2097152));
    put("module/page_reporting/parameters/page_reporting_order", "11");
    r = read_tree(); /* blocks of four huge pages: a freed huge page alone is not reported */
    CHECK(r.block_bytes == page << 11 && r.takes_huge == (page << 11 <= 2097152));
    put("module/page_reporting/parameters/page_reporting_order", "9");
    put("kernel/mm/transparent_hugepage/enabled", "always madvise [never]");
    r = read_tree();
    CHECK(r.reporting && r.huge_bytes == 0 && !r.takes_huge);
}

static void rating(void)
{
    const host_reclaim takes = {.reporting = true, .order = 9, .block_bytes = 2 << 20, .huge_bytes = 2 << 20, .takes_huge = true};
    const host_reclaim keeps = {.huge_bytes = 2 << 20};
    const double cost[WIN_FLAVORS] = {3e-9, 1e-9, 0.2e-9}; /* allocate, create, create-huge */
    double rated[WIN_FLAVORS];
    char risk[192];
    rma_window_rate(cost, &takes, (uint64_t)288 << 20, rated, risk, sizeof risk);
    CHECK(rated[WIN_CREATE_HUGE] == cost[WIN_CREATE] && rated[WIN_CREATE] == cost[WIN_CREATE] && risk[0]);
    CHECK(strstr(risk, "create-huge rated at create's 1.00 s/GB") != NULL);
    CHECK(rma_window_cheapest(rated) == WIN_CREATE);
    const double alloc_cheaper[WIN_FLAVORS] = {0.5e-9, 1e-9, 0.2e-9};
    rma_window_rate(alloc_cheaper, &takes, (uint64_t)288 << 20, rated, risk, sizeof risk);
    CHECK(rated[WIN_CREATE_HUGE] == 0.5e-9 && rma_window_cheapest(rated) == WIN_ALLOCATE);
    rma_window_rate(cost, &takes, (uint64_t)3 << 20, rated, risk, sizeof risk); /* below two huge pages */
    CHECK(rated[WIN_CREATE_HUGE] == cost[WIN_CREATE_HUGE] && !risk[0] && rma_window_cheapest(rated) == WIN_CREATE_HUGE);
    rma_window_rate(cost, &keeps, (uint64_t)288 << 20, rated, risk, sizeof risk); /* no reporting */
    CHECK(rated[WIN_CREATE_HUGE] == cost[WIN_CREATE_HUGE] && !risk[0]);
    const double huge_dear[WIN_FLAVORS] = {3e-9, 1e-9, 2e-9};
    rma_window_rate(huge_dear, &takes, (uint64_t)288 << 20, rated, risk, sizeof risk);
    CHECK(rated[WIN_CREATE_HUGE] == 2e-9 && !risk[0]);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/rmb-reclaim.XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    reclaim();
    rating();
    nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    CHECK_DONE();
}
