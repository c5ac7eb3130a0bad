/* Lock traces: generator -> file -> reader round trip, and every malformed input reported as
 * "FILE:LINE: reason" with the right line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/check.h"
#include "locking/workloads/tpcc.h"
#include "locking/workloads/trace.h"

static char dir[] = "/tmp/rmabench-test-trace-XXXXXX";
static char path[256];

/* field by field: lock_request has padding that memcmp would compare */
static int same_reqs(const lock_request *a, const lock_request *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].lock_id != b[i].lock_id || a[i].mode != b[i].mode) return 0;
    return 1;
}

static void write_file(const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fputs(text, f);
    fclose(f);
}

/* Reads the whole trace; returns the error message of the first failure ("" when none) and the
 * number of transactions read before it. */
static const char *read_all(int max, int *txns)
{
    static char err[512];
    err[0] = 0;
    *txns = 0;
    trace_reader *t = trace_open(path, err, sizeof err);
    if (!t) return err;
    lock_request r[LOCK_TXN_MAX];
    int n;
    while ((n = trace_next(t, r, max, err, sizeof err)) > 0) (*txns)++;
    if (n == 0) err[0] = 0;
    else CHECK(trace_next(t, r, max, err + 256, 256) == -1); /* a failed reader stays failed */
    trace_close(t);
    return err;
}

static void expect_error(const char *text, int line, const char *reason, int good_txns)
{
    write_file(text);
    int txns;
    const char *err = read_all(LOCK_TXN_MAX, &txns);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, reason) || txns != good_txns) {
        fprintf(stderr, "expected '%s...%s' after %d transactions, got '%s' after %d\n", prefix, reason, good_txns, err, txns);
        CHECK(0);
    }
}

static void round_trip(int isolation, int warehouses, int home, uint64_t seed, int ntxn)
{
    tpcc_gen *g = tpcc_open(warehouses, home, isolation, seed);
    FILE *f = fopen(path, "w");
    CHECK(g && f);
    fputs("# round trip\n", f);
    CHECK(trace_write_lock_space(f, tpcc_lock_space(warehouses)) == 0);
    lock_request w[LOCK_TXN_MAX], r[LOCK_TXN_MAX];
    for (int i = 0; i < ntxn; i++) CHECK(trace_write_txn(f, w, tpcc_next(g, w, LOCK_TXN_MAX, NULL)) == 0);
    fclose(f);
    tpcc_close(g);
    g = tpcc_open(warehouses, home, isolation, seed); /* the same stream again */
    char err[512];
    trace_reader *t = trace_open(path, err, sizeof err);
    CHECK(t != NULL);
    if (!t) { fprintf(stderr, "%s\n", err); return; }
    CHECK_EQ_U64(trace_lock_space(t), tpcc_lock_space(warehouses));
    int same = 0;
    for (int i = 0; i < ntxn; i++) {
        int nw = tpcc_next(g, w, LOCK_TXN_MAX, NULL), nr = trace_next(t, r, LOCK_TXN_MAX, err, sizeof err);
        same += nw == nr && same_reqs(w, r, nw);
    }
    CHECK(same == ntxn);
    CHECK(trace_next(t, r, LOCK_TXN_MAX, err, sizeof err) == 0);
    CHECK(trace_next(t, r, LOCK_TXN_MAX, err, sizeof err) == 0);
    trace_close(t);
    tpcc_close(g);
}

