#include "rma/progress.h"

#include "bench/fastclock.h"

#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void poll_begin(poll_bound *b, const char *what, int rank, int peer, double timeout_s, bool yield)
{
    b->start = MPI_Wtime();
    b->deadline = timeout_s > 0 ? b->start + timeout_s : 0;
    b->what = what;
    b->rank = rank;
    b->peer = peer;
    b->yield = yield;
    b->polls = 0;
}

bool poll_continue(poll_bound *b)
{
    b->polls++;
    if (b->yield) sched_yield();
    /* Reading the clock costs ~20 ns; checking every 64 polls keeps the loop tight. */
    if (b->deadline > 0 && (b->polls & 63) == 0 && MPI_Wtime() > b->deadline) return false;
    return true;
}

void poll_report_timeout(const poll_bound *b)
{
    double waited = MPI_Wtime() - b->start;
    if (b->peer >= 0)
        fprintf(stderr, "rmabench: rank %d: no %s from rank %d after %.1f s\n", b->rank, b->what, b->peer, waited);
    else
        fprintf(stderr, "rmabench: rank %d: no %s after %.1f s\n", b->rank, b->what, waited);
    fflush(stderr);
}

blocking_state rma_blocking;

static struct {
    int rank;
    _Atomic double bound_s;
    atomic_flag started;
} watchdog = {.started = ATOMIC_FLAG_INIT};

/* A blocked call is the same value of rma_blocking.call seen at every wake-up (the sequence number
 * tells two calls to the same peer apart), so the thread times it with its own clock. */
static void *watchdog_main(void *arg)
{
    (void)arg;
    uint64_t seen = 0;
    double since = 0;
    for (;;) {
        struct timespec tick = {0, 100 * 1000 * 1000};
        nanosleep(&tick, NULL);
        uint64_t call = atomic_load_explicit(&rma_blocking.call, memory_order_acquire);
        double now = rmb_monotonic_s();
        if (call != seen) {
            seen = call;
            since = now;
            continue;
        }
        double bound = atomic_load_explicit(&watchdog.bound_s, memory_order_relaxed);
        if (call == 0 || bound <= 0 || now - since < bound) continue;
        const char *what = atomic_load_explicit(&rma_blocking.what, memory_order_relaxed);
        int peer = (int)(int32_t)(uint32_t)call;
        char line[256];
        int n;
        if (peer >= 0)
            n = snprintf(line, sizeof line, "rmabench: rank %d: %s to rank %d did not complete after %.1f s\n",
                         watchdog.rank, what, peer, now - since);
        else
            n = snprintf(line, sizeof line, "rmabench: rank %d: %s did not complete after %.1f s\n", watchdog.rank,
                         what, now - since);
        if (atomic_load_explicit(&rma_blocking.call, memory_order_acquire) != call) continue; /* it just did */
        if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
        if (write(STDERR_FILENO, line, (size_t)n) < 0) { /* nothing better to do */ }
        _exit(3);
    }
    return NULL;
}

void blocking_watchdog_start(int rank, double bound_s)
{
    atomic_store_explicit(&watchdog.bound_s, bound_s, memory_order_relaxed);
    if (atomic_flag_test_and_set(&watchdog.started)) return;
    watchdog.rank = rank;
    pthread_attr_t attr;
    pthread_t tid;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    /* the thread blocks every signal: SIGINT, SIGTERM etc. still reach the MPI thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&tid, &attr, watchdog_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        fprintf(stderr, "rmabench: rank %d: cannot start the watchdog thread (error %d); blocking MPI calls are unbounded\n",
                rank, rc);
        fflush(stderr);
    }
}
