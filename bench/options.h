/* One option parser for every rmabench command (OSU-style): each command lists its flags in a
 * table; sizes take K/M/G suffixes, errors name the flag and the reason. MPI-free on purpose:
 * options are parsed before MPI_Init so that bad input exits 2 before anything is allocated. */
#ifndef RMB_OPTIONS_H
#define RMB_OPTIONS_H
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

enum { OPT_OK = 0, OPT_HELP = 1, OPT_ERROR = 2 };

/* Parse argv[first..argc) against the NULL-terminated list of tables. On OPT_ERROR, err holds one
 * line "--flag: reason". Positional arguments are refused. */
int opt_parse(const opt_spec *const *tables, int argc, char **argv, int first, char *err, size_t errlen);

/* Print the flags of all tables, one per line, with their defaults taken from dest. */
void opt_usage(const char *usage_line, const opt_spec *const *tables);

/* Value parsers shared with the parameter and trace readers; return 0 or -1 with a reason. */
int opt_parse_count(const char *s, int64_t *out, const char **why);
int opt_parse_bytes(const char *s, int64_t *out, const char **why);
int opt_parse_double(const char *s, double *out, const char **why);
int opt_parse_duration(const char *s, double *seconds, const char **why);
int opt_parse_int(const char *s, int64_t *out, const char **why);

/* Formats a count the way users type it (16M, 1500K, 7). */
void opt_format_count(int64_t v, char *buf, size_t len);

#endif
