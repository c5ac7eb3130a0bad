/* Lock trace reader and writer; the format is described in trace.h. */
#include "locking/workloads/trace.h"

#include "bench/options.h"
#include "bench/text_input.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Local name table: the trace module must not depend on the lock table's objects. */
static const char *const mode_names[LOCK_NMODES] = {"NL", "IS", "IX", "S", "SIX", "X"};

struct trace_reader {
    FILE *f;
    char *path;
    long line;            /* number of the last line read */
    uint64_t lock_space;  /* 0: none declared */
    bool seen_txn, failed, eof;
    char pending[TRACE_LINE_MAX + 2]; /* the first non-header line, read by trace_open */
    bool has_pending;
    long pending_line;
};

static void fail(trace_reader *t, long line, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void fail(trace_reader *t, long line, char *err, size_t errlen, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    char sh[OPT_SHOWN_MAX];
    if (err && errlen) snprintf(err, errlen, "%s:%ld: %s", opt_shown(t->path, sh), line, why);
    t->failed = true;
}

/* Reads the next line into buf (without newline, without a trailing comment). Returns 1, 0 at end
 * of file, -1 on a read error, an overlong line or binary data (reported). */
static int read_line(trace_reader *t, char *buf, char *err, size_t errlen)
{
    if (t->has_pending) {
        t->has_pending = false;
        memcpy(buf, t->pending, sizeof t->pending);
        t->line = t->pending_line;
        return 1;
    }
    char why[160];
    int rc = text_read_line(t->f, buf, TRACE_LINE_MAX + 1, why, sizeof why);
    if (rc == 0) return 0;
    t->line++;
    if (rc < 0) {
        fail(t, t->line, err, errlen, "%s", why);
        return -1;
    }
    char *hash = strchr(buf, '#');
    if (hash) *hash = 0;
    return 1;
}

/* Splits buf into at most 4 whitespace-separated tokens; returns their count (4 = too many). */
static int tokens(char *buf, char *tok[4])
{
    int n = 0;
    for (char *s = strtok(buf, " \t"); s && n < 4; s = strtok(NULL, " \t")) tok[n++] = s;
    return n;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!*s) return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return -2;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

trace_reader *trace_open(const char *path, char *err, size_t errlen)
{
    FILE *f = text_open(path, err, errlen); /* a regular file, or refused before reading */
    if (!f) return NULL;
    trace_reader *t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(path))) {
        char sh[OPT_SHOWN_MAX];
        snprintf(err, errlen, "%s: out of memory", opt_shown(path, sh));
        free(t);
        fclose(f);
        return NULL;
    }
    t->f = f;
    /* Header: comments, blank lines and the optional N line, up to the first other line. */
    char buf[TRACE_LINE_MAX + 2], *tok[4];
    for (;;) {
        int rc = read_line(t, buf, err, errlen);
        if (rc < 0) { trace_close(t); return NULL; }
        if (rc == 0) break;
        char copy[sizeof buf];
        memcpy(copy, buf, sizeof buf);
        int n = tokens(copy, tok);
        if (n == 0) continue;
        if (strcmp(tok[0], "N") != 0) {
            memcpy(t->pending, buf, sizeof buf);
            t->has_pending = true;
            t->pending_line = t->line;
            break;
        }
        uint64_t v;
        if (t->lock_space) { fail(t, t->line, err, errlen, "N given twice"); trace_close(t); return NULL; }
        if (n != 2) { fail(t, t->line, err, errlen, "N takes one value: N <lock_space>"); trace_close(t); return NULL; }
        if (parse_u64(tok[1], &v) || v == 0) {
            fail(t, t->line, err, errlen, "N: '%s' is not a positive lock space", tok[1]);
            trace_close(t);
            return NULL;
        }
        t->lock_space = v;
    }
    return t;
}

uint64_t trace_lock_space(const trace_reader *t) { return t->lock_space; }

