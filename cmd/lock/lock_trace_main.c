/* `rmabench lock-trace tpcc ...`: write a lock trace (format in trace.h) from the TPC-C lock
 * generator and print what it holds. No MPI: it runs as a plain process. Its phases: parse the
 * flags, open the generators, write the trace, print the summary. The trace goes to a temporary
 * file beside --output and is renamed into place only when complete (bench/output_path.h): a path
 * that is not a regular file, or an existing file without --force, is refused before anything is
 * generated. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "bench/options.h"
#include "bench/output_path.h"
#include "locking/workloads/tpcc.h"
#include "locking/workloads/trace.h"

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    opt_print_usage_error(fmt, ap); /* one line, whatever its length */
    va_end(ap);
    return 2;
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

typedef struct {
    int64_t warehouses, transactions, home, seed;
    int isolation;
    const char *output;
    bool force;
} trace_opts;

/* -1 to go on, else the exit status (0 after --help, 2 on bad input, with one line). */
static int parse_opts(trace_opts *o, int argc, char **argv)
{
    *o = (trace_opts){.warehouses = 4, .transactions = 10000, .home = 0, .seed = 42, .isolation = TPCC_SERIALIZABLE};
    const opt_spec specs[] = {
        {"warehouses", OPT_INT, &o->warehouses, "TPC-C warehouses (lock ids of warehouse w: [w*B, (w+1)*B))", 1, TPCC_MAX_WAREHOUSES, NULL, NULL},
        {"transactions", OPT_COUNT, &o->transactions, "transactions to write", 1, 1e9, NULL, NULL},
        {"isolation", OPT_CHOICE, &o->isolation, "serializable (S locks to commit, range locks) or read-committed", 0, 0, tpcc_isolation_names, NULL},
        {"home-warehouse", OPT_INT, &o->home, "home warehouse (0-based) of the terminal; -1: each transaction's home drawn uniformly", -1, TPCC_MAX_WAREHOUSES, NULL, NULL},
        {"seed", OPT_INT, &o->seed, "generator seed", 0, 9.2e18, NULL, NULL},
        {"output", OPT_STRING, &o->output, "trace file to write (required; a new file, or a regular file with --force)", 0, 0, NULL, NULL},
        OPT_FORCE(&o->force),
        OPT_END,
    };
    const opt_spec *tables[] = {specs, NULL};
    const char *usage = "rmabench lock-trace tpcc --output FILE [flags]";
    if (argc < 3 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) {
        if (argc >= 3) { opt_usage(usage, tables); return 0; }
        return usage_error("lock-trace: name a workload: %s", usage);
    }
    char sh[OPT_SHOWN_MAX];
    if (strcmp(argv[2], "tpcc") != 0)
        return usage_error("lock-trace: '%s': unknown workload (the generator is tpcc)", opt_shown(argv[2], sh));
    char err[512];
    int rc = opt_parse(tables, argc, argv, 3, err, sizeof err);
    if (rc == OPT_HELP) { opt_usage(usage, tables); return 0; }
    if (rc == OPT_ERROR) return usage_error("%s", err);
    if (!o->output) return usage_error("--output: a trace file is required");
    if (o->home >= o->warehouses)
        return usage_error("--home-warehouse: %" PRId64 " is not below --warehouses %" PRId64, o->home, o->warehouses);
    if (output_path_check(o->output, o->force ? OUTPUT_REPLACE : OUTPUT_NEW, err, sizeof err)) return usage_error("--output: %s", err);
    /* a TPC-C transaction takes 380-440 bytes of trace (both isolation levels): 512 with room */
    if (output_space_check(o->output, (uint64_t)o->transactions * 512, err, sizeof err))
        return usage_error("--transactions: %s", err);
    int ngen = o->home < 0 ? (int)o->warehouses : 1;
    if (ngen > 10000)
        return usage_error("--home-warehouse: -1 with %d warehouses needs one generator per warehouse (%d MiB); at most 10000",
                           ngen, (int)((int64_t)ngen * 16 / 1024));
    return -1;
}

static void close_generators(tpcc_gen **gen, int ngen)
{
    for (int i = 0; i < ngen; i++) tpcc_close(gen[i]);
    free(gen);
}

/* One generator per home warehouse in use (about 16 KiB of state each); NULL when out of memory. */
static tpcc_gen **open_generators(const trace_opts *o, int *ngen)
{
    *ngen = o->home < 0 ? (int)o->warehouses : 1;
    tpcc_gen **gen = calloc((size_t)*ngen, sizeof *gen);
    for (int i = 0; gen && i < *ngen; i++) {
        int h = o->home < 0 ? i : (int)o->home;
        /* distinct streams per home warehouse come from the generator itself */
        if (!(gen[i] = tpcc_open((int)o->warehouses, h, o->isolation, (uint64_t)o->seed))) {
            close_generators(gen, i);
            gen = NULL;
        }
    }
    if (!gen) fprintf(stderr, "rmabench: lock-trace: out of memory for %d generators\n", *ngen);
    return gen;
}

