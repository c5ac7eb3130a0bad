#include "model/profile.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Applied in this order: t_remote_comm is derived from t_local_comm. */
static const struct {
    int param;
    double value;    /* the file's unit; for t_remote_comm the extra over t_local_comm */
    const char *why; /* source, for the note */
} profile[] = {
    {MP_t_local_comm, 3.0, "Table 5.1, Cray Aries"},
    {MP_t_remote_comm, 2.6, "t_local_comm + 2.6 us, Table 5.1's extra per inter-host message"},
    {MP_bw_host, 6.0, "thesis 3.5, FDR InfiniBand between two machines"},
};
enum { PROFILE_N = sizeof profile / sizeof profile[0] };

static int needed(const int *need, int param)
{
    for (; *need >= 0; need++)
        if (*need == param) return 1;
    return 0;
}

int params_apply_profile(model_params *p, const int *need, char *note, size_t len)
{
    char names[200] = "", vals[600] = "";
    int filled = 0;
    if (len) note[0] = 0;
    for (int k = 0; k < PROFILE_N; k++) {
        int i = profile[k].param;
        /* t_remote_comm needs t_local_comm, which the profile fills first when missing */
        bool for_remote = i == MP_t_local_comm && needed(need, MP_t_remote_comm) && !p->set[MP_t_remote_comm];
        if (p->set[i] || !(needed(need, i) || for_remote)) continue;
        double v = profile[k].value * params_scale(i);
        if (i == MP_t_remote_comm) v += params_get(p, MP_t_local_comm);
        params_put(p, i, v);
        p->defaulted[i] = true;
        size_t n = strlen(names), m = strlen(vals);
        snprintf(names + n, sizeof names - n, "%s%s", filled ? ", " : "", params_name(i));
        snprintf(vals + m, sizeof vals - m, "%s%s = %.4g %s (%s)", filled ? "; " : "", params_name(i),
                 v / params_scale(i), params_unit(i), profile[k].why);
        filled++;
    }
    if (!filled) return 0;
    size_t n = strlen(p->source);
    snprintf(p->source + n, sizeof p->source - n, "%sprofile %s (%s)", n ? " + " : "", PARAMS_PROFILE_NAME, names);
    snprintf(note, len, "default profile %s for parameters not given (a one-host calibration cannot measure them): %s",
             PARAMS_PROFILE_NAME, vals);
    return filled;
}
