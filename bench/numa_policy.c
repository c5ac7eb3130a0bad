#include "bench/numa_policy.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/fastclock.h"
#include "bench/rmb_config.h"
#if RMB_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif

const char *const numa_policy_names[] = {"auto", "local", "interleave", "off", NULL};

#define MAX_INTENDED 64
#define PUSH_DEPTH 4

/* Process state: the kernel's policy is per thread anyway (see numa.h). */
static struct {
    bool available;
    int policy;                  /* effective, NUMA_OFF until numa_setup */
    int nodes;
    int intended[MAX_INTENDED];  /* nodes the policy aims at */
    int nintended;
    char intended_str[256];
    double worst;                /* -1: nothing checked */
    uint64_t checks, pages_counted;
    double check_seconds;
    uint64_t taken_checks, taken_pages; /* at the last numa_placement_stats_since */
    double taken_seconds;
#if RMB_HAVE_NUMA
    struct bitmask *mask;        /* nodes for mbind / set_mempolicy */
    int mode;                    /* MPOL_PREFERRED or MPOL_INTERLEAVE */
    int depth;
    int saved_mode[PUSH_DEPTH];
    struct bitmask *saved_mask[PUSH_DEPTH];
    bool warned;
#endif
} st = {.policy = NUMA_OFF, .worst = -1};

numa_placement_count numa_placement_tally(const int *status, size_t n, const int *intended, int nintended)
{
    numa_placement_count c = {0, 0};
    for (size_t i = 0; i < n; i++) {
        if (status[i] < 0) continue;
        c.counted++;
        for (int k = 0; k < nintended; k++)
            if (status[i] == intended[k]) { c.on_intended++; break; }
    }
    return c;
}

double numa_placement_fraction(numa_placement_count c)
{
    return c.counted ? (double)c.on_intended / (double)c.counted : -1.0;
}

void numa_placement_record(double fraction)
{
    if (fraction < 0) return;
    if (st.worst < 0 || fraction < st.worst) st.worst = fraction;
}

double numa_placement_worst(void) { return st.worst; }

void numa_placement_stats(uint64_t *checks, uint64_t *pages_counted, double *seconds)
{
    if (checks) *checks = st.checks;
    if (pages_counted) *pages_counted = st.pages_counted;
    if (seconds) *seconds = st.check_seconds;
}

void numa_placement_stats_since(uint64_t *checks, uint64_t *pages_counted, double *seconds)
{
    *checks = st.checks - st.taken_checks, *pages_counted = st.pages_counted - st.taken_pages;
    *seconds = st.check_seconds - st.taken_seconds;
    st.taken_checks = st.checks, st.taken_pages = st.pages_counted, st.taken_seconds = st.check_seconds;
}

bool numa_is_available(void) { return st.available; }
int numa_policy(void) { return st.policy; }
int numa_node_count(void) { return st.nodes; }
const char *numa_intended_nodes(void) { return st.intended_str; }

void numa_touch_pages(void *p, uint64_t bytes)
{
    if (!p || !bytes) return;
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *c = p;
    /* An atomic OR with 0 is a write (it faults the page in as writable) that keeps the byte. */
    for (uint64_t off = 0; off < bytes; off += (uint64_t)page) __atomic_fetch_or(c + off, 0, __ATOMIC_RELAXED);
    __atomic_fetch_or(c + bytes - 1, 0, __ATOMIC_RELAXED);
}

#if RMB_HAVE_NUMA

/* libnuma prints its own diagnostics through these weak hooks; ours go through warnings. */
void numa_warn(int num, char *fmt, ...) { (void)num; (void)fmt; }
void numa_error(char *where) { (void)where; }

int numa_node_of_core(int core) { return st.available && core >= 0 ? numa_node_of_cpu(core) : -1; }

static void set_intended_from_mask(struct bitmask *m)
{
    st.nintended = 0;
    for (int n = 0; n <= numa_max_node() && st.nintended < MAX_INTENDED; n++)
        if (numa_bitmask_isbitset(m, (unsigned)n)) st.intended[st.nintended++] = n;
}

int numa_setup(int requested, char *warn, size_t warnlen)
{
    if (warn && warnlen) warn[0] = 0;
    st.available = numa_available() >= 0;
    st.nodes = st.available ? numa_num_configured_nodes() : 0;
    int policy = requested;
    if (policy == NUMA_AUTO) policy = st.available && st.nodes > 1 ? NUMA_LOCAL : NUMA_OFF;
    if (!st.available && policy != NUMA_OFF) {
        if (warn) snprintf(warn, warnlen, "--numa %s: libnuma reports NUMA unavailable (numa_available() < 0); running with --numa off",
                           numa_policy_names[policy]);
        policy = NUMA_OFF;
    }
    st.policy = policy;
    st.intended_str[0] = 0;
    st.nintended = 0;
    if (!st.available) return policy;

    if (!st.mask) st.mask = numa_allocate_nodemask();
    numa_bitmask_clearall(st.mask);
    if (policy == NUMA_INTERLEAVE) {
        struct bitmask *allowed = numa_get_mems_allowed();
        copy_bitmask_to_bitmask(allowed, st.mask);
        numa_bitmask_free(allowed);
        st.mode = MPOL_INTERLEAVE;
    } else {
        /* local, and under off the node first touch aims at: the node of the core we run on now */
        int node = numa_node_of_cpu(sched_getcpu());
        numa_bitmask_setbit(st.mask, (unsigned)(node < 0 ? 0 : node));
        /* Preferred, not bind: a full node falls back to another instead of failing the run. */
        st.mode = MPOL_PREFERRED;
    }
    set_intended_from_mask(st.mask);
    for (int i = 0; i < st.nintended; i++) {
        size_t used = strlen(st.intended_str);
        snprintf(st.intended_str + used, sizeof st.intended_str - used, "%s%d", i ? "," : "", st.intended[i]);
    }
    return policy;
}

