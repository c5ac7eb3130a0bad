#include "rdmo/lat.h"

int rdmo_lat_bucket(double seconds)
{
    double ns = seconds * 1e9;
    if (ns < 0) ns = 0;
    if (ns < 1e5) return (int)(ns / 10.0);
    if (ns < 1e7) return RDMO_LAT_FINE + (int)((ns - 1e5) / 1e3);
    if (ns < 1e9) return RDMO_LAT_FINE + RDMO_LAT_MID + (int)((ns - 1e7) / 1e5);
    return RDMO_LAT_BUCKETS - 1;
}

static double bucket_mid_us(int b)
{
    if (b < RDMO_LAT_FINE) return (b + 0.5) * 0.01;
    if (b < RDMO_LAT_FINE + RDMO_LAT_MID) return 100.0 + (b - RDMO_LAT_FINE + 0.5);
    if (b < RDMO_LAT_BUCKETS - 1) return 1e4 + (b - RDMO_LAT_FINE - RDMO_LAT_MID + 0.5) * 100.0;
    return 1e6;
}

double rdmo_lat_quantile_us(const uint64_t *hist, double q)
{
    uint64_t total = 0;
    for (int b = 0; b < RDMO_LAT_BUCKETS; b++) total += hist[b];
    if (total == 0) return -1;
    uint64_t want = (uint64_t)(q * (double)(total - 1)) + 1, seen = 0;
    for (int b = 0; b < RDMO_LAT_BUCKETS; b++) {
        seen += hist[b];
        if (seen >= want) return bucket_mid_us(b);
    }
    return bucket_mid_us(RDMO_LAT_BUCKETS - 1);
}
