/* Outputs that cannot hurt (bench/output_path.h): the whole-file writer's temporary lives beside its
 * target, is gone after commit, abort, or a target that stopped being a regular file while it was
 * written; a link to a regular file is written through and stays a link; a new file gets the mode
 * a plain create would give it. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "bench/output_path.h"

static char dir[] = "/tmp/rmb-output-path-XXXXXX";

static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static char *at(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Runs fn in a child: its exit status, or 128 + the signal that ended it. */
static int in_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(fn());
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int limited_write(void)
{
    struct rlimit lim = {4096, 4096};
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0) return 10;
    char err[512];
    output_file o;
    if (output_file_begin(&o, at("new.txt"), true, err, sizeof err)) return 11;
    for (int i = 0; i < 1000; i++) fputs("a line longer than the limit allows in total\n", o.f);
    if (output_file_commit(&o, err, sizeof err) == 0) return 12;
    return strstr(err, "new.txt: cannot write: File too large (nothing written)") ? 0 : 13;
}

static int killed_while_writing(void)
{
    char err[512];
    output_file o;
    if (output_file_begin(&o, at("other.txt"), false, err, sizeof err)) return 20;
    fputs("half", o.f);
    fflush(o.f);
    raise(SIGTERM);
    return 21;
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    umask(022);
    char err[512];
    output_file o;
    bool created;

    /* new file: the temporary is in the same directory, the result 0644 under umask 022 */
    CHECK(output_file_begin(&o, at("new.txt"), false, err, sizeof err) == 0);
    CHECK(output_file_tmp(&o) && strncmp(output_file_tmp(&o), at("new.txt"), strlen(at("new.txt"))) == 0);
    CHECK(entries() == 1);
    fputs("hello\n", o.f);
    CHECK(output_file_commit(&o, err, sizeof err) == 0);
    struct stat st;
    CHECK(stat(at("new.txt"), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0644 && st.st_size == 6);
    CHECK(entries() == 1);

    /* an existing file: refused without --force (nothing created), replaced with it */
    CHECK(output_path_check(at("new.txt"), OUTPUT_NEW, err, sizeof err) == -1 && strstr(err, "new.txt: exists; give --force"));
    CHECK(output_file_begin(&o, at("new.txt"), false, err, sizeof err) == -1 && strstr(err, "--force") && entries() == 1);

    /* abort: the target as it was, no temporary */
    CHECK(output_file_begin(&o, at("new.txt"), true, err, sizeof err) == 0);
    fputs("half", o.f);
    output_file_abort(&o);
    CHECK(stat(at("new.txt"), &st) == 0 && st.st_size == 6 && entries() == 1);

    /* the target replaced by a FIFO while written: refused, the FIFO kept, no temporary */
    CHECK(output_file_begin(&o, at("swap.txt"), false, err, sizeof err) == 0);
    fputs("data\n", o.f);
    CHECK(mkfifo(at("swap.txt"), 0600) == 0);
    CHECK(output_file_commit(&o, err, sizeof err) == -1 && strstr(err, "swap.txt: not a regular file (a FIFO)"));
    CHECK(lstat(at("swap.txt"), &st) == 0 && S_ISFIFO(st.st_mode) && entries() == 2);
    CHECK(output_open_append(at("swap.txt"), &created, err, sizeof err) == -1 && strstr(err, "not a regular file (a FIFO)"));

    /* a link to a regular file: the file is replaced, the link stays */
    CHECK(symlink("new.txt", at("link.txt")) == 0);
    CHECK(output_file_begin(&o, at("link.txt"), true, err, sizeof err) == 0);
    fputs("through the link\n", o.f);
    CHECK(output_file_commit(&o, err, sizeof err) == 0);
    CHECK(lstat(at("link.txt"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(stat(at("new.txt"), &st) == 0 && st.st_size == 17 && entries() == 3);

    /* appending: a regular file or a new one; a directory and a dangling link are refused */
    int fd = output_open_append(at("rows.csv"), &created, err, sizeof err);
    CHECK(fd >= 0 && created);
    if (fd >= 0) close(fd);
    fd = output_open_append(at("rows.csv"), &created, err, sizeof err);
    CHECK(fd >= 0 && !created);
    if (fd >= 0) close(fd);
    CHECK(output_open_append(dir, &created, err, sizeof err) == -1 && strstr(err, "not a regular file (a directory)"));
    CHECK(symlink("nowhere", at("dangling")) == 0);
    CHECK(output_path_check(at("dangling"), OUTPUT_REPLACE, err, sizeof err) == -1 && strstr(err, "does not resolve"));
    CHECK(output_file_begin(&o, at("dangling"), true, err, sizeof err) == -1 && entries() == 5);
    CHECK(output_path_check("", OUTPUT_APPEND, err, sizeof err) == -1);

    /* a file-size limit: the write fails (SIGXFSZ ignored), the temporary goes, the target stays */
    CHECK(in_child(limited_write) == 0);
    CHECK(stat(at("new.txt"), &st) == 0 && st.st_size == 17 && entries() == 5);
    /* SIGTERM while a whole file is open: the process ends by it, the temporary is removed */
    CHECK(in_child(killed_while_writing) == SIGTERM + 128);
    CHECK(entries() == 5);

    /* a 10 KB name: the message keeps its reason and stays one line */
    char *longname = malloc(10240);
    memset(longname, 'x', 10239);
    longname[10239] = 0;
    memcpy(longname, "/nonexistent-dir/", 17);
    CHECK(output_path_check(longname, OUTPUT_APPEND, err, sizeof err) == -1 && strstr(err, "(10239 bytes): cannot check: File name too long") &&
          strstr(err, "xxx...xxx") && strlen(err) < 300 && !strchr(err, '\n'));
    free(longname);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    CHECK_DONE();
}
