/* Lock table model, thesis 5.3 (eq. 5.1-5.4). */
#include "model/lock_model.h"

#include <math.h>

double model_t_comm(const model_params *p, int same_host)
{
    return params_get(p, same_host ? MP_t_local_comm : MP_t_remote_comm); /* eq. 5.1 */
}

double model_p_all_local(double p_local_lock, double n_locks) { return pow(p_local_lock, n_locks); } /* eq. 5.2 */

double model_t_tx(const model_params *p, double n_locks, double remote_prob)
{
    double p_local = 1.0 - remote_prob;
    double t_remote = remote_prob > 0 ? model_t_comm(p, 0) : 0; /* unused (and maybe unset) at 0% remote */
    return n_locks * 2 * (p_local * model_t_comm(p, 1) + remote_prob * t_remote) /* eq. 5.3 */
           + n_locks * params_get(p, MP_t_queue)
           + (remote_prob > 0 ? (1 - model_p_all_local(p_local, n_locks)) * params_get(p, MP_t_vote) : 0)
           + params_get(p, MP_t_clean_up);
}

double model_throughput(double agents, double t_tx) { return agents / t_tx; } /* eq. 5.4, erratum applied */

const int *model_lock_required(double remote_prob)
{
    static const int local_only[] = {MP_t_local_comm, MP_t_queue, MP_t_clean_up, -1}; /* no vote at 0% remote */
    static const int all[] = {MP_t_local_comm, MP_t_remote_comm, MP_t_queue, MP_t_vote, MP_t_clean_up, -1};
    return remote_prob > 0 ? all : local_only;
}
