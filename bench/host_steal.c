/* Hypervisor steal over a run, from /proc/stat (bench/host_steal.h). */
#include "bench/host_steal.h"

#include <inttypes.h>
#include <string.h>

#include "bench/fastclock.h"

bool host_cpu_parse(const char *line, host_cpu_sample *s)
{
    *s = (host_cpu_sample){0};
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

bool host_run_delay_parse(const char *line, host_cpu_sample *s)
{
    uint64_t on_cpu, delay, slices;
    s->delay_ok = sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64, &on_cpu, &delay, &slices) == 3;
    s->run_delay_ns = s->delay_ok ? delay : 0;
    return s->delay_ok;
}

/* The calling thread's schedstat (Linux 3.17 and later name it thread-self; the process's main
 * thread's before) */
static void read_run_delay(host_cpu_sample *s)
{
    s->delay_ok = false;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f) f = fopen("/proc/self/schedstat", "r");
    if (!f) return;
    char line[256];
    if (fgets(line, sizeof line, f)) host_run_delay_parse(line, s);
    fclose(f);
}

host_cpu_sample host_cpu_now(void)
{
    host_cpu_sample s = {0};
    s.wall_s = rmb_monotonic_s();
    read_run_delay(&s);
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return s;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        const host_cpu_sample d = s;
        host_cpu_parse(line, &s);
        s.run_delay_ns = d.run_delay_ns, s.wall_s = d.wall_s, s.delay_ok = d.delay_ok;
    }
    fclose(f);
    return s;
}

double host_steal_share(host_cpu_sample before, host_cpu_sample after)
{
    if (!before.ok || !after.ok || after.total < before.total + HOST_STEAL_MIN_TICKS || after.steal < before.steal) return -1;
    return (double)(after.steal - before.steal) / (double)(after.total - before.total);
}

/* The largest share over the ranks (-1 where none could tell): a collective of one double, O(1) per
 * rank at any scale. */
static double worst_over_ranks(MPI_Comm comm, double share)
{
    double worst = share;
    if (MPI_Allreduce(&share, &worst, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS) return -1;
    return worst;
}

double host_steal_since(MPI_Comm comm, host_cpu_sample before)
{
    return worst_over_ranks(comm, host_steal_share(before, host_cpu_now()));
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

double host_run_delay_share(host_cpu_sample before, host_cpu_sample after)
{
    const double wall = after.wall_s - before.wall_s;
    if (!before.delay_ok || !after.delay_ok || after.run_delay_ns < before.run_delay_ns || !(wall > 0)) return -1;
    const double share = (double)(after.run_delay_ns - before.run_delay_ns) * 1e-9 / wall;
    return share > 1 ? 1 : share; /* the two clocks are read microseconds apart */
}

double host_run_delay_since(MPI_Comm comm, host_cpu_sample before)
{
    return worst_over_ranks(comm, host_run_delay_share(before, host_cpu_now()));
}

void host_run_delay_print(FILE *f, double share)
{
    if (share < 0) {
        fprintf(f, "run queue: unknown (no /proc/thread-self/schedstat)\n");
        return;
    }
    fprintf(f, "run queue: the busiest rank waited %.1f%% of the run for a CPU another task held (schedstat run delay; worst rank)%s\n",
            100 * share, share >= 0.05 ? ": this run's timings are not a quiet machine's" : "");
}