/* The header and every transaction into f; 0, -1 when a write failed, -2 when the generator did. */
static int generate(const trace_opts *o, tpcc_gen **gen, int ngen, FILE *f, summary *s)
{
    fprintf(f, "# rmabench lock trace: tpcc --warehouses %" PRId64 " --transactions %" PRId64
               " --isolation %s --home-warehouse %" PRId64 " --seed %" PRId64 "\n",
            o->warehouses, o->transactions, tpcc_isolation_names[o->isolation], o->home, o->seed);
    fprintf(f, "# warehouse w's locks lie in [w*%" PRIu64 ", (w+1)*%" PRIu64 ")\n", tpcc_lock_space(1), tpcc_lock_space(1));
    int werr = trace_write_lock_space(f, tpcc_lock_space((int)o->warehouses));
    lock_request reqs[LOCK_TXN_MAX];
    /* Uniform home warehouses: a separate stream so the per-warehouse streams stay as with a fixed home. */
    uint64_t pick = (uint64_t)o->seed ^ 0x5bd1e9955bd1e995ULL;
    for (int64_t t = 0; t < o->transactions && !werr; t++) {
        int gi = 0;
        if (ngen > 1) {
            pick = pick * 6364136223846793005ULL + 1442695040888963407ULL;
            gi = (int)((pick >> 33) % (uint64_t)ngen);
        }
        int type, n = tpcc_next(gen[gi], reqs, LOCK_TXN_MAX, &type);
        if (n < 1) {
            fprintf(stderr, "rmabench: lock-trace: generator returned %d locks\n", n);
            return -2;
        }
        tally(s, type, o->home < 0 ? gi : (int)o->home, reqs, n);
        werr = trace_write_txn(f, reqs, n);
    }
    return werr;
}

/* The trace, written whole or not at all: 0, or the exit status (2: --output unusable, 1: failure). */
static int write_trace(const trace_opts *o, summary *s)
{
    int ngen;
    tpcc_gen **gen = open_generators(o, &ngen);
    if (!gen) return 1;
    char err[600];
    output_file out;
    /* the writer removes its temporary on every error and on SIGINT, SIGTERM, SIGHUP */
    if (output_file_begin(&out, o->output, o->force, err, sizeof err)) {
        close_generators(gen, ngen);
        return usage_error("--output: %s", err);
    }
    int werr = generate(o, gen, ngen, out.f, s);
    int e = errno;
    close_generators(gen, ngen);
    int rc = 0;
    if (werr) {
        char sh[OPT_SHOWN_MAX];
        if (werr == -1) snprintf(err, sizeof err, "%s: cannot write: %s (nothing written)", opt_shown(o->output, sh), strerror(e));
        output_file_abort(&out);
        rc = werr == -1 ? 2 : 1;
    } else if (output_file_commit(&out, err, sizeof err)) {
        rc = 2;
    }
    if (rc == 2) fprintf(stderr, "rmabench: --output: %s\n", err);
    return rc;
}

static void print_summary(const trace_opts *o, const summary *s)
{
    uint64_t txns = 0, locks = 0;
    for (int i = 0; i < TPCC_NTYPES; i++) { txns += s->txns[i]; locks += s->locks[i]; }
    if (o->home < 0)
        printf("lock-trace: tpcc, %" PRId64 " warehouses, %s, home warehouse drawn uniformly per transaction, seed %" PRId64 "\n",
               o->warehouses, tpcc_isolation_names[o->isolation], o->seed);
    else
        printf("lock-trace: tpcc, %" PRId64 " warehouses, %s, home warehouse %" PRId64 ", seed %" PRId64 "\n", o->warehouses,
               tpcc_isolation_names[o->isolation], o->home, o->seed);
    printf("%-14s %10s %7s %12s\n", "transaction", "count", "share", "locks/txn");
    for (int i = 0; i < TPCC_NTYPES; i++)
        printf("%-14s %10" PRIu64 " %6.2f%% %12.2f\n", tpcc_txn_name(i), s->txns[i], 100.0 * (double)s->txns[i] / (double)txns,
               s->txns[i] ? (double)s->locks[i] / (double)s->txns[i] : 0.0);
    printf("locks per transaction: %.2f (thesis MySQL traces: 53.2 serializable, 27.9 read committed)\n", (double)locks / (double)txns);
    printf("remote: %.3f%% of locks, %.2f%% of transactions, %.2f%% of payments, %.3f%% of order lines\n",
           100.0 * (double)s->remote_locks / (double)locks, 100.0 * (double)s->remote_txns / (double)txns,
           s->txns[TPCC_PAYMENT] ? 100.0 * (double)s->payments_remote / (double)s->txns[TPCC_PAYMENT] : 0.0,
           s->lines ? 100.0 * (double)s->lines_remote / (double)s->lines : 0.0);
    printf("trace: %s (%" PRIu64 " transactions, %" PRIu64 " locks, lock space %" PRIu64 ")\n", o->output, txns, locks,
           tpcc_lock_space((int)o->warehouses));
}

int lock_trace_main(int argc, char **argv)
{
    trace_opts o;
    int rc = parse_opts(&o, argc, argv);
    if (rc >= 0) return rc;
    summary s = {0};
    rc = write_trace(&o, &s);
    if (rc == 0) print_summary(&o, &s);
    return rc;
}
