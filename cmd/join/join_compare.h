/* `rmabench join --model FILE`: the prediction beside each measured phase, in the layout of the
 * thesis' Table 4.2, and the model_* columns of the CSV row. Three calls from cmd/join/join_main.c:
 *   join_compare_load   after option parsing, before MPI_Init (bad file: exit 2, "--model: FILE:LINE: ...")
 *   join_compare        after phases_reduce (collective-free; rank 0 prints)
 *   join_compare_record when the CSV row is filled */
#ifndef RMB_MODEL_JOIN_COMPARE_H
#define RMB_MODEL_JOIN_COMPARE_H
#include <stdbool.h>

#include "joins/join.h"
#include "model/join_model.h"
#include "bench/record.h"

enum { JOIN_MODEL_PHASES = 8 };

typedef struct {
    bool on;              /* --model given and usable */
    model_params p;
    join_prediction pred; /* of the last join_compare call */
    /* its measured side, like with like: the average phase times of the phases the model has (-1:
     * not measured), the slowest rank's total with window_alloc and without it */
    double measured[JOIN_MODEL_PHASES], meas_total, meas_total_without_alloc;
    double model[JOIN_MODEL_PHASES];
    const char *phase[JOIN_MODEL_PHASES];
    int nphases;
    char source[512];     /* the parameters it used: file, default profile (CSV model_params) */
    join_shape shape;     /* the run's model inputs (model/shape.h: CSV model_shape) */
} join_model_ctx;

void join_compare_load(join_model_ctx *m, const char *path, int algo);
/* first: the run is the process's first of the algorithm (its window_alloc is the first join's
 * under --window-life, else the steady state's) */
void join_compare(join_model_ctx *m, const bench_ctx *ctx, const join_opts *o, const workload *w, int algo,
                  const join_output *out, const phase_stats *st, bool first);
void join_compare_record(const join_model_ctx *m, record *rec);

#endif
