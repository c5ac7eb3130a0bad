/* What makes a result row reproducible, set the same way by every command: when and where it ran
 * (timestamp, Slurm job, hosts, ranks per host, host names, cores), with what (git commit, MPI
 * library and version, the environment that tunes it) and how (the command line, the seed,
 * oversubscription and polling). */
#ifndef RMB_PROVENANCE_H
#define RMB_PROVENANCE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/context.h"
#include "bench/record.h"

/* The columns timestamp, bench, job_id, git_commit, mpi_library, mpi_version, hosts, ranks,
 * ranks_per_host, hostnames, seed and command, and the environment that changes performance:
 * host_cores, oversubscribed, poll_yield and mpi_env (bench_ctx_print_environment). */
void provenance_columns(record *rec, const bench_ctx *ctx, const char *bench, const char *command, int64_t seed);
/* status, exit_code and verification of a run that reached its verification, from its verdict
 * alone so that they cannot disagree: "ok"/0/PASS or "failed"/1/FAIL (1 is the commands' exit
 * status for a failed verification). Rows of runs that ended before verifying are written by
 * `rmabench record` (cmd/record_main.c): status failed|timeout|..., their exit status, NONE. */
void provenance_outcome(record *rec, bool pass);
/* The outcome of a run that its command refused before running it while running others (rmabench
 * join --algo both: an algorithm whose plan refused the size or flags): refused/2/NONE, 2 being
 * the status of refused input. */
void provenance_refused(record *rec);
/* argv joined by spaces (truncated to len). */
void provenance_command_line(int argc, char **argv, char *buf, size_t len);

#endif
