/* The run context every benchmark receives: communicators, rank placement over hosts, and the MPI
 * library; plus the two ways a run stops early (bad input: exit 2; MPI failure: abort naming the
 * rank and the call). No globals: the context is passed explicitly. */
#ifndef RMB_CONTEXT_H
#define RMB_CONTEXT_H
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>

#include "bench/options.h" /* bench_env_rank */

typedef struct {
    MPI_Comm comm;        /* the ranks this context spans: all of the benchmark's, or one host's (calibration);
                           * errors return, checked by MPI_CHECK */
    MPI_Comm host;        /* ranks on the same host (by processor name, not shared-memory domain) */
    int rank, size;
    int host_rank, host_size;    /* position within the host */
    int hosts, host_id;          /* number of distinct hosts, index of this rank's host */
    int ranks_per_host;          /* maximum over hosts */
    int *rank_host;              /* [size]: host index of every rank */
    char hostname[MPI_MAX_PROCESSOR_NAME];
    char hostnames[1024];        /* "a;b;c" for the CSV row */
    char mpi_library[64];        /* short: "Open MPI 4.1.4" / "MPICH 4.0.2" */
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING]; /* one line */
    int online_cores;            /* cores of this host, for the polling policy */
    int machine_ranks;           /* ranks on this rank's cores: host_size, or more where "hosts" share
                                  * one kernel (network namespaces, containers: the same boot id) */
    int ranks_per_machine;       /* maximum over ranks */
    bool oversubscribed;         /* more ranks on this rank's cores (machine_ranks) than cores */
    bool poll_yield;             /* this rank's polling loops yield the core (rma/progress.h, rma/notify.h) */
    /* The same on every rank, for the results row and the run header: fewest and most online cores
     * of a host, whether some host is oversubscribed, whether some rank's polling loops yield. */
    int host_cores_min, host_cores_max;
    bool any_oversubscribed, any_poll_yield;
} bench_ctx;

/* Call before MPI_Init: library-specific settings that users should not need to know (Open MPI's
 * Debian defaults cannot create a window at one rank unless the pt2pt component is allowed); keeps
 * the launch's MPI environment for bench_mpi_env first. */
void bench_pre_init(void);
/* bench_pre_init and MPI_Init, unless MPI is already initialised (a test driver that runs several
 * commands in one launch, tests/scale): returns whether it initialised MPI, i.e. whether the
 * command must finalise it. */
bool bench_mpi_init(int *argc, char ***argv);
/* Collective over comm. */
void bench_ctx_init(bench_ctx *ctx, MPI_Comm comm);
void bench_ctx_free(bench_ctx *ctx);

/* Rank 0, for run headers: "N ranks on H host(s), K per host (names), ranks by host|interleaved" in
 * bounded length (first and last host name beyond 4 hosts) unless verbose (every name, up to the
 * 1 KiB of ctx->hostnames). */
void bench_ctx_print_placement(const bench_ctx *ctx, FILE *f, bool verbose);

/* Rank 0, for run headers: "environment: C cores/host[, hosts share a machine: up to R ranks on its
 * cores], oversubscribed: yes|no, polling yields: yes|no, MPI env: NAME=VALUE;...|none", the values
 * of the row's columns host_cores (a range where hosts differ), oversubscribed, poll_yield and
 * mpi_env. */
void bench_ctx_print_environment(const bench_ctx *ctx, FILE *f);

/* Ranks of host h (O(P)); the world rank at position pos among them in rank order, or -1; the
 * next rank of this rank's host after it, wrapping, or -1 when it is alone there. */
int bench_host_size_of(const bench_ctx *ctx, int h);
int bench_rank_on_host(const bench_ctx *ctx, int h, int pos);
int bench_next_on_host(const bench_ctx *ctx);

/* Online cores of this host (sysconf; at least 1). */
int bench_online_cores(void);
/* More ranks on a host (or on the machine its namespace "hosts" share) than it has online cores. */
bool bench_oversubscribed(int ranks_on_host, int cores);
/* The polling policy: ranks that outnumber their host's cores yield in their polling loops, since
 * a rank that spins takes the core from the rank it waits for. */
bool bench_poll_yields(int ranks_on_host, int cores);
/* Whether the MPI library itself yields the core when its progress finds nothing: Open MPI with
 * mpi_yield_when_idle, which it turns on when mpirun oversubscribes the host (mpi_oversubscribe).
 * Every flush then gives the core away: the lock model's t_shared_comm (model/lock_model.h) holds
 * that only when it was calibrated so. */
bool bench_mpi_yields_when_idle(void);
/* 1 when built against MPICH before 4.1, whose one-sided layer needs the library-safe choices:
 * MPI_Win_create windows (rma/window.h) and --flush request (rma/flush.h); else 0. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define RMB_MPICH_BEFORE_4_1 1
#else
#define RMB_MPICH_BEFORE_4_1 0
#endif

/* The environment the launch gave this process that tunes an MPI library: every variable named
 * OMPI_MCA_*, MPIR_CVAR_*, MPICH_*, UCX_*, FI_*, PSM2_* or I_MPI_*, as NAME=VALUE joined by ';' in
 * name order (a backslash escapes ';', backslashes and control characters in values), without
 * those a launcher sets for every child and mpirun's oversubscription flags (recorded as the column
 * oversubscribed). "" for a plain run. As bench_pre_init found it, before MPI_Init and rmabench's
 * own defaults; without bench_pre_init (`rmabench record`, no MPI), the environment now. Caller
 * frees. */
char *bench_mpi_env(void);

/* Bad input found after MPI_Init: rank 0 prints "rmabench: MSG", every rank finalises and exits 2.
 * Collective: every rank must call it (decide on reduced values). Before MPI_Init: opt_usage_error
 * (bench/options.h). */
_Noreturn void bench_usage_error(const bench_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* MPI call checking: an error is reported with the rank and the call, then the job is aborted. */
_Noreturn void bench_mpi_fail(int rank, const char *call, int err, const char *file, int line);
#define MPI_CHECK(rank, call)                                                        \
    do {                                                                             \
        int rmb_err_ = (call);                                                       \
        if (rmb_err_ != MPI_SUCCESS) bench_mpi_fail((rank), #call, rmb_err_, __FILE__, __LINE__); \
    } while (0)

/* ISO-8601 UTC timestamp. */
void bench_timestamp(char *buf, int len);

#endif
