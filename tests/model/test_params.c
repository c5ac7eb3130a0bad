/* The parameter file: round trip through params_write, every error path with its line number,
 * --set overrides and the units. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "model/params.h"

static char dir[] = "/tmp/rmb-params-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* Loads text; returns 0/-1 and leaves the message in err. */
static int load(const char *text, char *err, size_t len)
{
    model_params p;
    params_init(&p);
    return params_load(&p, write_file("t.txt", text), err, len);
}

static void expect_error(const char *text, const char *line_and_reason)
{
    char err[600] = "";
    CHECK(load(text, err, sizeof err) == -1);
    if (!strstr(err, line_and_reason)) {
        fprintf(stderr, "error '%s' lacks '%s'\n", err, line_and_reason);
        check_failures++;
    }
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    model_params p;
    params_init(&p);
    char err[600];
    /* a well-formed file with comments, blank lines, units and a text field */
    const char *good = write_file("good.txt", "# header\n\nmpi_library = Open MPI 4.1.4\n"
                                              "P_scan = 225  # Mtuples/s  histogram\n"
                                              "bw_host=12.48\n"
                                              "t_vote = 8.5 # us\n");
    CHECK(params_load(&p, good, err, sizeof err) == 0);
    CHECK(p.set[MP_P_scan] && p.v[MP_P_scan] == 225e6);
    CHECK(p.set[MP_bw_host] && p.v[MP_bw_host] == 12.48e9);
    CHECK(p.set[MP_t_vote] && p.v[MP_t_vote] > 8.4999e-6 && p.v[MP_t_vote] < 8.5001e-6);
    CHECK(!p.set[MP_P_merge]);
    CHECK(strcmp(p.info[MI_mpi_library], "Open MPI 4.1.4") == 0);
    /* --set overrides in file units */
    CHECK(params_set(&p, "P_scan=300", err, sizeof err) == 0 && p.v[MP_P_scan] == 300e6);
    CHECK(params_set(&p, "P_nope=1", err, sizeof err) == -1 && strstr(err, "unknown parameter 'P_nope'"));
    CHECK(params_set(&p, "P_scan", err, sizeof err) == -1 && strstr(err, "NAME=VALUE"));
    CHECK(params_set(&p, "P_scan=fast", err, sizeof err) == -1 && strstr(err, "not a number"));
    /* round trip */
    params_put(&p, MP_t_win_alloc_per_byte, 3.5e-10);
    snprintf(p.info[MI_hostnames], sizeof p.info[MI_hostnames], "a;b");
    char out[300];
    snprintf(out, sizeof out, "%s/out.txt", dir);
    CHECK(params_write(&p, out, err, sizeof err) == 0);
    model_params q;
    params_init(&q);
    CHECK(params_load(&q, out, err, sizeof err) == 0);
    for (int i = 0; i < MP_COUNT; i++) {
        CHECK(q.set[i] == p.set[i]);
        if (p.set[i]) CHECK(fabs(q.v[i] - p.v[i]) <= 1e-5 * p.v[i]);
    }
    CHECK(strcmp(q.info[MI_hostnames], "a;b") == 0);
    /* errors name the file and the line */
    expect_error("P_scan = 1\nnonsense line\n", "t.txt:2: expected 'name = value'");
    expect_error("# ok\nP_bogus = 3\n", "t.txt:2: unknown parameter 'P_bogus'");
    expect_error("P_scan = 1\n\nP_scan = 2\n", "t.txt:3: P_scan given twice");
    expect_error("P_scan = abc\n", "t.txt:1: P_scan: 'abc' is not a number");
    expect_error("P_scan = \n", "t.txt:1: P_scan: missing value");
    expect_error("P_scan = -5\n", "t.txt:1: P_scan: -5 is negative");
    expect_error("P_scan = 5 # GB/s\n", "t.txt:1: P_scan: unit 'GB/s', expected 'Mtuples/s'");
    expect_error("P scan = 5\n", "t.txt:1: expected 'name = value'");
    CHECK(load("", err, sizeof err) == 0);
    model_params r;
    params_init(&r);
    CHECK(params_load(&r, "/nonexistent/x.txt", err, sizeof err) == -1 && strstr(err, "/nonexistent/x.txt: cannot open"));
    /* params_require names the missing parameter and how to give it */
    const int need[] = {MP_P_scan, MP_P_merge, -1};
    CHECK(params_require(&q, need, err, sizeof err) == -1 && strstr(err, "P_merge") && strstr(err, "--set P_merge=VALUE"));
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    CHECK_DONE();
}
