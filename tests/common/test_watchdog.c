/* Watchdog of blocking MPI calls (bench/wait_bound.h), without MPI: the thread only reads the state
 * that blocking_begin/blocking_end write. Each case runs in a child process (the watchdog _exits). */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#include "rma/progress.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Runs fn in a child with stderr captured; returns its exit status (-1: killed) and elapsed time. */
static int run_child(void (*fn)(void), char *err, size_t errsize, double *elapsed)
{
    int fd[2];
    if (pipe(fd) != 0) return -2;
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDERR_FILENO);
        fn();
        _exit(0);
    }
    close(fd[1]);
    size_t used = 0;
    ssize_t n;
    while (used + 1 < errsize && (n = read(fd[0], err + used, errsize - 1 - used)) > 0) used += (size_t)n;
    err[used] = '\0';
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    *elapsed = now_s() - t0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* a call that never returns: cut after the bound with the line naming rank, call and peer */
static void stuck_call(void)
{
    blocking_watchdog_start(4, 0.5);
    blocking_begin("MPI_Win_flush of a test", 7);
    sleep_s(5);
}

/* many short calls, and calls of 0.3 s each to the same peer one after the other: none hits 0.5 s */
static void short_calls(void)
{
    blocking_watchdog_start(1, 0.5);
    const long n = 50 * 1000 * 1000;
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        blocking_begin("MPI_Win_flush of a test", (int)(i & 7));
        __asm__ volatile("" ::: "memory");
        blocking_end();
    }
    fprintf(stderr, "begin+end: %.2f ns\n", (now_s() - t0) / (double)n * 1e9);
    for (int i = 0; i < 5; i++) {
        blocking_begin("MPI_Win_flush of a test", 3);
        sleep_s(0.3);
        blocking_end();
    }
}

/* a wait marked as not timed (what NULL), and an MPI call inside it, outlast the bound: nothing */
static void untimed(void)
{
    blocking_watchdog_start(6, 0.3);
    blocking_begin(NULL, -1);
    blocking_begin("MPI_Barrier", -1);
    sleep_s(1.0);
    blocking_end();
    blocking_end();
}

/* a call inside a marked wait keeps the outer name, and ending it does not end the outer wait */
static void nested(void)
{
    blocking_watchdog_start(5, 0.5);
    blocking_begin("an outer wait", 2);
    blocking_begin("MPI_Test", -1);
    blocking_end();
    sleep_s(5);
}

/* no call in progress for longer than the bound: nothing happens */
static void idle(void)
{
    blocking_watchdog_start(2, 0.3);
    blocking_begin("MPI_Win_flush of a test", 1);
    blocking_end();
    sleep_s(1.0);
}

int main(void)
{
    char err[512];
    double t;

    int rc = run_child(stuck_call, err, sizeof err, &t);
    CHECK(rc == 3);
    CHECK(strcmp(err, "rmabench: rank 4: MPI_Win_flush of a test to rank 7 did not complete after 0.5 s\n") == 0 ||
          strcmp(err, "rmabench: rank 4: MPI_Win_flush of a test to rank 7 did not complete after 0.6 s\n") == 0);
    CHECK(t >= 0.5 && t < 2.5);
    printf("stuck call: exit %d after %.2f s: %s", rc, t, err);

    rc = run_child(short_calls, err, sizeof err, &t);
    CHECK(rc == 0);
    CHECK(strncmp(err, "begin+end: ", 11) == 0 && strchr(err, '\n') == err + strlen(err) - 1);
    printf("short calls: exit %d, %s", rc, err);

    rc = run_child(idle, err, sizeof err, &t);
    CHECK(rc == 0 && err[0] == '\0');

    rc = run_child(untimed, err, sizeof err, &t);
    CHECK(rc == 0 && err[0] == '\0');

    rc = run_child(nested, err, sizeof err, &t);
    CHECK(rc == 3 && strncmp(err, "rmabench: rank 5: an outer wait to rank 2 did not complete after 0.", 66) == 0);
    CHECK_DONE();
}
