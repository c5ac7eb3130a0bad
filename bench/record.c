#include "bench/record.h"

#include "bench/options.h"
#include "bench/output_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct record {
    const record_schema *schema;
    char **val; /* [schema->n] */
};

static int column_index(const record_schema *s, const char *c)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->columns[i], c) == 0) return i;
    return -1;
}

bool record_schema_has(const record_schema *s, const char *column) { return column_index(s, column) >= 0; }

record *record_new(const record_schema *s)
{
    record *r = calloc(1, sizeof(record));
    if (!r || !(r->val = calloc((size_t)s->n, sizeof(char *)))) {
        fprintf(stderr, "rmabench: out of memory for a result row\n");
        abort();
    }
    r->schema = s;
    return r;
}

const record_schema *record_schema_of(const record *r) { return r->schema; }

void record_free(record *r)
{
    if (!r) return;
    for (int i = 0; i < r->schema->n; i++) free(r->val[i]);
    free(r->val);
    free(r);
}

void record_set(record *r, const char *column, const char *fmt, ...)
{
    int i = column_index(r->schema, column);
    if (i < 0) {
        fprintf(stderr, "rmabench: internal error: record has no column '%s'\n", column);
        abort();
    }
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    free(r->val[i]);
    r->val[i] = s;
}

const char *record_get(const record *r, const char *column)
{
    int i = column_index(r->schema, column);
    return i < 0 || !r->val[i] ? "" : r->val[i];
}

/* RFC 4180 quoting: fields with comma, quote or newline are quoted, quotes doubled. */
static void put_field(FILE *f, const char *s)
{
    if (!s) return;
    if (!strpbrk(s, ",\"\n\r")) { fputs(s, f); return; }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

char *record_header_line(const record_schema *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int i = 0; i < s->n; i++) fprintf(f, "%s%s", i ? "," : "", s->columns[i]);
    fclose(f);
    return buf;
}

char *record_row_line(const record *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int i = 0; i < r->schema->n; i++) {
        if (i) fputc(',', f);
        put_field(f, r->val[i]);
    }
    fclose(f);
    return buf;
}

/* Read the first line of an existing file; 1 if the file is empty, -1 on error. */
static int read_first_line(int fd, char **line)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            if (cap > (1u << 20)) break; /* a header is never this long */
            cap *= 2;
            buf = realloc(buf, cap);
        }
        ssize_t n = pread(fd, buf + len, cap - 1 - len, (off_t)len);
        if (n < 0) { free(buf); return -1; }
        if (n == 0) break;
        len += (size_t)n;
        if (memchr(buf, '\n', len)) break;
    }
    buf[len] = 0;
    char *nl = strchr(buf, '\n');
    if (nl) *nl = 0;
    size_t first = strlen(buf); /* 0 when the file starts with an empty line */
    if (first > 0 && buf[first - 1] == '\r') buf[first - 1] = 0;
    *line = buf;
    return len == 0 ? 1 : 0;
}

static int header_matches(const record_schema *s, int fd, const char *path, char *err, size_t errlen)
{
    char *line = NULL;
    int rc = read_first_line(fd, &line);
    char sh[OPT_SHOWN_MAX];
    if (rc < 0) {
        snprintf(err, errlen, "%s: cannot read: %s", opt_shown(path, sh), strerror(errno));
        return -1;
    }
    if (rc == 1) { free(line); return 1; } /* empty: header still to be written */
    char *want = record_header_line(s);
    int same = strcmp(line, want) == 0;
    free(want);
    free(line);
    if (!same) {
        snprintf(err, errlen, "%s: existing header has other columns than this rmabench version; use a new file",
                 opt_shown(path, sh));
        return -1;
    }
    return 0;
}

int record_check_path(const record_schema *s, const char *path, char *err, size_t errlen)
{
    if (output_path_check(path, OUTPUT_APPEND, err, errlen)) return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ENOENT) return 0; /* created by the first row */
    if (fd < 0) {
        char sh[OPT_SHOWN_MAX];
        snprintf(err, errlen, "%s: cannot read: %s", opt_shown(path, sh), strerror(errno));
        return -1;
    }
    int rc = header_matches(s, fd, path, err, errlen);
    close(fd);
    return rc < 0 ? -1 : 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The descriptor still names what path names now: a failed first row of another writer may have
 * removed the file while this one waited for the lock. */
static bool still_there(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The file locked for this writer: the descriptor, or -1 with the reason in err. */
static int open_locked(const char *path, bool *created, char *err, size_t errlen)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = output_open_append(path, created, err, errlen); /* a regular file, or nothing is written */
        if (fd < 0) return -1;
        /* Serialise writers on one file (several runs of a campaign may share it). */
        struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        while (fcntl(fd, F_SETLKW, &lk) < 0 && errno == EINTR) {}
        if (still_there(fd, path)) return fd;
        close(fd);
    }
    char sh[OPT_SHOWN_MAX];
    snprintf(err, errlen, "%s: replaced while waiting to append; nothing written", opt_shown(path, sh));
    return -1;
}

int record_append(const record *r, const char *path, char *err, size_t errlen)
{
    bool created;
    int fd = open_locked(path, &created, err, errlen);
    if (fd < 0) return -1;
    int rc = header_matches(r->schema, fd, path, err, errlen);
    if (rc < 0) {
        close(fd);
        return -1;
    }
    int need_header = rc == 1;
    /* A last line without its newline (a writer killed mid-line, an edit) must not swallow this
     * row: start it on a line of its own. */
    off_t before = lseek(fd, 0, SEEK_END);
    char last = '\n';
    if (!need_header && before > 0 && pread(fd, &last, 1, before - 1) != 1) last = '\n';
    char *row = record_row_line(r), *text = NULL;
    if (need_header) {
        char *hdr = record_header_line(r->schema);
        if (asprintf(&text, "%s\n%s\n", hdr, row) < 0) text = NULL;
        free(hdr);
    } else if (asprintf(&text, "%s%s\n", last == '\n' ? "" : "\n", row) < 0) {
        text = NULL;
    }
    free(row);
    rc = 0;
    /* one write of the whole row (and the header of a new file); SIGXFSZ is ignored (the writer's
     * rule), so a file-size limit fails it with EFBIG rather than ending the process mid-row */
    if (!text || write_all(fd, text, strlen(text)) < 0 || fsync(fd) < 0) {
        char sh[OPT_SHOWN_MAX];
        int e = text ? errno : ENOMEM;
        /* never leave a partial line behind, nor a file this call created */
        if (created && before == 0) unlink(path);
        else if (before >= 0 && ftruncate(fd, before) < 0) {}
        snprintf(err, errlen, "%s: cannot write: %s (nothing written)", opt_shown(path, sh), strerror(e));
        rc = -1;
    }
    free(text);
    close(fd);
    return rc;
}
