#include "bench/output_path.h"

#include "bench/options.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

const char *output_kind_of(mode_t m)
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
    char *dir = dir_of(path), sh[OPT_SHOWN_MAX];
    int ok = dir && access(dir, W_OK | X_OK) == 0;
    int e = dir ? errno : ENOMEM;
    free(dir);
    if (!ok) snprintf(err, errlen, "%s: cannot %s: %s", opt_shown(shown, sh), verb, strerror(e));
    return ok ? 0 : -1;
}

void output_guard_signals(void)
{
    struct sigaction now;
    if (sigaction(SIGXFSZ, NULL, &now) == 0 && now.sa_handler == SIG_DFL) signal(SIGXFSZ, SIG_IGN);
}

/* What path resolves to: 1 and *st when it exists (a symbolic link followed), 0 when nothing is
 * there, -1 with the reason (a dangling link, a path that cannot be looked at). */
static int resolve(const char *path, struct stat *st, char *err, size_t errlen)
{
    struct stat lst;
    char sh[OPT_SHOWN_MAX];
    if (lstat(path, &lst) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "%s: cannot check: %s", opt_shown(path, sh), strerror(errno));
        return -1;
    }
    if (!S_ISLNK(lst.st_mode)) {
        *st = lst;
        return 1;
    }
    if (stat(path, st) != 0) {
        /* writing through it would create a file wherever it points */
        snprintf(err, errlen, "%s: a symbolic link that does not resolve to a file (%s)", opt_shown(path, sh), strerror(errno));
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
    char sh[OPT_SHOWN_MAX];
    int there = resolve(path, &st, err, errlen);
    if (there < 0) return -1;
    if (there == 0) return dir_writable(path, path, "create", err, errlen);
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", opt_shown(path, sh), output_kind_of(st.st_mode));
        return -1;
    }
    if (mode == OUTPUT_APPEND) {
        if (access(path, W_OK) != 0) {
            snprintf(err, errlen, "%s: cannot open for appending: %s", opt_shown(path, sh), strerror(errno));
            return -1;
        }
        return 0;
    }
    if (mode == OUTPUT_NEW) {
        snprintf(err, errlen, "%s: exists; give --force to replace it", opt_shown(path, sh));
        return -1;
    }
    /* replaced by a rename in the directory of what the link points to */
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        snprintf(err, errlen, "%s: cannot resolve: %s", opt_shown(path, sh), strerror(errno));
        return -1;
    }
    return dir_writable(real, path, "replace", err, errlen);
}

int output_space_check(const char *path, uint64_t bytes, char *err, size_t errlen)
{
    char *dir = dir_of(path), sh[OPT_SHOWN_MAX];
    struct statvfs vfs;
    int known = dir && statvfs(dir, &vfs) == 0;
    free(dir);
    if (!known) return 0;
    const double avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
    if ((double)bytes <= avail) return 0;
    snprintf(err, errlen, "%s: needs about %.1f GiB, its file system has %.1f GiB free", opt_shown(path, sh),
             (double)bytes / (1u << 30), avail / (1u << 30));
    return -1;
}

int output_open_append(const char *path, bool *created, char *err, size_t errlen)
{
    char sh[OPT_SHOWN_MAX];
    *created = false;
    if (output_path_check(path, OUTPUT_APPEND, err, errlen)) return -1;
    output_guard_signals();
    /* O_NONBLOCK: a FIFO put there since the check must not block the open. Whether this call
     * created the file decides what a failed first row leaves: nothing. */
    const int flags = O_RDWR | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 8; attempt++) {
        fd = open(path, flags);
        if (fd >= 0 || errno != ENOENT) break;
        fd = open(path, flags | O_CREAT | O_EXCL, 0644);
        *created = fd >= 0;
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open for appending: %s", opt_shown(path, sh), strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot check: %s", opt_shown(path, sh), strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", opt_shown(path, sh), output_kind_of(st.st_mode));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* The temporaries of the whole files being written, removed by a signal that ends the process
 * while they are open. Written with the signals blocked; read by the handler only. */
enum { TMP_SLOTS = 4 };
static char *volatile tmp_slot[TMP_SLOTS];
static struct sigaction tmp_saved[3];
static const int tmp_signals[3] = {SIGINT, SIGTERM, SIGHUP};
static int tmp_open;

static void remove_tmps_and_die(int sig)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_slot[i]) unlink(tmp_slot[i]);
    for (int k = 0; k < 3; k++)
        if (tmp_signals[k] == sig) sigaction(sig, &tmp_saved[k], NULL);
    raise(sig); /* as the process would have ended without the handler (or its own handler runs) */
}

