#include "bench/options.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Integer with an optional scale suffix; `base` is 1000 for counts and 1024 for bytes. */
static int parse_scaled(const char *s, int64_t *out, int64_t base, const char **why)
{
    if (!s || !*s) { *why = "needs a value"; return -1; }
    if (*s == '-') { *why = "must not be negative"; return -1; }
    if (!isdigit((unsigned char)*s)) { *why = "is not a number"; return -1; }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE) { *why = "is too large"; return -1; }
    int64_t mult = 1;
    if (*end) {
        char c = (char)toupper((unsigned char)*end);
        if (c == 'K') mult = base;
        else if (c == 'M') mult = base * base;
        else if (c == 'G') mult = base * base * base;
        else if (c == 'T') mult = base * base * base * base;
        else { *why = "has an unknown suffix (use K, M, G or T)"; return -1; }
        end++;
        if (base == 1024 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)) end += strlen(end);
        if (*end) { *why = "has trailing characters"; return -1; }
    }
    if (v > (unsigned long long)(INT64_MAX / mult)) { *why = "is too large"; return -1; }
    *out = (int64_t)v * mult;
    return 0;
}

int opt_parse_count(const char *s, int64_t *out, const char **why) { return parse_scaled(s, out, 1000, why); }
int opt_parse_bytes(const char *s, int64_t *out, const char **why) { return parse_scaled(s, out, 1024, why); }

int opt_parse_int(const char *s, int64_t *out, const char **why)
{
    if (!s || !*s) { *why = "needs a value"; return -1; }
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s) { *why = "is not a number"; return -1; }
    if (*end) { *why = "is not an integer"; return -1; }
    if (errno == ERANGE) { *why = "is out of range"; return -1; }
    *out = v;
    return 0;
}

int opt_parse_double(const char *s, double *out, const char **why)
{
    if (!s || !*s) { *why = "needs a value"; return -1; }
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s) { *why = "is not a number"; return -1; }
    if (*end) { *why = "has trailing characters"; return -1; }
    if (errno == ERANGE || !isfinite(v)) { *why = "is out of range"; return -1; }
    *out = v;
    return 0;
}

int opt_parse_duration(const char *s, double *seconds, const char **why)
{
    if (!s || !*s) { *why = "needs a value"; return -1; }
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v)) { *why = "is not a duration (e.g. 10s, 500ms)"; return -1; }
    if (v < 0) { *why = "must not be negative"; return -1; }
    double mult;
    if (*end == 0 || strcmp(end, "s") == 0) mult = 1;
    else if (strcmp(end, "ms") == 0) mult = 1e-3;
    else if (strcmp(end, "us") == 0) mult = 1e-6;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0) mult = 60;
    else if (strcmp(end, "h") == 0) mult = 3600;
    else { *why = "has an unknown unit (use us, ms, s, m or h)"; return -1; }
    *seconds = v * mult;
    return 0;
}

static int parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"on", "yes", "true", "1"}, *const no[] = {"off", "no", "false", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(s, yes[i]) == 0) { *out = true; return 0; }
        if (strcmp(s, no[i]) == 0) { *out = false; return 0; }
    }
    return -1;
}

static const opt_spec *find_spec(const opt_spec *const *tables, const char *name, size_t len, bool *negated)
{
    *negated = false;
    for (int pass = 0; pass < 2; pass++) {
        const char *n = name;
        size_t l = len;
        if (pass == 1) {
            if (len <= 3 || strncmp(name, "no-", 3) != 0) return NULL;
            n += 3; l -= 3;
        }
        for (const opt_spec *const *t = tables; *t; t++)
            for (const opt_spec *o = *t; o->name; o++)
                if (o->type != OPT_HEADING && strlen(o->name) == l && strncmp(o->name, n, l) == 0) {
                    if (pass == 1) {
                        if (o->type != OPT_BOOL) return NULL;
                        *negated = true;
                    }
                    return o;
                }
    }
    return NULL;
}

static int range_ok(const opt_spec *o, double v, char *err, size_t errlen)
{
    if (o->min < o->max && (v < o->min || v > o->max)) {
        snprintf(err, errlen, "--%s: %g is out of range [%g, %g]", o->name, v, o->min, o->max);
        return -1;
    }
    return 0;
}

