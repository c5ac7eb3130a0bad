/* One option parser for every rmabench command (OSU-style): each command lists its flags in a
 * table; sizes take K/M/G suffixes, errors name the flag and the reason. MPI-free on purpose:
 * options are parsed before MPI_Init so that bad input exits 2 before anything is allocated. */
#ifndef RMB_OPTIONS_H
#define RMB_OPTIONS_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    OPT_BOOL,     /* --x, --no-x, --x=on|off|yes|no|true|false|1|0        dest: bool*        */
    OPT_INT,      /* integer, range-checked                                dest: int64_t*     */
    OPT_COUNT,    /* tuple/element count, K/M/G = 10^3/10^6/10^9           dest: int64_t*     */
    OPT_BYTES,    /* byte size, K/M/G (or KiB/MiB/GiB) = 2^10/2^20/2^30     dest: int64_t*     */
    OPT_DOUBLE,   /* floating point, range-checked                         dest: double*      */
    OPT_DURATION, /* 10s, 500ms, 250us, 2m, 1h; plain number = seconds     dest: double* (s)  */
    OPT_CHOICE,   /* one of choices[]                                      dest: int* (index) */
    OPT_STRING,   /* any non-empty string                                  dest: const char** */
    OPT_HEADING,  /* not a flag: --help prints `name` as the title of the flags that follow    */
} opt_type;

typedef struct {
    const char *name;            /* without the leading "--" */
    opt_type type;
    void *dest;
    const char *help;
    double min, max;             /* inclusive numeric range, checked when min < max */
    const char *const *choices;  /* NULL-terminated, OPT_CHOICE only */
    bool *seen;                  /* optional: set when the flag was given */
} opt_spec;

#define OPT_END {0}

/* The one --verbose flag of every MPI command: run headers are O(1) in the rank count by default
 * (ranges and exceptions); --verbose adds the per-rank and per-host detail. dest: bool*. */
#define OPT_VERBOSE(dest)                                                                                     \
    {"verbose", OPT_BOOL, (dest),                                                                             \
     "per-rank detail in the run header (every rank's binding, every server, every warning); without it "    \
     "lists that grow with the rank count are summarised as ranges (the CSV row has the detail either way)", \
     0, 0, NULL, NULL}

/* The flags that describe the run a --plan plans (rmabench join, rmabench query): ranks, ranks per
 * host, the memory of a host. dest: int64_t* each; ranks_help names the default rank count. */
#define OPT_PLAN_SCALE(ranks, per_host, host_memory, ranks_help)                                          \
    {"ranks", OPT_INT, (ranks), ranks_help, 1, 1e7, NULL, NULL},                                            \
    {"ranks-per-host", OPT_INT, (per_host), "--plan: ranks on each host (0 = all on one host)", 0, 1e6, NULL, NULL}, \
    {"host-memory", OPT_BYTES, (host_memory),                                                               \
     "--plan: memory one host offers (0 = this machine's available memory, for one-host plans)", 0, 9e18, NULL, NULL}

/* The one --force flag of every command that writes a whole file (bench/output_path.h: an existing
 * output is refused unless --force replaces it). dest: bool*. */
#define OPT_FORCE(dest)                                                                                  \
    {"force", OPT_BOOL, (dest), "replace --output when it exists (without it an existing file is refused)", \
     0, 0, NULL, NULL}

enum { OPT_OK = 0, OPT_HELP = 1, OPT_ERROR = 2 };

/* Parse argv[first..argc) against the NULL-terminated list of tables. On OPT_ERROR, err holds one
 * line "--flag: reason". Positional arguments are refused. */
int opt_parse(const opt_spec *const *tables, int argc, char **argv, int first, char *err, size_t errlen);

/* The first flag of `table` (one of `tables`) that argv[first..argc) gives, as --name, --name=V or
 * --no-name, or NULL: which flags were given, for checks across flags and groups. Call after
 * opt_parse returned OPT_OK on the same tables and arguments. */
const opt_spec *opt_given(const opt_spec *const *tables, const opt_spec *table, int argc, char **argv, int first);

/* Print the flags of all tables, one per line, with their defaults taken from dest, the values of
 * each choice flag, the range of each numeric flag that has one, as "(KIND LO..HI)" after the default
 * (KIND: count, bytes, integer, number or seconds; LO and HI as the flag takes them, e.g. 1..1T,
 * 64K..1G: tests/fuzz/size_sweep.py sweeps the count and bytes flags across them), and --no-X for
 * boolean flags; OPT_HEADING entries print as group titles. */
void opt_usage(const char *usage_line, const opt_spec *const *tables);

/* Value parsers shared with the parameter and trace readers; return 0 or -1 with a reason. */
int opt_parse_count(const char *s, int64_t *out, const char **why);
int opt_parse_bytes(const char *s, int64_t *out, const char **why);
int opt_parse_double(const char *s, double *out, const char **why);
int opt_parse_duration(const char *s, double *seconds, const char **why);
int opt_parse_int(const char *s, int64_t *out, const char **why);

/* Bad input before MPI_Init (or in a command without MPI): "PROG: MSG" on stderr from the first rank
 * only (bench_env_rank), exit 2. The one usage-error helper; after MPI_Init, bench_usage_error
 * (bench/context.h) prints through it and leaves with every rank. PROG is opt_program ("rmabench"
 * unless a command sets it). */
extern const char *opt_program;
_Noreturn void opt_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The message part alone, for callers that leave in their own way (bench_usage_error). */
void opt_print_usage_error(const char *fmt, va_list ap);
int bench_env_rank(void); /* the launcher's rank variable, usable before MPI_Init (0 when unknown) */

/* Formats a count the way users type it (16M, 1500K, 7). */
void opt_format_count(int64_t v, char *buf, size_t len);

/* Text from outside (a flag's value, a file name, a line of a file) as a message echoes it: control
 * characters as \xNN, so that the message stays one line, and anything longer than about 160
 * characters cut in the middle ("first...last (N bytes)"), so that the reason after it is never cut
 * off. Returns buf (OPT_SHOWN_MAX bytes), for use as a printf argument. Every message that names a
 * value or a path the user gave goes through it. */
enum { OPT_SHOWN_MAX = 256 };
const char *opt_shown(const char *s, char buf[OPT_SHOWN_MAX]);

#endif
