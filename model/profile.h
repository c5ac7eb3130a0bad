/* The default profile: values for the parameters a calibration on these machines could not measure
 * (one host: no bw_host, no t_remote_comm; a file from before self-target calibration: no
 * t_local_comm), taken from the thesis, so that the model commands still answer after a one-host
 * calibration (docs/models.md, the default profile). Used only for a parameter the file and --set
 * leave unset and the command needs; every use is named in one line and in the parameter source
 * (the CSV's model_params). Profile "thesis":
 *   bw_host       6.0 GB/s  thesis 3.5: measured throughput between two machines on 4x FDR InfiniBand (RDMA Verbs)
 *   t_local_comm  3.0 us    Table 5.1 (Cray XC40, Aries), the split its 67.5 us at 0% remote admits
 *                           (20 t_local + 10 t_queue + t_clean_up; tests/model/test_lock_model.c)
 *   t_remote_comm t_local_comm + 2.6 us: Table 5.1's extra per message between hosts (the one
 *                           inter-host quantity the table fixes: 68.833 - 67.500 us at 1% remote)
 * MPI-free. */
#ifndef RMB_MODEL_PROFILE_H
#define RMB_MODEL_PROFILE_H
#include <stddef.h>

#include "model/params.h"

#define PARAMS_PROFILE_NAME "thesis"

/* Fills each parameter of `need` (terminated by -1) that p lacks and the profile has. Returns how
 * many it filled; then `note` holds one line naming the profile, each value and its source, and
 * p->source ends in " + profile thesis (NAMES)". With none filled, note is "". */
int params_apply_profile(model_params *p, const int *need, char *note, size_t len);

#endif
