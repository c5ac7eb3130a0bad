/* The parameter file: round trip through params_write (only over a regular file), every error path
 * with its line number (bounds, binary data, endless lines), --set overrides and the units. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/check.h"
#include "model/params.h"
#include "model/profile.h"

static char dir[] = "/tmp/rmb-params-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (text) { /* NULL: only the path */
        FILE *f = fopen(path, "w");
        fputs(text, f);
        fclose(f);
    }
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

static bool file_has(const char *path, const char *needle)
{
    static char buf[1 << 16]; /* the whole file: every parameter has a line */
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, needle) != NULL;
}

/* A parameter's spread over its rounds: the warning above 10% (and not at or below), its text, and
 * the file (spread on the parameter's line after its unit, a warning comment) read back. */
static void test_spread(void)
{
    model_params p;
    params_init(&p);
    char buf[400], err[600];
    CHECK(params_spread_rel(&p, MP_P_merge) < 0 && params_spread_warning(&p, MP_P_merge, buf, sizeof buf) == 0);
    const double calm[] = {100e6, 104e6, 96e6}, wild[] = {130e6, 100e6, 90e6};
    params_put(&p, MP_P_scan, 100e6);
    params_put_spread(&p, MP_P_scan, calm, 3); /* (104 - 96) / 100 = 8% */
    CHECK(fabs(params_spread_rel(&p, MP_P_scan) - 0.08) < 1e-12);
    CHECK(params_spread_warning(&p, MP_P_scan, buf, sizeof buf) == 0 && buf[0] == 0);
    params_put(&p, MP_P_merge, 100e6);
    params_put_spread(&p, MP_P_merge, wild, 3); /* (130 - 90) / 100 = 40% */
    CHECK(params_spread_warning(&p, MP_P_merge, buf, sizeof buf) == 1);
    CHECK(strstr(buf, "P_merge spread 40.0% over 3 rounds (min 90, median 100, max 130) Mtuples/s, above 10%") == buf);
    const double edge[] = {95e6, 100e6, 105e6}; /* exactly 10%: not above */
    params_put_spread(&p, MP_P_match, edge, 3);
    params_put(&p, MP_P_match, 100e6);
    CHECK(params_spread_warning(&p, MP_P_match, buf, sizeof buf) == 0);
    const double shown_10[] = {94.98e6, 100e6, 105.02e6}, shown_10_1[] = {94.97e6, 100e6, 105.08e6};
    params_put_spread(&p, MP_P_match, shown_10, 3); /* 10.04%, shown as 10.0%: not above, as shown */
    CHECK(params_spread_warning(&p, MP_P_match, buf, sizeof buf) == 0);
    params_put_spread(&p, MP_P_match, shown_10_1, 3); /* 10.11%, shown as 10.1%: above */
    CHECK(params_spread_warning(&p, MP_P_match, buf, sizeof buf) == 1 && strstr(buf, "spread 10.1% "));
    params_put_spread(&p, MP_P_match, edge, 3);
    params_put_spread(&p, MP_P_build, wild, 1); /* one round: no spread */
    CHECK(params_spread_rel(&p, MP_P_build) < 0);
    const char *out = write_file("spread.txt", NULL);
    CHECK(params_write(&p, out, true, err, sizeof err) == 0);
    CHECK(file_has(out, "P_scan = 100  # Mtuples/s  spread 8.0% over 3 rounds (min 96, median 100, max 104); "));
    CHECK(file_has(out, "# warning: P_merge spread 40.0%"));
    CHECK(!file_has(out, "# warning: P_scan") && !file_has(out, "# warning: P_match"));
    model_params q;
    params_init(&q);
    CHECK(params_load(&q, out, err, sizeof err) == 0 && q.v[MP_P_merge] == 100e6); /* the comment keeps the unit first */
}

/* --set taken out of argv (both spellings, the rest in order) and applied; the default profile fills
 * only what is needed and unset, and names itself in the source. */
