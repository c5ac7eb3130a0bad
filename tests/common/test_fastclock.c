/* bench/fastclock.h: the hot loops' clock agrees with CLOCK_MONOTONIC over 20 and 200 ms of sleep
 * (a wrong rate from rmb_fast_clock_init would stretch every lock latency) and never goes back;
 * it prints what a reading costs beside clock_gettime (a timing: printed, never checked). */
#include <math.h>
#include <time.h>

#include "tests/check.h"
#include "bench/fastclock.h"

int main(void)
{
    const bool tsc = rmb_fast_clock_init();
    CHECK(rmb_fast_clock_init() == tsc); /* once per process */
    for (long ms = 20; ms <= 200; ms *= 10) {
        const struct timespec nap = {0, ms * 1000000L};
        double f0 = rmb_fast_now(), m0 = rmb_monotonic_s();
        nanosleep(&nap, NULL);
        double f1 = rmb_fast_now(), m1 = rmb_monotonic_s();
        /* both spans include the same sleep: within 2% and 50 us of each other */
        CHECK(fabs((f1 - f0) - (m1 - m0)) < 0.02 * (m1 - m0) + 50e-6);
        CHECK(m1 - m0 >= ms * 1e-3);
    }
    double prev = rmb_fast_now(), t0 = rmb_monotonic_s();
    for (int i = 0; i < 1000000; i++) {
        double now = rmb_fast_now();
        CHECK(now >= prev);
        prev = now;
    }
    const double fast_ns = (rmb_monotonic_s() - t0) * 1e3; /* ns per reading (1M readings) */
    t0 = rmb_monotonic_s();
    volatile double sink = 0;
    for (int i = 0; i < 1000000; i++) sink += rmb_monotonic_s();
    const double mono_ns = (rmb_monotonic_s() - t0) * 1e3;
    (void)sink;
    printf("fastclock: %s, %.1f ns a reading (clock_gettime %.1f ns)\n", tsc ? "time-stamp counter" : "CLOCK_MONOTONIC",
           fast_ns, mono_ns);
    CHECK_DONE();
}
