/* Latency histogram of an operation's round trips: 10 ns buckets below 100 us (one host), 1 us
 * buckets to 10 ms (namespace hosts over TCP), 100 us buckets to 1 s, then one overflow bucket;
 * summed over ranks with MPI_Reduce, quantiles at the bucket's middle. MPI-free. */
#ifndef RMB_RDMO_LAT_H
#define RMB_RDMO_LAT_H
#include <stdint.h>

enum { RDMO_LAT_FINE = 10000, RDMO_LAT_MID = 9900, RDMO_LAT_COARSE = 9900 };
#define RDMO_LAT_BUCKETS (RDMO_LAT_FINE + RDMO_LAT_MID + RDMO_LAT_COARSE + 1)

int rdmo_lat_bucket(double seconds);
/* Quantile q (0.5: median, 0.99: tail) in microseconds; -1 when empty. */
double rdmo_lat_quantile_us(const uint64_t *hist, double q);

#endif
