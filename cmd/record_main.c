/* `rmabench record`: append one row of the shared CSV schema from a shell script, so that job
 * scripts record a run that failed (crash, timeout, wrong world size) in the same file and format
 * as the runs that succeeded. No MPI. Also prints the header, for tools that check a CSV's schema.
 * The row's status, exit_code and verification must agree as in every other row: "ok" with 0 and
 * PASS, "refused" with 2 and NONE (an algorithm of `join --algo both` that refused the run), anything
 * else with a non-zero exit code and FAIL or NONE (the run ended before verifying).
 *   rmabench record --output F --set col=value [--set col=value ...]
 *   rmabench record --header */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "bench/context.h"
#include "bench/record.h"
#include "bench/version.h"
#include "cmd/results_schema.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: rmabench record --output FILE --set COLUMN=VALUE [--set COLUMN=VALUE ...]\n"
               "       rmabench record --header      print the CSV header of this rmabench version\n"
               "Appends one whole row to FILE (header first when the file is new). Columns not set stay\n"
               "empty, except: timestamp (now), status (failed), verification (NONE unless status is ok),\n"
               "git_commit (this build), job_id ($SLURM_JOB_ID), host_cores (this host's), mpi_env (this\n"
               "environment's), oversubscribed and poll_yield (from ranks_per_host and host_cores, when given).\n"
               "status, exit_code and verification must agree: ok/0/PASS, refused/2/NONE, or another status with\n"
               "a non-zero exit_code and FAIL or NONE. FILE must be a regular file or a new one.\n");
}

/* The environment columns of a run that ended before writing its row, as the command would have
 * recorded them: the job script runs this in the environment it launched the run with, on a host
 * of the run; oversubscribed and poll_yield follow from ranks_per_host when it is given. */
static void fill_environment(record *rec)
{
    if (!*record_get(rec, "mpi_env")) {
        char *env = bench_mpi_env();
        record_set(rec, "mpi_env", "%s", env);
        free(env);
    }
    int cores = bench_online_cores();
    if (*record_get(rec, "host_cores")) cores = atoi(record_get(rec, "host_cores"));
    else record_set(rec, "host_cores", "%d", cores);
    char *end = NULL;
    const char *rph = record_get(rec, "ranks_per_host");
    long ranks = strtol(rph, &end, 10);
    if (!*rph || *end || ranks < 1 || ranks > INT_MAX || cores < 1) return;
    if (!*record_get(rec, "oversubscribed"))
        record_set(rec, "oversubscribed", "%s", bench_oversubscribed((int)ranks, cores) ? "yes" : "no");
    if (!*record_get(rec, "poll_yield"))
        record_set(rec, "poll_yield", "%s", bench_poll_yields((int)ranks, cores) ? "yes" : "no");
}

/* Defaults for what the caller did not say. */
static void fill_defaults(record *rec)
{
    if (!*record_get(rec, "timestamp")) {
        char ts[32];
        bench_timestamp(ts, sizeof ts);
        record_set(rec, "timestamp", "%s", ts);
    }
    if (!*record_get(rec, "status")) record_set(rec, "status", "failed");
    if (!*record_get(rec, "verification") && strcmp(record_get(rec, "status"), "ok") != 0)
        record_set(rec, "verification", "NONE");
    if (!*record_get(rec, "git_commit")) record_set(rec, "git_commit", "%s", RMB_GIT_COMMIT);
    const char *job = getenv("SLURM_JOB_ID");
    if (!*record_get(rec, "job_id") && job) record_set(rec, "job_id", "%s", job);
    fill_environment(rec);
}

/* 0 when status, exit_code and verification agree (the rule of every results row), else -1 with
 * the reason. */
static int check_outcome(const record *rec, char *err, size_t errlen)
{
    const char *status = record_get(rec, "status"), *code_in = record_get(rec, "exit_code"),
               *verification_in = record_get(rec, "verification");
    char *end = NULL;
    long rc = strtol(code_in, &end, 10);
    bool numeric = *code_in && *end == 0;
    bool known = !strcmp(verification_in, "PASS") || !strcmp(verification_in, "FAIL") || !strcmp(verification_in, "NONE");
    char code[OPT_SHOWN_MAX], verification[OPT_SHOWN_MAX], st[OPT_SHOWN_MAX]; /* as messages show them */
    opt_shown(code_in, code);
    opt_shown(verification_in, verification);
    status = opt_shown(status, st);
    if (!strcmp(status, "ok") && (!numeric || rc != 0 || strcmp(verification, "PASS") != 0))
        snprintf(err, errlen, "--set: status ok needs exit_code 0 and verification PASS (got '%s', '%s')", code, verification);
    else if (!known) snprintf(err, errlen, "--set: verification '%s' is not PASS, FAIL or NONE", verification);
    else if (!strcmp(status, "refused") && (!numeric || rc != 2 || strcmp(verification, "NONE") != 0))
        snprintf(err, errlen, "--set: status refused needs exit_code 2 and verification NONE (got '%s', '%s')", code,
                 verification);
    else if (!numeric) snprintf(err, errlen, "--set: exit_code '%s' is not an exit status (required)", code);
    else if (strcmp(status, "ok") != 0 && (rc == 0 || !strcmp(verification, "PASS")))
        snprintf(err, errlen, "--set: status %s needs a non-zero exit_code and verification FAIL or NONE (got %s, %s)",
                 status, code, verification);
    else return 0;
    return -1;
}

int record_main(int argc, char **argv)
{
    const char *output = NULL;
    record *rec = record_new(&results_schema);
    int rc = 2;
    char sh[OPT_SHOWN_MAX];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            rc = 0;
            goto out;
        } else if (strcmp(a, "--header") == 0) {
            char *h = record_header_line(&results_schema);
            printf("%s\n", h);
            free(h);
            rc = 0;
            goto out;
        } else if (strcmp(a, "--output") == 0 || strncmp(a, "--output=", 9) == 0) {
            output = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!output || !*output) { fprintf(stderr, "rmabench: --output: needs a file name\n"); goto out; }
        } else if (strcmp(a, "--set") == 0 || strncmp(a, "--set=", 6) == 0) {
            const char *kv = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
            const char *eq = kv ? strchr(kv, '=') : NULL;
            if (!eq || eq == kv) { fprintf(stderr, "rmabench: --set: expected COLUMN=VALUE, got '%s'\n", opt_shown(kv ? kv : "", sh)); goto out; }
            char col[128];
            snprintf(col, sizeof col, "%.*s", (int)(eq - kv), kv);
            if (!record_schema_has(&results_schema, col)) { fprintf(stderr, "rmabench: --set: '%s' is not a column of the results schema\n", opt_shown(col, sh)); goto out; }
            record_set(rec, col, "%s", eq + 1);
        } else {
            fprintf(stderr, "rmabench: %s: unknown flag (rmabench record --help)\n", opt_shown(a, sh));
            goto out;
        }
    }
    if (!output) { fprintf(stderr, "rmabench: --output: required (the results CSV to append to)\n"); goto out; }
    fill_defaults(rec);
    char err[1200];
    if (check_outcome(rec, err, sizeof err)) {
        fprintf(stderr, "rmabench: %s\n", err);
        goto out;
    }
    if (record_check_path(&results_schema, output, err, sizeof err) || record_append(rec, output, err, sizeof err)) {
        fprintf(stderr, "rmabench: --output: %s\n", err);
        goto out;
    }
    rc = 0;
out:
    record_free(rec);
    return rc;
}
