#include "bench/provenance.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/version.h"

void provenance_columns(record *rec, const bench_ctx *ctx, const char *bench, const char *command, int64_t seed)
{
    char ts[32];
    bench_timestamp(ts, sizeof ts);
    record_set(rec, "timestamp", "%s", ts);
    record_set(rec, "bench", "%s", bench);
    const char *job = getenv("SLURM_JOB_ID");
    record_set(rec, "job_id", "%s", job ? job : "");
    record_set(rec, "git_commit", "%s", RMB_GIT_COMMIT);
    record_set(rec, "mpi_library", "%s", ctx->mpi_library);
    record_set(rec, "mpi_version", "%s", ctx->mpi_version);
    record_set(rec, "hosts", "%d", ctx->hosts);
    record_set(rec, "ranks", "%d", ctx->size);
    record_set(rec, "ranks_per_host", "%d", ctx->ranks_per_host);
    record_set(rec, "hostnames", "%s", ctx->hostnames);
    record_set(rec, "host_cores", "%d", ctx->host_cores_min);
    record_set(rec, "oversubscribed", "%s", ctx->any_oversubscribed ? "yes" : "no");
    record_set(rec, "poll_yield", "%s", ctx->any_poll_yield ? "yes" : "no");
    char *env = bench_mpi_env();
    record_set(rec, "mpi_env", "%s", env);
    free(env);
    record_set(rec, "seed", "%" PRId64, seed);
    record_set(rec, "command", "%s", command);
}

void provenance_outcome(record *rec, bool pass)
{
    record_set(rec, "status", "%s", pass ? "ok" : "failed");
    record_set(rec, "exit_code", "%d", pass ? 0 : 1);
    record_set(rec, "verification", "%s", pass ? "PASS" : "FAIL");
}

void provenance_refused(record *rec)
{
    record_set(rec, "status", "refused");
    record_set(rec, "exit_code", "2");
    record_set(rec, "verification", "NONE");
}

void provenance_command_line(int argc, char **argv, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < argc; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
    }
}
