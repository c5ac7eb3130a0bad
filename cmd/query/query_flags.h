/* The flags of `rmabench query` and the model's shape of a run, MPI-free: rmamodel query (no MPI)
 * takes the same defaults and schema. */
#ifndef RMB_QUERY_FLAGS_H
#define RMB_QUERY_FLAGS_H
#include <stddef.h>

#include "joins/query/query_opts.h"
#include "model/query_model.h"

extern const char *const query_design_names[];    /* QUERY_* */
extern const char *const query_replicate_names[]; /* REPLICATE_* */
extern const char *const query_micro_names[];     /* MICRO_* */
extern const char *const query_exchange_names[];  /* QUERY_EXCHANGE_* */

void query_default_opts(query_opts *o);
/* Parses argv[2..] into o: OPT_OK, OPT_HELP (usage printed on rank 0) or OPT_ERROR with
 * "--flag: reason" in err. */
int query_parse_opts(query_opts *o, int argc, char **argv, char *err, size_t errlen);

/* The model's shape (model/query_model.h) of a run of these options and schema on `ranks` ranks over
 * `hosts` hosts (the link: bw_host). */
void query_model_shape(const query_opts *o, const star_schema *s, int ranks, int hosts, query_shape *q);

#endif
