#include "bench/wait_bound.h"

#include "bench/fastclock.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

blocking_state rmb_blocking;
_Thread_local bool rmb_blocking_exempt;

/* The MPI profiling layer's lookups (bench/mpi_bound.c), done once before any call is timed. */
void mpi_bound_init(void);

/* The ranks on this machine (same kernel: their process ids mean something here), for the message. */
typedef struct {
    int rank;
    int32_t pid;
} machine_rank;

static struct {
    int rank;
    _Atomic double bound_s;
    atomic_flag started;
    pthread_mutex_t lock; /* guards peers, n_peers, other_machines: replaced by a later start */
    machine_rank *peers;
    int n_peers;
    bool other_machines; /* some rank runs elsewhere: what it waits for may be there */
} watchdog = {.started = ATOMIC_FLAG_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

/* What became of a process: NULL while it runs or sleeps as processes do, else the words for it. */
static const char *process_state(int32_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%" PRId32 "/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "has ended";
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return NULL;
    buf[n] = 0;
    const char *paren = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!paren || paren[1] != ' ') return NULL;
    switch (paren[2]) {
    case 'T': return "is stopped (a signal: SIGSTOP, SIGTSTP)";
    case 't': return "is stopped by a debugger";
    case 'Z': case 'X': return "has ended";
    case 'D': return "is in uninterruptible sleep (waiting for a device or a file system)";
    default: return NULL;
    }
}

/* "; rank R (pid P) is stopped ..." for the first ranks of this machine that are not running, or
 * "; every rank on this machine is running..." ("" without a table: blocking_watchdog_start alone).
 * Returns whether to report now: not yet when nothing here is wrong and ranks run elsewhere. */
static bool describe_peers(char *out, size_t len)
{
    out[0] = 0;
    pthread_mutex_lock(&watchdog.lock);
    bool named = false, have = watchdog.peers != NULL;
    size_t used = 0;
    int shown = 0;
    for (int i = 0; have && i < watchdog.n_peers && shown < 4; i++) {
        if (watchdog.peers[i].rank == watchdog.rank) continue;
        const char *state = process_state(watchdog.peers[i].pid);
        if (!state) continue;
        int w = snprintf(out + used, len - used, "; rank %d (pid %" PRId32 ") %s", watchdog.peers[i].rank,
                         watchdog.peers[i].pid, state);
        if (w > 0 && (size_t)w < len - used) used += (size_t)w;
        named = true;
        shown++;
    }
    if (have && !named)
        snprintf(out, len, "; every rank on this machine is running%s",
                 watchdog.other_machines ? ": the rank it waits for is on another host, or stuck" : " (one may be stuck)");
    bool others = watchdog.other_machines;
    pthread_mutex_unlock(&watchdog.lock);
    return named || !have || !others;
}

/* A blocked call is the same value of rmb_blocking.call seen at every wake-up (the sequence number
 * tells two calls to the same peer apart), so the thread times it with its own clock. */
static void *watchdog_main(void *arg)
{
    (void)arg;
    uint64_t seen = 0;
    double since = 0;
    for (;;) {
        struct timespec tick = {0, 100 * 1000 * 1000};
        nanosleep(&tick, NULL);
        uint64_t call = atomic_load_explicit(&rmb_blocking.call, memory_order_acquire);
        double now = rmb_monotonic_s();
        if (call != seen) {
            seen = call;
            since = now;
            continue;
        }
        double bound = atomic_load_explicit(&watchdog.bound_s, memory_order_relaxed);
        if (call == 0 || bound <= 0 || now - since < bound) continue;
        if (!atomic_load_explicit(&rmb_blocking.what, memory_order_relaxed)) continue; /* not timed */
        char culprit[512];
        /* a rank whose own machine shows nothing wrong leaves a moment to the ranks that share the
         * stopped one's machine: their line names it */
        if (!describe_peers(culprit, sizeof culprit) && now - since < bound + 2) continue;
        const char *what = atomic_load_explicit(&rmb_blocking.what, memory_order_relaxed);
        int peer = (int)(int32_t)(uint32_t)call;
        char line[1024];
        int n;
        if (peer >= 0)
            n = snprintf(line, sizeof line, "rmabench: rank %d: %s to rank %d did not complete after %.1f s%s\n",
                         watchdog.rank, what, peer, now - since, culprit);
        else
            n = snprintf(line, sizeof line, "rmabench: rank %d: %s did not complete after %.1f s%s\n", watchdog.rank,
                         what, now - since, culprit);
        if (atomic_load_explicit(&rmb_blocking.call, memory_order_acquire) != call) continue; /* it just did */
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
    mpi_bound_init();
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

/* This kernel's boot id as two words (0, 0 where it cannot be read): ranks with the same one share
 * the machine, and /proc shows each other's processes. */
static void boot_words(uint64_t w[2])
{
    w[0] = w[1] = 0;
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char hex[64] = "";
    ssize_t n = read(fd, hex, sizeof hex - 1);
    close(fd);
    for (ssize_t i = 0, k = 0; i < n && k < 32; i++) {
        char c = hex[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0) continue;
        w[k / 16] = w[k / 16] << 4 | (uint64_t)v;
        k++;
    }
}

void wait_bound_start(const bench_ctx *ctx, double bound_s)
{
    /* O(P) words once, kept O(ranks per machine) */
    uint64_t mine[3] = {0, 0, (uint64_t)getpid()};
    boot_words(mine);
    if (mine[0] == 0 && mine[1] == 0) { /* unknown: this host's ranks only */
        mine[0] = UINT64_MAX;
        mine[1] = (uint64_t)ctx->host_id;
    }
    uint64_t *all = malloc(3 * sizeof *all * (size_t)ctx->size);
    machine_rank *peers = malloc(sizeof *peers * (size_t)ctx->size);
    if (!all || !peers) {
        fprintf(stderr, "rmabench: rank %d: out of memory for the wait bound's rank table\n", ctx->rank);
        abort();
    }
    MPI_CHECK(ctx->rank, MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, ctx->comm));
    int n = 0;
    bool others = false;
    for (int r = 0; r < ctx->size; r++) {
        if (all[3 * r] == mine[0] && all[3 * r + 1] == mine[1]) peers[n++] = (machine_rank){r, (int32_t)all[3 * r + 2]};
        else others = true;
    }
    free(all);
    pthread_mutex_lock(&watchdog.lock);
    free(watchdog.peers);
    watchdog.peers = peers;
    watchdog.n_peers = n;
    watchdog.other_machines = others;
    pthread_mutex_unlock(&watchdog.lock);
    blocking_watchdog_start(ctx->rank, bound_s);
}
