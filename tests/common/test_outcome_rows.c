/* A results row says one thing three times: status, exit_code and verification agree (ok/0/PASS,
 * failed/1/FAIL, or refused/2/NONE for an algorithm --algo both refused), in the rows the join and
 * lock commands write with their own record functions, a failed warm-up's row included (its repeat_index negative, so that plots leave it out). One
 * rank (the record functions are collective). Every row records the environment: this host's cores,
 * not oversubscribed, no yielding, the MPI environment of bench_mpi_env. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "cmd/join/join_cmd.h"
#include "cmd/lock/lock_cmd.h"

/* Splits one CSV line (RFC 4180, no embedded newlines) into at most max fields, in place. */
static int split(char *line, char **field, int max)
{
    int n = 0;
    char *out = line;
    for (char *c = line; n < max;) {
        field[n++] = out;
        int quoted = *c == '"';
        if (quoted) c++;
        for (; *c && (quoted || *c != ','); c++) {
            if (quoted && *c == '"') {
                if (c[1] != '"') { quoted = 0; continue; }
                c++;
            }
            *out++ = *c;
        }
        int more = *c == ',';
        *out++ = 0;
        if (!more) break;
        c++;
    }
    return n;
}

static int column(char **hdr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(hdr[i], name) == 0) return i;
    return -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char dir[] = "/tmp/rmb-outcome-XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/results.csv", dir);

    static join_session js;
    bench_ctx_init(&js.ctx, MPI_COMM_WORLD);
    join_default_opts(&js.o);
    js.o.output = path;
    snprintf(js.command, sizeof js.command, "test_outcome_rows join");
    join_run_result res = {.algo_id = ALGO_RADIX, .index = -1, .pass = false}; /* a warm-up that failed */
    CHECK(join_record_run(&js, &res) == 0);
    res = (join_run_result){.algo_id = ALGO_RADIX, .index = 0, .pass = true};
    CHECK(join_record_run(&js, &res) == 0);
    js.refused[0] = &sortmerge_join_algo;
    js.nrefused = 1;
    snprintf(js.refusal[0], sizeof js.refusal[0], "--run-size: a reason");
    CHECK(join_record_refused(&js, 0) == 0);

    static lock_session ls;
    ls.ctx = js.ctx;
    ls.o.output = path;
    snprintf(ls.command, sizeof ls.command, "test_outcome_rows lock");
    lock_totals t = {0};
    lock_figures f = {.elapsed = 1};
    CHECK(lock_record_run(&ls, &t, &f, (lock_verdict){.pass = false}, 1) == 1);
    CHECK(lock_record_run(&ls, &t, &f, (lock_verdict){.pass = true}, 0) == 0);

    /* what the file says, read back */
    const char *want[][4] = {{"join", "failed", "1", "FAIL"}, {"join", "ok", "0", "PASS"}, {"join", "refused", "2", "NONE"},
                             {"lock", "failed", "1", "FAIL"}, {"lock", "ok", "0", "PASS"}};
    const int nwant = (int)(sizeof want / sizeof want[0]);
    FILE *in = fopen(path, "r");
    CHECK(in != NULL);
    static char hline[1 << 16], line[1 << 16];
    static char *hdr[512], *fld[512];
    CHECK(in && fgets(hline, sizeof hline, in));
    hline[strcspn(hline, "\n")] = 0;
    int nh = split(hline, hdr, 512);
    int cb = column(hdr, nh, "bench"), cs = column(hdr, nh, "status"), ce = column(hdr, nh, "exit_code"),
        cv = column(hdr, nh, "verification"), ci = column(hdr, nh, "repeat_index");
    CHECK(cb >= 0 && cs >= 0 && ce >= 0 && cv >= 0 && ci >= 0);
    /* every row, refused ones too, records the environment (bench/provenance.h) */
    const char *env_cols[] = {"host_cores", "oversubscribed", "poll_yield", "mpi_env"};
    int cenv[4];
    for (int k = 0; k < 4; k++) CHECK((cenv[k] = column(hdr, nh, env_cols[k])) >= 0);
    char *mpi_env = bench_mpi_env(), cores[16];
    snprintf(cores, sizeof cores, "%d", bench_online_cores());
    int rows = 0;
    while (in && fgets(line, sizeof line, in) && rows < nwant) {
        line[strcspn(line, "\n")] = 0;
        CHECK(split(line, fld, 512) == nh);
        const char *got[4] = {fld[cb], fld[cs], fld[ce], fld[cv]};
        for (int k = 0; k < 4; k++)
            if (strcmp(got[k], want[rows][k]) != 0) {
                fprintf(stderr, "row %d: %s is '%s', expected '%s'\n", rows + 1, hdr[(int[]){cb, cs, ce, cv}[k]], got[k],
                        want[rows][k]);
                check_failures++;
            }
        if (rows < 2) CHECK(atoi(fld[ci]) == (rows == 0 ? -1 : 0)); /* the warm-up's index is negative */
        if (cenv[0] >= 0 && cenv[3] >= 0) {
            /* one rank: never oversubscribed, never yielding */
            const char *env_want[4] = {cores, "no", "no", mpi_env};
            for (int k = 0; k < 4; k++)
                if (strcmp(fld[cenv[k]], env_want[k]) != 0) {
                    fprintf(stderr, "row %d: %s is '%s', expected '%s'\n", rows + 1, env_cols[k], fld[cenv[k]], env_want[k]);
                    check_failures++;
                }
        }
        rows++;
    }
    CHECK(rows == nwant);
    free(mpi_env);
    if (in) fclose(in);
    unlink(path);
    rmdir(dir);
    if (check_failures == 0)
        printf("outcome rows: %d rows agree (status, exit_code, verification) and record the environment\n", rows);
    bench_ctx_free(&js.ctx);
    MPI_Finalize();
    CHECK_DONE();
}