int trace_next(trace_reader *t, lock_request *reqs, int max, char *err, size_t errlen)
{
    if (t->failed) {
        char sh[OPT_SHOWN_MAX];
        if (err && errlen) snprintf(err, errlen, "%s:%ld: trace already failed", opt_shown(t->path, sh), t->line);
        return -1;
    }
    if (t->eof) return 0;
    int limit = max < LOCK_TXN_MAX ? max : LOCK_TXN_MAX;
    char buf[TRACE_LINE_MAX + 2], *tok[4];
    long begin_line = 0;
    long id_line[LOCK_TXN_MAX];
    int n = 0;
    bool in_txn = false;
    for (;;) {
        int rc = read_line(t, buf, err, errlen);
        if (rc < 0) return -1;
        if (rc == 0) {
            t->eof = true;
            if (in_txn) {
                fail(t, t->line, err, errlen, "end of file inside the transaction begun on line %ld (missing C)", begin_line);
                return -1;
            }
            return 0;
        }
        int nt = tokens(buf, tok);
        if (nt == 0) continue;
        const char *k = tok[0];
        if (strcmp(k, "B") == 0) {
            if (nt != 1) { fail(t, t->line, err, errlen, "trailing text after B"); return -1; }
            if (in_txn) { fail(t, t->line, err, errlen, "B inside the transaction begun on line %ld (missing C)", begin_line); return -1; }
            in_txn = true;
            begin_line = t->line;
            t->seen_txn = true;
        } else if (strcmp(k, "C") == 0) {
            if (nt != 1) { fail(t, t->line, err, errlen, "trailing text after C"); return -1; }
            if (!in_txn) { fail(t, t->line, err, errlen, "C outside a transaction (no B before it)"); return -1; }
            if (n == 0) { fail(t, t->line, err, errlen, "transaction begun on line %ld has no locks", begin_line); return -1; }
            return n;
        } else if (strcmp(k, "L") == 0) {
            if (!in_txn) { fail(t, t->line, err, errlen, "L outside a transaction (no B before it)"); return -1; }
            if (nt < 3) { fail(t, t->line, err, errlen, "L needs a lock id and a mode: L <id> <mode>"); return -1; }
            if (nt > 3) { fail(t, t->line, err, errlen, "trailing text after L <id> <mode>"); return -1; }
            uint64_t id;
            int prc = parse_u64(tok[1], &id);
            if (prc == -1) { fail(t, t->line, err, errlen, "lock id '%s' is not a decimal number", tok[1]); return -1; }
            if (prc == -2 || (t->lock_space && id >= t->lock_space)) {
                if (t->lock_space)
                    fail(t, t->line, err, errlen, "lock id %s is out of range [0, %" PRIu64 ")", tok[1], t->lock_space);
                else
                    fail(t, t->line, err, errlen, "lock id %s does not fit in 64 bits", tok[1]);
                return -1;
            }
            int m = 0;
            while (m < LOCK_NMODES && strcmp(tok[2], mode_names[m]) != 0) m++;
            if (m == LOCK_NMODES) { fail(t, t->line, err, errlen, "unknown lock mode '%s' (NL, IS, IX, S, SIX, X)", tok[2]); return -1; }
            if (n == limit) {
                fail(t, t->line, err, errlen, "transaction begun on line %ld has more than %d locks", begin_line, limit);
                return -1;
            }
            for (int i = 0; i < n; i++)
                if (reqs[i].lock_id == id) {
                    fail(t, t->line, err, errlen, "lock id %" PRIu64 " requested twice in one transaction (first on line %ld)", id, id_line[i]);
                    return -1;
                }
            reqs[n] = (lock_request){id, (lock_mode)m};
            id_line[n++] = t->line;
        } else if (strcmp(k, "N") == 0) {
            fail(t, t->line, err, errlen, t->seen_txn ? "N after the first transaction" : "N given twice");
            return -1;
        } else {
            fail(t, t->line, err, errlen, "unknown keyword '%s' (B, L, C, N or #)", k);
            return -1;
        }
    }
}

void trace_close(trace_reader *t)
{
    if (!t) return;
    if (t->f) fclose(t->f);
    free(t->path);
    free(t);
}

int trace_write_txn(FILE *f, const lock_request *reqs, int n)
{
    if (n < 1 || n > LOCK_TXN_MAX) { errno = EINVAL; return -1; }
    if (fputs("B\n", f) == EOF) return -1;
    for (int i = 0; i < n; i++) {
        if ((unsigned)reqs[i].mode >= LOCK_NMODES) { errno = EINVAL; return -1; }
        if (fprintf(f, "L %" PRIu64 " %s\n", reqs[i].lock_id, mode_names[reqs[i].mode]) < 0) return -1;
    }
    return fputs("C\n", f) == EOF ? -1 : 0;
}

int trace_write_lock_space(FILE *f, uint64_t lock_space)
{
    return fprintf(f, "N %" PRIu64 "\n", lock_space) < 0 ? -1 : 0;
}
