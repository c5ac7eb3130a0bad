#include "bench/phases.h"

#include "bench/context.h"
#include "bench/yield_wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

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

/* a typo in a phase name must not create a phase whose CSV column nobody writes */
static int declared(const phase_set *p, const char *name)
{
    int i = find(p, name);
    if (i < 0) {
        fprintf(stderr, "rmabench: internal error: phase '%s' was not declared\n", name);
        abort();
    }
    return i;
}

void phases_add(phase_set *p, const char *name, double seconds) { p->t[declared(p, name)] += seconds; }

long rmb_minflt(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

void phases_add_faults(phase_set *p, const char *name, long faults) { p->faults[declared(p, name)] += faults; }

void phase_mark(phase_clock *c, phase_set *set)
{
    c->set = set;
    c->faults = rmb_minflt();
    c->t = rmb_now();
}

void phase_end(phase_clock *c, const char *name, double waited)
{
    const double t = rmb_now();
    const long faults = rmb_minflt();
    phases_add(c->set, name, t - c->t - waited);
    if (waited > 0) phases_add(c->set, "wait", waited);
    phases_add_faults(c->set, name, faults - c->faults);
    c->t = t;
    c->faults = faults;
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

double rmb_wait_all(MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    const double t0 = rmb_now();
    MPI_CHECK(rank, rmb_barrier(comm)); /* gives the core up where ranks outnumber cores */
    return rmb_now() - t0;
}

void phases_reduce(const phase_set *p, MPI_Comm comm, phase_stats *out)
{
    int size;
    MPI_Comm_size(comm, &size);
    memset(out, 0, sizeof *out);
    /* times, the total and the faults in one reduction each */
    double mine[2 * PHASES_MAX + 1], sum[2 * PHASES_MAX + 1], max[2 * PHASES_MAX + 1];
    for (int i = 0; i < p->n; i++) mine[i] = p->t[i];
    mine[p->n] = phases_total(p);
    for (int i = 0; i < p->n; i++) mine[p->n + 1 + i] = (double)p->faults[i];
    MPI_Allreduce(mine, sum, 2 * p->n + 1, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(mine, max, 2 * p->n + 1, MPI_DOUBLE, MPI_MAX, comm);
    out->n = p->n;
    double sum_avg = 0;
    for (int i = 0; i < p->n; i++) {
        out->name[i] = p->name[i];
        out->detail[i] = p->detail[i];
        out->avg[i] = sum[i] / size;
        out->max[i] = max[i];
        out->faults[i] = sum[p->n + 1 + i];
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

void phases_print_roofline(const phase_stats *s, const char *title, const double *gbs, const double *frac)
{
    printf("%-22s %10s %10s", title, "avg [s]", "max [s]");
    if (gbs) printf(" %10s", "GB/s/rank");
    if (frac) printf(" %9s", "roofline");
    printf(" %12s\n", "minor faults");
    for (int i = 0; i < s->n; i++) {
        char label[40], g[24] = "-", f[24] = "-";
        snprintf(label, sizeof label, "%s%s", s->detail[i] ? "  " : "", s->name[i]);
        printf("%-22s %10.4f %10.4f", label, s->avg[i], s->max[i]);
        if (gbs && gbs[i] >= 0) snprintf(g, sizeof g, "%.2f", gbs[i]);
        if (frac && frac[i] >= 0) snprintf(f, sizeof f, "%.3f", frac[i]);
        if (gbs) printf(" %10s", g);
        if (frac) printf(" %9s", f);
        printf(" %12.0f\n", s->faults[i]);
    }
    printf("%-22s %10.4f %10s\n", "imbalance", s->imbalance, "");
    printf("%-22s %10.4f %10.4f\n", "total", s->total_avg, s->total_max);
}

void phases_record(const phase_stats *st, record *rec)
{
    for (int i = 0; i < st->n; i++) {
        char col[64];
        snprintf(col, sizeof col, "t_%s_avg", st->name[i]);
        record_set(rec, col, "%.6f", st->avg[i]);
        snprintf(col, sizeof col, "t_%s_max", st->name[i]);
        record_set(rec, col, "%.6f", st->max[i]);
    }
    record_set(rec, "t_imbalance_avg", "%.6f", st->imbalance);
    record_set(rec, "t_imbalance_max", "%.6f", st->imbalance);
    record_set(rec, "t_total_avg", "%.6f", st->total_avg);
    record_set(rec, "t_total_max", "%.6f", st->total_max);
}
