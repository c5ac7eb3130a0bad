/* Adapter: a lock trace file (trace.h) as `--workload trace`. Agent a replays transactions a,
 * a + agents, a + 2 agents, ... of the file. The lock id space is 1 + the largest id in the file,
 * found by reading it once on every rank before anything is allocated (which also reports a
 * malformed line as FILE:LINE before the run starts). */
#include <stdio.h>
#include <stdlib.h>

#include "locking/workloads/registry.h"
#include "locking/workloads/trace.h"

typedef struct {
    trace_reader *t;
    int agent, agents;
    int64_t index;
} trace_state;

static uint64_t trace_space(const lock_opts *o, const lock_roles *r, char *err, size_t errlen)
{
    (void)r;
    trace_reader *t = trace_open(o->trace, err, errlen);
    if (!t) return 0;
    lock_request reqs[LOCK_TXN_MAX];
    uint64_t max_id = 0, txns = 0;
    int n;
    while ((n = trace_next(t, reqs, LOCK_TXN_MAX, err, errlen)) > 0) {
        txns++;
        for (int i = 0; i < n; i++)
            if (reqs[i].lock_id > max_id) max_id = reqs[i].lock_id;
    }
    trace_close(t);
    if (n < 0) return 0;
    if (txns == 0) {
        snprintf(err, errlen, "--trace: %s: no transactions", o->trace);
        return 0;
    }
    return max_id + 1 < (uint64_t)r->nservers ? (uint64_t)r->nservers : max_id + 1;
}

static void *trace_wl_open(const lock_opts *o, const lock_roles *r, int agent, char *err, size_t errlen)
{
    trace_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->t = trace_open(o->trace, err, errlen);
    if (!s->t) {
        free(s);
        return NULL;
    }
    s->agent = agent;
    s->agents = r->nagents;
    return s;
}

static int trace_wl_next(void *state, lock_request *reqs, int max, wl_txn *info, char *err, size_t errlen)
{
    trace_state *s = state;
    *info = (wl_txn){0};
    for (;;) {
        int n = trace_next(s->t, reqs, max, err, errlen);
        if (n <= 0) return n;
        if (s->index++ % s->agents == s->agent) return n;
    }
}

static void trace_wl_close(void *state)
{
    trace_state *s = state;
    trace_close(s->t);
    free(s);
}

const wl_desc trace_workload = {
    .name = "trace",
    .reads = WL_FLAG_TRACE,
    .needs = WL_FLAG_TRACE,
    .data = WL_DATA_NONE,
    .lock_space = trace_space,
    .open = trace_wl_open,
    .next = trace_wl_next,
    .close = trace_wl_close,
};