static int set_value(const opt_spec *o, const char *val, char *err, size_t errlen)
{
    const char *why = NULL;
    char shown[OPT_SHOWN_MAX];
    int64_t iv;
    double dv;
    switch (o->type) {
    case OPT_BOOL: {
        bool b;
        if (parse_bool(val, &b)) {
            snprintf(err, errlen, "--%s: '%s' is not on or off", o->name, opt_shown(val, shown));
            return -1;
        }
        *(bool *)o->dest = b;
        return 0;
    }
    case OPT_INT:
    case OPT_COUNT:
    case OPT_BYTES: {
        int rc = o->type == OPT_INT ? opt_parse_int(val, &iv, &why)
               : o->type == OPT_COUNT ? opt_parse_count(val, &iv, &why) : opt_parse_bytes(val, &iv, &why);
        if (rc) { snprintf(err, errlen, "--%s: '%s' %s", o->name, opt_shown(val, shown), why); return -1; }
        if (range_ok(o, (double)iv, err, errlen)) return -1;
        *(int64_t *)o->dest = iv;
        return 0;
    }
    case OPT_DOUBLE:
    case OPT_DURATION: {
        int rc = o->type == OPT_DOUBLE ? opt_parse_double(val, &dv, &why) : opt_parse_duration(val, &dv, &why);
        if (rc) { snprintf(err, errlen, "--%s: '%s' %s", o->name, opt_shown(val, shown), why); return -1; }
        if (range_ok(o, dv, err, errlen)) return -1;
        *(double *)o->dest = dv;
        return 0;
    }
    case OPT_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (strcmp(o->choices[i], val) == 0) { *(int *)o->dest = i; return 0; }
        {
            char list[256] = "";
            for (int i = 0; o->choices[i]; i++) {
                strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, o->choices[i], sizeof list - strlen(list) - 1);
            }
            snprintf(err, errlen, "--%s: '%s' is not one of: %s", o->name, opt_shown(val, shown), list);
        }
        return -1;
    case OPT_STRING:
        if (!*val) { snprintf(err, errlen, "--%s: needs a non-empty value", o->name); return -1; }
        *(const char **)o->dest = val;
        return 0;
    case OPT_HEADING: break;
    }
    return -1;
}

int opt_parse(const opt_spec *const *tables, int argc, char **argv, int first, char *err, size_t errlen)
{
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        char shown[OPT_SHOWN_MAX];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return OPT_HELP;
        if (strncmp(a, "--", 2) != 0 || a[2] == 0) {
            snprintf(err, errlen, "'%s': unexpected argument (flags start with --; see --help)", opt_shown(a, shown));
            return OPT_ERROR;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        bool negated;
        const opt_spec *o = find_spec(tables, name, len, &negated);
        if (!o) {
            char flag[OPT_SHOWN_MAX];
            snprintf(flag, sizeof flag, "%.*s", (int)(len < sizeof flag - 1 ? len : sizeof flag - 1), name);
            snprintf(err, errlen, "--%s: unknown flag (see --help)", opt_shown(flag, shown));
            return OPT_ERROR;
        }
        const char *val;
        if (o->type == OPT_BOOL && !eq) {
            *(bool *)o->dest = !negated;
            if (o->seen) *o->seen = true;
            continue;
        }
        if (negated) { snprintf(err, errlen, "--no-%s: takes no value", o->name); return OPT_ERROR; }
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else { snprintf(err, errlen, "--%s: needs a value", o->name); return OPT_ERROR; }
        if (set_value(o, val, err, errlen)) return OPT_ERROR;
        if (o->seen) *o->seen = true;
    }
    return OPT_OK;
}

const opt_spec *opt_given(const opt_spec *const *tables, const opt_spec *table, int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) != 0) continue; /* a value (opt_parse accepted the arguments) */
        const char *name = argv[i] + 2, *eq = strchr(name, '=');
        bool negated;
        const opt_spec *o = find_spec(tables, name, eq ? (size_t)(eq - name) : strlen(name), &negated);
        if (!o) continue;
        for (const opt_spec *t = table; t->name; t++)
            if (t == o) return o;
        if (o->type != OPT_BOOL && !eq) i++; /* its value is the next argument */
    }
    return NULL;
}

void opt_format_count(int64_t v, char *buf, size_t len)
{
    if (v >= 1000000000 && v % 1000000000 == 0) snprintf(buf, len, "%" PRId64 "G", v / 1000000000);
    else if (v >= 1000000 && v % 1000000 == 0) snprintf(buf, len, "%" PRId64 "M", v / 1000000);
    else if (v >= 1000 && v % 1000 == 0) snprintf(buf, len, "%" PRId64 "K", v / 1000);
    else snprintf(buf, len, "%" PRId64, v);
}