static bool policy_active(void) { return st.available && st.policy != NUMA_OFF; }

static void warn_once(const char *call)
{
    if (st.warned) return;
    st.warned = true;
    fprintf(stderr, "rmabench: warning: %s failed (%s); memory placement not enforced\n", call, strerror(errno));
}

void numa_apply_range(void *p, uint64_t bytes)
{
    if (!policy_active() || !p || !bytes) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (hi <= lo) return;
    /* maxnode = size + 1: the kernel drops the last bit (libnuma passes the same). */
    if (mbind((void *)lo, hi - lo, st.mode, st.mask->maskp, st.mask->size + 1, 0) != 0) warn_once("mbind");
}

void numa_policy_push(void)
{
    if (!policy_active()) return;
    if (st.depth >= PUSH_DEPTH) {
        fprintf(stderr, "rmabench: internal error: numa_policy_push nested deeper than %d\n", PUSH_DEPTH);
        return;
    }
    int d = st.depth++;
    if (!st.saved_mask[d]) st.saved_mask[d] = numa_allocate_nodemask();
    if (get_mempolicy(&st.saved_mode[d], st.saved_mask[d]->maskp, st.saved_mask[d]->size + 1, NULL, 0) != 0) {
        st.saved_mode[d] = MPOL_DEFAULT;
        warn_once("get_mempolicy");
    }
    if (set_mempolicy(st.mode, st.mask->maskp, st.mask->size + 1) != 0) warn_once("set_mempolicy");
}

void numa_policy_pop(void)
{
    if (!policy_active() || st.depth == 0) return;
    int d = --st.depth;
    int rc = st.saved_mode[d] == MPOL_DEFAULT ? set_mempolicy(MPOL_DEFAULT, NULL, 0)
                                              : set_mempolicy(st.saved_mode[d], st.saved_mask[d]->maskp, st.saved_mask[d]->size + 1);
    if (rc != 0) warn_once("set_mempolicy (restore)");
}

double numa_placement_check(const void *p, uint64_t bytes)
{
    if (!st.available || !p || !bytes || st.nintended == 0) return -1;
    double t0 = rmb_monotonic_s();
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = (uintptr_t)p & ~(page - 1), last = ((uintptr_t)p + bytes - 1) & ~(page - 1);
    uint64_t npages = (last - first) / page + 1;
    unsigned k = npages < NUMA_SAMPLE_PAGES ? (unsigned)npages : NUMA_SAMPLE_PAGES;
    void *pages[NUMA_SAMPLE_PAGES];
    int status[NUMA_SAMPLE_PAGES];
    for (unsigned i = 0; i < k; i++) {
        uint64_t idx = k == 1 ? 0 : (uint64_t)i * (npages - 1) / (k - 1);
        pages[i] = (void *)(first + idx * page);
    }
    /* Query mode (nodes == NULL): status gets each page's node or a negative errno. */
    if (move_pages(0, k, pages, NULL, status, 0) != 0) {
        warn_once("move_pages");
        return -1;
    }
    numa_placement_count c = numa_placement_tally(status, k, st.intended, st.nintended);
    double f = numa_placement_fraction(c);
    numa_placement_record(f);
    st.checks++;
    st.pages_counted += c.counted;
    st.check_seconds += rmb_monotonic_s() - t0;
    return f;
}

#else /* built without libnuma: every run works, placement is neither set nor measured */

int numa_node_of_core(int core) { (void)core; return -1; }

int numa_setup(int requested, char *warn, size_t warnlen)
{
    if (warn && warnlen) warn[0] = 0;
    if (warn && (requested == NUMA_LOCAL || requested == NUMA_INTERLEAVE))
        snprintf(warn, warnlen, "--numa %s: built without libnuma (-Dnuma=disabled); running with --numa off",
                 numa_policy_names[requested]);
    st.policy = NUMA_OFF;
    return NUMA_OFF;
}

void numa_apply_range(void *p, uint64_t bytes) { (void)p; (void)bytes; }
void numa_policy_push(void) {}
void numa_policy_pop(void) {}
double numa_placement_check(const void *p, uint64_t bytes)
{
    (void)p; (void)bytes;
    return -1;
}

#endif
