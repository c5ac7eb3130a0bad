/* Hypervisor steal: the share of a host's CPU time that its virtual CPUs were ready to run but the
 * hypervisor ran something else (/proc/stat's steal column). It can be a large share of a
 * busy-polling run (docs/measurements.md, "From code comments"): every timing of such a run carries
 * it, so each run reports it beside its figures (the join, lock, membw and calibrate output; CSV
 * host_steal). */
#ifndef RMB_BENCH_HOST_STEAL_H
#define RMB_BENCH_HOST_STEAL_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

/* The host's CPU time in ticks (all CPUs): steal, and the sum of user, nice, system, idle, iowait,
 * irq, softirq and steal (guest time is already counted in user and nice). Beside it the calling
 * thread's run delay: the nanoseconds it spent runnable on a run queue while another task had its
 * CPU (/proc/thread-self/schedstat, second field; the scheduler's own account, kept with
 * CONFIG_SCHED_INFO): the other programs of a shared machine, which steal does not see. */
typedef struct {
    uint64_t steal, total;
    bool ok; /* false: no /proc/stat (not Linux) or a line it could not read */
    uint64_t run_delay_ns;
    double wall_s;      /* when it was sampled (monotonic seconds) */
    bool delay_ok;      /* false: no schedstat for this thread */
} host_cpu_sample;

/* Parses /proc/stat's aggregate line ("cpu  user nice system idle iowait irq softirq steal ...");
 * false for any other line, or one with fewer than the 8 fields (kernels before 2.6.11). MPI-free. */
bool host_cpu_parse(const char *line, host_cpu_sample *s);
/* The host's counters now (one read of /proc/stat, cheap beside a run). MPI-free. */
host_cpu_sample host_cpu_now(void);
/* Fewer ticks than this between two samples (USER_HZ: 10 ms each, counted over all the host's
 * CPUs) cannot tell a few percent: in a short run one tick is several per cent of the total. */
enum { HOST_STEAL_MIN_TICKS = 50 };
/* steal / total between two samples: a fraction in [0, 1], or -1 when either is not ok, the
 * counters went back, or fewer than HOST_STEAL_MIN_TICKS passed. MPI-free. */
double host_steal_share(host_cpu_sample before, host_cpu_sample after);
/* Collective over comm: each rank's share since its sample `before`, the largest over the ranks (so
 * over their hosts), or -1 when no rank could tell. */
double host_steal_since(MPI_Comm comm, host_cpu_sample before);
/* One line for the run's output: "host steal: 12.3% of the CPU time ..." (or that it is unknown). */
void host_steal_print(FILE *f, double share);

/* Parses a schedstat line ("ON_CPU_NS RUN_DELAY_NS TIMESLICES") into s->run_delay_ns; false (and
 * delay_ok false) for anything else. MPI-free. */
bool host_run_delay_parse(const char *line, host_cpu_sample *s);
/* The share of the wall time between two samples that the thread waited for a CPU, in [0, 1]; -1
 * when either sample has no run delay, the counter went back, or no time passed. MPI-free. */
double host_run_delay_share(host_cpu_sample before, host_cpu_sample after);
/* Collective over comm: each rank's run delay share since its sample `before` (the thread that
 * took it must call), the largest over the ranks, or -1 when no rank could tell. */
double host_run_delay_since(MPI_Comm comm, host_cpu_sample before);
/* One line: "run queue: the busiest rank waited 12.3% of the run for a CPU ..." (or unknown). */
void host_run_delay_print(FILE *f, double share);

#endif
