/* Fuzz target: the command line. The input is split at NUL bytes into arguments (argv[2..]) and
 * parsed by opt_parse over a table with every option type, and by the real `rmabench join`
 * parser (join_parse_opts, MPI-free). Invariants: the result is OPT_OK, OPT_HELP or OPT_ERROR;
 * an error has a message naming a flag or the argument; on OPT_OK every value lies in its
 * declared range and floating values are finite; a choice index is valid; a join run leaves the
 * other algorithm's flags and, with --r-tuples, --tuples-per-rank at their defaults (such flags are
 * refused, not ignored). The value parsers (counts, bytes, durations) are also checked for finite,
 * non-negative results. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "cmd/join/join_cmd.h"
#include "bench/options.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    /* --help prints the usage: exercised, but kept off the fuzzer's output */
    if (!freopen("/dev/null", "w", stdout)) abort();
    return 0;
}

static const char *const colours[] = {"red", "green", "blue", NULL};

static void check_spec_values(const opt_spec *specs)
{
    for (const opt_spec *o = specs; o->name; o++) {
        double v;
        switch (o->type) {
        case OPT_INT: case OPT_COUNT: case OPT_BYTES: v = (double)*(int64_t *)o->dest; break;
        case OPT_DOUBLE: case OPT_DURATION:
            v = *(double *)o->dest;
            FUZZ_ASSERT(isfinite(v), "--%s accepted a non-finite value", o->name);
            break;
        case OPT_CHOICE: {
            int i = *(int *)o->dest, n = 0;
            while (o->choices[n]) n++;
            FUZZ_ASSERT(i >= 0 && i < n, "--%s: choice index %d of %d", o->name, i, n);
            continue;
        }
        case OPT_STRING: {
            const char *s = *(const char **)o->dest;
            FUZZ_ASSERT(!s || *s, "--%s accepted an empty string", o->name);
            continue;
        }
        default: continue;
        }
        if (o->min < o->max)
            FUZZ_ASSERT(v >= o->min && v <= o->max, "--%s = %g outside [%g, %g]", o->name, v, o->min, o->max);
        if (o->type == OPT_COUNT || o->type == OPT_BYTES || o->type == OPT_DURATION)
            FUZZ_ASSERT(v >= 0, "--%s = %g is negative", o->name, v);
    }
}

static void generic_table(int argc, char **argv)
{
    int64_t i1 = 3, c1 = 1000, b1 = 4096, i2 = 0;
    double d1 = 0.5, t1 = 10, t2 = 1;
    int ch = 0;
    bool f1 = false, f2 = true, seen = false;
    const char *s1 = NULL;
    const opt_spec specs[] = {
        {"int", OPT_INT, &i1, "ranged integer", -5, 1 << 20, NULL, &seen},
        {"free-int", OPT_INT, &i2, "unranged integer", 0, 0, NULL, NULL},
        {"count", OPT_COUNT, &c1, "count", 1, 1e13, NULL, NULL},
        {"bytes", OPT_BYTES, &b1, "bytes", 256, 1 << 30, NULL, NULL},
        {"frac", OPT_DOUBLE, &d1, "fraction", 0, 1, NULL, NULL},
        {"duration", OPT_DURATION, &t1, "ranged duration", 0, 86400, NULL, NULL},
        {"timeout", OPT_DURATION, &t2, "unranged duration", 0, 0, NULL, NULL},
        {"colour", OPT_CHOICE, &ch, "choice", 0, 0, colours, NULL},
        {"flag", OPT_BOOL, &f1, "flag", 0, 0, NULL, NULL},
        {"on-flag", OPT_BOOL, &f2, "flag on", 0, 0, NULL, NULL},
        {"name", OPT_STRING, &s1, "string", 0, 0, NULL, NULL},
        OPT_END,
    };
    const opt_spec *tables[] = {specs, NULL};
    char err[256] = "";
    int rc = opt_parse(tables, argc, argv, 2, err, sizeof err);
    FUZZ_ASSERT(rc == OPT_OK || rc == OPT_HELP || rc == OPT_ERROR, "rc %d", rc);
    if (rc == OPT_ERROR) fuzz_check_error(err, "opt_parse");
    if (rc == OPT_OK) check_spec_values(specs);
    if (rc == OPT_HELP) opt_usage("fuzz [flags]", tables);
}

