/* trace_check FILE WAREHOUSES HOME ISOLATION SEED TXNS: the trace holds exactly the generator's
 * first TXNS transactions for these parameters (used by the lock-trace CLI test). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locking/workloads/tpcc.h"
#include "locking/workloads/trace.h"

/* field by field: lock_request has padding that memcmp would compare */
static int same_reqs(const lock_request *a, const lock_request *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].lock_id != b[i].lock_id || a[i].mode != b[i].mode) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 7) { fprintf(stderr, "usage: trace_check FILE WAREHOUSES HOME ISOLATION SEED TXNS\n"); return 2; }
    int warehouses = atoi(argv[2]), home = atoi(argv[3]), isolation = atoi(argv[4]), txns = atoi(argv[6]);
    tpcc_gen *g = tpcc_open(warehouses, home, isolation, strtoull(argv[5], NULL, 10));
    char err[512];
    trace_reader *t = trace_open(argv[1], err, sizeof err);
    if (!g || !t) { fprintf(stderr, "trace_check: %s\n", t ? "bad generator arguments" : err); return 1; }
    if (trace_lock_space(t) != tpcc_lock_space(warehouses)) { fprintf(stderr, "trace_check: wrong lock space\n"); return 1; }
    lock_request a[LOCK_TXN_MAX], b[LOCK_TXN_MAX];
    for (int i = 0; i < txns; i++) {
        int na = tpcc_next(g, a, LOCK_TXN_MAX, NULL), nb = trace_next(t, b, LOCK_TXN_MAX, err, sizeof err);
        if (nb < 0) { fprintf(stderr, "trace_check: %s\n", err); return 1; }
        if (na != nb || !same_reqs(a, b, na)) { fprintf(stderr, "trace_check: transaction %d differs\n", i); return 1; }
    }
    int rest = trace_next(t, b, LOCK_TXN_MAX, err, sizeof err);
    if (rest != 0) { fprintf(stderr, "trace_check: %s\n", rest > 0 ? "more transactions than expected" : err); return 1; }
    trace_close(t);
    tpcc_close(g);
    printf("trace_check: %d transactions match\n", txns);
    return 0;
}
