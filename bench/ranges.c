#include "bench/ranges.h"

#include <string.h>

/* The end of the run starting at i: the longest stretch with one step (a pair with a step other
 * than 1 is two values, not a run, so that "3,7" stays "3,7"). */
static int run_end(const int *v, int n, int i, int *step)
{
    *step = 1;
    if (i + 1 >= n) return i;
    int s = v[i + 1] - v[i];
    int e = i + 1;
    while (e + 1 < n && v[e + 1] - v[e] == s) e++;
    if (s == 1 || e - i >= 2) { *step = s; return e; }
    return i;
}

int ranges_count_runs(const int *v, int n)
{
    int runs = 0, step;
    for (int i = 0; i < n; i = run_end(v, n, i, &step) + 1) runs++;
    return runs;
}

void ranges_print(FILE *f, const int *v, int n, int max_runs)
{
    if (n <= 0) { fputs("none", f); return; }
    int runs = 0, step;
    for (int i = 0; i < n;) {
        if (runs == max_runs) { fprintf(f, " ... (%d more)", n - i); return; }
        int e = run_end(v, n, i, &step);
        fprintf(f, "%s%d", runs ? "," : "", v[i]);
        if (e > i) fprintf(f, "-%d", v[e]);
        if (e > i && step != 1) fprintf(f, "/%d", step);
        runs++;
        i = e + 1;
    }
}

static void put_name(FILE *f, const char *s)
{
    fprintf(f, "%.*s", (int)strcspn(s, ";"), s);
}

void ranges_print_names(FILE *f, const char *names, int count, int show)
{
    int listed = 0;
    for (const char *s = names; s && *s; s = strchr(s, ';'), s = s ? s + 1 : s) listed++;
    if (count <= show && listed == count) {
        fputs(names, f);
        return;
    }
    put_name(f, names);
    /* ctx->hostnames is capped at 1 KiB: the last host is named only when the list is complete */
    const char *last = strrchr(names, ';');
    if (listed == count && last) {
        fputs(" ... ", f);
        put_name(f, last + 1);
    } else
        fputs(" ...", f);
    fprintf(f, " (%d hosts)", count);
}
