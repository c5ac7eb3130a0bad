#include "model/params.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/options.h"

static const struct {
    const char *name, *unit, *what;
    double scale;
} table[MP_COUNT] = {
#define P_ROW(n, u, s, d) {#n, u, d, s},
    MODEL_PARAMS(P_ROW)
#undef P_ROW
};

static const char *const info_names[MI_COUNT] = {
#define I_ROW(n) #n,
    MODEL_INFO(I_ROW)
#undef I_ROW
};

void params_init(model_params *p) { memset(p, 0, sizeof *p); }

int params_index(const char *name)
{
    for (int i = 0; i < MP_COUNT; i++)
        if (strcmp(table[i].name, name) == 0) return i;
    return -1;
}

static int info_index(const char *name)
{
    for (int i = 0; i < MI_COUNT; i++)
        if (strcmp(info_names[i], name) == 0) return i;
    return -1;
}

const char *params_name(int i) { return table[i].name; }
const char *params_unit(int i) { return table[i].unit; }
double params_scale(int i) { return table[i].scale; }
const char *params_describe(int i) { return table[i].what; }

void params_put(model_params *p, int i, double value)
{
    p->v[i] = value;
    p->set[i] = true;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

static bool valid_name(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

/* Parses one "name = value" (value in file units) into p; why gets the reason on failure. */
static int assign(model_params *p, char *name, char *value, const char *unit, bool *seen, char *why, size_t whylen)
{
    if (!valid_name(name)) {
        snprintf(why, whylen, "expected 'name = value', got name '%.60s'", name);
        return -1;
    }
    int ii = info_index(name);
    if (ii >= 0) {
        snprintf(p->info[ii], sizeof p->info[ii], "%s", value);
        return 0;
    }
    int i = params_index(name);
    if (i < 0) {
        snprintf(why, whylen, "unknown parameter '%.60s'", name);
        return -1;
    }
    if (seen && seen[i]) {
        snprintf(why, whylen, "%s given twice", name);
        return -1;
    }
    if (unit && strcmp(unit, table[i].unit) != 0) {
        snprintf(why, whylen, "%s: unit '%.30s', expected '%s'", name, unit, table[i].unit);
        return -1;
    }
    double v;
    const char *reason = NULL;
    if (!*value) {
        snprintf(why, whylen, "%s: missing value", name);
        return -1;
    }
    if (opt_parse_double(value, &v, &reason) || !isfinite(v)) {
        snprintf(why, whylen, "%s: '%.40s' is not a number", name, value);
        return -1;
    }
    if (v < 0) {
        snprintf(why, whylen, "%s: %g is negative", name, v);
        return -1;
    }
    params_put(p, i, v * table[i].scale);
    if (seen) seen[i] = true;
    return 0;
}

int params_load(model_params *p, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    bool seen[MP_COUNT] = {false};
    char line[2048];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char why[256];
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            snprintf(err, errlen, "%s:%d: line too long", path, lineno);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#'), *unit = NULL;
        if (hash) {
            *hash = 0;
            /* the unit is the first word of the comment */
            char *c = hash + 1;
            while (isspace((unsigned char)*c)) c++;
            if (*c) {
                unit = c;
                while (*c && !isspace((unsigned char)*c)) c++;
                *c = 0;
            }
        }
        char *s = trim(line);
        if (!*s) continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected 'name = value'", path, lineno);
            rc = -1;
            break;
        }
        *eq = 0;
        char *name = trim(s), *value = trim(eq + 1);
        if (info_index(name) >= 0) unit = NULL; /* text fields carry no unit */
        if (assign(p, name, value, unit, seen, why, sizeof why)) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        rc = -1;
    }
    fclose(f);
    if (rc == 0) snprintf(p->source, sizeof p->source, "%s", path);
    return rc;
}

int params_set(model_params *p, const char *assignment, char *err, size_t errlen)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", assignment);
    char *eq = strchr(buf, '=');
    if (!eq) {
        snprintf(err, errlen, "'%.60s': expected NAME=VALUE", assignment);
        return -1;
    }
    *eq = 0;
    char *name = trim(buf), *value = trim(eq + 1);
    char why[256];
    if (info_index(name) >= 0 || assign(p, name, value, NULL, NULL, why, sizeof why)) {
        if (info_index(name) >= 0) snprintf(why, sizeof why, "%s is a description, not a parameter", name);
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    size_t n = strlen(p->source);
    if (n < sizeof p->source - 32 && !strstr(p->source, "--set"))
        snprintf(p->source + n, sizeof p->source - n, "%s--set", n ? " + " : "");
    return 0;
}

int params_write(const model_params *p, const char *path, char *err, size_t errlen)
{
    /* Write to a temporary name, then rename: a failed calibration leaves nothing half-written. */
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# rmabench model parameters (rmabench calibrate). Format: name = value  # unit  description\n"
               "# Rates are per rank in million tuples per second, as in the thesis; edit or override with\n"
               "# rmamodel ... --set NAME=VALUE (same units).\n");
    for (int i = 0; i < MI_COUNT; i++)
        if (p->info[i][0]) fprintf(f, "%s = %s\n", info_names[i], p->info[i]);
    for (int i = 0; i < MP_COUNT; i++) {
        if (p->set[i])
            fprintf(f, "%s = %.6g  # %s  %s\n", table[i].name, p->v[i] / table[i].scale, table[i].unit, table[i].what);
        else
            fprintf(f, "# %s = (not measured)  # %s  %s\n", table[i].name, table[i].unit, table[i].what);
    }
    int bad = ferror(f);
    if (fclose(f) || bad) {
        snprintf(err, errlen, "%s: write error", path);
        remove(tmp);
        return -1;
    }
    if (rename(tmp, path)) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

int params_require(const model_params *p, const int *which, char *err, size_t errlen)
{
    for (; *which >= 0; which++)
        if (!p->set[*which]) {
            snprintf(err, errlen, "%s: %s (%s) is not set; give it in the file or with --set %s=VALUE",
                     p->source[0] ? p->source : "parameters", table[*which].name, table[*which].what, table[*which].name);
            return -1;
        }
    return 0;
}