static void block_tmp_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (int k = 0; k < 3; k++) sigaddset(&set, tmp_signals[k]);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void register_tmp(char *tmp)
{
    sigset_t old;
    block_tmp_signals(&old);
    for (int i = 0; i < TMP_SLOTS; i++)
        if (!tmp_slot[i]) {
            tmp_slot[i] = tmp;
            break;
        }
    if (tmp_open++ == 0) {
        struct sigaction sa = {.sa_handler = remove_tmps_and_die};
        sigemptyset(&sa.sa_mask);
        for (int k = 0; k < 3; k++) {
            sigaction(tmp_signals[k], NULL, &tmp_saved[k]);
            /* a signal the process ignores (nohup) stays ignored */
            if (tmp_saved[k].sa_handler != SIG_IGN) sigaction(tmp_signals[k], &sa, NULL);
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

static void unregister_tmp(const char *tmp)
{
    sigset_t old;
    block_tmp_signals(&old);
    int found = 0;
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp && tmp_slot[i] == tmp) {
            tmp_slot[i] = NULL;
            found = 1;
        }
    if (found && --tmp_open == 0)
        for (int k = 0; k < 3; k++)
            if (tmp_saved[k].sa_handler != SIG_IGN) sigaction(tmp_signals[k], &tmp_saved[k], NULL);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

static void release(output_file *o)
{
    unregister_tmp(o->tmp);
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

int output_file_begin(output_file *o, const char *path, bool replace, char *err, size_t errlen)
{
    char sh[OPT_SHOWN_MAX];
    *o = (output_file){.shown = path};
    if (output_path_check(path, replace ? OUTPUT_REPLACE : OUTPUT_NEW, err, errlen)) return -1;
    output_guard_signals();
    char real[PATH_MAX];
    struct stat lst;
    int is_link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    o->target = is_link && realpath(path, real) ? strdup(real) : strdup(path);
    size_t len = o->target ? strlen(o->target) + 40 : 0;
    o->tmp = len ? malloc(len) : NULL;
    if (!o->tmp) {
        snprintf(err, errlen, "%s: out of memory", opt_shown(path, sh));
        release(o);
        return -1;
    }
    /* O_EXCL: never opens what is already there, a symbolic link included. Registered before it
     * exists, so that no signal leaves it behind. */
    register_tmp(o->tmp);
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(o->tmp, len, "%s.tmp.%ld.%d", o->target, (long)getpid(), attempt);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot create a temporary file beside it: %s", opt_shown(path, sh), strerror(e));
        if (fd >= 0) { close(fd); unlink(o->tmp); }
        release(o);
        return -1;
    }
    return 0;
}

int output_file_commit(output_file *o, char *err, size_t errlen)
{
    char sh[OPT_SHOWN_MAX];
    const char *shown = opt_shown(o->shown, sh);
    int bad = fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0;
    int e = errno;
    if (fclose(o->f) != 0 && !bad) { bad = 1; e = errno; }
    o->f = NULL;
    if (bad) {
        snprintf(err, errlen, "%s: cannot write: %s (nothing written)", shown, strerror(e));
        output_file_abort(o);
        return -1;
    }
    /* the target may have been replaced while the file was written */
    struct stat st;
    if (lstat(o->target, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", shown, S_ISLNK(st.st_mode) ? "a symbolic link" : output_kind_of(st.st_mode));
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
