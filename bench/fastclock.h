/* A clock for hot loops (the lock table's per-request times): seconds from the CPU's invariant
 * time-stamp counter where it has one (x86-64, CPUID 0x80000007 EDX bit 8), scaled by a rate
 * measured against CLOCK_MONOTONIC by rmb_fast_clock_init; elsewhere CLOCK_MONOTONIC itself. A
 * reading costs a fraction of a clock_gettime through the vDSO, which a guest's clock makes a
 * visible share of a lock round trip (docs/measurements.md, "From code comments"). Times from it
 * are only compared with each other, never with rmb_now(). MPI-free. */
#ifndef RMB_BENCH_FASTCLOCK_H
#define RMB_BENCH_FASTCLOCK_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

extern double rmb_fast_tick_s; /* seconds per tick; 0: no invariant counter, CLOCK_MONOTONIC */

/* CLOCK_MONOTONIC in seconds: the fallback, the counter's reference, and the clock of what must not
 * call MPI (the watchdog thread, numa_policy). */
static inline double rmb_monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Measures the counter's rate (about 20 ms, once per process; later calls return at once). True
 * when the counter is used. */
bool rmb_fast_clock_init(void);

static inline double rmb_fast_now(void)
{
#if defined(__x86_64__)
    if (rmb_fast_tick_s > 0) return (double)__rdtsc() * rmb_fast_tick_s;
#endif
    return rmb_monotonic_s();
}

#endif
