/* `rmamodel pool --output FILE CALIBRATION...`: one parameter file from several calibrations of the
 * same configuration (MPI library, hosts, ranks per host), each parameter combined as
 * params_pool_kind says: the fastest of a timed rate or time (the machine's other work only
 * lengthens a timing, so the least disturbed calibration is the closest to the undisturbed cost),
 * the median of a derived one, the first of a shape. model/validate.sh re-measures its calibration
 * between the rounds of its matrix and predicts every run from the pool of all of them. The spread
 * over the calibrations goes into the file as a comment. FILE is written beside and renamed
 * (bench/output_path.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/output_path.h"
#include "cmd/rmamodel.h"

enum { POOL_MAX = 256 };

/* The calibrations must describe the same runs: a rate measured with 2 ranks on a host is not one
 * measured with 4. */
static void same_configuration(const model_params *a, const model_params *b)
{
    const int keys[] = {MI_mpi_library, MI_hosts, MI_ranks_per_host};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strcmp(a->info[keys[k]], b->info[keys[k]]) != 0)
            rmamodel_fail("pool: %s: %s, where %s has %s: calibrations of different runs do not pool", b->source,
                          b->info[keys[k]][0] ? b->info[keys[k]] : "(none)", a->source, a->info[keys[k]][0] ? a->info[keys[k]] : "(none)");
}

/* Parameter i over the n calibrations that set it, into out (with its spread over them). */
static void pool_one(model_params *out, const model_params *in, int n, int i)
{
    double v[POOL_MAX];
    int m = 0;
    for (int k = 0; k < n; k++)
        if (in[k].set[i]) v[m++] = in[k].v[i];
    if (m == 0) return;
    for (int k = 1; k < m && params_pool_kind(i) == PARAMS_POOL_SAME; k++)
        if (v[k] != v[0])
            fprintf(stderr, "rmamodel: pool: warning: %s differs between the calibrations (%g and %g): the first kept\n",
                    params_name(i), v[0] / params_scale(i), v[k] / params_scale(i));
    if (m > 1 && params_pool_kind(i) != PARAMS_POOL_SAME) params_put_spread(out, i, v, m);
    params_put(out, i, params_pool_value(i, v, m));
}

int rmamodel_pool(int argc, char **argv)
{
    const char *output = NULL;
    bool force = false;
    const char *files[POOL_MAX];
    int n = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: rmamodel pool --output FILE [--force] CALIBRATION...\n"
                   "  one parameter file from calibrations of the same runs: per parameter the fastest of a timed rate or\n"
                   "  time, the median of a derived one (a slope, an overlap, a spread), the first of a shape\n"
                   "  --force replaces an existing --output (else refused)\n");
            return 0;
        }
        if (!strcmp(argv[i], "--output")) {
            if (++i >= argc) rmamodel_fail("--output: needs a file");
            output = argv[i];
        } else if (!strcmp(argv[i], "--force")) {
            force = true;
        } else if (argv[i][0] == '-') {
            char sh[OPT_SHOWN_MAX];
            rmamodel_fail("%s: unknown flag (usage: rmamodel pool --output FILE [--force] CALIBRATION...)", opt_shown(argv[i], sh));
        } else if (n == POOL_MAX) {
            rmamodel_fail("pool: more than %d calibrations", POOL_MAX);
        } else {
            files[n++] = argv[i];
        }
    }
    if (!output) rmamodel_fail("--output: required (the pooled parameter file)");
    if (n == 0) rmamodel_fail("pool: no calibration given");
    char err[700];
    if (output_path_check(output, force ? OUTPUT_REPLACE : OUTPUT_NEW, err, sizeof err)) rmamodel_fail("--output: %s", err);
    model_params *in = calloc((size_t)n, sizeof *in), out;
    if (!in) rmamodel_fail("pool: out of memory");
    for (int k = 0; k < n; k++) {
        params_init(&in[k]);
        if (params_load(&in[k], files[k], err, sizeof err)) rmamodel_fail("%s", err);
        if (k) same_configuration(&in[0], &in[k]);
    }
    params_init(&out);
    memcpy(out.info, in[0].info, sizeof out.info);
    snprintf(out.info[MI_calibrated_at], sizeof out.info[MI_calibrated_at], "%.120s .. %.120s", in[0].info[MI_calibrated_at],
             in[n - 1].info[MI_calibrated_at]);
    snprintf(out.info[MI_interference], sizeof out.info[MI_interference], "pooled: each calibration's in its own file");
    for (int i = 0; i < MP_COUNT; i++) pool_one(&out, in, n, i);
    snprintf(out.warnings, sizeof out.warnings,
             "# pooled by rmamodel pool from %d calibration(s), %s first: per parameter the fastest of a timed rate or time, the "
             "median of a derived one, the first of a shape (model/params.h params_pool_kind); the spread is over the calibrations\n",
             n, files[0]);
    free(in);
    if (params_write(&out, output, force, err, sizeof err)) rmamodel_fail("--output: %s", err);
    printf("pooled %d calibration(s) into %s\n", n, output);
    return 0;
}
