#include "bench/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Phase names are the same words in code, phase tables, CSV columns and plot legends. */
#define PHASES(X) X(histogram) X(window_alloc) X(network_partition) X(local_partition) X(build_probe) \
    X(partition) X(sort) X(merge) X(match) X(put) X(flush) X(imbalance) X(total)
#define PHASE_COLS(p) "t_" #p "_avg", "t_" #p "_max",
#define MODEL_COLS(p) "model_" #p,

static const char *const columns[] = {
    /* what ran, and what makes it reproducible */
    "timestamp", "bench", "status", "exit_code", "job_id", "git_commit", "mpi_library", "mpi_version",
    "hosts", "ranks", "ranks_per_host", "hostnames", "seed", "repeat_index", "repeats", "warmups", "command",
    /* join parameters */
    "algo", "r_tuples", "s_tuples", "tuples_per_rank", "uneven", "ratio", "selectivity", "skew",
    "radix_bits", "local_fanout_bits", "passes", "assign", "window", "flush", "buffer_size",
    "buffers_per_partition", "compress", "ranges", "run_size", "merge_fanin", "simd",
    /* join results */
    PHASES(PHASE_COLS)
    "throughput", "matches", "checksum", "expected_matches", "expected_checksum", "verification",
    /* model predictions (rmabench --model) */
    PHASES(MODEL_COLS)
    "model_total_with_alloc", "model_bound", "model_params",
    /* lock parameters */
    "workload", "servers", "agents", "transport", "deadlock", "lock_timeout", "remote_prob", "locks_per_txn",
    "isolation", "warehouses", "accounts", "duration", "transactions_per_agent", "vote_no_prob",
    /* lock results */
    "committed", "aborted", "commits_per_s", "aborts_per_s", "lock_requests_per_s", "locks_per_txn_measured",
    "remote_share", "twopc_txns", "lat_txn_lock_us", "lat_txn_data_us", "lat_txn_vote_us", "lat_txn_end_us",
    "lat_req_rtt_us", "lat_req_rtt_median_us", "lat_req_queue_us", "lat_req_server_us", "timeouts",
    "model_t_tx_us", "model_throughput",
    /* placement */
    "numa", "numa_policy", "numa_placement_worst", "rank_cores", "rank_numa_nodes", "binding_warning",
};
#define NCOLS ((int)(sizeof columns / sizeof columns[0]))

struct record {
    char *val[NCOLS];
};

int record_ncolumns(void) { return NCOLS; }
const char *record_column(int i) { return i >= 0 && i < NCOLS ? columns[i] : NULL; }

static int column_index(const char *c)
{
    for (int i = 0; i < NCOLS; i++)
        if (strcmp(columns[i], c) == 0) return i;
    return -1;
}

int record_has_column(const char *column) { return column_index(column) >= 0 ? 0 : -1; }

record *record_new(void) { return calloc(1, sizeof(record)); }

void record_free(record *r)
{
    if (!r) return;
    for (int i = 0; i < NCOLS; i++) free(r->val[i]);
    free(r);
}

void record_set(record *r, const char *column, const char *fmt, ...)
{
    int i = column_index(column);
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
    int i = column_index(column);
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

char *record_header_line(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int i = 0; i < NCOLS; i++) fprintf(f, "%s%s", i ? "," : "", columns[i]);
    fclose(f);
    return buf;
}

char *record_row_line(const record *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int i = 0; i < NCOLS; i++) {
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

static int header_matches(int fd, const char *path, char *err, size_t errlen)
{
    char *line = NULL;
    int rc = read_first_line(fd, &line);
    if (rc < 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    if (rc == 1) { free(line); return 1; } /* empty: header still to be written */
    char *want = record_header_line();
    int same = strcmp(line, want) == 0;
    free(want);
    free(line);
    if (!same) {
        snprintf(err, errlen, "%s: existing header has other columns than this rmabench version; use a new file", path);
        return -1;
    }
    return 0;
}

int record_check_path(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
            snprintf(err, errlen, "%s: not a regular file", path);
            return -1;
        }
        int fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
        if (fd < 0) { snprintf(err, errlen, "%s: cannot open for appending: %s", path, strerror(errno)); return -1; }
        int rc = S_ISREG(st.st_mode) ? header_matches(fd, path, err, errlen) : 0;
        close(fd);
        return rc < 0 ? -1 : 0;
    }
    /* New file: the directory must be writable. */
    char *dir = strdup(path), *slash = strrchr(dir, '/');
    if (slash == dir) slash[1] = 0;
    else if (slash) *slash = 0;
    else strcpy(dir, ".");
    int ok = access(dir, W_OK | X_OK) == 0;
    int e = errno;
    free(dir);
    if (!ok) { snprintf(err, errlen, "%s: cannot create: %s", path, strerror(e)); return -1; }
    return 0;
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

int record_append(const record *r, const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open for appending: %s", path, strerror(errno));
        return -1;
    }
    /* Serialise writers on one file (several runs of a campaign may share it). */
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    while (fcntl(fd, F_SETLKW, &lk) < 0 && errno == EINTR) {}
    struct stat st;
    int need_header = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        int rfd = open(path, O_RDONLY | O_CLOEXEC);
        int rc = rfd < 0 ? -1 : header_matches(rfd, path, err, errlen);
        if (rfd >= 0) close(rfd);
        if (rc < 0) {
            if (rfd < 0) snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        need_header = rc == 1;
    }
    /* A last line without its newline (a writer killed mid-line, an edit) must not swallow this
     * row: start it on a line of its own. */
    char last = '\n';
    if (!need_header && S_ISREG(st.st_mode) && st.st_size > 0) {
        int rfd = open(path, O_RDONLY | O_CLOEXEC);
        if (rfd < 0 || pread(rfd, &last, 1, st.st_size - 1) != 1) last = '\n';
        if (rfd >= 0) close(rfd);
    }
    char *row = record_row_line(r), *text = NULL;
    if (need_header) {
        char *hdr = record_header_line();
        if (asprintf(&text, "%s\n%s\n", hdr, row) < 0) text = NULL;
        free(hdr);
    } else if (asprintf(&text, "%s%s\n", last == '\n' ? "" : "\n", row) < 0) {
        text = NULL;
    }
    free(row);
    int rc = 0;
    off_t before = S_ISREG(st.st_mode) ? lseek(fd, 0, SEEK_END) : -1;
    if (!text || write_all(fd, text, strlen(text)) < 0 || (S_ISREG(st.st_mode) && fsync(fd) < 0)) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        /* never leave a partial line behind */
        if (before >= 0 && ftruncate(fd, before) < 0) {}
        rc = -1;
    }
    free(text);
    close(fd);
    return rc;
}
