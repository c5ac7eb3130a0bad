/* --window auto: which window flavour is cheapest to get is a property of the system, not a
 * constant (MPI_Win_allocate's /dev/shm pages against MPI_Win_create on 2 MiB pages: the order
 * changes from one machine to another, docs/measurements.md, "From code comments"). The pick
 * compares each flavour's cost per byte of allocation, first touch and free (with MPI_Win_allocate
 * also the mapping of a peer's pages on the host, rma_window_map_runs), measured on a small window
 * of every rank at once or given (calibrate's t_win_cost_* parameters), and rates each at what the
 * run's windows risk: where a host hands freed huge pages back to the hypervisor
 * (bench/host_reclaim.h) and the run's windows are large enough to hold huge pages, a huge-page
 * window's first touch may come at the host's price, which a small window probed while the host
 * still backs its pages does not show; create-huge is then rated at least at the cheaper 4 KiB
 * flavour's cost (a huge page the host took back costs at least what 4 KiB pages cost at their
 * first touch: measured in docs/window-lifetimes.md), so that a 4 KiB flavour is taken. With MPICH
 * before 4.1 it takes the library-safe flavour (RMA_JOIN_DEFAULT_FLAVOR: create) without measuring,
 * and on a host with more than two ranks per core the library default (MPI_Win_allocate) without
 * measuring. */
#ifndef RMB_WINDOW_AUTO_H
#define RMB_WINDOW_AUTO_H
#include <stdint.h>

#include "bench/context.h"
#include "bench/host_reclaim.h"
#include "rma/window.h"

typedef struct {
    win_flavor chosen;
    double cost[WIN_FLAVORS]; /* s per byte of window, slowest rank; 0: not measured nor given */
    double rated[WIN_FLAVORS];/* what the choice compared: cost, or the risk's rating where higher */
    uint64_t bytes;           /* the measurement's window bytes per rank (0: not measured) */
    char source[96];          /* "measured 4096 KiB", "given", "library-safe (MPICH < 4.1)" */
    char risk[192];           /* why a flavour was rated above its cost ("" none) */
} rma_window_pick;

/* The flavour with the lowest positive cost among cost[0..WIN_FLAVORS); ties go to the lower index,
 * no cost at all to RMA_JOIN_DEFAULT_FLAVOR. No MPI. */
win_flavor rma_window_cheapest(const double cost[WIN_FLAVORS]);

/* Whether this MPI library may measure and choose (MPICH before 4.1 may not: RMA_JOIN_DEFAULT_FLAVOR). */
int rma_window_auto_allowed(void);

/* Whether the hosts' ranks are few enough for the pick (at most two per core); above, the library
 * default. */
int rma_window_auto_crowd_ok(const bench_ctx *ctx);

/* Collective over ctx->comm: each flavour's cost per byte in cost[]: the CPU time of a window of
 * `bytes` per rank allocated, faulted in (rma_window_prefault), its host peer's pages mapped and
 * freed, the flavours interleaved over `rounds` rounds, the least of any rank and round kept. */
void rma_window_measure_costs(const bench_ctx *ctx, uint64_t bytes, int rounds, double cost[WIN_FLAVORS]);

/* The risk rule, MPI-free: rated[] = cost[], except create-huge at no less than the cheaper 4 KiB
 * flavour (which then wins the tie) where some host takes huge pages back (host->takes_huge) and windows of window_bytes per
 * rank hold at least two of them (one per relation); the reason in risk ("" none). */
void rma_window_rate(const double cost[WIN_FLAVORS], const host_reclaim *host, uint64_t window_bytes,
                     double rated[WIN_FLAVORS], char *risk, size_t len);

/* Collective: fills *out and makes out->chosen the flavour WIN_AUTO means in this process from
 * now on (RMA_JOIN_DEFAULT_FLAVOR with MPICH < 4.1 or above two ranks per core): the cheapest by
 * rma_window_rate for the run's windows (window_bytes per rank) on the ranks' hosts. given: costs
 * in s/B (calibrate's parameters) used when every one is positive, else NULL or measured, the
 * flavours interleaved over three rounds, on min(max(window_bytes, 256 KiB), 8 MiB) per rank. */
void rma_window_pick_flavor(const bench_ctx *ctx, const double *given, uint64_t window_bytes, rma_window_pick *out);

/* What WIN_AUTO means now: the last pick's flavour, RMA_JOIN_DEFAULT_FLAVOR before any pick. */
win_flavor rma_window_auto_flavor(void);

/* The costs per flavour in s/GB as one phrase, for example "allocate A; create B; create-huge C
 * s/GB" (costs not known are left out), then "; " and the risk's reason where there is one. */
void rma_window_pick_costs(const rma_window_pick *p, char *buf, size_t len);

#endif
