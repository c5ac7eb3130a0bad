/* Fuzz target: the lock trace format (locking/workloads/trace.h). The input is a trace file. The
 * first byte also picks the caller's maximum transaction size. Invariants: every transaction
 * trace_next returns has 1..max locks, valid modes, no lock twice and, when the trace declares a
 * lock space, ids inside it; an error carries "FILE:LINE: reason" and every later call fails
 * too; the reader ends (no more calls than lines); a file with a NUL or control byte never reads to
 * its end. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "locking/workloads/trace.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_scratch_write(data, size);
    const char *path = fuzz_scratch_path();
    int max = size ? 1 + data[0] % LOCK_TXN_MAX : LOCK_TXN_MAX;
    char err[512] = "";
    trace_reader *t = trace_open(path, err, sizeof err);
    if (!t) {
        fuzz_check_error(err, "trace_open");
        FUZZ_ASSERT(strncmp(err, path, strlen(path)) == 0, "open error does not name the file: %s", err);
        return 0;
    }
    bool binary = false;
    for (size_t i = 0; i < size; i++)
        binary |= data[i] < 0x20 ? data[i] != '\t' && data[i] != '\n' && data[i] != '\r' : data[i] == 0x7f;
    uint64_t space = trace_lock_space(t);
    lock_request reqs[LOCK_TXN_MAX];
    size_t lines = 1;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    size_t calls = 0;
    for (;;) {
        FUZZ_ASSERT(calls++ <= lines, "more transactions than lines (%zu)", lines);
        int n = trace_next(t, reqs, max, err, sizeof err);
        FUZZ_ASSERT(n != 0 || !binary, "a trace with a NUL or control byte read to its end");
        if (n == 0) break;
        if (n < 0) {
            fuzz_check_error(err, "trace_next");
            FUZZ_ASSERT(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':',
                        "error is not FILE:LINE: %s", err);
            char err2[512] = "";
            FUZZ_ASSERT(trace_next(t, reqs, max, err2, sizeof err2) < 0, "a call after an error succeeded");
            break;
        }
        FUZZ_ASSERT(n >= 1 && n <= max, "transaction of %d locks, max %d", n, max);
        for (int i = 0; i < n; i++) {
            FUZZ_ASSERT(reqs[i].mode >= LOCK_NL && reqs[i].mode < LOCK_NMODES, "mode %d", (int)reqs[i].mode);
            FUZZ_ASSERT(space == 0 || reqs[i].lock_id < space, "id %llu outside lock space %llu",
                        (unsigned long long)reqs[i].lock_id, (unsigned long long)space);
            for (int j = 0; j < i; j++)
                FUZZ_ASSERT(reqs[j].lock_id != reqs[i].lock_id, "lock %llu twice", (unsigned long long)reqs[i].lock_id);
        }
    }
    trace_close(t);
    return 0;
}