static void test_sets_and_profile(void)
{
    char *argv[] = {"rmabench", "lock", "--set", "t_queue=1", "--model", "f.txt", "--set=t_vote=2", "--seed", "3", NULL};
    char *rest[10], err[600];
    params_overrides sets;
    CHECK(params_take_sets(9, argv, 2, rest, &sets, err, sizeof err) == 6 && sets.n == 2);
    CHECK(strcmp(rest[2], "--model") == 0 && strcmp(rest[3], "f.txt") == 0 && strcmp(rest[4], "--seed") == 0 && !rest[6]);
    char *dangling[] = {"rmamodel", "lock", "--set", NULL};
    CHECK(params_take_sets(3, dangling, 2, rest, &sets, err, sizeof err) == -1 && strcmp(err, "--set: needs NAME=VALUE") == 0);
    model_params p;
    params_init(&p);
    snprintf(p.source, sizeof p.source, "params.txt");
    params_overrides good = {.v = {"t_local_comm=0.5", "bw_put_intra=3"}, .n = 2};
    CHECK(params_apply_sets(&p, &good, err, sizeof err) == 0 && p.v[MP_t_local_comm] == 0.5e-6);
    params_overrides bad = {.v = {"t_local_comm=0.5", "t_nope=1"}, .n = 2};
    CHECK(params_apply_sets(&p, &bad, err, sizeof err) == -1 && strcmp(err, "--set: unknown parameter 't_nope'") == 0);
    /* nothing needed that is unset: nothing filled */
    const int local[] = {MP_t_local_comm, -1}, remote[] = {MP_t_local_comm, MP_t_remote_comm, MP_bw_put_intra, -1};
    char note[700];
    CHECK(params_apply_profile(&p, local, note, sizeof note) == 0 && note[0] == 0 && !p.set[MP_t_remote_comm]);
    CHECK(params_apply_profile(&p, remote, note, sizeof note) == 1 && !p.set[MP_bw_host]);
    CHECK(fabs(p.v[MP_t_remote_comm] - 3.1e-6) < 1e-15 && p.defaulted[MP_t_remote_comm]); /* 0.5 + 2.6 us */
    CHECK(strstr(note, "default profile " PARAMS_PROFILE_NAME) && strstr(note, "t_remote_comm = 3.1 us"));
    CHECK(strstr(p.source, "params.txt + --set + profile thesis (t_remote_comm)") == p.source);
    /* nothing given: t_local_comm from the profile too, then bw_host */
    model_params e;
    params_init(&e);
    const int all[] = {MP_bw_host, MP_t_remote_comm, -1};
    CHECK(params_apply_profile(&e, all, note, sizeof note) == 3);
    CHECK(e.v[MP_bw_host] == 6.0e9 && fabs(e.v[MP_t_remote_comm] - 5.6e-6) < 1e-15 && e.v[MP_t_local_comm] == 3.0e-6);
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
    CHECK(params_write(&p, out, true, err, sizeof err) == 0);
    model_params q;
    params_init(&q);
    CHECK(params_load(&q, out, err, sizeof err) == 0);
    for (int i = 0; i < MP_COUNT; i++) {
        CHECK(q.set[i] == p.set[i]);
        if (p.set[i]) CHECK(fabs(q.v[i] - p.v[i]) <= 1e-5 * p.v[i]);
    }
    CHECK(strcmp(q.info[MI_hostnames], "a;b") == 0);
    /* params_write replaces only a regular file (through a symbolic link: the file it names), and
     * leaves nothing beside what it refused */
    char fifo[300], sub[300], link[300];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    CHECK(mkfifo(fifo, 0600) == 0 && mkdir(sub, 0700) == 0 && symlink(out, link) == 0);
    CHECK(params_write(&p, fifo, true, err, sizeof err) == -1 && strstr(err, "fifo: not a regular file (a FIFO)"));
    CHECK(params_write(&p, sub, true, err, sizeof err) == -1 && strstr(err, "sub: not a regular file (a directory)"));
    struct stat st;
    CHECK(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(params_write(&p, link, true, err, sizeof err) == 0);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    params_init(&q);
    CHECK(params_load(&q, out, err, sizeof err) == 0 && q.set[MP_t_win_alloc_per_byte]);
    char listing[400];
    snprintf(listing, sizeof listing, "ls -A %s | grep -c tmp", dir);
    CHECK(system(listing) != 0); /* grep -c found no temporary file: exit 1 */
    /* errors name the file and the line */
    expect_error("P_scan = 1\nnonsense line\n", "t.txt:2: expected 'name = value'");
    expect_error("# ok\nP_bogus = 3\n", "t.txt:2: unknown parameter 'P_bogus'");
    expect_error("P_scan = 1\n\nP_scan = 2\n", "t.txt:3: P_scan given twice");
    expect_error("P_scan = abc\n", "t.txt:1: P_scan: 'abc' is not a number");
    expect_error("P_scan = \n", "t.txt:1: P_scan: missing value");
    expect_error("P_scan = -5\n", "t.txt:1: P_scan: -5 is not positive");
    /* what the equations divide by is positive; shapes have their least values */
    expect_error("# c\nP_probe = 0\n", "t.txt:2: P_probe: 0 is not positive (the model divides by it)");
    expect_error("bw_host = 0\n", "t.txt:1: bw_host: 0 is not positive");
    expect_error("t_clean_up = 0\n", "t.txt:1: t_clean_up: 0 is not positive");
    expect_error("wire_tuple_bytes = 0.5\n", "t.txt:1: wire_tuple_bytes: 0.5 is below 1");
    expect_error("merge_fanin = 1\n", "t.txt:1: merge_fanin: 1 is below 2");
    expect_error("t_queue = -1\n", "t.txt:1: t_queue: -1 is negative");
    expect_error("merge_depth = 1e12\n", "t.txt:1: merge_depth: 1e+12 is not a pass count in [0, 64]");
    expect_error("P_scan = inf\n", "t.txt:1: P_scan: 'inf' is not a number");
    CHECK(load("t_queue = 0\nt_win_alloc_fixed = 0\nradix_local_passes = 0\nwire_tuple_bytes = 1\n", err, sizeof err) == 0);
    CHECK(params_set(&p, "P_match=0", err, sizeof err) == -1 && strstr(err, "P_match: 0 is not positive"));
    /* binary data and endless lines end the reader on their line */
    FILE *nul = fopen(write_file("nul.txt", ""), "w");
    fwrite("P_scan = 1\nP_build = 2\0\n", 1, 23, nul);
    fclose(nul);
    model_params r0;
    params_init(&r0);
    CHECK(params_load(&r0, write_file("nul.txt", NULL), err, sizeof err) == -1 && strstr(err, "nul.txt:2: NUL byte"));
    expect_error("P_scan = 1\n\x01\x02\n", "t.txt:2: binary data (byte 0x01");
    static char longline[5000];
    memset(longline, 'x', sizeof longline - 1);
    expect_error(longline, "t.txt:1: line longer than 2047 characters");
    /* a device is refused before it is read; a file cut mid-value on its last line is refused */
    CHECK(params_load(&r0, "/dev/zero", err, sizeof err) == -1 && strstr(err, "/dev/zero: not a regular file (a character device)"));
    expect_error("P_scan = 225\nP_build = 2", "t.txt:2: the last line has no newline");
    /* the plausibility table: absurd values and fractional counts, naming the parameter and its range */
    expect_error("rank_spread = 1e300\n", "t.txt:1: rank_spread: 1e+300 is outside its plausible range [0, 10] fraction");
    expect_error("P_build = 1e308\n", "t.txt:1: P_build: 1e+308 is outside its plausible range [0, 1e+07] Mtuples/s");
    expect_error("cores_per_host = 2.5\n", "t.txt:1: cores_per_host: 2.5 is not a whole number of cores");
    expect_error("t_vote = 1e12\n", "t.txt:1: t_vote: 1e+12 is outside its plausible range [0, 1e+08] us");
    CHECK(load("cores_per_host = 64\nrank_spread = 0.05\nP_build = 900\n", err, sizeof err) == 0);
    expect_error("P_scan = 5 # GB/s\n", "t.txt:1: P_scan: unit 'GB/s', expected 'Mtuples/s'");
    expect_error("P scan = 5\n", "t.txt:1: expected 'name = value'");
    CHECK(load("", err, sizeof err) == 0);
    model_params r;
    params_init(&r);
    CHECK(params_load(&r, "/nonexistent/x.txt", err, sizeof err) == -1 && strstr(err, "/nonexistent/x.txt: cannot open"));
    /* params_require names the missing parameter and how to give it */
    const int need[] = {MP_P_scan, MP_P_merge, -1};
    CHECK(params_require(&q, need, err, sizeof err) == -1 && strstr(err, "P_merge") && strstr(err, "--set P_merge=VALUE"));
    test_spread();
    test_sets_and_profile();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    CHECK_DONE();
}
