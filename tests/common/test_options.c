/* The shared option parser: sizes, ranges, choices, booleans, one-line errors naming the flag, and
 * which flags of a table were given (opt_given). */
#include <string.h>

#include "tests/check.h"
#include "bench/options.h"

static const char *const colors[] = {"red", "green", NULL};
static int64_t count, bytes, n;
static double x, dur;
static bool flag = true;
static int color;
static const char *name;

static const opt_spec specs[] = {
    {"count", OPT_COUNT, &count, "", 1, 1e12, NULL, NULL},
    {"bytes", OPT_BYTES, &bytes, "", 0, 0, NULL, NULL},
    {"n", OPT_INT, &n, "", -1, 20, NULL, NULL},
    {"x", OPT_DOUBLE, &x, "", 0, 1, NULL, NULL},
    {"duration", OPT_DURATION, &dur, "", 0, 0, NULL, NULL},
    {"flag", OPT_BOOL, &flag, "", 0, 0, NULL, NULL},
    {"color", OPT_CHOICE, &color, "", 0, 0, colors, NULL},
    {"name", OPT_STRING, &name, "", 0, 0, NULL, NULL},
    OPT_END,
};

static int parse(char *err, size_t len, int argc, char **argv)
{
    const opt_spec *tables[] = {specs, NULL};
    return opt_parse(tables, argc, argv, 0, err, len);
}

#define ARGS(...) (char *[]){__VA_ARGS__}, (int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *))

static int run(char *err, char **argv, int argc) { return parse(err, 256, argc, argv); }

int main(void)
{
    char err[256];
    CHECK(run(err, ARGS("--count", "16M", "--bytes=64K", "--n", "-1", "--x", "0.5", "--duration", "500ms",
                        "--no-flag", "--color", "green", "--name", "a.csv")) == OPT_OK);
    CHECK_EQ_U64(count, 16000000);
    CHECK_EQ_U64(bytes, 65536);
    CHECK(n == -1);
    CHECK(x == 0.5);
    CHECK(dur > 0.4999 && dur < 0.5001);
    CHECK(!flag);
    CHECK(color == 1);
    CHECK(strcmp(name, "a.csv") == 0);
    CHECK(run(err, ARGS("--flag")) == OPT_OK && flag);
    CHECK(run(err, ARGS("--flag=off")) == OPT_OK && !flag);
    CHECK(run(err, ARGS("--count", "2G")) == OPT_OK && count == 2000000000);
    CHECK(run(err, ARGS("--bytes", "1MiB")) == OPT_OK && bytes == 1048576);

    /* errors: one line naming the flag */
    CHECK(run(err, ARGS("--count", "abc")) == OPT_ERROR && strstr(err, "--count") && strstr(err, "not a number"));
    CHECK(run(err, ARGS("--count", "0")) == OPT_ERROR && strstr(err, "out of range"));
    CHECK(run(err, ARGS("--count", "-5")) == OPT_ERROR && strstr(err, "negative"));
    CHECK(run(err, ARGS("--count", "5X")) == OPT_ERROR && strstr(err, "suffix"));
    CHECK(run(err, ARGS("--count", "99999999999999999999")) == OPT_ERROR && strstr(err, "too large"));
    CHECK(run(err, ARGS("--count")) == OPT_ERROR && strstr(err, "needs a value"));
    CHECK(run(err, ARGS("--n", "21")) == OPT_ERROR && strstr(err, "--n"));
    CHECK(run(err, ARGS("--x", "1.5")) == OPT_ERROR && strstr(err, "--x"));
    CHECK(run(err, ARGS("--x", "nan")) == OPT_ERROR);
    CHECK(run(err, ARGS("--color", "blue")) == OPT_ERROR && strstr(err, "red, green"));
    CHECK(run(err, ARGS("--bogus")) == OPT_ERROR && strstr(err, "--bogus: unknown flag"));
    CHECK(run(err, ARGS("--no-count")) == OPT_ERROR && strstr(err, "unknown flag"));
    CHECK(run(err, ARGS("stray")) == OPT_ERROR && strstr(err, "unexpected argument"));
    CHECK(run(err, ARGS("--duration", "3 parsecs")) == OPT_ERROR && strstr(err, "--duration"));
    CHECK(run(err, ARGS("--name=")) == OPT_ERROR && strstr(err, "--name"));
    CHECK(run(err, ARGS("--help")) == OPT_HELP);
    CHECK(strchr(err, '\n') == NULL);

    /* opt_given: the first flag of a table that the arguments name, in any spelling; values of
     * other flags (even ones that look like flags of the table) do not count */
    {
        static int64_t level;
        static bool fast = false;
        static const opt_spec group[] = {
            {"level", OPT_INT, &level, "", 0, 9, NULL, NULL},
            {"fast", OPT_BOOL, &fast, "", 0, 0, NULL, NULL},
            OPT_END,
        };
        const opt_spec *tables[] = {specs, group, NULL};
        struct {
            char **argv;
            int argc;
            const char *want; /* first flag of `group` given, NULL: none */
        } cases[] = {
            {ARGS("--count", "5"), NULL},
            {ARGS("--level", "3"), "level"},
            {ARGS("--count", "5", "--level=3"), "level"},
            {ARGS("--no-fast", "--level", "3"), "fast"},
            {ARGS("--fast=off"), "fast"},
            {ARGS("--name", "--level", "--flag"), NULL}, /* "--level" is --name's value */
            {ARGS("--flag", "--name=--fast"), NULL},
            {ARGS("--flag", "--level", "1"), "level"},   /* a boolean takes no separate value */
            {(char *[]){NULL}, 0, NULL},
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            CHECK(opt_parse(tables, cases[k].argc, cases[k].argv, 0, err, sizeof err) == OPT_OK);
            const opt_spec *got = opt_given(tables, group, cases[k].argc, cases[k].argv, 0);
            CHECK(cases[k].want ? got && strcmp(got->name, cases[k].want) == 0 : got == NULL);
        }
        /* the other table: its first flag given */
        const opt_spec *first_spec = opt_given(tables, specs, 4, (char *[]){"--level", "3", "--x", "0.5"}, 0);
        CHECK(first_spec && strcmp(first_spec->name, "x") == 0);
        /* `first` skips the program and command words */
        char *cmdline[] = {"rmabench", "fast", "--fast"};
        CHECK(opt_parse(tables, 3, cmdline, 2, err, sizeof err) == OPT_OK);
        const opt_spec *after_cmd = opt_given(tables, group, 3, cmdline, 2);
        CHECK(after_cmd && strcmp(after_cmd->name, "fast") == 0);
        CHECK(opt_given(tables, group, 2, cmdline, 2) == NULL);
    }

    char buf[32];
    opt_format_count(16000000, buf, sizeof buf);
    CHECK(strcmp(buf, "16M") == 0);
    opt_format_count(1234, buf, sizeof buf);
    CHECK(strcmp(buf, "1234") == 0);
    CHECK_DONE();
}
