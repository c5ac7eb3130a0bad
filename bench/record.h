/* One CSV row per run, appended whole (a single write on an O_APPEND descriptor, then fsync).
 * Every benchmark shares one schema, so that a campaign can append joins, lock runs and failed
 * runs to one results.csv; columns that do not apply stay empty. The header is written once,
 * together with the first row, when the file is new; an existing file whose header differs is
 * refused rather than mixed. MPI-free. */
#ifndef RMB_RECORD_H
#define RMB_RECORD_H
#include <stddef.h>

typedef struct record record;

record *record_new(void);
void record_free(record *r);

/* Set a column by name (printf-style). An unknown column name is a programming error: abort. */
void record_set(record *r, const char *column, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 0 when the column exists in the schema. */
int record_has_column(const char *column);
const char *record_get(const record *r, const char *column);

/* Number of columns and their names, in file order. */
int record_ncolumns(void);
const char *record_column(int i);

/* Append the row to path. Returns 0, or -1 with a one-line reason in err ("FILE: reason"). */
int record_append(const record *r, const char *path, char *err, size_t errlen);

/* Check, without writing, that path can take rows of this schema (exists with the same header, or
 * can be created). Run it before the benchmark so that a bad --output fails before any work. */
int record_check_path(const char *path, char *err, size_t errlen);

/* The header line (no newline) and a row's CSV text (no newline), for tests. Caller frees. */
char *record_header_line(void);
char *record_row_line(const record *r);

#endif
