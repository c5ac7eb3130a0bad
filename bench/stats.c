#include "bench/stats.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int stats_argmin(const double *v, int n)
{
    int k = 0;
    for (int i = 1; i < n; i++)
        if (v[i] < v[k]) k = i;
    return k;
}

double stats_min(const double *v, int n) { return v[stats_argmin(v, n)]; }

double stats_second_mode(const double *v, int n, double gap)
{
    const double lo = stats_min(v, n);
    double second = -1;
    for (int i = 0; i < n; i++)
        if (v[i] >= gap * lo && (second < 0 || v[i] < second)) second = v[i];
    return second;
}
