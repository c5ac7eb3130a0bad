/* The results CSV shared by every command (join, lock, membw, record; the job scripts and plots
 * read it): one schema, so that a campaign appends joins, lock runs and failed runs to one file. A
 * column that does not apply to a row stays empty. The columns are declared in docs/columns.md;
 * the build generates results_schema.c from that table (cmd/results_columns.py). */
#ifndef RMB_RESULTS_SCHEMA_H
#define RMB_RESULTS_SCHEMA_H
#include "bench/record.h"

extern const record_schema results_schema;

#endif
