/* Roles of the ranks of `rmabench lock` (servers and agents spread evenly over hosts), the lock id
 * ranges of the servers, and which servers count as local to an agent. No MPI calls. */
#include <stdlib.h>
#include <string.h>

#include "locking/lock.h"

void lock_roles_init(lock_roles *r, const bench_ctx *ctx, int nservers)
{
    memset(r, 0, sizeof *r);
    int n = ctx->size;
    r->nservers = nservers;
    r->nagents = n - nservers;
    r->server_rank = malloc(sizeof(int) * (size_t)nservers);
    r->agent_rank = malloc(sizeof(int) * (size_t)r->nagents);
    r->role_index = malloc(sizeof(int) * (size_t)n);
    r->is_server = calloc((size_t)n, sizeof(bool));
    r->hosts = ctx->hosts;
    r->one_host = ctx->hosts == 1;
    r->rank_host = ctx->rank_host;
    /* Each host gets its share of the servers (largest remainder), and within a host every
     * (ranks/servers)-th rank is a server: both roles end up spread evenly over the hosts. */
    int hosts = ctx->hosts;
    int *on_host = calloc((size_t)hosts, sizeof(int)), *share = calloc((size_t)hosts, sizeof(int));
    int64_t *rem = calloc((size_t)hosts, sizeof(int64_t));
    for (int q = 0; q < n; q++) on_host[ctx->rank_host[q]]++;
    int given = 0;
    for (int h = 0; h < hosts; h++) {
        share[h] = (int)((int64_t)nservers * on_host[h] / n);
        rem[h] = (int64_t)nservers * on_host[h] % n;
        given += share[h];
    }
    for (; given < nservers; given++) {
        int best = -1;
        for (int h = 0; h < hosts; h++)
            if (share[h] < on_host[h] && (best < 0 || rem[h] > rem[best])) best = h;
        share[best]++;
        rem[best] = -1;
    }
    int *seen = calloc((size_t)hosts, sizeof(int));
    for (int q = 0; q < n; q++) {
        int h = ctx->rank_host[q], j = seen[h]++;
        if ((int64_t)(j + 1) * share[h] / on_host[h] > (int64_t)j * share[h] / on_host[h]) r->is_server[q] = true;
    }
    free(on_host);
    free(share);
    free(rem);
    free(seen);
    int s = 0, a = 0;
    for (int q = 0; q < n; q++) {
        if (r->is_server[q]) { r->role_index[q] = s; r->server_rank[s++] = q; }
        else { r->role_index[q] = a; r->agent_rank[a++] = q; }
    }
    r->i_am_server = r->is_server[ctx->rank];
    r->my_index = r->role_index[ctx->rank];
}

void lock_roles_free(lock_roles *r)
{
    free(r->server_rank);
    free(r->agent_rank);
    free(r->role_index);
    free(r->is_server);
}

int lock_server_of(const lock_roles *r, uint64_t lock_id)
{
    uint64_t per = r->lock_space / (uint64_t)r->nservers;
    int s = per ? (int)(lock_id / per) : 0;
    if (s >= r->nservers) s = r->nservers - 1;
    while (s > 0 && lock_id < lock_range_lo(r, s)) s--;
    while (s + 1 < r->nservers && lock_id >= lock_range_lo(r, s + 1)) s++;
    return s;
}

int lock_home_server(const lock_roles *r, int agent)
{
    if (r->one_host) return agent % r->nservers;
    int host = r->rank_host[r->agent_rank[agent]], nlocal = 0;
    for (int s = 0; s < r->nservers; s++) nlocal += r->rank_host[r->server_rank[s]] == host;
    if (nlocal == 0) return agent % r->nservers;
    int k = agent % nlocal;
    for (int s = 0; s < r->nservers; s++)
        if (r->rank_host[r->server_rank[s]] == host && k-- == 0) return s;
    return 0;
}

bool lock_server_is_local(const lock_roles *r, int agent, int server)
{
    if (r->one_host) return server == agent % r->nservers;
    return r->rank_host[r->agent_rank[agent]] == r->rank_host[r->server_rank[server]];
}

