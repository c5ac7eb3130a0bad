#include "locking/workloads/registry.h"

const char *const workload_kind_names[] = {"synthetic", "tpcc", "trace", "bank", "deadlock", NULL};

const wl_ops *lock_workload_ops(int kind)
{
    switch (kind) {
    case WL_SYNTHETIC: return &synthetic_workload_ops;
    case WL_BANK: return &bank_workload_ops;
    case WL_DEADLOCK: return &deadlock_workload_ops;
    case WL_TPCC: return &tpcc_workload_ops;
    case WL_TRACE: return &trace_workload_ops;
    default: return NULL;
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
