#include "model/params.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/options.h"
#include "bench/stats.h"
#include "bench/output_path.h"
#include "bench/text_input.h"

static const struct {
    const char *name, *unit, *what;
    double scale;
    int bound;
} table[MP_COUNT] = {
#define P_ROW(n, u, s, b, d) {#n, u, d, s, b},
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

double params_ranks_per_core(const model_params *p, double ranks_per_host)
{
    if (!p->set[MP_cores_per_host] || params_get(p, MP_cores_per_host) < 1) return 1;
    const double f = ranks_per_host / params_get(p, MP_cores_per_host);
    return f > 1 ? f : 1;
}

int params_pool_kind(int i)
{
    /* derived from differences or fits of timings, or a statistic of their spread; the pinned
     * pair's round trip is bimodal with the scheduler (calibrate_lock.c takes its slowest round) and
     * the floor is the machine's state, not a cost */
    static const int derived[] = {MP_P_probe, MP_P_probe_alone, MP_P_merge, MP_P_merge_alone, MP_P_match_r, MP_P_match_r_alone,
                                  MP_P_match_s, MP_P_match_s_alone, MP_P_match_r_many, MP_P_match_r_many_alone,
                                  MP_P_match_s_many, MP_P_match_s_many_alone, MP_bw_put_sort, MP_bw_put_sort_slowest,
                                  MP_net_overlap, MP_net_contention, MP_rank_spread, MP_t_shared_comm, MP_t_shared_remote_comm, MP_t_floor_rtt};
    for (size_t k = 0; k < sizeof derived / sizeof derived[0]; k++)
        if (derived[k] == i) return PARAMS_POOL_MEDIAN;
    const char *u = table[i].unit;
    if (!strcmp(u, "Mtuples/s") || !strcmp(u, "GB/s") || !strcmp(u, "us") || !strcmp(u, "ms") || !strcmp(u, "s/GB"))
        return PARAMS_POOL_FASTEST;
    return PARAMS_POOL_SAME;
}

double params_pool_value(int i, double *v, int n)
{
    switch (params_pool_kind(i)) {
    case PARAMS_POOL_MEDIAN: return stats_median(v, n);
    case PARAMS_POOL_SAME: return v[0];
    default: { /* a rate: the largest; a time: the smallest */
        const char *u = table[i].unit;
        const bool rate = !strcmp(u, "Mtuples/s") || !strcmp(u, "GB/s");
        double best = v[0];
        for (int k = 1; k < n; k++) best = rate ? (v[k] > best ? v[k] : best) : (v[k] < best ? v[k] : best);
        return best;
    }
    }
}

int params_alone_of(int i)
{
    char name[64];
    snprintf(name, sizeof name, "%s_alone", table[i].name);
    return params_index(name);
}

const char *params_name(int i) { return table[i].name; }
const char *params_unit(int i) { return table[i].unit; }
double params_scale(int i) { return table[i].scale; }
const char *params_describe(int i) { return table[i].what; }

/* The plausibility table: the values a parameter of each unit can take on any machine this suite
 * runs on, per rank, with room to spare (links and memory reach a few hundred GB/s, message times
 * are microseconds to milliseconds; the fastest kernels reach a few thousand Mtuples/s, but a rate
 * fitted from two timings, as P_match_r beside P_match_s, reads 1e5 Mtuples/s where its term costs
 * next to nothing, so rates go to 1e7). A value outside is a typo, a unit mixed up or a file cut or
 * corrupted, and the models would print nonsense (300-digit seconds) from it: refused, naming the
 * range. Counts of things are whole numbers. */
static const struct {
    const char *unit;
    double lo, hi;
    bool whole;
} plausible[] = {
    {"Mtuples/s", 0, 1e7, false}, {"GB/s", 0, 1e4, false}, {"s/GB", 0, 1e3, false}, {"ms", 0, 1e7, false},
    {"us", 0, 1e8, false},        {"cores", 0, 1e5, true},  {"tuples", 0, 1e13, true}, {"bits", 0, 64, true},
    {"passes", 0, 64, true},      {"runs", 0, 1e6, true},   {"B", 0, 1024, true},      {"fraction", -1, 10, false},
    {"ranks", 0, 1e3, false},
};

static int check_bound(int i, double v, char *why, size_t whylen);

/* 0 when v lies in the plausible range of its unit and is whole where it counts things. */
static int check_plausible(int i, double v, char *why, size_t whylen)
{
    for (size_t k = 0; k < sizeof plausible / sizeof plausible[0]; k++) {
        if (strcmp(plausible[k].unit, table[i].unit) != 0) continue;
        if (v < plausible[k].lo || v > plausible[k].hi) {
            /* the range as this parameter has it: only a signed fraction goes below 0 */
            const double lo = table[i].bound == PB_SIGNED_FRACTION ? plausible[k].lo : fmax(plausible[k].lo, 0);
            snprintf(why, whylen, "%s: %g is outside its plausible range [%g, %g] %s", table[i].name, v, lo, plausible[k].hi,
                     table[i].unit);
            return -1;
        }
        if (plausible[k].whole && v != floor(v)) {
            snprintf(why, whylen, "%s: %g is not a whole number of %s", table[i].name, v, table[i].unit);
            return -1;
        }
        return 0;
    }
    return 0;
}

int params_check_value(int i, double v, char *why, size_t whylen)
{
    const char *name = table[i].name;
    if (!isfinite(v)) {
        snprintf(why, whylen, "%s: %g is not a finite number", name, v);
        return -1;
    }
    if (check_bound(i, v, why, whylen)) return -1;
    return check_plausible(i, v, why, whylen);
}

/* The parameter's own bound (PB_*): what the equations need of it. */
static int check_bound(int i, double v, char *why, size_t whylen)
{
    const char *name = table[i].name;
    switch (table[i].bound) {
    case PB_POSITIVE:
        if (v > 0) return 0;
        snprintf(why, whylen, "%s: %g is not positive (the model divides by it)", name, v);
        return -1;
    case PB_AT_LEAST_1:
    case PB_AT_LEAST_2: {
        double lo = table[i].bound == PB_AT_LEAST_1 ? 1 : 2;
        if (v >= lo) return 0;
        snprintf(why, whylen, "%s: %g is below %g", name, v, lo);
        return -1;
    }
    case PB_FRACTION:
        if (v >= 0 && v <= 1) return 0;
        snprintf(why, whylen, "%s: %g is not a fraction in [0, 1]", name, v);
        return -1;
    case PB_SIGNED_FRACTION:
        if (v >= -1 && v <= 1) return 0;
        snprintf(why, whylen, "%s: %g is not in [-1, 1]", name, v);
        return -1;
    case PB_PASSES:
        if (v >= 0 && v <= 64) return 0;
        snprintf(why, whylen, "%s: %g is not a pass count in [0, 64]", name, v);
        return -1;
    default:
        if (v >= 0) return 0;
        snprintf(why, whylen, "%s: %g is negative", name, v);
        return -1;
    }
}

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
    if (params_check_value(i, v, why, whylen)) return -1;
    params_put(p, i, v * table[i].scale);
    if (seen) seen[i] = true;
    return 0;
}

