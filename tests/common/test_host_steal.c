/* bench/host_steal.h: /proc/stat's aggregate line parsed into steal and total ticks (per-CPU lines,
 * short lines and other text refused), the share between two samples (unknown when a sample is
 * bad, the counters go back or too few ticks passed to tell), and this host's counters read and
 * moving. */
#include <math.h>
#include <time.h>

#include "tests/check.h"
#include "bench/fastclock.h"
#include "bench/host_steal.h"

int main(void)
{
    host_cpu_sample a, b;
    /* Linux 6.1 on a KVM guest: user nice system idle iowait irq softirq steal guest guest_nice */
    CHECK(host_cpu_parse("cpu  4705 356 584 3699176 23 0 15 2000 0 0\n", &a));
    CHECK(a.ok);
    CHECK_EQ_U64(a.steal, 2000);
    CHECK_EQ_U64(a.total, 4705 + 356 + 584 + 3699176 + 23 + 0 + 15 + 2000); /* guest time is in user already */
    CHECK(host_cpu_parse("cpu  4805 356 684 3699276 23 0 15 2100 0 0", &b));
    CHECK(fabs(host_steal_share(a, b) - 100.0 / 400.0) < 1e-12);
    CHECK(host_steal_share(b, a) == -1); /* counters went back */
    CHECK(host_steal_share(a, a) == -1); /* no tick */
    CHECK(host_cpu_parse("cpu  4705 356 584 3699176 23 0 15 2049 0 0", &b));
    CHECK(host_steal_share(a, b) == -1); /* 49 ticks: too few to tell */
    CHECK(host_cpu_parse("cpu  4705 356 584 3699176 23 0 15 2050 0 0", &b));
    CHECK(host_steal_share(a, b) == 1); /* 50: all of them stolen */
    /* 8 fields are enough (no guest columns); fewer, per-CPU lines and other lines are not */
    CHECK(host_cpu_parse("cpu 1 2 3 4 5 6 7 8", &b) && b.steal == 8 && b.total == 36);
    CHECK(!host_cpu_parse("cpu 1 2 3 4 5 6 7", &b) && !b.ok);
    CHECK(!host_cpu_parse("cpu0 4705 356 584 3699176 23 0 15 2000 0 0", &b));
    CHECK(!host_cpu_parse("intr 12345 0 0", &b));
    CHECK(!host_cpu_parse("", &b));
    CHECK(host_steal_share(a, b) == -1); /* a bad sample */

    /* this host: readable on Linux, and 300 ms of a busy core move the total by at least 30 ticks */
    host_cpu_sample t0 = host_cpu_now();
#if defined(__linux__)
    CHECK(t0.ok);
#endif
    if (t0.ok) {
        const double until = rmb_monotonic_s() + 0.3;
        volatile unsigned long spin = 0;
        while (rmb_monotonic_s() < until) spin++;
        host_cpu_sample t1 = host_cpu_now();
        CHECK(t1.ok && t1.total >= t0.total + 30 && t1.steal >= t0.steal);
        const double share = host_steal_share(t0, t1); /* -1 on a host of one CPU */
        CHECK(share == -1 || (share >= 0 && share <= 1));
        printf("host steal over 300 ms here: %.1f%% (%llu ticks)\n", 100 * share, (unsigned long long)(t1.total - t0.total));
    }

    /* the run delay: schedstat's second field over the wall time between the samples */
    host_cpu_sample d0 = {0}, d1 = {0};
    CHECK(host_run_delay_parse("374516 4067211 2\n", &d0) && d0.delay_ok && d0.run_delay_ns == 4067211);
    CHECK(!host_run_delay_parse("374516 4067211", &d1) && !d1.delay_ok); /* two fields: not schedstat */
    CHECK(!host_run_delay_parse("cpu  4705 356", &d1) && !d1.delay_ok);
    CHECK(host_run_delay_parse("474516 54067211 9", &d1));
    d0.wall_s = 10.0, d1.wall_s = 10.2; /* 50 ms of 200 waited */
    CHECK(fabs(host_run_delay_share(d0, d1) - 0.25) < 1e-9);
    CHECK(host_run_delay_share(d1, d0) == -1); /* counters and clock went back */
    d1.wall_s = d0.wall_s;
    CHECK(host_run_delay_share(d0, d1) == -1); /* no time passed */
    d1.wall_s = 10.01; /* more delay than wall time (clocks read apart): capped */
    CHECK(host_run_delay_share(d0, d1) == 1);
    d1.delay_ok = false, d1.wall_s = 10.2;
    CHECK(host_run_delay_share(d0, d1) == -1);

    /* this thread: a sleep does not wait on a run queue, so 300 ms of sleep read well under its
     * wall time unless the machine is so loaded that the wake-up itself waits that long */
    host_cpu_sample s0 = host_cpu_now();
#if defined(__linux__)
    CHECK(s0.delay_ok);
#endif
    if (s0.delay_ok) {
        const struct timespec nap = {0, 300000000};
        nanosleep(&nap, NULL);
        host_cpu_sample s1 = host_cpu_now();
        const double share = host_run_delay_share(s0, s1);
        CHECK(share >= 0 && share < 0.5);
        printf("run delay over 300 ms of sleep here: %.1f%%\n", 100 * share);
    }
    CHECK_DONE();
}