int main(void)
{
    if (!mkdtemp(dir)) { perror(dir); return 1; }
    snprintf(path, sizeof path, "%s/t.trace", dir);

    round_trip(TPCC_SERIALIZABLE, 3, 1, 11, 3000);
    round_trip(TPCC_READ_COMMITTED, 2, 0, 12, 3000);

    /* hand-written: comments, trailing comments, blank lines, CRLF, tabs, every mode, no N line */
    write_file("# header\n\nB\nL 0 NL\nL 1 IS # intention\r\nL\t2\tIX\nL 3 S\nL 4 SIX\nL 18446744073709551615 X\nC\n\n# end\n");
    {
        char err[256];
        trace_reader *t = trace_open(path, err, sizeof err);
        CHECK(t != NULL);
        lock_request r[LOCK_TXN_MAX];
        CHECK(trace_lock_space(t) == 0);
        CHECK(trace_next(t, r, LOCK_TXN_MAX, err, sizeof err) == 6);
        for (int i = 0; i < 5; i++) CHECK(r[i].lock_id == (uint64_t)i && r[i].mode == (lock_mode)i);
        CHECK(r[5].lock_id == UINT64_MAX && r[5].mode == LOCK_X);
        CHECK(trace_next(t, r, LOCK_TXN_MAX, err, sizeof err) == 0);
        trace_close(t);
    }

    /* malformed input: file and line */
    expect_error("B\nL 1 Q\nC\n", 2, "unknown lock mode 'Q'", 0);
    expect_error("B\nL 1 s\nC\n", 2, "unknown lock mode 's'", 0);
    expect_error("L 1 S\n", 1, "L outside a transaction", 0);
    expect_error("# c\n\nB\nL 5 S\n", 4, "end of file inside the transaction begun on line 3", 0);
    expect_error("N 10\nB\nL 9 S\nC\nB\nL 10 S\nC\n", 6, "out of range [0, 10)", 1);
    expect_error("B\nL x1 S\nC\n", 2, "not a decimal number", 0);
    expect_error("B\nL -1 S\nC\n", 2, "not a decimal number", 0);
    expect_error("B\nL 18446744073709551616 S\nC\n", 2, "does not fit in 64 bits", 0);
    expect_error("B\nL 1 S S\nC\n", 2, "trailing text", 0);
    expect_error("B\nL 1\nC\n", 2, "L needs a lock id and a mode", 0);
    expect_error("B\nL 1 S\nB\n", 3, "B inside the transaction begun on line 1", 0);
    expect_error("B\nL 1 S\nC\nC\n", 4, "C outside a transaction", 1);
    expect_error("B\nC\n", 2, "has no locks", 0);
    expect_error("B\nL 7 S\nL 7 X\nC\n", 3, "requested twice in one transaction (first on line 2)", 0);
    expect_error("B\nL 1 S\nC\nN 5\n", 4, "N after the first transaction", 1);
    expect_error("N 5\nN 6\n", 2, "N given twice", 0);
    expect_error("N 0\n", 1, "not a positive lock space", 0);
    expect_error("N\n", 1, "N takes one value", 0);
    expect_error("B\nlock 1 S\nC\n", 2, "unknown keyword 'lock'", 0);
    expect_error("B x\n", 1, "trailing text after B", 0);
    /* binary data ends the reader on its line (a NUL byte would read as an empty line to fgets) */
    expect_error("B\nL 1 S\x07\nC\n", 2, "binary data (byte 0x07", 0);
    expect_error("# c\n\x1b[0m\n", 2, "binary data (byte 0x1b", 0);
    /* a trace cut short: its last line without a newline is refused, not read as a whole line */
    expect_error("B\nL 1 S\nL 12", 3, "the last line has no newline", 0);
    {
        char err[256];
        /* a device or a FIFO is refused before anything is read (reading would never end, or block) */
        trace_reader *t = trace_open("/dev/zero", err, sizeof err);
        CHECK(t == NULL && strstr(err, "/dev/zero: not a regular file (a character device)") != NULL);
        char fifo[300];
        snprintf(fifo, sizeof fifo, "%s/fifo.trace", dir);
        CHECK(mkfifo(fifo, 0600) == 0);
        t = trace_open(fifo, err, sizeof err);
        CHECK(t == NULL && strstr(err, "fifo.trace: not a regular file (a FIFO)") != NULL);
        unlink(fifo);
        FILE *f = fopen(path, "wb");
        fwrite("B\nL 1 S\n\0\nC\n", 1, 12, f);
        fclose(f);
        t = trace_open(path, err, sizeof err);
        lock_request r[LOCK_TXN_MAX];
        CHECK(t && trace_next(t, r, LOCK_TXN_MAX, err, sizeof err) == -1 && strstr(err, ":3: NUL byte") != NULL);
        trace_close(t);
    }
    {
        /* more than LOCK_TXN_MAX locks: the error is on the first lock too many */
        size_t cap = 20 * (LOCK_TXN_MAX + 4);
        char *big = malloc(cap), *p = big;
        p += sprintf(p, "# many\nB\n");
        for (int i = 0; i <= LOCK_TXN_MAX; i++) p += sprintf(p, "L %d X\n", i);
        sprintf(p, "C\n");
        char reason[64];
        snprintf(reason, sizeof reason, "has more than %d locks", LOCK_TXN_MAX);
        expect_error(big, 3 + LOCK_TXN_MAX, reason, 0);
        /* the caller's max is a limit too */
        write_file("B\nL 1 S\nL 2 S\nL 3 S\nC\n");
        int txns;
        const char *err = read_all(2, &txns);
        CHECK(strstr(err, ":4: transaction begun on line 1 has more than 2 locks") != NULL);
        /* an overlong line */
        p = big;
        p += sprintf(p, "B\nL 1 S\n# ");
        for (int i = 0; i < TRACE_LINE_MAX; i++) *p++ = 'x';
        sprintf(p, "\nC\n");
        expect_error(big, 3, "line longer than", 0);
        free(big);
    }
    {
        char err[512];
        snprintf(path, sizeof path, "%s/missing.trace", dir);
        CHECK(trace_open(path, err, sizeof err) == NULL);
        char want[300];
        snprintf(want, sizeof want, "%s: cannot open: No such file", path);
        CHECK(strncmp(err, want, strlen(want)) == 0);
    }
    /* the writer refuses what the reader would refuse */
    {
        lock_request r[2] = {{1, LOCK_S}, {2, (lock_mode)9}};
        FILE *f = fopen("/dev/null", "w");
        CHECK(trace_write_txn(f, r, 0) == -1);
        CHECK(trace_write_txn(f, r, LOCK_TXN_MAX + 1) == -1);
        CHECK(trace_write_txn(f, r, 2) == -1);
        CHECK(trace_write_txn(f, r, 1) == 0);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/t.trace", dir);
    unlink(path);
    rmdir(dir);
    CHECK_DONE();
}
