/* Adapter: the TPC-C lock generator (tpcc.h) as a `--workload tpcc`. Warehouse w's locks lie in
 * [w*B, (w+1)*B); servers own equal ranges of the W*B ids, so with W a multiple of the servers each
 * server holds whole warehouses. Every agent has its own home warehouse (thesis 5.4.2: one terminal
 * per warehouse, on the machine that holds it): tpcc_home_warehouse. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locking/workloads/registry.h"
#include "locking/workloads/tpcc.h"

/* Default: 2 per server, or as many per server as it takes to give every agent its own. */
static int64_t warehouses_of(const lock_opts *o, const lock_roles *r)
{
    int64_t per = (r->nagents + r->nservers - 1) / r->nservers;
    return o->warehouses > 0 ? o->warehouses : (per > 2 ? per : 2) * (int64_t)r->nservers;
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

/* The machine an agent or a server stands for, as lock_server_is_local sees it. */
static int agent_machine(const lock_roles *r, int a) { return r->one_host ? a % r->nservers : r->rank_host[r->agent_rank[a]]; }
static int server_machine(const lock_roles *r, int s) { return r->one_host ? s : r->rank_host[r->server_rank[s]]; }

int tpcc_home_warehouse(const lock_roles *r, int64_t warehouses, int agent)
{
    int machines = r->one_host ? r->nservers : r->hosts, w = (int)warehouses;
    uint64_t block = tpcc_lock_space(w) / (uint64_t)w;
    int *wh_machine = malloc(sizeof(int) * (size_t)w);
    int *nlocal = calloc((size_t)machines, sizeof(int)), *agents = calloc((size_t)machines, sizeof(int));
    for (int h = 0; h < w; h++) nlocal[wh_machine[h] = server_machine(r, lock_server_of(r, (uint64_t)h * block))]++;
    /* the j-th agent of a machine takes the machine's j-th warehouse ... */
    int mine = agent_machine(r, agent), j = -1, overflow_before = 0;
    for (int a = 0; a < r->nagents; a++) {
        int m = agent_machine(r, a), k = agents[m]++;
        if (a == agent) j = k;
        if (a < agent && k >= nlocal[m]) overflow_before++;
    }
    int home = -1;
    for (int h = 0, k = 0; h < w && j < nlocal[mine] && home < 0; h++)
        if (wh_machine[h] == mine && k++ == j) home = h;
    /* ... and a machine's agents beyond its warehouses take, in agent order, the warehouses no agent
     * of their own machine took (then remote: all their locks need 2PC); with fewer warehouses than
     * agents, homes are shared round-robin. */
    if (home < 0) {
        int spare = 0;
        for (int m = 0; m < machines; m++) spare += nlocal[m] > agents[m] ? nlocal[m] - agents[m] : 0;
        if (spare == 0) home = overflow_before % w;
        int k = spare ? overflow_before % spare : 0;
        memset(nlocal, 0, sizeof(int) * (size_t)machines); /* now: the machine's warehouses seen so far */
        for (int h = 0; h < w && home < 0; h++)
            if (nlocal[wh_machine[h]]++ >= agents[wh_machine[h]] && k-- == 0) home = h;
    }
    free(wh_machine);
    free(nlocal);
    free(agents);
    return home;
}

static void *tpcc_wl_open(const lock_opts *o, const lock_roles *r, int agent, char *err, size_t errlen)
{
    int64_t w = warehouses_of(o, r);
    tpcc_gen *g = tpcc_open((int)w, tpcc_home_warehouse(r, w, agent), o->isolation, (uint64_t)o->seed * 1000003ULL + (uint64_t)agent);
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

static void tpcc_record(record *rec, const lock_opts *o)
{
    record_set(rec, "isolation", "%s", tpcc_isolation_names[o->isolation]);
    record_set(rec, "warehouses", "%" PRId64, o->warehouses);
}

/* Per transaction type: committed_new_order, ..., aborted_stock_level (the types' names with '_'),
 * and new-order commits per second. */
static void tpcc_record_types(record *rec, const agent_stats *a, double elapsed)
{
    for (int i = 0; i < TPCC_NTYPES; i++) {
        char col[64], name[32];
        snprintf(name, sizeof name, "%s", tpcc_txn_name(i));
        for (char *c = name; *c; c++)
            if (*c == '-') *c = '_';
        snprintf(col, sizeof col, "committed_%s", name);
        record_set(rec, col, "%" PRIu64, a->committed_type[i]);
        snprintf(col, sizeof col, "aborted_%s", name);
        record_set(rec, col, "%" PRIu64, a->aborted_type[i]);
    }
    record_set(rec, "new_order_per_s", "%.1f", a->committed_type[TPCC_NEW_ORDER] / elapsed);
}

static void tpcc_print_types(const agent_stats *a, double elapsed)
{
    printf("tpcc per type (committed/aborted):");
    for (int i = 0; i < TPCC_NTYPES; i++)
        printf("%s %s %" PRIu64 "/%" PRIu64, i ? "," : "", tpcc_txn_name(i), a->committed_type[i], a->aborted_type[i]);
    printf("; new-order %.1f/s\n", a->committed_type[TPCC_NEW_ORDER] / elapsed);
}

_Static_assert(TPCC_NTYPES <= LOCK_TXN_TYPES, "agent_stats counts every TPC-C transaction type");
const wl_desc tpcc_workload = {
    .name = "tpcc",
    .reads = WL_FLAG_ISOLATION | WL_FLAG_WAREHOUSES,
    .data = WL_DATA_ROWS,
    .ntypes = TPCC_NTYPES,
    .lock_space = tpcc_space,
    .record_params = tpcc_record,
    .record_types = tpcc_record_types,
    .print_types = tpcc_print_types,
    .open = tpcc_wl_open,
    .next = tpcc_wl_next,
    .close = tpcc_wl_close,
};
