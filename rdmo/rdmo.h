/* Composite remote operations (RDMO, ../shared/seeds/003): five operations on a target's named
 * objects (rdmo/objects.h), each in three designs behind this one interface, so that an operator
 * (the lock table, the aggregation) picks a design by a flag and never calls a design itself.
 *
 *   verbs  MPI-3 RMA only: MPI_Compare_and_swap, MPI_Fetch_and_op, MPI_Get, MPI_Put and
 *          MPI_Accumulate on the objects' bytes at the target (every rank lays them out alike),
 *          each followed by MPI_Win_flush only where a later step needs its result or MPI's
 *          ordering rules need it complete first (rdmo/verbs.c says which). The target takes no
 *          part beyond driving MPI's progress.
 *   rdmo   the request travels as one notified put (rdmo/wire.h: one MPI_Accumulate of stamped
 *          words + MPI_Win_flush) into the origin's slot of the target's request queue; a handler at
 *          the target takes what arrived into a bounded queue (--queue-depth: more arrivals than
 *          room are answered RDMO_EQUEUE, not run), runs the method registered for the named
 *          object's type (an unknown object or method is answered RDMO_ENOOBJ / RDMO_ENOMETHOD,
 *          never run) and answers with one notified put into the origin's answer slot. The handler
 *          is the target rank's own poll (rdmo_serve, called from its loops and from its waits) or
 *          a progress thread (rdmo_handler_start: needs MPI_THREAD_MULTIPLE).
 *   rpc    the same request and answer as two-sided messages: MPI_Isend to the target, which keeps
 *          --queue-depth receives posted, runs the same methods and answers with MPI_Isend.
 *
 * Counted per operation (rdmo_counts), where the code waits or sends, never assumed: messages the
 * origin sent (RMA operations; requests), round trips it waited for (a flush that completed
 * operations; a request's answer: its flush and the answer it brings are one round trip, the
 * target answering as soon as it sees the request), failed attempts (a CAS that lost, a BUSY
 * answer tried again), and the conflict window: how long the target's object stays in an
 * intermediate state because of the operation (a page record reserved but not yet valid, a row
 * locked, a row written but not sealed): at the origin from the first to the last of the verbs'
 * steps, at the target the method's run time for rdmo and rpc.
 *
 * Every wait is bounded (cfg.wait_bound_s) and polls the way the library needs (rma/notify.h's
 * poll modes: MPICH moves passive-target data only while the target calls MPI), yielding where ranks
 * share cores. */
#ifndef RMB_RDMO_H
#define RMB_RDMO_H
#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rdmo/objects.h"
#include "rdmo/wire.h"

typedef enum { RDMO_DESIGN_VERBS = 0, RDMO_DESIGN_RDMO = 1, RDMO_DESIGN_RPC = 2 } rdmo_design;
extern const char *const rdmo_design_names[]; /* "verbs", "rdmo", "rpc", NULL */
typedef enum { RDMO_HANDLER_POLL = 0, RDMO_HANDLER_THREAD = 1 } rdmo_handler;
extern const char *const rdmo_handler_names[]; /* "poll", "thread", NULL */
typedef enum {
    RDMO_OP_APPEND = 0,  /* SlottedAppend */
    RDMO_OP_GATHER,      /* ConditionalGather */
    RDMO_OP_READ,        /* SignaledRead */
    RDMO_OP_SEAL,        /* WriteAndSeal */
    RDMO_OP_SCATTER,     /* ScatterAndAccumulate */
    RDMO_OPS
} rdmo_op;
extern const char *const rdmo_op_names[]; /* "slotted-append", ..., NULL */

/* Methods of the built-in object types; operators register theirs from RDMO_METHOD_USER. */
enum { RDMO_M_APPEND = 1, RDMO_M_GATHER = 2, RDMO_M_ACCUMULATE = 3, RDMO_M_READ = 4, RDMO_M_WRITE_SEAL = 5,
       RDMO_METHOD_USER = 16, RDMO_METHODS = 32 };

