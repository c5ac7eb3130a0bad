/* rmamodel's commands (cmd/rmamodel.c: join, lock, cores-per-host, query, rdmo; cmd/rmamodel_pool.c: pool;
 * cmd/rmamodel_thesis.c: thesis) and what they share. MPI-free. */
#ifndef RMB_CMD_RMAMODEL_H
#define RMB_CMD_RMAMODEL_H
#include "bench/options.h"
#include "model/params.h"

/* "rmamodel: " + the message on stderr, exit 2 (bad input). */
_Noreturn void rmamodel_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parses the flags of tables (one per group of flags, for opt_given), loads *params_path (when set),
 * applies --set (model/params.h); exits 2 on any problem. */
void rmamodel_parse(const char *usage, const opt_spec *const *tables, int argc, char **argv, const char **params_path,
                    model_params *p);
/* Every needed parameter (terminated by -1) must be set, the default profile filling what it has
 * (then one line on stdout says so; an error stays one line on stderr). */
void rmamodel_require(model_params *p, const int *which);

int rmamodel_pool(int argc, char **argv);
int rmamodel_thesis(int argc, char **argv);

#endif
