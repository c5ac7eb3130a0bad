/* The end of a step: every rank's counts and latencies reduced onto rank 0, the acknowledged
 * operations of every origin gathered there (O(ranks) words), and the checker (rdmo/check.h) run
 * on the target's object against them. The step passes when the checker does and no origin saw a
 * wrong answer (a gather's entries, a torn row) or an error status. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/stats.h"
#include "cmd/rdmo/rdmo_cmd.h"
#include "rdmo/lat.h"

static void reduce_counts(const rdmo_session *s, const rdmo_local *me, rdmo_step *st)
{
    const int rank = s->ctx.rank;
    const rdmo_counts *c = &me->c;
    enum { NU = 11 };
    uint64_t u[NU] = {c->ops, c->msgs, c->rts, c->retries, c->busy, c->windows, c->rejected, me->acked, me->errors,
                      me->bad_answers, c->bytes}, us[NU];
    MPI_CHECK(rank, MPI_Reduce(u, us, NU, MPI_UINT64_T, MPI_SUM, 0, s->ctx.comm));
    uint64_t rk[RDMO_RMA_KINDS];
    MPI_CHECK(rank, MPI_Reduce(c->rounds, rk, RDMO_RMA_KINDS, MPI_UINT64_T, MPI_SUM, 0, s->ctx.comm));
    double w = c->window_s, ws = 0;
    MPI_CHECK(rank, MPI_Reduce(&w, &ws, 1, MPI_DOUBLE, MPI_SUM, 0, s->ctx.comm));
    MPI_CHECK(rank, MPI_Reduce(&me->elapsed, &st->elapsed, 1, MPI_DOUBLE, MPI_MAX, 0, s->ctx.comm));
    if (rank != 0) return;
    st->c = *c; /* the target's handler counts */
    st->c.ops = us[0];
    st->c.msgs = us[1];
    st->c.rts = us[2];
    st->c.retries = us[3];
    st->c.busy = us[4];
    st->c.windows = us[5];
    st->c.rejected = us[6];
    st->acked = us[7];
    st->errors = us[8];
    st->bad_answers = us[9];
    st->c.bytes = us[10];
    st->c.window_s = ws;
    for (int k = 0; k < RDMO_RMA_KINDS; k++) st->c.rounds[k] = rk[k];
}

/* The handler's median run of the operation's method (the target's), the conflict window's median
 * over the origins' medians (verbs); the rdmo and rpc window is the method's run. */
static void medians(const rdmo_session *s, const rdmo_local *me, rdmo_step *st)
{
    const int rank = s->ctx.rank, origins = st->origins;
    double *w = rank == 0 ? malloc((size_t)s->ctx.size * sizeof *w) : NULL;
    MPI_CHECK(rank, MPI_Gather(&me->window_s, 1, MPI_DOUBLE, w, 1, MPI_DOUBLE, 0, s->ctx.comm));
    if (rank != 0) return;
    const bool verbs = s->o.design == RDMO_DESIGN_VERBS;
    st->handler_us = !verbs && w[0] >= 0 ? w[0] * 1e6 : -1;
    st->window_us = verbs ? -1 : s->o.op == RDMO_OP_GATHER ? -1 : st->handler_us;
    int n = 0;
    for (int r = 1; verbs && r <= origins; r++)
        if (w[r] >= 0) w[n++] = w[r];
    if (n) st->window_us = stats_median(w, n) * 1e6;
    free(w);
}

static rdmo_verdict check_object(rdmo_session *s, const uint64_t *acked)
{
    const rdmo_opts *o = &s->o;
    const rdmo_object *ob = rdmo_space_find(&s->lay.space, s->lay.obj);
    const unsigned char *mem = rdmo_heap(s->ep) + ob->offset;
    const int ranks = s->ctx.size;
    switch (o->op) {
    case RDMO_OP_APPEND: return rdmo_check_page(mem, ob->n1, acked, ranks, (uint32_t)o->payload_bytes, (uint64_t)o->seed);
    case RDMO_OP_GATHER: return rdmo_check_table_built(mem, ob->n1, ob->n2, (uint32_t)o->keys, (uint32_t)o->matches, (uint64_t)o->seed);
    case RDMO_OP_SCATTER:
        return rdmo_check_table_sums(mem, ob->n1, ob->n2, acked, ranks, (int)o->batch, (uint32_t)o->keys, (uint64_t)o->seed);
    default: {
        uint64_t seals = 0;
        for (int r = 0; o->op == RDMO_OP_SEAL && r < ranks; r++) seals += acked[r];
        return rdmo_check_rows(mem, ob->n1, ob->n2, seals);
    }
    }
}

void rdmo_verify_step(rdmo_session *s, int origins, const rdmo_local *me, rdmo_step *st)
{
    const int rank = s->ctx.rank;
    *st = (rdmo_step){.origins = origins};
    reduce_counts(s, me, st);
    uint64_t *hist = rank == 0 ? calloc(RDMO_LAT_BUCKETS, sizeof *hist) : NULL;
    uint64_t *acked = rank == 0 ? calloc((size_t)s->ctx.size, sizeof *acked) : NULL;
    if (rank == 0 && (!hist || !acked)) {
        fprintf(stderr, "rmabench: out of memory for a step's results\n");
        MPI_Abort(s->ctx.comm, 3);
    }
    MPI_CHECK(rank, MPI_Reduce(me->hist, hist, RDMO_LAT_BUCKETS, MPI_UINT64_T, MPI_SUM, 0, s->ctx.comm));
    medians(s, me, st);
    MPI_CHECK(rank, MPI_Gather(&me->acked, 1, MPI_UINT64_T, acked, 1, MPI_UINT64_T, 0, s->ctx.comm));
    if (rank == 0) {
        st->lat_median_us = rdmo_lat_quantile_us(hist, 0.5);
        st->lat_p99_us = rdmo_lat_quantile_us(hist, 0.99);
        st->ops_per_s = st->elapsed > 0 ? (double)st->c.ops / st->elapsed : 0;
        st->verdict = check_object(s, acked);
        if (st->verdict.pass && st->bad_answers)
            snprintf(st->verdict.why, sizeof st->verdict.why, "%" PRIu64 " answers were wrong (%s)", st->bad_answers,
                     s->o.op == RDMO_OP_GATHER ? "a gather's entries" : "a torn row read");
        if (st->verdict.pass && st->errors)
            snprintf(st->verdict.why, sizeof st->verdict.why, "%" PRIu64 " operations were answered other than ok", st->errors);
        st->verdict.pass = st->verdict.pass && !st->bad_answers && !st->errors;
    }
    free(hist);
    free(acked);
}
