#include "bench/phases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void phases_init(phase_set *p, const phase_decl *decl)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; decl && decl[i].name; i++) {
        if (p->n == PHASES_MAX) {
            fprintf(stderr, "rmabench: internal error: more than %d phases declared\n", PHASES_MAX);
            abort();
        }
        p->name[p->n] = decl[i].name;
        p->detail[p->n++] = decl[i].detail;
    }
}

static int find(const phase_set *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->name[i], name) == 0) return i;
    return -1;
}

void phases_add(phase_set *p, const char *name, double seconds)
{
    int i = find(p, name);
    if (i < 0) {
        fprintf(stderr, "rmabench: internal error: phase '%s' was not declared\n", name);
        abort();
    }
    p->t[i] += seconds;
}

double phases_get(const phase_set *p, const char *name)
{
    int i = find(p, name);
    return i < 0 ? 0 : p->t[i];
}

double phases_total(const phase_set *p)
{
    double s = 0;
    for (int i = 0; i < p->n; i++)
        if (!p->detail[i]) s += p->t[i];
    return s;
}

void phases_reduce(const phase_set *p, MPI_Comm comm, phase_stats *out)
{
    int size;
    MPI_Comm_size(comm, &size);
    memset(out, 0, sizeof *out);
    double mine[PHASES_MAX + 1], sum[PHASES_MAX + 1], max[PHASES_MAX + 1];
    for (int i = 0; i < p->n; i++) mine[i] = p->t[i];
    mine[p->n] = phases_total(p);
    MPI_Allreduce(mine, sum, p->n + 1, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(mine, max, p->n + 1, MPI_DOUBLE, MPI_MAX, comm);
    out->n = p->n;
    double sum_avg = 0;
    for (int i = 0; i < p->n; i++) {
        out->name[i] = p->name[i];
        out->detail[i] = p->detail[i];
        out->avg[i] = sum[i] / size;
        out->max[i] = max[i];
        if (!p->detail[i]) sum_avg += out->avg[i];
    }
    out->total_avg = sum[p->n] / size;
    out->total_max = max[p->n];
    out->imbalance = out->total_max - sum_avg;
    if (out->imbalance < 0) out->imbalance = 0;
}

const double *phase_stats_find(const phase_stats *s, const char *name, int which)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->name[i], name) == 0) return which ? &s->max[i] : &s->avg[i];
    return NULL;
}

void phases_print(const phase_stats *s, const char *title)
{
    printf("%-22s %10s %10s\n", title, "avg [s]", "max [s]");
    for (int i = 0; i < s->n; i++) {
        char label[40];
        snprintf(label, sizeof label, "%s%s", s->detail[i] ? "  " : "", s->name[i]);
        printf("%-22s %10.4f %10.4f\n", label, s->avg[i], s->max[i]);
    }
    printf("%-22s %10.4f %10s\n", "imbalance", s->imbalance, "");
    printf("%-22s %10.4f %10.4f\n", "total", s->total_avg, s->total_max);
}
