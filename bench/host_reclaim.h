/* Whether memory a process frees goes back to the hypervisor, and in what blocks. Under free page
 * reporting (Linux's page_reporting, driven by a virtio-balloon device with
 * VIRTIO_BALLOON_F_REPORTING) the guest kernel hands free blocks of 2^order pages to the host,
 * which drops their backing: whoever touches them next waits for the host to fault memory in again.
 * A freed huge page goes back whole within the reporting delay, and its next first touch costs
 * several times what it cost just after the free, and more than a 4 KiB page's (measured in
 * docs/window-lifetimes.md): a probe of a few huge pages sees whichever state the host is in, the
 * windows of a run may see the other. --window auto weighs that risk (rma/window_auto.h). MPI-free:
 * sysfs only. */
#ifndef RMB_BENCH_HOST_RECLAIM_H
#define RMB_BENCH_HOST_RECLAIM_H
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    bool reporting;        /* a virtio-balloon device with free page reporting is bound */
    int order;             /* the smallest block it reports, in pages (page_reporting_order; -1 unknown) */
    uint64_t block_bytes;  /* that block in bytes (0: no reporting) */
    uint64_t huge_bytes;   /* the transparent huge page of anonymous memory (0: THP never) */
    bool takes_huge;       /* reporting and block_bytes <= huge_bytes: a freed huge page goes back whole */
} host_reclaim;

/* This host's state; `root` is the sysfs root ("/sys"; tests give a directory of their own). */
void host_reclaim_read(const char *root, host_reclaim *r);

#endif