int params_load(model_params *p, const char *path, char *err, size_t errlen)
{
    FILE *f = text_open(path, err, errlen); /* a regular file, or refused before reading */
    if (!f) return -1;
    char sh[OPT_SHOWN_MAX];
    opt_shown(path, sh);
    bool seen[MP_COUNT] = {false};
    char line[2048];
    int lineno = 0, rc = 0, got;
    char why[256];
    while ((got = text_read_line(f, line, sizeof line, why, sizeof why)) != 0) {
        lineno++;
        if (got < 0) {
            snprintf(err, errlen, "%s:%d: %s", sh, lineno, why);
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
            snprintf(err, errlen, "%s:%d: expected 'name = value'", sh, lineno);
            rc = -1;
            break;
        }
        *eq = 0;
        char *name = trim(s), *value = trim(eq + 1);
        if (info_index(name) >= 0) unit = NULL; /* text fields carry no unit */
        if (assign(p, name, value, unit, seen, why, sizeof why)) {
            snprintf(err, errlen, "%s:%d: %s", sh, lineno, why);
            rc = -1;
            break;
        }
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

int params_write(const model_params *p, const char *path, bool replace, char *err, size_t errlen)
{
    /* A temporary file beside path, renamed when complete: a failed calibration leaves nothing
     * half-written, and a path that is not a regular file is refused (bench/output_path.h). */
    output_file out;
    if (output_file_begin(&out, path, replace, err, errlen)) return -1;
    FILE *f = out.f;
    fprintf(f, "# rmabench model parameters (rmabench calibrate). Format: name = value  # unit  description\n"
               "# Rates are per rank in million tuples per second, as in the thesis; edit or override with\n"
               "# rmamodel ... --set NAME=VALUE (same units).\n");
    for (int i = 0; i < MI_COUNT; i++)
        if (p->info[i][0]) fprintf(f, "%s = %s\n", info_names[i], p->info[i]);
    char spread[160], warn[320];
    for (int i = 0; i < MP_COUNT; i++) {
        params_spread_text(p, i, spread, sizeof spread);
        /* the unit stays the comment's first word (the reader checks it); spread and notes follow */
        char why[200];
        if (p->set[i] && params_check_value(i, p->v[i] / table[i].scale, why, sizeof why))
            /* a measurement outside the plausibility table: left out, so that the file loads */
            fprintf(f, "# %s = %.6g  # %s  left out: %s\n", table[i].name, p->v[i] / table[i].scale, table[i].unit, why);
        else if (p->set[i])
            fprintf(f, "%s = %.6g  # %s  %s%s%s%s%s%s%s%s\n", table[i].name, p->v[i] / table[i].scale, table[i].unit,
                    spread, spread[0] ? "; " : "", p->how[i] ? p->how[i] : "", p->how[i] ? "; " : "",
                    p->bench[i][0] ? "bench: " : "", p->bench[i], p->bench[i][0] ? "; " : "", table[i].what);
        else
            fprintf(f, "# %s = (not measured)  # %s  %s\n", table[i].name, table[i].unit, table[i].what);
    }
    for (int i = 0; i < MP_COUNT; i++)
        if (p->set[i] && params_spread_warning(p, i, warn, sizeof warn)) fprintf(f, "# warning: %s\n", warn);
    const size_t wl = strlen(p->warnings);
    if (wl) fprintf(f, "%s%s", p->warnings, p->warnings[wl - 1] == '\n' ? "" : "\n"); /* whole lines */
    return output_file_commit(&out, err, errlen);
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

void params_put_spread(model_params *p, int i, const double *v, int n)
{
    params_spread *sp = &p->spread[i];
    memset(sp, 0, sizeof *sp);
    if (n < 2) return;
    double w[64];
    if (n > 64) n = 64;
    for (int k = 0; k < n; k++) w[k] = v[k];
    sp->median = stats_median(w, n); /* sorts w */
    sp->min = w[0];
    sp->max = w[n - 1];
    sp->rounds = n;
}

double params_spread_rel(const model_params *p, int i)
{
    const params_spread *sp = &p->spread[i];
    if (sp->rounds < 2 || !(sp->median > 0)) return -1;
    return (sp->max - sp->min) / sp->median;
}

void params_spread_text(const model_params *p, int i, char *buf, size_t len)
{
    double rel = params_spread_rel(p, i), sc = table[i].scale;
    const params_spread *sp = &p->spread[i];
    if (rel < 0) {
        if (len) buf[0] = 0;
        return;
    }
    snprintf(buf, len, "spread %.1f%% over %d rounds (min %.4g, median %.4g, max %.4g)", 100 * rel, sp->rounds,
             sp->min / sc, sp->median / sc, sp->max / sc);
}

int params_spread_warning(const model_params *p, int i, char *buf, size_t len)
{
    if (len) buf[0] = 0;
    /* decided on the spread as the file shows it (0.1% steps): "spread 10.0%" never carries a warning
     * "above 10%", as the unrounded spread a little above 10% would */
    const double rel = params_spread_rel(p, i), shown = (double)(long)(1000 * rel + 0.5) / 1000;
    if (rel < 0 || shown <= PARAMS_SPREAD_WARN) return 0;
    char sp[160];
    params_spread_text(p, i, sp, sizeof sp);
    snprintf(buf, len, "%s %s %s, above %.0f%%: one calibration does not pin it down (a busy machine, a small --tuples); rerun, or raise --rounds, --repeats",
             table[i].name, sp, table[i].unit, 100 * PARAMS_SPREAD_WARN);
    return 1;
}

int params_take_sets(int argc, char **argv, int first, char **rest, params_overrides *sets, char *err, size_t errlen)
{
    int out = 0;
    sets->n = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (i >= first && strcmp(a, "--set") == 0) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "--set: needs NAME=VALUE");
                return -1;
            }
            v = argv[++i];
        } else if (i >= first && strncmp(a, "--set=", 6) == 0) {
            v = a + 6;
        } else {
            rest[out++] = argv[i];
            continue;
        }
        if (sets->n == PARAMS_SETS_MAX) {
            snprintf(err, errlen, "--set: more than %d overrides", PARAMS_SETS_MAX);
            return -1;
        }
        sets->v[sets->n++] = v;
    }
    rest[out] = NULL;
    return out;
}

int params_apply_sets(model_params *p, const params_overrides *sets, char *err, size_t errlen)
{
    char why[400];
    for (int k = 0; sets && k < sets->n; k++)
        if (params_set(p, sets->v[k], why, sizeof why)) {
            snprintf(err, errlen, "--set: %s", why);
            return -1;
        }
    return 0;
}
