#include "model/rdmo_model.h"

static const int round_param[2][MODEL_RMA_KINDS] = {
    {MP_t_rma_cas_local, MP_t_rma_fao_local, MP_t_rma_get_local, MP_t_rma_put_local, MP_t_rma_acc_local},
    {MP_t_rma_cas_remote, MP_t_rma_fao_remote, MP_t_rma_get_remote, MP_t_rma_put_remote, MP_t_rma_acc_remote}};

const int *model_rdmo_required(int design, bool remote)
{
    static int verbs[2][MODEL_RMA_KINDS + 2];
    static const int rdmo[2][3] = {{MP_t_rdmo_call_local, MP_t_rdmo_word_local, -1}, {MP_t_rdmo_call_remote, MP_t_rdmo_word_remote, -1}};
    static const int rpc[2][3] = {{MP_t_rpc_call_local, MP_t_rpc_word_local, -1}, {MP_t_rpc_call_remote, MP_t_rpc_word_remote, -1}};
    for (int k = 0; k < MODEL_RMA_KINDS; k++) verbs[remote][k] = round_param[remote][k];
    verbs[remote][MODEL_RMA_KINDS] = remote ? MP_t_rma_op_remote : MP_t_rma_op_local;
    verbs[remote][MODEL_RMA_KINDS + 1] = -1;
    return design == MODEL_RDMO_VERBS ? verbs[remote] : design == MODEL_RDMO_RDMO ? rdmo[remote] : rpc[remote];
}

rdmo_prediction model_rdmo_latency(const model_params *p, int design, bool remote, const double *rounds, double rts,
                                   double msgs, double bytes, double handler_s)
{
    rdmo_prediction m = {0, 0, 0, 0};
    if (design == MODEL_RDMO_VERBS) {
        for (int k = 0; k < MODEL_RMA_KINDS; k++) m.rounds += rounds[k] * params_get(p, round_param[remote][k]);
        m.messages = (msgs > rts ? msgs - rts : 0) * params_get(p, remote ? MP_t_rma_op_remote : MP_t_rma_op_local);
    } else {
        const bool q = design == MODEL_RDMO_RDMO;
        const int call = q ? (remote ? MP_t_rdmo_call_remote : MP_t_rdmo_call_local) : (remote ? MP_t_rpc_call_remote : MP_t_rpc_call_local);
        const int word = q ? (remote ? MP_t_rdmo_word_remote : MP_t_rdmo_word_local) : (remote ? MP_t_rpc_word_remote : MP_t_rpc_word_local);
        const double extra = bytes - rts * MODEL_RDMO_CALL_BYTES;
        m.rounds = rts * params_get(p, call);
        m.messages = (extra > 0 ? extra / 8 : 0) * params_get(p, word);
        m.handler = rts * handler_s;
    }
    m.total = m.rounds + m.messages + m.handler;
    return m;
}
