/* `rmabench lock-trace tpcc ...`: write a lock trace (format in trace.h) from the TPC-C lock
 * generator and print what it holds. No MPI: it runs as a plain process. The trace goes to a
 * temporary file next to --output and is renamed into place only when complete. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "bench/options.h"
#include "locking/workloads/tpcc.h"
#include "locking/workloads/trace.h"


static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rmabench: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* An interrupted run removes its temporary file too (unlink is async-signal-safe). */
static const char *volatile tmp_path;
static void remove_tmp_and_die(int sig)
{
    if (tmp_path) unlink(tmp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

typedef struct {
    uint64_t txns[TPCC_NTYPES], locks[TPCC_NTYPES];
    uint64_t remote_locks, remote_txns, payments_remote, lines, lines_remote;
} summary;

/* Remote share from the lock ids: a lock outside the home warehouse's block is remote; a payment is
 * remote when it locks another warehouse, an order line when its stock row lies elsewhere. */
static void tally(summary *s, int type, int home, const lock_request *r, int n)
{
    s->txns[type]++;
    s->locks[type] += (uint64_t)n;
    int remote = 0;
    for (int i = 0; i < n; i++) {
        bool far = tpcc_lock_warehouse(r[i].lock_id) != home;
        remote += far;
        if (type == TPCC_NEW_ORDER && strcmp(tpcc_lock_kind(r[i].lock_id), "stock") == 0) {
            s->lines++;
            s->lines_remote += far;
        }
    }
    s->remote_locks += (uint64_t)remote;
    s->remote_txns += remote > 0;
    if (type == TPCC_PAYMENT && remote) s->payments_remote++;
}

int lock_trace_main(int argc, char **argv)
{
    int64_t warehouses = 4, transactions = 10000, home = 0, seed = 42;
    int isolation = TPCC_SERIALIZABLE;
    const char *output = NULL;
    const opt_spec specs[] = {
        {"warehouses", OPT_INT, &warehouses, "TPC-C warehouses (lock ids of warehouse w: [w*B, (w+1)*B))", 1, TPCC_MAX_WAREHOUSES, NULL, NULL},
        {"transactions", OPT_COUNT, &transactions, "transactions to write", 1, 1e9, NULL, NULL},
        {"isolation", OPT_CHOICE, &isolation, "serializable (S locks to commit, range locks) or read-committed", 0, 0, tpcc_isolation_names, NULL},
        {"home-warehouse", OPT_INT, &home, "home warehouse (0-based) of the terminal; -1: each transaction's home drawn uniformly", -1, TPCC_MAX_WAREHOUSES, NULL, NULL},
        {"seed", OPT_INT, &seed, "generator seed", 0, 9.2e18, NULL, NULL},
        {"output", OPT_STRING, &output, "trace file to write (required)", 0, 0, NULL, NULL},
        OPT_END,
    };
    const opt_spec *tables[] = {specs, NULL};
    const char *usage = "rmabench lock-trace tpcc --output FILE [flags]";
    if (argc < 3 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) {
        if (argc >= 3) { opt_usage(usage, tables); return 0; }
        return usage_error("lock-trace: name a workload: %s", usage);
    }
    if (strcmp(argv[2], "tpcc") != 0)
        return usage_error("lock-trace: '%s': unknown workload (the generator is tpcc)", argv[2]);
    char err[512];
    int rc = opt_parse(tables, argc, argv, 3, err, sizeof err);
    if (rc == OPT_HELP) { opt_usage(usage, tables); return 0; }
    if (rc == OPT_ERROR) return usage_error("%s", err);
    if (!output) return usage_error("--output: a trace file is required");
    if (home >= warehouses)
        return usage_error("--home-warehouse: %" PRId64 " is not below --warehouses %" PRId64, home, warehouses);
    struct stat st;
    if (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) return usage_error("--output: %s: is a directory", output);

    /* one generator per home warehouse in use (about 16 KiB of state each) */
    int ngen = home < 0 ? (int)warehouses : 1;
    if (ngen > 10000)
        return usage_error("--home-warehouse: -1 with %d warehouses needs one generator per warehouse (%d MiB); at most 10000",
                           ngen, (int)((int64_t)ngen * 16 / 1024));
    tpcc_gen **gen = calloc((size_t)ngen, sizeof *gen);
    if (!gen) { fprintf(stderr, "rmabench: lock-trace: out of memory\n"); return 1; }
    for (int i = 0; i < ngen; i++) {
        int h = home < 0 ? i : (int)home;
        /* distinct streams per home warehouse come from the generator itself */
        if (!(gen[i] = tpcc_open((int)warehouses, h, isolation, (uint64_t)seed))) {
            fprintf(stderr, "rmabench: lock-trace: out of memory for %d generators\n", ngen);
            for (int j = 0; j < i; j++) tpcc_close(gen[j]);
            free(gen);
            return 1;
        }
    }

    /* temporary file in the target's directory, so that rename() is atomic */
    size_t plen = strlen(output) + 16;
    char *tmp = malloc(plen);
    if (!tmp) { fprintf(stderr, "rmabench: lock-trace: out of memory\n"); return 1; }
    snprintf(tmp, plen, "%s.tmpXXXXXX", output);
    signal(SIGINT, remove_tmp_and_die);
    signal(SIGTERM, remove_tmp_and_die);
    int fd = mkstemp(tmp);
    tmp_path = tmp;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) { close(fd); unlink(tmp); }
        fprintf(stderr, "rmabench: --output: %s: cannot create (%s)\n", output, strerror(e));
        for (int i = 0; i < ngen; i++) tpcc_close(gen[i]);
        free(gen);
        free(tmp);
        return 2;
    }

    fprintf(f, "# rmabench lock trace: tpcc --warehouses %" PRId64 " --transactions %" PRId64
               " --isolation %s --home-warehouse %" PRId64 " --seed %" PRId64 "\n",
            warehouses, transactions, tpcc_isolation_names[isolation], home, seed);
    fprintf(f, "# warehouse w's locks lie in [w*%" PRIu64 ", (w+1)*%" PRIu64 ")\n", tpcc_lock_space(1), tpcc_lock_space(1));
    int werr = trace_write_lock_space(f, tpcc_lock_space((int)warehouses));
    summary s = {0};
    lock_request reqs[LOCK_TXN_MAX];
    /* Uniform home warehouses: a separate stream so the per-warehouse streams stay as with a fixed home. */
    uint64_t pick = (uint64_t)seed ^ 0x5bd1e9955bd1e995ULL;
    for (int64_t t = 0; t < transactions && !werr; t++) {
        int gi = 0;
        if (ngen > 1) {
            pick = pick * 6364136223846793005ULL + 1442695040888963407ULL;
            gi = (int)((pick >> 33) % (uint64_t)ngen);
        }
        int type, n = tpcc_next(gen[gi], reqs, LOCK_TXN_MAX, &type);
        if (n < 1) { fprintf(stderr, "rmabench: lock-trace: generator returned %d locks\n", n); werr = -2; break; }
        tally(&s, type, home < 0 ? gi : (int)home, reqs, n);
        werr = trace_write_txn(f, reqs, n);
    }
    int e = errno;
    if (!werr && (fflush(f) || fsync(fileno(f)))) { werr = -1; e = errno; }
    if (fclose(f) && !werr) { werr = -1; e = errno; }
    if (!werr && rename(tmp, output)) { werr = -1; e = errno; }
    for (int i = 0; i < ngen; i++) tpcc_close(gen[i]);
    free(gen);
    if (werr) unlink(tmp);
    tmp_path = NULL;
    if (werr) {
        if (werr == -1) fprintf(stderr, "rmabench: --output: %s: %s (nothing written)\n", output, strerror(e));
        free(tmp);
        return 1;
    }
    free(tmp);

    uint64_t txns = 0, locks = 0;
    for (int i = 0; i < TPCC_NTYPES; i++) { txns += s.txns[i]; locks += s.locks[i]; }
    if (home < 0)
        printf("lock-trace: tpcc, %" PRId64 " warehouses, %s, home warehouse drawn uniformly per transaction, seed %" PRId64 "\n",
               warehouses, tpcc_isolation_names[isolation], seed);
    else
        printf("lock-trace: tpcc, %" PRId64 " warehouses, %s, home warehouse %" PRId64 ", seed %" PRId64 "\n", warehouses,
               tpcc_isolation_names[isolation], home, seed);
    printf("%-14s %10s %7s %12s\n", "transaction", "count", "share", "locks/txn");
    for (int i = 0; i < TPCC_NTYPES; i++)
        printf("%-14s %10" PRIu64 " %6.2f%% %12.2f\n", tpcc_txn_name(i), s.txns[i], 100.0 * (double)s.txns[i] / (double)txns,
               s.txns[i] ? (double)s.locks[i] / (double)s.txns[i] : 0.0);
    printf("locks per transaction: %.2f (thesis MySQL traces: 53.2 serializable, 27.9 read committed)\n", (double)locks / (double)txns);
    printf("remote: %.3f%% of locks, %.2f%% of transactions, %.2f%% of payments, %.3f%% of order lines\n",
           100.0 * (double)s.remote_locks / (double)locks, 100.0 * (double)s.remote_txns / (double)txns,
           s.txns[TPCC_PAYMENT] ? 100.0 * (double)s.payments_remote / (double)s.txns[TPCC_PAYMENT] : 0.0,
           s.lines ? 100.0 * (double)s.lines_remote / (double)s.lines : 0.0);
    printf("trace: %s (%" PRIu64 " transactions, %" PRIu64 " locks, lock space %" PRIu64 ")\n", output, txns, locks,
           tpcc_lock_space((int)warehouses));
    return 0;
}
