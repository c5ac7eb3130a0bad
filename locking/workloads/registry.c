#include "locking/workloads/registry.h"

#include <stdio.h>
#include <string.h>

/* The workloads, in --workload's order, the first the default: NAME is the descriptor
 * NAME_workload of locking/workloads/ (registry.h says what a descriptor holds). */
#define LOCK_WORKLOADS(X) X(synthetic) X(tpcc) X(trace) X(bank) X(deadlock)

#define DECLARE(name) extern const wl_desc name##_workload;
LOCK_WORKLOADS(DECLARE)
#define ENTRY(name) &name##_workload,
const wl_desc *const lock_workloads[] = {LOCK_WORKLOADS(ENTRY) NULL};
enum { NWORKLOADS = sizeof lock_workloads / sizeof lock_workloads[0] - 1 };

const char *const *lock_workload_names(void)
{
    static const char *names[NWORKLOADS + 1];
    for (int i = 0; i < NWORKLOADS; i++) names[i] = lock_workloads[i]->name;
    return names;
}

int lock_workload_index(const char *name)
{
    for (int i = 0; i < NWORKLOADS; i++)
        if (strcmp(lock_workloads[i]->name, name) == 0) return i;
    return -1;
}

void lock_workload_readers(unsigned mask, const char *sep, const char *last, char *buf, size_t len)
{
    int n = 0, k = 0;
    for (int i = 0; i < NWORKLOADS; i++) n += (lock_workloads[i]->reads & mask) == mask;
    buf[0] = 0;
    for (int i = 0; i < NWORKLOADS; i++) {
        if ((lock_workloads[i]->reads & mask) != mask) continue;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", k == 0 ? "" : k == n - 1 ? last : sep, lock_workloads[i]->name);
        k++;
    }
}

int wl_pick_server(const lock_roles *r, int agent, double remote_prob, uint64_t *rng, bool *remote)
{
    int nlocal = 0, nremote = 0;
    for (int s = 0; s < r->nservers; s++) {
        if (lock_server_is_local(r, agent, s)) nlocal++;
        else nremote++;
    }
    bool want_remote = nremote > 0 && (nlocal == 0 || wl_rand01(rng) < remote_prob);
    int k = (int)wl_rand_below(rng, (uint64_t)(want_remote ? nremote : nlocal));
    for (int s = 0; s < r->nservers; s++) {
        if (lock_server_is_local(r, agent, s) == want_remote) continue;
        if (k-- == 0) {
            *remote = want_remote;
            return s;
        }
    }
    *remote = false;
    return lock_home_server(r, agent);
}
