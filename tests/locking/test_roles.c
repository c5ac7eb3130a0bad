/* Unit tests of the lock roles: servers and agents spread evenly over hosts, equal contiguous lock
 * ranges whose owner lock_server_of finds, and the locality rule (host, or agent/home server pair
 * on one host). No MPI calls (the context is filled by hand). */
#include <string.h>

#include "tests/check.h"
#include "locking/lock.h"

static void make_ctx(bench_ctx *c, int size, int hosts, int *rank_host, const int *ranks_per_host)
{
    memset(c, 0, sizeof *c);
    c->size = size;
    c->hosts = hosts;
    c->rank_host = rank_host;
    int r = 0;
    for (int h = 0; h < hosts; h++)
        for (int k = 0; k < ranks_per_host[h]; k++) rank_host[r++] = h;
}

static void check_spread(int hosts, const int *per_host, int nservers)
{
    int size = 0, rank_host[64];
    for (int h = 0; h < hosts; h++) size += per_host[h];
    bench_ctx c;
    make_ctx(&c, size, hosts, rank_host, per_host);
    lock_roles r;
    lock_roles_init(&r, &c, nservers);
    CHECK(r.nservers == nservers && r.nagents == size - nservers);
    int servers_on[8] = {0}, total = 0;
    for (int q = 0; q < size; q++) {
        total += r.is_server[q];
        if (r.is_server[q]) servers_on[rank_host[q]]++;
        CHECK((r.is_server[q] ? r.server_rank : r.agent_rank)[r.role_index[q]] == q);
    }
    CHECK(total == nservers);
    /* evenly: each host holds its share of the servers, within one */
    for (int h = 0; h < hosts; h++) {
        double share = (double)nservers * per_host[h] / size;
        CHECK(servers_on[h] >= (int)share - 1 && servers_on[h] <= (int)share + 1);
        CHECK(servers_on[h] < per_host[h] || per_host[h] == 0 || nservers >= size - hosts);
    }
    lock_roles_free(&r);
}

int main(void)
{
    check_spread(1, (int[]){2}, 1);
    check_spread(1, (int[]){4}, 2);
    check_spread(2, (int[]){4, 4}, 4);
    check_spread(2, (int[]){4, 4}, 2);
    check_spread(3, (int[]){6, 6, 6}, 9);
    check_spread(3, (int[]){2, 5, 3}, 5);

    /* one host, 2 ranks: rank 0 is an agent, rank 1 the server */
    int rh[8];
    bench_ctx c;
    make_ctx(&c, 2, 1, rh, (int[]){2});
    lock_roles r;
    lock_roles_init(&r, &c, 1);
    CHECK(!r.is_server[0] && r.is_server[1]);
    lock_roles_free(&r);

    /* ranges: equal, contiguous, owner found for every id, also for spaces not divisible */
    uint64_t spaces[] = {2, 7, 1000, 1000003, (uint64_t)1 << 62};
    for (int ns = 1; ns <= 7; ns++)
        for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
            lock_roles q = {0};
            q.nservers = ns;
            q.lock_space = spaces[i];
            if (q.lock_space < (uint64_t)ns) continue;
            CHECK(lock_range_lo(&q, 0) == 0 && lock_range_lo(&q, ns) == q.lock_space);
            for (int s = 0; s < ns; s++) {
                uint64_t lo = lock_range_lo(&q, s), hi = lock_range_lo(&q, s + 1);
                CHECK(hi - lo >= q.lock_space / (uint64_t)ns && hi - lo <= q.lock_space / (uint64_t)ns + 1);
                CHECK(lock_server_of(&q, lo) == s && lock_server_of(&q, hi - 1) == s);
            }
        }

    /* locality: on one host an agent and its home server form one machine; else by host */
    make_ctx(&c, 4, 1, rh, (int[]){4});
    lock_roles_init(&r, &c, 2);
    for (int a = 0; a < 2; a++)
        for (int s = 0; s < 2; s++) CHECK(lock_server_is_local(&r, a, s) == (s == lock_home_server(&r, a)));
    lock_roles_free(&r);
    make_ctx(&c, 8, 2, rh, (int[]){4, 4});
    lock_roles_init(&r, &c, 4);
    for (int a = 0; a < 4; a++) {
        CHECK(lock_server_is_local(&r, a, lock_home_server(&r, a)));
        for (int s = 0; s < 4; s++)
            CHECK(lock_server_is_local(&r, a, s) == (rh[r.agent_rank[a]] == rh[r.server_rank[s]]));
    }
    lock_roles_free(&r);
    CHECK_DONE();
}
