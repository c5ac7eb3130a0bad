/* A run's model inputs as one line of text, "key=value key=value ...", recorded in the run's CSV
 * row (column model_shape) so that any parameter file can predict that run again: `rmamodel join|lock
 * --shape TEXT` gives what `rmabench join|lock --model` gave with the same file. model/validate.sh
 * predicts every run from calibrations it pools after the runs. Numbers are written with 17
 * significant digits, so a prediction from the text is the run's own. MPI-free. */
#ifndef RMB_MODEL_SHAPE_H
#define RMB_MODEL_SHAPE_H
#include <stddef.h>

#include "model/join_model.h"
#include "model/lock_model.h"

/* 0, or -1 when buf is too short. */
int model_join_shape_format(const join_shape *s, char *buf, size_t len);
int model_lock_shape_format(const lock_shape *s, char *buf, size_t len);
/* 0 with *s filled (keys not given: 0), or -1 with "shape: reason" in err (an unknown key, a bad
 * number, a key given twice, ranks not given or below 1). */
int model_join_shape_parse(const char *text, join_shape *s, char *err, size_t errlen);
int model_lock_shape_parse(const char *text, lock_shape *s, char *err, size_t errlen);

#endif
