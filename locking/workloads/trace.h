/* Lock traces: a text file of transactions, each the list of locks it takes in order. Written by
 * `rmabench lock-trace`, replayed by the `trace` workload of `rmabench lock`. MPI-free.
 *
 * Format (version 1), one item per line, tokens separated by spaces or tabs:
 *   # text           comment; a '#' also ends any other line (trailing comment). Blank lines are ok.
 *   N <lock_space>   optional, at most once, before the first transaction: lock ids lie in
 *                    [0, lock_space); without it any 64-bit id is accepted.
 *   B                begin of a transaction
 *   L <id> <mode>    the transaction requests lock <id> (decimal) in <mode>: NL IS IX S SIX X
 *   C                end of the transaction (it commits; the replayer releases all its locks)
 * Example:
 *   # rmabench lock trace
 *   N 17000000
 *   B
 *   L 0 IX
 *   L 1 S
 *   C
 * Fail-safe rules, each an error "FILE:LINE: reason": an unknown keyword or mode, a missing or
 * non-decimal id, an id outside [0, lock_space), trailing text, L or C outside a transaction, B
 * inside one, a transaction with no locks or with more than LOCK_TXN_MAX (or the caller's max)
 * locks, the same id twice in one transaction (lock upgrades are not part of the format: a
 * transaction requests each lock once, in the strongest mode it needs), N after the first B or
 * twice, a line longer than TRACE_LINE_MAX characters, a NUL byte or another control character
 * than tab and CR (binary data: /dev/zero, /dev/urandom end on their first line), and end of file
 * inside a transaction. */
#ifndef RMB_TRACE_H
#define RMB_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "locking/workloads/workload.h"

#define TRACE_LINE_MAX 255

typedef struct trace_reader trace_reader;

/* NULL + "FILE: reason" in err when the file cannot be opened or its header is malformed
 * ("FILE:LINE: reason"). */
trace_reader *trace_open(const char *path, char *err, size_t errlen);
/* Next transaction: >0 locks, 0 at the end of the file, -1 on an error "FILE:LINE: reason"
 * (every later call returns -1 too). */
int trace_next(trace_reader *t, lock_request *reqs, int max, char *err, size_t errlen);
/* The N line's lock space, or 0 when the trace has none. */
uint64_t trace_lock_space(const trace_reader *t);
void trace_close(trace_reader *t);

/* One transaction (B, its L lines, C). 0, or -1 when the write failed (errno set) or n is not in
 * [1, LOCK_TXN_MAX] or a mode is invalid. */
int trace_write_txn(FILE *f, const lock_request *reqs, int n);
/* The optional N line (write it before the first transaction). 0 or -1. */
int trace_write_lock_space(FILE *f, uint64_t lock_space);

#endif
