/* The lock workloads behind `--workload`: each is one descriptor (wl_desc below) in a file of its
 * own, listed once in LOCK_WORKLOADS (registry.c). What a workload is, the rest of the lock table
 * reads from its descriptor: the flags it reads (cmd/lock/lock_opts.c refuses the others, and
 * groups --help by them), their defaults, the data its transactions read and write (lock_run.c,
 * agent.c), its plan (lock_plan.c), its CSV columns and report lines (cmd/lock/). A new workload
 * is its file (the descriptor and its generator), its name in LOCK_WORKLOADS, and its line in
 * locking/meson.build. tpcc and trace are adapters over the generator and trace reader of
 * locking/workloads/{tpcc,trace}.c. */
#ifndef RMB_LOCK_REGISTRY_H
#define RMB_LOCK_REGISTRY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/record.h"
#include "locking/lock.h"

/* What the agent needs to know about a transaction beyond its locks. */
typedef struct {
    int type;               /* workload's transaction type (tpcc: 0..4), else 0 */
    bool transfer;          /* bank: move `amount` from account `from` to account `to` */
    uint64_t from, to;
    int64_t amount;
    bool sync_after_first;  /* deadlock: all agents meet after their first lock ... */
    double delay_after_sync; /* ... and this agent waits this long before its next request */
} wl_txn;

/* The workload flags of `rmabench lock` (their option specs: cmd/lock/lock_opts.c): a workload
 * reads those its descriptor names; one given to a workload that does not read it is refused,
 * naming the workloads that do. */
typedef enum {
    WL_FLAG_REMOTE_PROB = 1 << 0,
    WL_FLAG_LOCKS_PER_TXN = 1 << 1,
    WL_FLAG_LOCKS_PER_SERVER = 1 << 2,
    WL_FLAG_ACCOUNTS = 1 << 3,
    WL_FLAG_ISOLATION = 1 << 4,
    WL_FLAG_WAREHOUSES = 1 << 5,
    WL_FLAG_TRACE = 1 << 6,
} wl_flag;

/* What agents read and write under their locks, with MPI_Get/MPI_Put in the servers' data window
 * (lock_run.c opens it, agent.c accesses it, lock_plan.c counts it). */
typedef enum {
    WL_DATA_NONE,     /* locks only: no data window */
    WL_DATA_BALANCES, /* an int64 balance per lock id (an account), moved by transfers (wl_txn); at the
                       * end every account must have moved by its committed transfers and the sum
                       * stayed --accounts x BANK_INITIAL_BALANCE (lock_verify.c) */
    WL_DATA_ROWS,     /* TPC-C row images (tpcc.h): every locked row read, written under X */
} wl_data;

typedef struct wl_desc {
    const char *name;         /* --workload NAME, the CSV's workload column */
    const char *purpose;      /* after the name in --workload's help ("benchmark"), or NULL */
    /* flags */
    unsigned reads;           /* wl_flag: the workload flags it reads */
    unsigned needs;           /* of those, the ones it cannot run without */
    const char *fixed_length; /* why it refuses --duration and --transactions-per-agent, or NULL */
    double remote_prob, vote_no_prob; /* --remote-prob and --vote-no-prob unless given (0 for most) */
    /* data */
    wl_data data;
    int ntypes;               /* transaction types counted apart (agent_stats' *_type[], at most
                               * LOCK_TXN_TYPES), 0: none */
    /* plan */
    const char *memory_flag;  /* the flag that makes a rank's memory smaller, for --plan's advice (NULL: --servers) */
    /* Most locks one transaction takes (NULL: LOCK_TXN_MAX): bounds the lock tables. */
    int (*max_locks)(const lock_opts *o);
    /* Lock id space for these options and servers; 0 with a reason in err for bad input. Called on
     * every rank before anything is allocated. */
    uint64_t (*lock_space)(const lock_opts *o, const lock_roles *roles, char *err, size_t errlen);
    /* CSV and report (rank 0, cmd/lock/): the columns of the flags it reads (NULL: none); its
     * transaction types' columns and line (NULL: none). */
    void (*record_params)(record *rec, const lock_opts *o);
    void (*record_types)(record *rec, const agent_stats *a, double elapsed);
    void (*print_types)(const agent_stats *a, double elapsed);
    /* The generator, per agent: NULL with a reason in err on failure. */
    void *(*open)(const lock_opts *o, const lock_roles *roles, int agent, char *err, size_t errlen);
    /* Locks of the next transaction in acquisition order: > 0 count, 0 end of workload, -1 error
     * (reason in err). */
    int (*next)(void *state, lock_request *reqs, int max, wl_txn *info, char *err, size_t errlen);
    void (*close)(void *state);
} wl_desc;

typedef struct lock_workload {
    const wl_desc *desc;
    void *state;
} lock_workload;

/* The workloads in --workload's order, NULL-terminated; the first, synthetic, is the default.
 * --workload is an index into it (lock_opts.workload). */
extern const wl_desc *const lock_workloads[];
static inline const wl_desc *lock_workload_of(const lock_opts *o) { return lock_workloads[o->workload]; }
/* Their names in that order, NULL-terminated (--workload's choices). */
const char *const *lock_workload_names(void);
/* The index of a workload by name, -1 when there is none. */
int lock_workload_index(const char *name);
/* "synthetic and bank": the workloads that read the flags of mask (sep between all but the last
 * two, last between those), in registry order. */
void lock_workload_readers(unsigned mask, const char *sep, const char *last, char *buf, size_t len);

/* tpcc: the home warehouse of an agent (pure, for tests): distinct for every agent when there are
 * at least as many warehouses as agents, on the agent's own machine while that machine holds
 * warehouses no other of its agents took. */
int tpcc_home_warehouse(const lock_roles *r, int64_t warehouses, int agent);

/* splitmix64: small, seedable, good enough for workload choices. */
static inline uint64_t wl_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline double wl_rand01(uint64_t *s) { return (double)(wl_rand(s) >> 11) * 0x1.0p-53; }
static inline uint64_t wl_rand_below(uint64_t *s, uint64_t n) { return n ? wl_rand(s) % n : 0; }

/* A server for a lock of `agent`: a remote one with probability remote_prob (when one exists),
 * else a local one. *remote says which. */
int wl_pick_server(const lock_roles *r, int agent, double remote_prob, uint64_t *rng, bool *remote);

#endif
