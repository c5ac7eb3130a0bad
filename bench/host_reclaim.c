#include "bench/host_reclaim.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The first line of root/path into buf; false when it cannot be read. */
static bool read_line(const char *root, const char *path, char *buf, size_t len)
{
    char full[1024];
    if (snprintf(full, sizeof full, "%s/%s", root, path) >= (int)sizeof full) return false;
    FILE *f = fopen(full, "r");
    if (!f) return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = 0;
    return ok;
}

/* A virtio device of id 5 (the balloon) bound to a driver whose feature bit 5 (FREE_PAGE_REPORTING)
 * is set: sysfs lists the negotiated features as '0'/'1' characters from bit 0 on. */
static bool balloon_reports(const char *root)
{
    char dir[1024];
    if (snprintf(dir, sizeof dir, "%s/bus/virtio/devices", root) >= (int)sizeof dir) return false;
    DIR *d = opendir(dir);
    if (!d) return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[512], buf[256];
        if (snprintf(path, sizeof path, "bus/virtio/devices/%s/device", e->d_name) >= (int)sizeof path ||
            !read_line(root, path, buf, sizeof buf) || strcmp(buf, "0x0005") != 0)
            continue;
        snprintf(path, sizeof path, "bus/virtio/devices/%s/features", e->d_name); /* shorter than the above */
        found = read_line(root, path, buf, sizeof buf) && strlen(buf) > 5 && buf[5] == '1';
    }
    closedir(d);
    return found;
}

void host_reclaim_read(const char *root, host_reclaim *r)
{
    memset(r, 0, sizeof *r);
    r->order = -1;
    char buf[256];
    if (read_line(root, "kernel/mm/transparent_hugepage/enabled", buf, sizeof buf) && !strstr(buf, "[never]")) {
        unsigned long long v = 0;
        r->huge_bytes = (uint64_t)2 << 20; /* x86-64's PMD page, where the kernel does not say */
        if (read_line(root, "kernel/mm/transparent_hugepage/hpage_pmd_size", buf, sizeof buf) && sscanf(buf, "%llu", &v) == 1)
            r->huge_bytes = v;
    }
    r->reporting = balloon_reports(root);
    if (!r->reporting) return;
    int order = -1;
    if (read_line(root, "module/page_reporting/parameters/page_reporting_order", buf, sizeof buf))
        sscanf(buf, "%d", &order);
    r->order = order;
    /* unknown: the kernel's default, a pageblock, which is the huge page where there is one */
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    r->block_bytes = order >= 0 && order < 40 ? page << order : r->huge_bytes ? r->huge_bytes : page << 9;
    r->takes_huge = r->huge_bytes > 0 && r->block_bytes <= r->huge_bytes;
}
