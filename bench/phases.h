/* Named phase timers (Table 4.2's rows): each rank accumulates seconds per phase; the table reduces
 * them to average and maximum over ranks. "Detail" phases (MPI_Put and flush time inside a pass)
 * are shown but not added to the total. Imbalance = max over ranks of the total minus the sum of
 * the average phases, as in the thesis. */
#ifndef RMB_PHASES_H
#define RMB_PHASES_H
#include <mpi.h>
#include <stdbool.h>

#include "bench/record.h"

#define PHASES_MAX 16

/* A phase as an algorithm declares it, once (a NULL-terminated list in display order): its name
 * (the word used in code, phase tables, CSV columns t_<name>_avg/max and plot legends) and whether
 * it is a detail row (time inside another phase, not added to the total). */
typedef struct {
    const char *name;
    bool detail;
} phase_decl;

typedef struct {
    int n;
    const char *name[PHASES_MAX];
    bool detail[PHASES_MAX];
    double t[PHASES_MAX];
    long faults[PHASES_MAX]; /* minor page faults (getrusage ru_minflt) taken inside the phase */
} phase_set;

typedef struct {
    int n;
    const char *name[PHASES_MAX];
    bool detail[PHASES_MAX];
    double avg[PHASES_MAX], max[PHASES_MAX];
    double total_avg, total_max, imbalance;
    double faults[PHASES_MAX]; /* minor page faults, summed over ranks */
} phase_stats;

/* Start with every declared phase at 0 s (so that a phase with 0 s still shows). */
void phases_init(phase_set *p, const phase_decl *decl);
/* Add seconds to a declared phase. A name that was not declared is a programming error (a typo
 * would silently create a phase whose CSV column does not exist): abort. */
void phases_add(phase_set *p, const char *name, double seconds);
double phases_get(const phase_set *p, const char *name);
/* Minor page faults of this process so far (getrusage RUSAGE_SELF ru_minflt): read it where a
 * phase's timer starts and stops, and add the difference (fresh memory shows as faults). */
long rmb_minflt(void);
void phases_add_faults(phase_set *p, const char *name, long faults);
/* A phase clock: the joins' phases follow one another, so each phase is the time and minor faults
 * from the end of the one before (or phase_mark) to its phase_end. The seconds a phase spent waiting
 * for the slowest rank go to "wait", not to the phase (rmb_wait_all). */
typedef struct {
    phase_set *set;
    double t;
    long faults;
} phase_clock;

/* Starts (or restarts, leaving out what ran since the last phase) the clock. */
void phase_mark(phase_clock *c, phase_set *set);
/* Adds the time since the last mark or phase_end, less `waited` (added to "wait" when positive),
 * and the faults since, to the phase `name`; the next phase starts now. */
void phase_end(phase_clock *c, const char *name, double waited);

/* Sum of main phases on this rank. */
double phases_total(const phase_set *p);

/* Collective. */
void phases_reduce(const phase_set *p, MPI_Comm comm, phase_stats *out);
const double *phase_stats_find(const phase_stats *s, const char *name, int which /*0 avg, 1 max*/);

/* Print the table (rank 0 only): phase, avg, max, then per phase GB/s per rank and the fraction
 * of the roofline (gbs[i], frac[i]: "-" where negative; either array may be NULL: no column) and
 * the minor faults summed over ranks; then imbalance and total. */
void phases_print_roofline(const phase_stats *s, const char *title, const double *gbs, const double *frac);

/* A run's row (bench/record.h): t_<phase>_avg and _max of every phase (each declared phase has its
 * columns: tests/common/test_phase_columns.c), t_imbalance_avg/_max and t_total_avg/_max. */
void phases_record(const phase_stats *s, record *rec);

static inline double rmb_now(void) { return MPI_Wtime(); }

/* Collective: MPI_Barrier, timed. The seconds this rank waited for the slowest one at a point
 * where its phase synchronises anyway (before a phase's collective, at the end of an RMA epoch, before
 * the windows' release): the joins add it to their "wait" phase, so that the phase which happens to
 * synchronise does not count the others' imbalance as its own work (else window_alloc would hold
 * the slower rank's build/probe). */
double rmb_wait_all(MPI_Comm comm);

#endif