typedef struct {
    int design, handler;  /* rdmo_design, rdmo_handler */
    int poll;             /* notify_poll_mode (rma/notify.h), resolved: load, fao or probe */
    int slot_bytes;       /* a request or answer slot (rdmo), the largest message (rpc); multiple of 64 */
    int queue_depth;      /* requests a target holds at once: taken, not yet answered */
    int tries;            /* SignaledRead: attempts at the lock before BUSY */
    int gather_bound;     /* ConditionalGather: chain entries one call walks at most */
    double wait_bound_s;  /* every wait; hit: the rank, the peer and what it waited for, then abort */
    bool serve;           /* this rank is a target (its heap holds objects others reach) */
    bool yield;           /* this rank shares its core: polling loops yield */
    int calls;            /* calls one rank may have in flight (to different targets; 0: one) */
} rdmo_config;

/* The verbs design's operations, by the kind that opens a round (the model prices them apart). */
enum { RDMO_RMA_CAS = 0, RDMO_RMA_FAO, RDMO_RMA_GET, RDMO_RMA_PUT, RDMO_RMA_ACC, RDMO_RMA_KINDS };

typedef struct {
    /* origin */
    uint64_t ops, msgs, rts, retries, busy;
    uint64_t rounds[RDMO_RMA_KINDS]; /* verbs: round trips by the kind of their first operation */
    uint64_t bytes;       /* rdmo, rpc: request and answer bytes of this origin's calls, headers included */
    double window_s;      /* verbs: conflict windows measured at the origin, summed */
    uint64_t windows;
    /* target (handler) */
    uint64_t handled, answers, rejected, refused; /* methods run; answers sent; EQUEUE; ENOOBJ/ENOMETHOD */
    double handler_s;     /* time inside methods (rdmo, rpc: the conflict window) */
    uint64_t passes, arrivals;
    uint64_t method_n[RDMO_METHODS]; /* methods run, and their time, per method id */
    double method_s[RDMO_METHODS];
} rdmo_counts;

/* Who waits for a method's answer: kept by a method that answers later (RDMO_PENDING). */
typedef struct {
    int origin;
    uint8_t rslot, astamp;
} rdmo_token;
/* A method: the request's payload (len bytes) in, the answer's payload out (at most cap bytes,
 * *anslen set); returns an rdmo_status, or RDMO_PENDING and keeps *t for rdmo_answer. Bounded: it
 * must not wait for anything. */
typedef int (*rdmo_method_fn)(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans,
                              int *anslen, int cap);

typedef struct rdmo_ep rdmo_ep;

/* Bytes a rank's endpoint allocates (window and its own state) for comm_size ranks: for plans.
 * MPI-free (rdmo/plan.c). */
uint64_t rdmo_window_bytes(const rdmo_config *cfg, const rdmo_space *space, int comm_size);
uint64_t rdmo_aux_bytes(const rdmo_config *cfg, int comm_size);
/* The largest request or answer payload a slot takes (rdmo and rpc alike). MPI-free. */
int rdmo_payload_capacity(const rdmo_config *cfg);

/* MPI_Init_thread for a command whose endpoint may run a progress thread: MPI_THREAD_MULTIPLE asked
 * for only then (the library's locks slow every other run), after bench_pre_init; *provided: the
 * level the library gives (the caller refuses the thread handler below MPI_THREAD_MULTIPLE).
 * Returns whether it initialised MPI (false: a driver did; *provided is then the running level). */
bool rdmo_mpi_init(int *argc, char ***argv, bool thread, int *provided);

/* Collective over comm: the window (request slots, the answer slot, the objects' heap, zeroed),
 * the built-in methods of every object of space, the rpc receives. Returns the endpoint. */
rdmo_ep *rdmo_open(MPI_Comm comm, const rdmo_config *cfg, const rdmo_space *space);
/* Collective. Stops a progress thread first. */
void rdmo_close(rdmo_ep *ep);

