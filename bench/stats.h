/* Small statistics over repeated measurements (MPI-free). */
#ifndef RMB_STATS_H
#define RMB_STATS_H

/* Median of v[0..n) (n >= 1); sorts v in place. */
double stats_median(double *v, int n);
/* The smallest of v[0..n) (n >= 1): the least disturbed of repeated timings of the same work, which
 * the machine's other work can only lengthen (model/validate.sh's estimator). */
double stats_min(const double *v, int n);
/* A second state of a bimodal timing: the smallest of v[0..n) that is at least `gap` times the
 * smallest of all (a virtual machine's fresh pages reused at once or returned through its host), or -1 when none
 * is. */
double stats_second_mode(const double *v, int n, double gap);
/* The index of the smallest of v[0..n) (n >= 1; the first of equals). */
int stats_argmin(const double *v, int n);

#endif
