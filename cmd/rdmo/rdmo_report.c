/* What a step of `rmabench rdmo` prints: one line of figures per step (latency median and tail,
 * throughput, messages and round trips per operation as counted, failed attempts, the conflict
 * window, the handler's time per request, requests refused for a full queue) and its verification. */
#include <inttypes.h>
#include <stdio.h>

#include "cmd/rdmo/rdmo_cmd.h"

int rdmo_method_of(int op)
{
    static const int m[RDMO_OPS] = {RDMO_M_APPEND, RDMO_M_GATHER, RDMO_M_READ, RDMO_M_WRITE_SEAL, RDMO_M_ACCUMULATE};
    return m[op];
}

static void cell(double v, int width, int prec)
{
    if (v < 0) printf(" %*s", width, "-");
    else printf(" %*.*f", width, prec, v);
}

void rdmo_report_step(const rdmo_session *s, const rdmo_step *st, bool first)
{
    if (s->ctx.rank != 0) return;
    if (first)
        printf("%-8s %10s %10s %12s %8s %8s %10s %10s %10s %8s\n", "origins", "median_us", "p99_us", "ops/s", "msgs/op",
               "rts/op", "retries/op", "window_us", "handler_us", "refused");
    const double ops = st->c.ops ? (double)st->c.ops : 1;
    printf("%-8d", st->origins);
    cell(st->lat_median_us, 10, 3);
    cell(st->lat_p99_us, 10, 3);
    cell(st->ops_per_s, 12, 0);
    cell((double)st->c.msgs / ops, 8, 2);
    cell((double)st->c.rts / ops, 8, 2);
    cell((double)st->c.retries / ops, 10, 3);
    cell(st->window_us, 10, 3);
    cell(st->handler_us, 10, 3);
    printf(" %8" PRIu64 "\n", st->c.rejected);
    if (s->o.design == RDMO_DESIGN_VERBS && st->c.ops)
        printf("rounds by kind per operation (cas,fao,get,put,acc): %.2f,%.2f,%.2f,%.2f,%.2f\n",
               (double)st->c.rounds[RDMO_RMA_CAS] / ops, (double)st->c.rounds[RDMO_RMA_FAO] / ops,
               (double)st->c.rounds[RDMO_RMA_GET] / ops, (double)st->c.rounds[RDMO_RMA_PUT] / ops,
               (double)st->c.rounds[RDMO_RMA_ACC] / ops);
    if (st->model_us >= 0)
        printf("model: %.3f us predicted from %.2f round trips and %.2f messages per operation%s, measured median %.3f us: "
               "error %+.1f%%%s\n", st->model_us, (double)st->c.rts / (double)(st->c.ops ? st->c.ops : 1),
               (double)st->c.msgs / (double)(st->c.ops ? st->c.ops : 1), s->o.design == RDMO_DESIGN_VERBS ? "" : " and the handler's time",
               st->lat_median_us, st->model_err * 100, st->origins > 1 ? " (the model is one origin's)" : "");
    if (st->verdict.pass)
        printf("verification: PASS (%s, %d origin(s): %" PRIu64 " %s checked, %" PRIu64 " operations answered ok)\n",
               rdmo_op_names[s->o.op], st->origins, st->verdict.checked,
               s->o.op == RDMO_OP_APPEND ? "records" : s->o.op <= RDMO_OP_GATHER || s->o.op == RDMO_OP_SCATTER ? "entries" : "rows",
               st->acked);
    else
        printf("verification: FAIL (%s, %d origin(s): %s)\n", rdmo_op_names[s->o.op], st->origins, st->verdict.why);
    fflush(stdout);
}