/* This rank's heap (objects at their rdmo_object.offset), for building and checking objects. */
unsigned char *rdmo_heap(rdmo_ep *ep);
const rdmo_space *rdmo_space_of(const rdmo_ep *ep);
int rdmo_rank(const rdmo_ep *ep);
/* Make what origins wrote into this rank's heap visible to its loads (after a barrier). */
void rdmo_heap_sync(rdmo_ep *ep);
rdmo_counts *rdmo_counts_of(rdmo_ep *ep);

/* The medians behind the counts' sums (a sum takes a descheduled method or window whole): the
 * run times of a method at this target and the conflict windows this origin measured (verbs), over
 * the last RDMO_SAMPLES of each since rdmo_samples_reset; -1 when there are none. */
enum { RDMO_SAMPLES = 1024 };
void rdmo_samples_reset(rdmo_ep *ep);
double rdmo_method_median_s(const rdmo_ep *ep, int method);
double rdmo_window_median_s(const rdmo_ep *ep);

/* Register an operator's method (method >= RDMO_METHOD_USER) on object obj of this rank. */
void rdmo_register(rdmo_ep *ep, uint16_t obj, int method, rdmo_method_fn fn, void *arg);

/* --- the five operations (blocking; every design) --------------------------------------------- */
int rdmo_slotted_append(rdmo_ep *ep, int target, uint16_t obj, const void *payload, uint32_t len, uint64_t *offset);
/* Up to max entries with key from key's bucket (max <= what an answer slot takes). */
int rdmo_conditional_gather(rdmo_ep *ep, int target, uint16_t obj, uint32_t key, int max, rdmo_entry *out, int *n);
/* data: the row's data words. keep: the caller holds the lock afterwards (WriteAndSeal releases it). */
int rdmo_signaled_read(rdmo_ep *ep, int target, uint16_t obj, uint32_t row, bool keep, uint64_t *version,
                       uint64_t *data);
int rdmo_write_and_seal(rdmo_ep *ep, int target, uint16_t obj, uint32_t row, uint64_t version, const uint64_t *data);
int rdmo_scatter_accumulate(rdmo_ep *ep, int target, uint16_t obj, const rdmo_pair *pairs, int n);

/* --- operators' own methods (rdmo and rpc designs) ------------------------------------------ */
/* Send a request to method of obj at target and wait for its answer (*anslen bytes into ans, at
 * most cap). Returns its status. While waiting, a poll-handler rank serves its own queue. */
int rdmo_call(rdmo_ep *ep, int target, uint16_t obj, int method, const void *req, int len, void *ans, int *anslen,
              int cap);
/* The same in two halves, so that calls to different targets travel at once (cfg.calls of them):
 * rdmo_start sends the request and returns the call's handle, rdmo_wait waits for its answer. At
 * most one call per target is in flight (its request slot there holds one message). */
int rdmo_start(rdmo_ep *ep, int target, uint16_t obj, int method, const void *req, int len);
int rdmo_wait(rdmo_ep *ep, int call, void *ans, int *anslen, int cap);
/* The answer of a method that returned RDMO_PENDING. */
void rdmo_answer(rdmo_ep *ep, const rdmo_token *t, int status, const void *ans, int len);

/* --- the target's handler ----------------------------------------------------------------- */
/* One pass of the poll handler: take what arrived (up to the queue's room), run, answer. Returns
 * the requests taken. verbs: drives MPI's progress only. */
int rdmo_serve(rdmo_ep *ep);
/* The progress thread (cfg.handler thread): serves until rdmo_handler_stop. */
void rdmo_handler_start(rdmo_ep *ep);
void rdmo_handler_stop(rdmo_ep *ep);
/* Collective: every rank of the endpoint's communicator calls it when it has nothing more to send;
 * returns when all did, serving (poll handler) or driving progress meanwhile. */
void rdmo_quiesce(rdmo_ep *ep);

#endif
