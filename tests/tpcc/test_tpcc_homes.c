/* TPC-C across hosts (issue 13 item 9, thesis 5.4.2: one terminal per warehouse, on the machine
 * that holds it): at 4 hosts every agent has its own home warehouse, held by a server of its own
 * host; and the locks on other hosts are those TPC-C makes remote: 15% of payments and 1% of order
 * lines go to another warehouse, on another host with probability (W - W_host) / (W - 1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "locking/workloads/registry.h"
#include "locking/workloads/tpcc.h"

typedef struct {
    lock_roles r;
    int rank_host[4096];
} layout;

/* hosts x (servers + agents[h]) ranks, host by host, servers first on each host */
static void make(layout *L, int hosts, int servers, const int *agents, int64_t warehouses)
{
    memset(L, 0, sizeof *L);
    int nag = 0;
    for (int h = 0; h < hosts; h++) nag += agents[h];
    L->r.nservers = hosts * servers;
    L->r.nagents = nag;
    L->r.server_rank = malloc(sizeof(int) * (size_t)L->r.nservers);
    L->r.agent_rank = malloc(sizeof(int) * (size_t)nag);
    int rank = 0, s = 0, a = 0;
    for (int h = 0; h < hosts; h++) {
        for (int i = 0; i < servers; i++) { L->rank_host[rank] = h; L->r.server_rank[s++] = rank++; }
        for (int i = 0; i < agents[h]; i++) { L->rank_host[rank] = h; L->r.agent_rank[a++] = rank++; }
    }
    L->r.hosts = hosts;
    L->r.rank_host = L->rank_host;
    L->r.lock_space = tpcc_lock_space((int)warehouses);
}

static void unmake(layout *L)
{
    free(L->r.server_rank);
    free(L->r.agent_rank);
}

static int host_of_lock(const layout *L, uint64_t id) { return L->rank_host[L->r.server_rank[lock_server_of(&L->r, id)]]; }

static int host_of_warehouse(const layout *L, int64_t w, int h)
{
    return host_of_lock(L, (uint64_t)h * (tpcc_lock_space((int)w) / (uint64_t)w));
}

/* homes of all agents; returns how many agents share a home with an earlier one */
static int homes(const layout *L, int64_t w, int *home)
{
    int shared = 0;
    for (int a = 0; a < L->r.nagents; a++) {
        home[a] = tpcc_home_warehouse(&L->r, w, a);
        CHECK(home[a] >= 0 && home[a] < w);
        for (int b = 0; b < a; b++) shared += home[b] == home[a];
    }
    return shared;
}

int main(void)
{
    int home[4096];
    layout L;

    /* the thesis' node, scaled down: 4 hosts x (9 servers + 9 agents), 2 warehouses per server */
    int nine[4] = {9, 9, 9, 9};
    int64_t w = 72;
    make(&L, 4, 9, nine, w);
    CHECK(homes(&L, w, home) == 0);
    for (int a = 0; a < L.r.nagents; a++) CHECK(host_of_warehouse(&L, w, home[a]) == L.rank_host[L.r.agent_rank[a]]);
    /* remote shares over all agents' transactions: only payments and new-order lines leave the host */
    uint64_t payments = 0, payments_remote = 0, lines = 0, lines_remote = 0, other_remote = 0;
    lock_request req[LOCK_TXN_MAX];
    for (int a = 0; a < L.r.nagents; a++) {
        tpcc_gen *g = tpcc_open((int)w, home[a], TPCC_SERIALIZABLE, 7 + (uint64_t)a);
        int mine = L.rank_host[L.r.agent_rank[a]];
        for (int t = 0; t < 2000; t++) {
            int type, n = tpcc_next(g, req, LOCK_TXN_MAX, &type);
            int remote = 0;
            for (int i = 0; i < n; i++) {
                bool away = host_of_lock(&L, req[i].lock_id) != mine;
                remote += away;
                if (type == TPCC_NEW_ORDER && strcmp(tpcc_lock_kind(req[i].lock_id), "stock") == 0) {
                    lines++;
                    lines_remote += away;
                }
            }
            if (type == TPCC_PAYMENT) { payments++; payments_remote += remote > 0; }
            else if (type != TPCC_NEW_ORDER) other_remote += remote > 0;
        }
        tpcc_close(g);
    }
    double off_host = (double)(w - w / 4) / (double)(w - 1); /* another warehouse is on another host */
    double pay = (double)payments_remote / (double)payments, line = (double)lines_remote / (double)lines;
    printf("4 hosts x 9 agents, %lld warehouses: distinct local homes; on another host: %.2f%% of payments "
           "(expected %.2f%%), %.3f%% of order lines (expected %.3f%%)\n",
           (long long)w, 100 * pay, 15 * off_host, 100 * line, 1 * off_host);
    CHECK(fabs(pay - 0.15 * off_host) < 0.01);
    CHECK(fabs(line - 0.01 * off_host) < 0.0015);
    CHECK(other_remote == 0);
    unmake(&L);

    /* the case: 18 agents per host each get their own warehouse (was: all on one) */
    int many[4] = {18, 18, 18, 18};
    make(&L, 4, 18, many, 144);
    CHECK(homes(&L, 144, home) == 0);
    for (int a = 0; a < L.r.nagents; a++) CHECK(host_of_warehouse(&L, 144, home[a]) == L.rank_host[L.r.agent_rank[a]]);
    unmake(&L);

    /* uneven hosts: host 0's agents beyond its 4 warehouses take the others' spare ones, distinct */
    int uneven[4] = {6, 2, 2, 2};
    make(&L, 4, 2, uneven, 16);
    CHECK(homes(&L, 16, home) == 0);
    int away = 0;
    for (int a = 0; a < L.r.nagents; a++) away += host_of_warehouse(&L, 16, home[a]) != L.rank_host[L.r.agent_rank[a]];
    CHECK(away == 2);
    unmake(&L);

    /* fewer warehouses than agents (--warehouses 8, 16 agents): shared, two agents per warehouse */
    int four[4] = {4, 4, 4, 4};
    make(&L, 4, 2, four, 8);
    CHECK(homes(&L, 8, home) == 8);
    int per[8] = {0};
    for (int a = 0; a < L.r.nagents; a++) per[home[a]]++;
    for (int h = 0; h < 8; h++) CHECK(per[h] == 2);
    unmake(&L);

    /* one host: agent i and server i mod servers stand for one machine */
    int one[1] = {4};
    make(&L, 1, 4, one, 8);
    L.r.one_host = true;
    CHECK(homes(&L, 8, home) == 0);
    for (int a = 0; a < 4; a++) CHECK(lock_server_of(&L.r, (uint64_t)home[a] * (tpcc_lock_space(8) / 8)) == a % 4);
    unmake(&L);
    CHECK_DONE();
}
