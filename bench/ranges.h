/* Lists that grow with the rank count, printed in O(1) space for run headers: integers as
 * arithmetic runs ("0-4095", "1-4095/2") with at most a fixed number of runs, then "... (N more)".
 * MPI-free. */
#ifndef RMB_RANGES_H
#define RMB_RANGES_H
#include <stdio.h>

/* Print v[0..n) as "a-b" (step 1), "a-b/s" (step s > 1), or single values, comma-separated; after
 * max_runs runs, " ... (K more)" with the number of values left. n = 0 prints "none". */
void ranges_print(FILE *f, const int *v, int n, int max_runs);

/* The runs ranges_print would print without a cap (for tests and callers choosing a layout). */
int ranges_count_runs(const int *v, int n);

/* Host names "a;b;c" as given (at most `show` of them), else "first ... last (N hosts)". */
void ranges_print_names(FILE *f, const char *names, int count, int show);

#endif
