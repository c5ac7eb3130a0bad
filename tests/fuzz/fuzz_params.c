/* Fuzz target: the model parameter file (model/params.h) and `--set NAME=VALUE`. The input is a
 * parameter file; its first line is also given to params_set. Invariants: on success every set
 * parameter is finite, within its bound (positive where the model divides by it) and within the
 * plausibility table's range for its unit (whole where it counts things: no rank_spread of 1e300,
 * no 2.5 cores), a file with a NUL or control byte was refused, and so was a file cut short (its last
 * line without a newline); the file written back by params_write (6 significant digits) loads again
 * to the same values; on failure the message is one line that names the source ("FILE:LINE: reason"
 * / "NAME: reason"), and a parameter refused for its value names the parameter and its range. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"
#include "model/params.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    return 0;
}

static void check_values(const model_params *p, const char *what)
{
    char why[256];
    for (int i = 0; i < MP_COUNT; i++)
        if (p->set[i]) {
            FUZZ_ASSERT(isfinite(p->v[i]) && p->v[i] >= 0, "%s: %s = %g", what, params_name(i), p->v[i]);
            /* in file units, within the parameter's bound (a rate the model divides by is positive) */
            FUZZ_ASSERT(params_check_value(i, p->v[i] / params_scale(i), why, sizeof why) == 0, "%s: %s", what, why);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_scratch_write(data, size);
    const char *path = fuzz_scratch_path();
    static model_params p, q;
    params_init(&p);
    char err[1024] = "";
    bool binary = false;
    for (size_t i = 0; i < size; i++)
        binary |= data[i] < 0x20 ? data[i] != '\t' && data[i] != '\n' && data[i] != '\r' : data[i] == 0x7f;
    const bool cut = size > 0 && data[size - 1] != '\n';
    if (params_load(&p, path, err, sizeof err) == 0) {
        FUZZ_ASSERT(!binary, "a file with a NUL or control byte loaded");
        FUZZ_ASSERT(!cut, "a file whose last line has no newline (cut short) loaded");
        check_values(&p, "load");
        /* round trip through params_write */
        char back[600];
        snprintf(back, sizeof back, "%s.back", path);
        if (params_write(&p, back, true, err, sizeof err) == 0) {
            params_init(&q);
            int rc = params_load(&q, back, err, sizeof err);
            FUZZ_ASSERT(rc == 0, "written file does not load: %s", err);
            for (int i = 0; i < MP_COUNT; i++) {
                FUZZ_ASSERT(q.set[i] == p.set[i], "%s set %d, after round trip %d", params_name(i), p.set[i], q.set[i]);
                if (p.set[i])
                    FUZZ_ASSERT(fabs(q.v[i] - p.v[i]) <= 1e-5 * fabs(p.v[i]) + 1e-300, "%s: %.17g -> %.17g",
                                params_name(i), p.v[i], q.v[i]);
            }
            unlink(back);
        }
    } else {
        fuzz_check_error(err, "params_load");
        FUZZ_ASSERT(strncmp(err, path, strlen(path)) == 0, "load error does not name the file: %s", err);
        FUZZ_ASSERT(!strchr(err, '\n'), "load error is not one line: %s", err);
        /* a value out of the table names its range */
        /* (the message's own words, not input echoed back that happens to contain them) */
        const char *why = strstr(err, "is outside its plausible range");
        if (why && !memmem(data, size, "plausible", 9))
            FUZZ_ASSERT(strchr(why, '[') && strchr(why, ']'), "no range in: %s", err);
    }
    /* the first line as a --set assignment */
    char line[512];
    size_t n = 0;
    while (n < size && n < sizeof line - 1 && data[n] != '\n' && data[n] != 0) { line[n] = (char)data[n]; n++; }
    line[n] = 0;
    params_init(&p);
    if (params_set(&p, line, err, sizeof err) == 0) check_values(&p, "set");
    else fuzz_check_error(err, "params_set");
    return 0;
}
