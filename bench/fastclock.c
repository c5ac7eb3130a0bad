/* bench/fastclock.h: the invariant time-stamp counter's rate against CLOCK_MONOTONIC. */
#include "bench/fastclock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

double rmb_fast_tick_s = 0;

bool rmb_fast_clock_init(void)
{
    static bool done = false;
    if (done) return rmb_fast_tick_s > 0;
    done = true;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return false;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    if (!(d & (1u << 8))) return false; /* the counter's rate may change with the core's clock */
    /* the rate over 20 ms, between two readings of each clock taken back to back */
    const double m0 = rmb_monotonic_s();
    const uint64_t c0 = __rdtsc();
    double m1;
    do m1 = rmb_monotonic_s();
    while (m1 - m0 < 0.02);
    const uint64_t c1 = __rdtsc();
    if (c1 > c0) rmb_fast_tick_s = (m1 - m0) / (double)(c1 - c0);
#endif
    return rmb_fast_tick_s > 0;
}
