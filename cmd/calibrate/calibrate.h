/* `rmabench calibrate`: micro-benchmarks of single primitives that measure the model parameters on
 * the ranks they run on (all ranks measure at once, as the joins run); never a phase of a join.
 * One file per component: calibrate_compute.c (rounds of the join primitives of calibrate_radix.c
 * and calibrate_sortmerge.c), calibrate_network.c (MPI_Put bandwidth curve, window allocation),
 * calibrate_lock.c (notified-put and fetch-and-op round trips, the lock server's service time). */
#ifndef RMB_MODEL_CALIBRATE_H
#define RMB_MODEL_CALIBRATE_H
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/context.h"
#include "joins/generate.h"
#include "cmd/join/join_cmd.h"
#include "joins/join.h"
#include "model/params.h"

enum { CALIBRATE_ROUNDS_MAX = 20 };

typedef struct {
    int64_t tuples;          /* tuples per rank the compute kernels run on */
    int64_t tuples_per_rank; /* R tuples per rank of the joins the parameters are for; 0 = the join's default */
    int64_t put_bytes;     /* bytes each rank puts per bandwidth measurement */
    int64_t membw_bytes;   /* bytes per buffer and rank of the memory bandwidth measurement (bw_mem_*) */
    int64_t repeats;       /* repetitions per measurement; the fastest is kept */
    int64_t rounds;        /* rounds of the compute kernels; combined per parameter by params_pool_value */
    /* set by calibrate_compute for its parts: */
    int warmup;            /* untimed first repetitions per kernel (1 in the first round, 0 after) */
    int window;            /* the joins' window flavour (win_flavor, --window of the join; auto resolved) */
    int alone;             /* calibrate_time: only each host's first rank runs (P_*_alone) */
} calibrate_opts;

/* Collective. Each sets the parameters it measures in p (identical on every rank afterwards). */
void calibrate_compute(const bench_ctx *ctx, const calibrate_opts *o, model_params *p);
void calibrate_network(const bench_ctx *ctx, const calibrate_opts *o, model_params *p);
void calibrate_lock(const bench_ctx *ctx, const calibrate_opts *o, model_params *p);
/* calibrate_rdmo.c: the composite remote operations' rounds (model/rdmo_model.h). */
void calibrate_rdmo(const bench_ctx *ctx, const calibrate_opts *o, model_params *p);
/* calibrate_window.c: t_win_cost_* (--window auto); resolves o->window when it is auto. First. */
void calibrate_window(const bench_ctx *ctx, calibrate_opts *o, model_params *p);
/* calibrate_window.c: t_win_pool_fixed at `large` bytes of windows per rank, t_win_dynamic_* through
 * `small` and `large` (o->window's flavour; from calibrate_network's window allocation). */
void calibrate_window_life(const bench_ctx *ctx, const calibrate_opts *o, uint64_t small, uint64_t large, model_params *p);

/* calibrate_compute's parts, on this rank's sample r, s of workload w (one rank's, dense keys)
 * with the joins' default options jo: the radix join's primitives (calibrate_radix.c) and the
 * sort-merge join's (calibrate_sortmerge.c). */
void calibrate_radix(const bench_ctx *ctx, const calibrate_opts *o, const join_opts *jo, const workload *w,
                     const tuple_t *r, const tuple_t *s, model_params *p);
void calibrate_sortmerge(const bench_ctx *ctx, const calibrate_opts *o, const join_opts *jo, const workload *w,
                         const tuple_t *r, const tuple_t *s, model_params *p);

enum { CALIBRATE_HOW = 240 };
/* Records parameter i's micro-benchmark and size (`how`, into the file) and the fewest bytes per
 * tuple its primitive moves to or from memory (0: none checked): calibrate_plausibility compares
 * the rate with a memory copy of those bytes. */
void calibrate_note(model_params *p, int i, const char *how, double bytes_per_tuple);
/* Warns on stderr (rank 0) and records in p->warnings every rate that moves its bytes faster than
 * bw_mem_copy copies them (its sample was in cache, or too small to time). */
void calibrate_plausibility(const bench_ctx *ctx, model_params *p);
/* A warning: on stderr (rank 0) and as a "# warning: " line in the parameter file. */
void calibrate_warn(const bench_ctx *ctx, model_params *p, const char *text);

/* Rank-local allocation failure: message and MPI_Abort. */
void calibrate_fail(const bench_ctx *ctx, const char *what);
/* n / the seconds of the least disturbed repetition of t[0..reps) (this rank's times, all ranks
 * having run each repetition at once): the repetition whose slowest rank was fastest, at the mean
 * of its ranks' times (the models predict the mean rank; their waits for the slowest are
 * rank_spread's). Collective. */
double calibrate_rate_of(const bench_ctx *ctx, double *t, int reps, double n);
/* Times body(arg) reps times (after o->warmup untimed runs), all ranks starting together: n / the
 * least disturbed repetition's mean seconds (calibrate_rate_of). */
double calibrate_time(const bench_ctx *ctx, const calibrate_opts *o, int reps, double n, void (*body)(void *), void *arg);
/* The same for two bodies timed alternately in every repetition (a, b, a, b, ...), so that a slow
 * spell of the machine falls on both alike and a parameter from their difference (P_match_r/_s)
 * does not take it for a cost: rate[0], rate[1] = 1 / the least disturbed seconds of body_a, body_b
 * (calibrate_rate_of; with o->alone each host's first rank's fastest). */
void calibrate_time_pair(const bench_ctx *ctx, const calibrate_opts *o, int reps, void (*body_a)(void *),
                         void (*body_b)(void *), void *arg, double rate[2]);
/* The ranks' spread on equal work (rank_spread): of a primitive all ranks ran at once, its least
 * disturbed repetition's (slowest - mean) / mean over the ranks, added to rank_spread's samples (collective). */
void calibrate_spread_add(const bench_ctx *ctx, const double *t, int reps);
/* splitmix64 step: the samples' random keys. */
uint64_t calibrate_mix(uint64_t *state);

/* Helper shared by the three: a value agreed over ranks (medians: stats_median, bench/stats.h). */
double calibrate_allreduce(const bench_ctx *ctx, double v, MPI_Op op);
/* This rank's median seconds to allocate `bytes` of fresh private memory (mem_alloc_large) and
 * write every page (then freed, untimed): first touch, which on a virtual machine that hands freed
 * memory back to its host varies from run to run. All ranks at once. */
double calibrate_first_touch(const bench_ctx *ctx, uint64_t bytes, int reps);


/* calibrate_pin.c. Collective: pins each `member` rank to rank 0's CPU (the same CPU number on every
 * host), for micro-benchmarks of ranks that share a core; true when every member was pinned (no
 * sched_setaffinity, or refused: false, and nothing to measure). calibrate_pin_end restores. */
typedef struct {
    bool pinned; /* this rank's affinity was changed: calibrate_pin_end restores it */
    int cpu;
#ifdef __linux__
    cpu_set_t saved;
#endif
} calibrate_pin;
bool calibrate_pin_begin(const bench_ctx *ctx, bool member, calibrate_pin *pin);
void calibrate_pin_end(const bench_ctx *ctx, calibrate_pin *pin);

#endif