/* A range end as the flag takes it: counts and bytes with their suffixes where exact (1T, 64K). */
static void format_bound(const opt_spec *o, double v, char *buf, size_t len)
{
    static const char suffix[] = "KMGT";
    if ((o->type == OPT_COUNT || o->type == OPT_BYTES) && v >= 0 && v < 9.2e18) {
        int64_t n = (int64_t)v, base = o->type == OPT_COUNT ? 1000 : 1024;
        int k = -1;
        while (k < 3 && n >= base && n % base == 0) {
            n /= base;
            k++;
        }
        if (k >= 0) snprintf(buf, len, "%" PRId64 "%c", n, suffix[k]);
        else snprintf(buf, len, "%" PRId64, n);
        return;
    }
    snprintf(buf, len, "%g", v);
}

/* "(KIND LO..HI)" of a numeric flag with a range (opt_usage). */
static void print_range(const opt_spec *o)
{
    static const char *const kinds[] = {[OPT_INT] = "integer", [OPT_COUNT] = "count", [OPT_BYTES] = "bytes",
                                        [OPT_DOUBLE] = "number", [OPT_DURATION] = "seconds"};
    if (!(o->min < o->max) || o->type > OPT_DURATION || o->type == OPT_BOOL) return;
    char lo[32], hi[32];
    format_bound(o, o->min, lo, sizeof lo);
    format_bound(o, o->max, hi, sizeof hi);
    printf(" (%s %s..%s)", kinds[o->type], lo, hi);
}

void opt_usage(const char *usage_line, const opt_spec *const *tables)
{
    printf("usage: %s\n", usage_line);
    for (const opt_spec *const *t = tables; *t; t++)
        for (const opt_spec *o = *t; o->name; o++) {
            char def[64] = "";
            if (o->type == OPT_HEADING) {
                printf("%s:\n", o->name);
                continue;
            }
            switch (o->type) {
            case OPT_BOOL: snprintf(def, sizeof def, "%s", *(bool *)o->dest ? "on" : "off"); break;
            case OPT_INT: case OPT_BYTES: snprintf(def, sizeof def, "%" PRId64, *(int64_t *)o->dest); break;
            case OPT_COUNT: opt_format_count(*(int64_t *)o->dest, def, sizeof def); break;
            case OPT_DOUBLE: snprintf(def, sizeof def, "%g", *(double *)o->dest); break;
            case OPT_DURATION: snprintf(def, sizeof def, "%gs", *(double *)o->dest); break;
            case OPT_CHOICE: snprintf(def, sizeof def, "%s", o->choices[*(int *)o->dest]); break;
            case OPT_STRING: snprintf(def, sizeof def, "%s", *(const char **)o->dest ? *(const char **)o->dest : "-"); break;
            case OPT_HEADING: break;
            }
            char flag[64];
            snprintf(flag, sizeof flag, o->type == OPT_BOOL ? "%s, --no-%s" : "%s", o->name, o->name);
            printf("  --%-24s %s [%s]", flag, o->help ? o->help : "", def);
            print_range(o);
            if (o->type == OPT_CHOICE) {
                printf(" (");
                for (int i = 0; o->choices[i]; i++) printf("%s%s", i ? "|" : "", o->choices[i]);
                printf(")");
            }
            printf("\n");
        }
}

const char *opt_shown(const char *s, char buf[OPT_SHOWN_MAX])
{
    /* keep: the head and the tail (a file's name is at its end) of what fits */
    enum { LIMIT = 160, HEAD = 110, TAIL = 40 };
    size_t n = s ? strlen(s) : 0, o = 0;
    for (size_t i = 0; i < n; i++) {
        if (n > LIMIT && i == HEAD) {
            o += (size_t)snprintf(buf + o, OPT_SHOWN_MAX - o, "...");
            i = n - TAIL;
        }
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) o += (size_t)snprintf(buf + o, OPT_SHOWN_MAX - o, "\\x%02x", c);
        else buf[o++] = (char)c;
        if (o + 40 >= OPT_SHOWN_MAX) break; /* escapes only: the bound holds */
    }
    buf[o] = 0;
    if (n > LIMIT) snprintf(buf + o, OPT_SHOWN_MAX - o, " (%zu bytes)", n);
    return buf;
}

const char *opt_program = "rmabench";

void opt_print_usage_error(const char *fmt, va_list ap)
{
    if (bench_env_rank() != 0) return;
    /* one write for the whole line: mpirun forwards each write of a rank on its own, and its own
     * "process returned a non-zero exit code" text can land between two of them */
    char *msg = NULL, *line = NULL;
    if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
    if (msg && asprintf(&line, "%s: %s\n", opt_program, msg) < 0) line = NULL;
    fputs(line ? line : "rmabench: out of memory for a message\n", stderr);
    fflush(stderr);
    free(line);
    free(msg);
}

_Noreturn void opt_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    opt_print_usage_error(fmt, ap);
    va_end(ap);
    exit(2);
}

int bench_env_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return 0;
}
