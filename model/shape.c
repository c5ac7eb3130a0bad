#include "model/shape.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One field of a shape struct: its key, where it lives, and its C type. */
typedef struct {
    const char *key;
    size_t offset;
    char type; /* 'd' double, 'i' int, 'b' bool, 'r' alloc regime (int, by name) */
} field;

#define D(k, m) {k, offsetof(join_shape, m), 'd'}
static const field join_fields[] = {
    D("ranks", ranks), D("ranks_per_host", ranks_per_host), D("ranks_on_cores", ranks_on_cores), D("r_tuples", r_tuples),
    D("s_tuples", s_tuples), {"local_passes", offsetof(join_shape, radix_local_passes), 'i'},
    {"local_counted", offsetof(join_shape, radix_local_counted), 'i'}, D("tuple_bytes", window_bytes_per_tuple),
    D("sort_radix_share", sort_radix_share), D("merge_bands", merge_bands), D("count_share", count_share),
    D("run_size", sort_run_length), {"alloc", offsetof(join_shape, alloc_regime), 'r'},
    {"hist_bits", offsetof(join_shape, hist_bits), 'i'}, {"window_life", offsetof(join_shape, window_life), 'i'},
    {"first_run", offsetof(join_shape, first_run), 'b'}, {NULL, 0, 0},
};
#undef D
#define D(k, m) {k, offsetof(lock_shape, m), 'd'}
#define B(k, m) {k, offsetof(lock_shape, m), 'b'}
static const field lock_fields[] = {
    D("agents", agents), D("servers", servers), D("locks_per_txn", n_locks), D("remote_prob", remote_prob),
    D("ranks_per_host", ranks_per_host), B("mpi_yields", mpi_yields), B("end_with_next", end_with_next),
    B("one_host", one_host), D("floor_us", floor_us), {NULL, 0, 0},
};
#undef D
#undef B

static int format(const field *f, const void *s, char *buf, size_t len)
{
    size_t at = 0;
    for (; f->key; f++) {
        const char *p = (const char *)s + f->offset;
        int n;
        if (f->type == 'd') n = snprintf(buf + at, len - at, "%s%s=%.17g", at ? " " : "", f->key, *(const double *)p);
        else if (f->type == 'i') n = snprintf(buf + at, len - at, "%s%s=%d", at ? " " : "", f->key, *(const int *)p);
        else if (f->type == 'b') n = snprintf(buf + at, len - at, "%s%s=%d", at ? " " : "", f->key, *(const bool *)p);
        else n = snprintf(buf + at, len - at, "%s%s=%s", at ? " " : "", f->key, model_alloc_regime_names[*(const int *)p != 0]);
        if (n < 0 || (size_t)n >= len - at) return -1;
        at += (size_t)n;
    }
    return 0;
}

static int parse(const field *fields, const char *text, void *s, char *err, size_t errlen)
{
    bool seen[32] = {false};
    const char *c = text;
    while (*c) {
        while (isspace((unsigned char)*c)) c++;
        if (!*c) break;
        const char *eq = strchr(c, '='), *end = c;
        while (*end && !isspace((unsigned char)*end)) end++;
        if (!eq || eq > end) {
            snprintf(err, errlen, "shape: '%.*s': expected key=value", (int)(end - c > 40 ? 40 : end - c), c);
            return -1;
        }
        int k = 0;
        while (fields[k].key && (strlen(fields[k].key) != (size_t)(eq - c) || strncmp(fields[k].key, c, (size_t)(eq - c))))
            k++;
        if (!fields[k].key || seen[k]) {
            snprintf(err, errlen, "shape: '%.*s': %s key", (int)(eq - c > 40 ? 40 : eq - c), c, fields[k].key ? "a repeated" : "an unknown");
            return -1;
        }
        seen[k] = true;
        char value[64];
        snprintf(value, sizeof value, "%.*s", (int)(end - eq - 1 > 63 ? 63 : end - eq - 1), eq + 1);
        char *rest = NULL;
        void *at = (char *)s + fields[k].offset;
        if (fields[k].type == 'r') {
            const int r = !strcmp(value, model_alloc_regime_names[1]) ? 1 : !strcmp(value, model_alloc_regime_names[0]) ? 0 : -1;
            if (r < 0) {
                snprintf(err, errlen, "shape: %s: '%s' is not reused or returned", fields[k].key, value);
                return -1;
            }
            *(int *)at = r;
        } else {
            const double v = strtod(value, &rest);
            if (!value[0] || *rest) {
                snprintf(err, errlen, "shape: %s: '%s' is not a number", fields[k].key, value);
                return -1;
            }
            if (fields[k].type == 'd') *(double *)at = v;
            else if (fields[k].type == 'i') *(int *)at = (int)v;
            else *(bool *)at = v != 0;
        }
        c = end;
    }
    return 0;
}

int model_join_shape_format(const join_shape *s, char *buf, size_t len) { return format(join_fields, s, buf, len); }
int model_lock_shape_format(const lock_shape *s, char *buf, size_t len) { return format(lock_fields, s, buf, len); }

int model_join_shape_parse(const char *text, join_shape *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (parse(join_fields, text, s, err, errlen)) return -1;
    if (!(s->ranks >= 1) || !(s->ranks_per_host >= 1) || !(s->r_tuples > 0)) {
        snprintf(err, errlen, "shape: ranks, ranks_per_host and r_tuples must be given, at least 1");
        return -1;
    }
    return 0;
}

int model_lock_shape_parse(const char *text, lock_shape *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (parse(lock_fields, text, s, err, errlen)) return -1;
    if (!(s->agents >= 1) || !(s->servers >= 1) || !(s->n_locks >= 1)) {
        snprintf(err, errlen, "shape: agents, servers and locks_per_txn must be given, at least 1");
        return -1;
    }
    return 0;
}
