/* Hypervisor steal over a run, from /proc/stat (bench/host_steal.h). */
#include "bench/host_steal.h"

#include <inttypes.h>
#include <string.h>

bool host_cpu_parse(const char *line, host_cpu_sample *s)
{
    *s = (host_cpu_sample){0, 0, false};
    if (strncmp(line, "cpu ", 4) != 0) return false; /* "cpu0 ..." lines are one CPU's */
    uint64_t v[8];
    if (sscanf(line + 4, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
        return false;
    for (int i = 0; i < 8; i++) s->total += v[i];
    s->steal = v[7];
    s->ok = true;
    return true;
}

host_cpu_sample host_cpu_now(void)
{
    host_cpu_sample s = {0, 0, false};
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return s;
    char line[512];
    if (fgets(line, sizeof line, f)) host_cpu_parse(line, &s);
    fclose(f);
    return s;
}

double host_steal_share(host_cpu_sample before, host_cpu_sample after)
{
    if (!before.ok || !after.ok || after.total < before.total + HOST_STEAL_MIN_TICKS || after.steal < before.steal) return -1;
    return (double)(after.steal - before.steal) / (double)(after.total - before.total);
}

double host_steal_since(MPI_Comm comm, host_cpu_sample before)
{
    const double share = host_steal_share(before, host_cpu_now());
    double worst = share;
    /* a collective of one double: O(1) per rank at any scale */
    if (MPI_Allreduce(&share, &worst, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS) return -1;
    return worst;
}

void host_steal_print(FILE *f, double share)
{
    if (share < 0) {
        fprintf(f, "host steal: unknown (no /proc/stat steal counter, or the run took fewer than %d of its 10 ms ticks over the "
                   "host's CPUs)\n", HOST_STEAL_MIN_TICKS);
        return;
    }
    fprintf(f, "host steal: %.1f%% of the CPU time during the run went to other guests (hypervisor, /proc/stat; worst host)%s\n",
            100 * share, share >= 0.05 ? ": this run's timings are not a quiet machine's" : "");
}
