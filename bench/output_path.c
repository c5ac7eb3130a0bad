#include "bench/output_path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    return "not a plain file";
}

/* The directory part of path ("." for a bare name); caller frees. */
static char *dir_of(const char *path)
{
    char *dir = strdup(path);
    if (!dir) return NULL;
    char *slash = strrchr(dir, '/');
    if (slash == dir) slash[1] = 0;
    else if (slash) *slash = 0;
    else strcpy(dir, ".");
    return dir;
}

static int dir_writable(const char *path, const char *shown, const char *verb, char *err, size_t errlen)
{
    char *dir = dir_of(path);
    int ok = dir && access(dir, W_OK | X_OK) == 0;
    int e = dir ? errno : ENOMEM;
    free(dir);
    if (!ok) snprintf(err, errlen, "%s: cannot %s: %s", shown, verb, strerror(e));
    return ok ? 0 : -1;
}

/* What path resolves to: 1 and *st when it exists (a symbolic link followed), 0 when nothing is
 * there, -1 with the reason (a dangling link, a path that cannot be looked at). */
static int resolve(const char *path, struct stat *st, char *err, size_t errlen)
{
    struct stat lst;
    if (lstat(path, &lst) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "%s: cannot check: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISLNK(lst.st_mode)) {
        *st = lst;
        return 1;
    }
    if (stat(path, st) != 0) {
        /* writing through it would create a file wherever it points */
        snprintf(err, errlen, "%s: a symbolic link that does not resolve to a file (%s)", path, strerror(errno));
        return -1;
    }
    return 1;
}

int output_path_check(const char *path, output_mode mode, char *err, size_t errlen)
{
    if (!path || !*path) {
        snprintf(err, errlen, "(empty): needs a file name");
        return -1;
    }
    struct stat st;
    int there = resolve(path, &st, err, errlen);
    if (there < 0) return -1;
    if (there == 0) return dir_writable(path, path, "create", err, errlen);
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", path, kind_of(st.st_mode));
        return -1;
    }
    if (mode == OUTPUT_APPEND) {
        if (access(path, W_OK) != 0) {
            snprintf(err, errlen, "%s: cannot open for appending: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    /* replaced by a rename in the directory of what the link points to */
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        snprintf(err, errlen, "%s: cannot resolve: %s", path, strerror(errno));
        return -1;
    }
    return dir_writable(real, path, "replace", err, errlen);
}

int output_open_append(const char *path, char *err, size_t errlen)
{
    if (output_path_check(path, OUTPUT_APPEND, err, errlen)) return -1;
    /* O_NONBLOCK: a FIFO put there since the check must not block the open */
    int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open for appending: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot check: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", path, kind_of(st.st_mode));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

static void release(output_file *o)
{
    free(o->target);
    free(o->tmp);
    *o = (output_file){0};
}

void output_file_abort(output_file *o)
{
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    release(o);
}

const char *output_file_tmp(const output_file *o) { return o->tmp; }

int output_file_begin(output_file *o, const char *path, char *err, size_t errlen)
{
    *o = (output_file){.shown = path};
    if (output_path_check(path, OUTPUT_REPLACE, err, errlen)) return -1;
    char real[PATH_MAX];
    struct stat lst;
    int is_link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    o->target = is_link && realpath(path, real) ? strdup(real) : strdup(path);
    size_t len = o->target ? strlen(o->target) + 40 : 0;
    o->tmp = len ? malloc(len) : NULL;
    if (!o->tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        release(o);
        return -1;
    }
    /* O_EXCL: never opens what is already there, a symbolic link included */
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(o->tmp, len, "%s.tmp.%ld.%d", o->target, (long)getpid(), attempt);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot create a temporary file beside it: %s", path, strerror(e));
        if (fd >= 0) { close(fd); unlink(o->tmp); }
        release(o);
        return -1;
    }
    return 0;
}

int output_file_commit(output_file *o, char *err, size_t errlen)
{
    const char *shown = o->shown;
    int bad = fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0;
    int e = errno;
    if (fclose(o->f) != 0 && !bad) { bad = 1; e = errno; }
    o->f = NULL;
    if (bad) {
        snprintf(err, errlen, "%s: cannot write: %s", shown, strerror(e));
        output_file_abort(o);
        return -1;
    }
    /* the target may have been replaced while the file was written */
    struct stat st;
    if (lstat(o->target, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", shown, S_ISLNK(st.st_mode) ? "a symbolic link" : kind_of(st.st_mode));
        output_file_abort(o);
        return -1;
    }
    if (rename(o->tmp, o->target) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", shown, strerror(errno));
        output_file_abort(o);
        return -1;
    }
    release(o);
    return 0;
}
