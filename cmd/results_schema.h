/* The results CSV shared by every command (join, lock, record; the job scripts and plots read it):
 * one schema, so that a campaign appends joins, lock runs and failed runs to one file. A column
 * that does not apply to a row stays empty. */
#ifndef RMB_RESULTS_SCHEMA_H
#define RMB_RESULTS_SCHEMA_H
#include "bench/record.h"

extern const record_schema results_schema;

#endif
