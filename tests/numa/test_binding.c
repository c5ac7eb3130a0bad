/* Binding warnings on synthetic placements (a one-node, two-core machine cannot show most of them):
 * two ranks bound to one core, oversubscribed unbound ranks, socket binding with enough cores (no
 * warning), core binding (no warning), unbound ranks on a two-node host, several hosts. */
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "bench/numa_topology.h"

/* host of 36 cores, nodes 0 (cores 0-17) and 1 (18-35) */
static numa_rank_place place(int host, int first, int last, int host_nodes)
{
    numa_rank_place p;
    memset(&p, 0, sizeof p);
    p.host = host;
    p.core = first;
    p.node = first / 18;
    p.online = 36;
    p.host_nodes = host_nodes;
    for (int c = first; c <= last; c++) numa_mask_set(p.allowed, c);
    p.nallowed = last - first + 1;
    p.nodes_spanned = host_nodes > 1 ? last / 18 - first / 18 + 1 : 1;
    return p;
}

static char *warnings(const numa_rank_place *pl, int n, int host, int *nwarn)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *nwarn = 0;
    numa_host_warnings(f, nwarn, pl, n, host, "h");
    fclose(f);
    return buf;
}

int main(void)
{
    int nw;
    char *w;
    /* each rank on its own core: nothing */
    numa_rank_place cores[4] = {place(0, 0, 0, 2), place(0, 1, 1, 2), place(0, 18, 18, 2), place(0, 19, 19, 2)};
    w = warnings(cores, 4, 0, &nw);
    CHECK(nw == 0 && w[0] == 0);
    free(w);

    /* two ranks bound to core 0 */
    numa_rank_place same[3] = {place(0, 0, 0, 2), place(0, 0, 0, 2), place(0, 5, 5, 2)};
    w = warnings(same, 3, 0, &nw);
    CHECK(nw == 1);
    CHECK(strcmp(w, "host h: 2 ranks share 1 core(s) (0)") == 0);
    free(w);

    /* socket binding, 2 ranks per 18-core socket: fine; 20 ranks on socket 0: shared */
    numa_rank_place sock[22];
    for (int i = 0; i < 22; i++) sock[i] = i < 20 ? place(0, 0, 17, 2) : place(0, 18, 35, 2);
    w = warnings(sock + 18, 4, 0, &nw);
    CHECK(nw == 0);
    free(w);
    w = warnings(sock, 22, 0, &nw);
    CHECK(nw == 1);
    CHECK(strstr(w, "20 ranks share 18 core(s) (0-17)") != NULL);
    free(w);

    /* unbound on a two-node host: one warning naming the count and the first rank */
    numa_rank_place unb[3] = {place(0, 0, 0, 2), place(0, 0, 35, 2), place(0, 0, 35, 2)};
    w = warnings(unb, 3, 0, &nw);
    CHECK(nw == 1);
    CHECK(strstr(w, "2 rank(s) unbound on a 2-node host (rank 1 ") != NULL);
    free(w);
    /* unbound on a one-node host: not a placement problem */
    numa_rank_place one[2] = {place(0, 0, 35, 1), place(0, 0, 35, 1)};
    w = warnings(one, 2, 0, &nw);
    CHECK(nw == 0);
    free(w);
    /* 40 unbound ranks on 36 cores: oversubscribed */
    numa_rank_place many[40];
    for (int i = 0; i < 40; i++) many[i] = place(0, 0, 35, 1);
    w = warnings(many, 40, 0, &nw);
    CHECK(nw == 1 && strstr(w, "40 ranks share 36 core(s) (0-35)") != NULL);
    free(w);

    /* hosts are separate: the same core on two hosts is no conflict */
    numa_rank_place hosts[2] = {place(0, 3, 3, 2), place(1, 3, 3, 2)};
    w = warnings(hosts, 2, 0, &nw);
    CHECK(nw == 0);
    free(w);
    w = warnings(hosts, 2, 1, &nw);
    CHECK(nw == 0);
    free(w);

    /* the header's binding line: one line of bounded length at 256 and at 4096 ranks (32 per host,
     * one core each), exceptions listed up to the cap, the rest counted */
    size_t len256 = 0;
    for (int size = 256; size <= 4096; size *= 16) {
        numa_rank_place *pl = malloc(sizeof *pl * (size_t)size);
        for (int r = 0; r < size; r++) pl[r] = place(r / 32, r % 32, r % 32, 2);
        for (int r = 5; r < size; r += size / 8 + 1) pl[r] = place(r / 32, 0, 35, 2); /* 8 unbound */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        numa_binding_summary(f, pl, size, 4);
        fclose(f);
        CHECK(strchr(buf, '\n') == buf + len - 1);
        CHECK(strstr(buf, " ranks: bound to one core each, cores 0-31, node(s) of their core 0-1; except rank 5 (host 0): unbound") != NULL);
        CHECK(strstr(buf, " ... (4 more; --verbose lists every rank)") != NULL);
        if (size == 256) len256 = len;
        else CHECK(len <= len256 + 16); /* only the numbers' digits grow */
        free(buf);
        free(pl);
    }
    CHECK_DONE();
}
