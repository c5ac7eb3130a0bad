/* One CSV row per run, appended whole (a single write on an O_APPEND descriptor, then fsync).
 * The schema (the column names, in file order) belongs to the caller: the commands share one
 * (cmd/results_schema.h), so that a campaign can append joins, lock runs and failed runs to one
 * results.csv; columns that do not apply stay empty. The header is written once,
 * together with the first row, when the file is new; an existing file whose header differs is
 * refused rather than mixed. MPI-free. */
#ifndef RMB_RECORD_H
#define RMB_RECORD_H
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int n;
    const char *const *columns;
} record_schema;

typedef struct record record;

record *record_new(const record_schema *s);
void record_free(record *r);
const record_schema *record_schema_of(const record *r);

/* Set a column by name (printf-style). An unknown column name is a programming error: abort. */
void record_set(record *r, const char *column, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool record_schema_has(const record_schema *s, const char *column);
/* The value set for column ("" when not set or not in the schema). */
const char *record_get(const record *r, const char *column);

/* Append the row to path. Returns 0, or -1 with a one-line reason in err ("FILE: reason") and the
 * file as it was. Only a regular file (or a new one) is written (bench/output_path.h). */
int record_append(const record *r, const char *path, char *err, size_t errlen);

/* Check, without writing, that path can take rows of this schema (a regular file with the same
 * header, or a new file in a writable directory; bench/output_path.h). Run it before the benchmark
 * so that a bad --output fails before any work. */
int record_check_path(const record_schema *s, const char *path, char *err, size_t errlen);

/* The header line (no newline) and a row's CSV text (no newline), for tests. Caller frees. */
char *record_header_line(const record_schema *s);
char *record_row_line(const record *r);

#endif
