/* NUMA placement of every large allocation (thesis 3.4.2 and 4.3.4: where a rank's input,
 * windows and send buffers live decides how fast partitioning and MPI_Put run).
 *
 * Policies (--numa): local (the node of the core the rank runs on at setup), interleave (round
 * robin over the nodes the rank may use), off (the kernel's default first-touch; nothing is set).
 * "auto" resolves to local where libnuma reports more than one node, else off. Without libnuma
 * (build option -Dnuma=disabled, or numa_available() < 0) everything still works: policies are
 * not applied and the run records "numa: unavailable".
 *
 * The policy is process state on purpose: the kernel's memory policy is per thread, and this way
 * every module gets it with one call per allocation instead of threading it through every API.
 * What the algorithms call (all no-ops under "off" or without libnuma):
 *   mem_alloc_large / mem_free_large (bench/memory.h) apply the policy (mbind) and check the
 *       placement of a sample of pages when the memory is freed (after use, pages are touched);
 *   rma_window_alloc / rma_window_free (rma/window.h) wrap MPI_Win_allocate / MPI_Alloc_mem in
 *       numa_policy_push/pop, first-touch the rank's window pages under the policy, and check;
 *   numa_policy_push() / numa_policy_pop() around any other MPI_Win_allocate / MPI_Alloc_mem;
 *   numa_placement_check(p, bytes) after filling any other buffer (malloc'ed hash tables, ...).
 * This file is MPI-free; the per-host binding report and the reduction over ranks are in
 * bench/numa_topology.h. */
#ifndef RMB_NUMA_H
#define RMB_NUMA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { NUMA_AUTO = 0, NUMA_LOCAL, NUMA_INTERLEAVE, NUMA_OFF };
extern const char *const numa_policy_names[]; /* {"auto", "local", "interleave", "off", NULL} */

/* Resolve the requested policy and remember it for this process. Call once after MPI_Init (the
 * launcher's binding is in place then). Returns the effective policy (never NUMA_AUTO). When the
 * request cannot be honoured (libnuma unavailable), warn holds one line for the user, else "". */
int numa_setup(int requested, char *warn, size_t warnlen);
bool numa_is_available(void);     /* libnuma built in and numa_available() >= 0 */
int numa_policy(void);            /* effective policy (NUMA_OFF before numa_setup) */
int numa_node_count(void);        /* nodes libnuma reports (configured with memory); 0 if unavailable */
/* The node(s) the policy aims at ("0", "0,1"); under "off", the rank's own node (first touch). */
const char *numa_intended_nodes(void);
/* Node of a core, or -1 when unknown (no libnuma). */
int numa_node_of_core(int core);

/* Apply the policy to [p, p+bytes) (mbind; page-aligned inward). For memory this rank maps itself. */
void numa_apply_range(void *p, uint64_t bytes);
/* Set the calling thread's policy to the run's policy (saving the current one) so that pages it
 * first touches follow it; use around MPI_Win_allocate / MPI_Alloc_mem. Nests up to 4 deep. */
void numa_policy_push(void);
void numa_policy_pop(void);
/* Fault every page of [p, p+bytes) in from this thread, without changing any byte (atomic OR 0):
 * safe while other ranks may already write into a window. */
void numa_touch_pages(void *p, uint64_t bytes);

/* Placement check: query the node of up to NUMA_SAMPLE_PAGES evenly spaced pages of [p, p+bytes)
 * (move_pages, query mode); pages not yet touched are not counted. Records the fraction on the
 * intended node(s) into the process's worst value and returns it, or -1 when nothing could be
 * counted (no libnuma, or no page present). */
#define NUMA_SAMPLE_PAGES 256
double numa_placement_check(const void *p, uint64_t bytes);
/* Accumulate a fraction measured elsewhere; negative values are ignored. */
void numa_placement_record(double fraction);
/* Lowest fraction recorded so far in this process, or -1 when nothing was checked. */
double numa_placement_worst(void);
/* Pages sampled / counted by all checks so far, and their total time in seconds (the check's cost). */
void numa_placement_stats(uint64_t *checks, uint64_t *pages_counted, double *seconds);
/* The same counted since the previous call (a run's own checks: --repeat runs reuse pools). */
void numa_placement_stats_since(uint64_t *checks, uint64_t *pages_counted, double *seconds);

/* Pure arithmetic of the check, testable without a second node: status[i] is the node of page i
 * or a negative errno (-ENOENT: not present, -EFAULT, ...) and is then not counted. */
typedef struct {
    uint64_t counted, on_intended;
} numa_placement_count;
numa_placement_count numa_placement_tally(const int *status, size_t n, const int *intended, int nintended);
/* on_intended / counted, or -1 when nothing was counted. */
double numa_placement_fraction(numa_placement_count c);

#endif