static void join_table(int argc, char **argv)
{
    join_opts o;
    memset(&o, 0, sizeof o);
    o.ratio = 1; o.selectivity = 1; o.repeat = 1; o.tuples_per_rank = 1000; o.buffer_size = 65536;
    o.buffers_per_partition = 2; o.passes = -1;
    char err[512] = "";
    int rc = join_parse_opts(&o, argc, argv, err, sizeof err);
    FUZZ_ASSERT(rc == OPT_OK || rc == OPT_HELP || rc == OPT_ERROR, "rc %d", rc);
    if (rc == OPT_ERROR) {
        fuzz_check_error(err, "join_parse_opts");
        FUZZ_ASSERT(strncmp(err, "--", 2) == 0 || err[0] == '\'', "join error names no flag: %s", err);
    }
    if (rc == OPT_OK) {
        FUZZ_ASSERT(o.selectivity > 0 && o.selectivity <= 1, "selectivity %g", o.selectivity);
        FUZZ_ASSERT(o.ratio >= 1 && o.ratio <= 64, "ratio %lld", (long long)o.ratio);
        FUZZ_ASSERT(o.tuples_per_rank >= 1, "tuples_per_rank %lld", (long long)o.tuples_per_rank);
        FUZZ_ASSERT(o.repeat >= 1 && o.repeat <= 1000, "repeat %lld", (long long)o.repeat);
        FUZZ_ASSERT(o.buffer_size >= 256, "buffer_size %lld", (long long)o.buffer_size);
        FUZZ_ASSERT(isfinite(o.skew) && o.skew >= 0, "skew %g", o.skew);
        FUZZ_ASSERT(o.algo >= ALGO_RADIX && o.algo <= ALGO_REFERENCE, "algo %d", o.algo);
        FUZZ_ASSERT(!o.output || *o.output, "empty --output accepted");
        FUZZ_ASSERT(o.r_total == 0 || o.tuples_per_rank == 1000, "--r-tuples and --tuples-per-rank both accepted");
        if (o.algo == ALGO_SORTMERGE)
            FUZZ_ASSERT(o.radix_bits == 0 && o.passes == -1 && o.buffer_size == 65536 && !o.compress,
                        "a radix flag accepted with --algo sortmerge");
        if (o.algo == ALGO_RADIX)
            FUZZ_ASSERT(o.run_size == 0 && o.merge_fanin == 0 && o.simd == 0 && o.ranges == 0,
                        "a sort-merge flag accepted with --algo radix");
    }
}

static void value_parsers(const char *s)
{
    int64_t v;
    double d;
    const char *why = NULL;
    if (opt_parse_count(s, &v, &why) == 0) FUZZ_ASSERT(v >= 0, "count '%s' -> %lld", s, (long long)v);
    else FUZZ_ASSERT(why && *why, "count without reason");
    if (opt_parse_bytes(s, &v, &why) == 0) FUZZ_ASSERT(v >= 0, "bytes '%s' -> %lld", s, (long long)v);
    else FUZZ_ASSERT(why && *why, "bytes without reason");
    if (opt_parse_duration(s, &d, &why) == 0)
        FUZZ_ASSERT(isfinite(d) && d >= 0, "duration '%s' -> %g", s, d);
    if (opt_parse_double(s, &d, &why) == 0) FUZZ_ASSERT(isfinite(d), "double '%s' -> %g", s, d);
    (void)opt_parse_int(s, &v, &why);
    char buf[32];
    if (opt_parse_count(s, &v, &why) == 0) {
        /* what opt_format_count prints must parse back to the same count */
        opt_format_count(v, buf, sizeof buf);
        int64_t back = -1;
        FUZZ_ASSERT(opt_parse_count(buf, &back, &why) == 0 && back == v, "'%s' formats as '%s'", s, buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* argv[0], argv[1] = program and command; the rest from the input */
    char *copy = malloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = 0;
    char *argv[MAX_ARGS + 3] = {"rmabench", "join"};
    int argc = 2;
    for (char *p = copy; p <= copy + size && argc < MAX_ARGS + 2;) {
        argv[argc++] = p;
        p += strlen(p) + 1;
    }
    argv[argc] = NULL;
    generic_table(argc, argv);
    join_table(argc, argv);
    for (int i = 2; i < argc; i++) value_parsers(argv[i]);
    free(copy);
    return 0;
}
