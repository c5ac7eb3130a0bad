/* Latency histograms (locking/lock.h: 10 ns buckets below 100 us, 1 us buckets up to 10 ms). */
#include "locking/lock.h"

double lat_quantile_us(const uint64_t *hist, double q)
{
    uint64_t total = 0, seen = 0;
    for (int b = 0; b < LAT_BUCKETS; b++) total += hist[b];
    if (!total) return -1;
    for (int b = 0; b < LAT_BUCKETS; b++) {
        seen += hist[b];
        if ((double)seen >= q * (double)total) {
            if (b < LAT_FINE) return (b * 10.0 + 5.0) / 1000.0;
            if (b < LAT_BUCKETS - 1) return 100.0 + (b - LAT_FINE) + 0.5;
            return 10000.0;
        }
    }
    return -1;
}
