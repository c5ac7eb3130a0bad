/* model/rdmo_model.h on parameters set by hand: the verbs design prices each round by the kind of
 * operation that opened it and the further operations at t_rma_op; rdmo and rpc price each call,
 * the bytes beyond an empty call's headers per 8 bytes, and the handler per call; each design
 * requires exactly its parameters, _remote ones for a target on another host. */
#include <math.h>

#include "model/rdmo_model.h"
#include "tests/check.h"

#define US 1e-6
#define NEAR(a, b) (fabs((a) - (b)) < 1e-12)

static bool requires(int design, bool remote, int param)
{
    for (const int *q = model_rdmo_required(design, remote); *q >= 0; q++)
        if (*q == param) return true;
    return false;
}

int main(void)
{
    model_params p;
    params_init(&p);
    params_put(&p, MP_t_rma_cas_local, 4 * US);
    params_put(&p, MP_t_rma_fao_local, 1 * US);
    params_put(&p, MP_t_rma_get_local, 5 * US);
    params_put(&p, MP_t_rma_put_local, 2 * US);
    params_put(&p, MP_t_rma_acc_local, 3 * US);
    params_put(&p, MP_t_rma_op_local, 0.5 * US);
    params_put(&p, MP_t_rdmo_call_local, 10 * US);
    params_put(&p, MP_t_rdmo_word_local, 0.1 * US);
    params_put(&p, MP_t_rpc_call_local, 20 * US);
    params_put(&p, MP_t_rpc_word_local, 0.2 * US);
    params_put(&p, MP_t_rdmo_call_remote, 100 * US);
    params_put(&p, MP_t_rdmo_word_remote, 1 * US);
    /* SlottedAppend's verbs rounds: fetch-and-op, put, accumulate; two more operations in them */
    const double rounds[MODEL_RMA_KINDS] = {0, 1, 0, 1, 1};
    rdmo_prediction m = model_rdmo_latency(&p, MODEL_RDMO_VERBS, false, rounds, 3, 5, 0, 0);
    CHECK(NEAR(m.rounds, 6 * US) && NEAR(m.messages, 1 * US) && NEAR(m.total, 7 * US) && m.handler == 0);
    /* one rdmo call of 96 bytes (80 beyond the headers: 10 words), a method of 0.5 us */
    m = model_rdmo_latency(&p, MODEL_RDMO_RDMO, false, NULL, 1, 1, 96, 0.5 * US);
    CHECK(NEAR(m.rounds, 10 * US) && NEAR(m.messages, 1 * US) && NEAR(m.handler, 0.5 * US) && NEAR(m.total, 11.5 * US));
    m = model_rdmo_latency(&p, MODEL_RDMO_RPC, false, NULL, 2, 2, 2 * MODEL_RDMO_CALL_BYTES, 0.5 * US);
    CHECK(NEAR(m.total, 41 * US)); /* two calls of empty size: 2 x 20 + 2 x 0.5 */
    m = model_rdmo_latency(&p, MODEL_RDMO_RDMO, true, NULL, 1, 1, 16 + 8, 0);
    CHECK(NEAR(m.total, 101 * US));
    CHECK(requires(MODEL_RDMO_VERBS, false, MP_t_rma_cas_local) && requires(MODEL_RDMO_VERBS, false, MP_t_rma_op_local));
    CHECK(!requires(MODEL_RDMO_VERBS, false, MP_t_rdmo_call_local) && requires(MODEL_RDMO_VERBS, true, MP_t_rma_acc_remote));
    CHECK(requires(MODEL_RDMO_RDMO, false, MP_t_rdmo_word_local) && !requires(MODEL_RDMO_RDMO, false, MP_t_rpc_call_local));
    CHECK(requires(MODEL_RDMO_RPC, true, MP_t_rpc_call_remote) && !requires(MODEL_RDMO_RPC, true, MP_t_rpc_call_local));
    CHECK_DONE();
}
