/* CSV records: header once, whole rows appended, quoting, a foreign header refused, errors name the
 * file, only regular files written. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "bench/record.h"
#include "cmd/results_schema.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* record_append under RLIMIT_FSIZE = limit, in a child: 0 when it failed with EFBIG's message. */
static int limited_append(const record *r, const char *path, long limit)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit lim = {(rlim_t)limit, (rlim_t)limit};
        char err[512];
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(10);
        if (record_append(r, path, err, sizeof err) == 0) _exit(11);
        _exit(strstr(err, "cannot write: File too large (nothing written)") ? 0 : 12);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
    char dir[] = "/tmp/rmb-record-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/results.csv", dir);

    CHECK(record_check_path(&results_schema, path, err, sizeof err) == 0);
    record *r = record_new(&results_schema);
    record_set(r, "bench", "join");
    record_set(r, "command", "rmabench join --output \"a,b\"");
    record_set(r, "matches", "%d", 42);
    CHECK(strcmp(record_get(r, "matches"), "42") == 0);
    CHECK(record_schema_has(&results_schema, "t_network_partition_avg"));
    CHECK(!record_schema_has(&results_schema, "no_such_column"));
    CHECK(record_append(r, path, err, sizeof err) == 0);
    CHECK(record_append(r, path, err, sizeof err) == 0);
    char *text = slurp(path);
    CHECK(text && count_lines(text) == 3);
    char *hdr = record_header_line(&results_schema);
    CHECK(text && strncmp(text, hdr, strlen(hdr)) == 0);
    CHECK(text && strstr(text, "\"rmabench join --output \"\"a,b\"\"\"") != NULL);
    /* every row has as many fields as the header (no quoted comma counted) */
    char *row = record_row_line(r);
    int fields = 1, inq = 0;
    for (char *c = row; *c; c++) {
        if (*c == '"') inq = !inq;
        else if (*c == ',' && !inq) fields++;
    }
    CHECK(fields == results_schema.n);
    free(row);

    /* a file with another header is refused, and left untouched */
    char other[256];
    snprintf(other, sizeof other, "%s/other.csv", dir);
    FILE *f = fopen(other, "w");
    fputs("a,b,c\n1,2,3\n", f);
    fclose(f);
    CHECK(record_check_path(&results_schema, other, err, sizeof err) != 0 && strstr(err, other) && strstr(err, "header"));
    CHECK(record_append(r, other, err, sizeof err) != 0);
    CHECK(strcmp(slurp(other), "a,b,c\n1,2,3\n") == 0);

    /* unwritable places name the file */
    CHECK(record_check_path(&results_schema, "/nonexistent-dir/x.csv", err, sizeof err) != 0 && strstr(err, "/nonexistent-dir/x.csv"));
    CHECK(record_append(r, "/nonexistent-dir/x.csv", err, sizeof err) != 0 && strstr(err, "/nonexistent-dir/x.csv"));
    /* only regular files take rows: a device (a full disk is tests/faults/output.sh), a FIFO (the
     * append must not block on it), a directory, a dangling link are refused and left as they were */
    char fifo[256], link[256], dangling[256];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(link, sizeof link, "%s/link.csv", dir);
    snprintf(dangling, sizeof dangling, "%s/dangling.csv", dir);
    CHECK(mkfifo(fifo, 0600) == 0 && symlink(path, link) == 0 && symlink("nowhere", dangling) == 0);
    const char *refused[][2] = {{"/dev/null", "not a regular file (a character device)"}, {fifo, "not a regular file (a FIFO)"},
                                {dir, "not a regular file (a directory)"}, {dangling, "does not resolve"}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK(record_check_path(&results_schema, refused[i][0], err, sizeof err) != 0 && strstr(err, refused[i][1]));
        CHECK(record_append(r, refused[i][0], err, sizeof err) != 0 && strstr(err, refused[i][0]) && strstr(err, refused[i][1]));
    }
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode) && lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
    char nowhere[256];
    snprintf(nowhere, sizeof nowhere, "%s/nowhere", dir);
    CHECK(access(nowhere, F_OK) != 0); /* the dangling link created nothing */
    /* a link to a regular file appends to that file */
    CHECK(record_check_path(&results_schema, link, err, sizeof err) == 0 && record_append(r, link, err, sizeof err) == 0);
    CHECK(count_lines(slurp(path)) == 4 && lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    /* a file-size limit: the row fails whole (SIGXFSZ ignored, EFBIG), the file keeps its length; a
     * file the failed append created is not left behind */
    struct stat before;
    CHECK(stat(path, &before) == 0);
    CHECK(limited_append(r, path, before.st_size + 10) == 0);
    CHECK(stat(path, &st) == 0 && st.st_size == before.st_size);
    char fresh[300];
    snprintf(fresh, sizeof fresh, "%s/fresh.csv", dir);
    CHECK(limited_append(r, fresh, 100) == 0);
    CHECK(lstat(fresh, &st) != 0);
    record_free(r);
    free(hdr);
    unlink(path);
    unlink(other);
    unlink(fifo);
    unlink(link);
    unlink(dangling);
    rmdir(dir);
    CHECK_DONE();
}
