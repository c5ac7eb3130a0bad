/* Small statistics over repeated measurements (MPI-free). */
#ifndef RMB_STATS_H
#define RMB_STATS_H

/* Median of v[0..n) (n >= 1); sorts v in place. */
double stats_median(double *v, int n);

#endif
