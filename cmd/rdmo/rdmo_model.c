/* `rmabench rdmo --model FILE`: each step's latency predicted from the round trips and messages the
 * step counted per operation and the handler's time the target measured (model/rdmo_model.h), beside
 * the measured median. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/rdmo/rdmo_cmd.h"
#include "model/rdmo_model.h"

_Static_assert((int)MODEL_RMA_KINDS == (int)RDMO_RMA_KINDS && (int)MODEL_RMA_GET == (int)RDMO_RMA_GET && (int)MODEL_RMA_ACC == (int)RDMO_RMA_ACC,
               "the model prices the rounds by rdmo/rdmo.h's kinds");

void rdmo_model_load(rdmo_session *s)
{
    params_init(&s->model);
    if (!s->o.model) return;
    char err[700];
    if (params_load(&s->model, s->o.model, err, sizeof err)) opt_usage_error("--model: %s", err);
}

void rdmo_model_require(rdmo_session *s)
{
    if (!s->o.model) return;
    char err[700];
    if (params_require(&s->model, model_rdmo_required(s->o.design, s->remote), err, sizeof err))
        bench_usage_error(&s->ctx, "--model: %s", err);
}

void rdmo_model_step(const rdmo_session *s, rdmo_step *st)
{
    st->model_us = -1;
    if (!s->o.model || !st->c.ops || st->lat_median_us <= 0) return;
    const double ops = (double)st->c.ops, h = st->handler_us;
    double rounds[MODEL_RMA_KINDS];
    for (int k = 0; k < MODEL_RMA_KINDS; k++) rounds[k] = (double)st->c.rounds[k] / ops;
    const rdmo_prediction m = model_rdmo_latency(&s->model, s->o.design, s->remote, rounds, (double)st->c.rts / ops,
                                                 (double)st->c.msgs / ops, (double)st->c.bytes / ops, h > 0 ? h * 1e-6 : 0);
    st->model_us = m.total * 1e6;
    st->model_err = (st->model_us - st->lat_median_us) / st->lat_median_us;
}
