/* Adapter: the TPC-C lock generator (tpcc.h) as a `--workload tpcc`. Warehouse w's locks lie in
 * [w*B, (w+1)*B); servers own equal ranges of the W*B ids, so with W a multiple of the servers each
 * server holds whole warehouses. Every agent takes as home a warehouse held by a local server. */
#include <stdio.h>
#include <stdlib.h>

#include "locking/workloads/registry.h"
#include "locking/workloads/tpcc.h"

static int64_t warehouses_of(const lock_opts *o, const lock_roles *r)
{
    return o->warehouses > 0 ? o->warehouses : 2 * (int64_t)r->nservers;
}

static uint64_t tpcc_space(const lock_opts *o, const lock_roles *r, char *err, size_t errlen)
{
    int64_t w = warehouses_of(o, r);
    if (w < r->nservers) {
        snprintf(err, errlen, "--warehouses: %lld warehouses cannot give each of %d servers one", (long long)w, r->nservers);
        return 0;
    }
    return tpcc_lock_space((int)w);
}

static void *tpcc_wl_open(const lock_opts *o, const lock_roles *r, int agent, char *err, size_t errlen)
{
    int64_t w = warehouses_of(o, r);
    uint64_t block = tpcc_lock_space((int)w) / (uint64_t)w;
    /* local warehouses: those whose first lock is on a server local to this agent */
    int nlocal = 0;
    for (int64_t h = 0; h < w; h++) nlocal += lock_server_is_local(r, agent, lock_server_of(r, (uint64_t)h * block));
    int home = (int)(agent % w), k = nlocal ? agent / r->nservers % nlocal : 0;
    for (int64_t h = 0; h < w && nlocal; h++)
        if (lock_server_is_local(r, agent, lock_server_of(r, (uint64_t)h * block)) && k-- == 0) {
            home = (int)h;
            break;
        }
    tpcc_gen *g = tpcc_open((int)w, home, o->isolation, (uint64_t)o->seed * 1000003ULL + (uint64_t)agent);
    if (!g) snprintf(err, errlen, "--workload: cannot open the tpcc generator");
    return g;
}

static int tpcc_wl_next(void *state, lock_request *reqs, int max, wl_txn *info, char *err, size_t errlen)
{
    *info = (wl_txn){0};
    int n = tpcc_next(state, reqs, max, &info->type);
    if (n < 0) snprintf(err, errlen, "tpcc: a transaction needs more than %d locks", max);
    return n;
}

static void tpcc_wl_close(void *state) { tpcc_close(state); }

const wl_ops tpcc_workload_ops = {"tpcc", tpcc_space, tpcc_wl_open, tpcc_wl_next, tpcc_wl_close};
