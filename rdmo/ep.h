/* The endpoint's state, shared by the files of rdmo/ (the operators see rdmo/rdmo.h only).
 *
 * Window of every rank, one MPI_Win_allocate (rma_locked_window_open: zeroed, locked for all):
 *   [0, 64)                 the word the fao poll mode reads (MPI_Fetch_and_op MPI_NO_OP)
 *   ans_at + k * slot       rdmo: the answer slot of this rank's call k (cfg.calls of them)
 *   req_at + s * slot       rdmo, targets: origin s's request slot (one message in flight per origin)
 *   heap_at                 targets: the objects (rdmo_space), at the same offsets on every target
 * A rank that serves no requests (cfg.serve false) allocates only the first two.
 * A receiver zeroes a message's words once it has read them (before anything lets the sender
 * write the slot again): a word then shows either nothing or the message now arriving, whatever
 * lengths earlier messages had. */
#ifndef RMB_RDMO_EP_H
#define RMB_RDMO_EP_H
#include <pthread.h>
#include <stdatomic.h>

#include "rdmo/rdmo.h"

enum { RDMO_TAG_REQ = 4700, RDMO_TAG_ANS = 4701 };
enum { RDMO_FLUSH_IDLE = 64 }; /* empty passes before the handler completes its answers (rdmo/queue.c) */

typedef struct {
    unsigned char *mem;       /* the object in this rank's heap */
    const rdmo_object *o;
    rdmo_ep *ep;
} rdmo_builtin;

/* Ranks with notified puts of this rank that no flush has completed (rdmo/queue.c). */
typedef struct {
    int *rank, n;
    uint8_t *mark; /* [size] */
} rdmo_unflushed;

/* A call in flight from this rank. */
typedef struct {
    bool busy;
    int target;
    uint8_t astamp;           /* rdmo: the stamp its answer will carry */
    unsigned char *out, *in;  /* its request and its answer, unpacked (capacity bytes) */
    MPI_Request req[2];       /* rpc: the request's send, the answer's receive */
} rdmo_call_slot;

/* The last RDMO_SAMPLES values of a time, in seconds (a ring). */
typedef struct {
    float v[RDMO_SAMPLES];
    uint32_t n;
} rdmo_samples;
static inline void rdmo_sample(rdmo_samples *s, double t) { s->v[s->n++ % RDMO_SAMPLES] = (float)t; }

typedef struct {
    rdmo_token tok;
    int len;                  /* message bytes, header included */
    unsigned char *msg;       /* slot capacity */
} rdmo_queued;

struct rdmo_ep {
    rdmo_config cfg;
    MPI_Comm comm;            /* a duplicate: the rpc design's tags are its own */
    int rank, size;
    rdmo_space space;
    MPI_Win win;
    unsigned char *base;
    uint64_t win_bytes;
    MPI_Aint req_at, ans_at, heap_at;
    int slot_words, capacity; /* a slot's words; the largest message, header included */
    /* origin */
    uint8_t *stamp_out;       /* [size] the stamp of my last request to each target */
    uint8_t *in_flight;       /* [size] a call to this target is in flight */
    rdmo_unflushed out_unflushed; /* targets of requests no flush has completed yet */
    rdmo_call_slot *calls;    /* [cfg.calls] */
    unsigned char *out, *in;  /* the verbs design's staging (capacity bytes) */
    uint64_t *words;          /* a request packed (slot_words) */
    /* target */
    uint8_t *stamp_in;        /* [size] the stamp expected next from each origin */
    struct {
        rdmo_method_fn fn;
        void *arg;
    } methods[RDMO_MAX_OBJECTS][RDMO_METHODS];
    rdmo_builtin builtin[RDMO_MAX_OBJECTS];
    rdmo_queued *queue;       /* [queue_depth] a pass's requests */
    unsigned char *queue_mem;
    int pending;              /* requests answered later (RDMO_PENDING) and not yet */
    int scan_from;
    unsigned char *ans;       /* a method's answer payload (capacity bytes) */
    unsigned char *hmsg;      /* an answer assembled: header and payload (capacity bytes) */
    uint64_t *hwords;         /* an answer packed (slot_words) */
    rdmo_unflushed ans_unflushed; /* origins answered whose answers no flush has completed yet */
    unsigned idle_passes;     /* passes in a row that took nothing */
    /* rpc */
    MPI_Request *rreq;        /* [queue_depth] receives posted for requests */
    unsigned char *rbufs;
    MPI_Request *sreq;        /* [queue_depth] answers in flight, a ring */
    unsigned char *sbufs;
    int snext;
    int *done_idx;
    MPI_Status *done_st;
    /* verbs */
    int verbs_issued;         /* operations issued since the last flush */
    int verbs_kind;           /* the kind of the first of them */
    void *verbs_pairs;        /* ScatterAndAccumulate's per-pair state (rdmo/verbs.c) */
    /* progress thread */
    pthread_t thread;
    atomic_bool stop, running;
    rdmo_counts c;
    rdmo_samples *method_samples; /* [RDMO_METHODS], targets */
    rdmo_samples window_samples;  /* verbs origins */
};

/* MPI's progress for this rank the way the library needs (cfg.poll), then MPI_Win_sync. */
void rdmo_progress(rdmo_ep *ep);
/* Backing off between empty polls: spin, then yield, then short sleeps (idle counts the polls). */
void rdmo_idle(unsigned *idle, bool yield);
/* Whether this rank's waits for answers serve its own queue (the poll handler of a target). */
bool rdmo_wait_serves(const rdmo_ep *ep);
/* Abort after a hit wait bound (the bound's report first). */
_Noreturn void rdmo_wait_failed(rdmo_ep *ep, const char *what, int peer);

/* rdmo design (rdmo/queue.c) */
void rdmo_queue_start(rdmo_ep *ep, int k, int len);  /* call k's request (calls[k].out, len payload bytes) */
int rdmo_queue_wait(rdmo_ep *ep, int k);              /* its answer into calls[k].in; the answer's length */
int rdmo_queue_serve(rdmo_ep *ep);
void rdmo_queue_send_answer(rdmo_ep *ep, const rdmo_token *t, int status, const void *ans, int len);
void rdmo_queue_flush(rdmo_ep *ep, rdmo_unflushed *u); /* the remote completion of u's notified puts */
/* rpc design (rdmo/rpc.c) */
void rdmo_rpc_open(rdmo_ep *ep);
void rdmo_rpc_close(rdmo_ep *ep);
void rdmo_rpc_start(rdmo_ep *ep, int k, int len);
int rdmo_rpc_wait(rdmo_ep *ep, int k);
int rdmo_rpc_serve(rdmo_ep *ep);
void rdmo_rpc_send_answer(rdmo_ep *ep, const rdmo_token *t, int status, const void *ans, int len);
/* A request (ep->in[0..len)) from t's origin: its method run and answered (or kept); rdmo, rpc. */
void rdmo_execute(rdmo_ep *ep, const rdmo_token *t, const unsigned char *msg, int len);
/* The built-in methods on every object of the space (rdmo/methods.c). */
void rdmo_register_builtins(rdmo_ep *ep);

/* verbs design (rdmo/verbs.c) */
int rdmo_verbs_append(rdmo_ep *ep, int target, const rdmo_object *o, const void *payload, uint32_t len, uint64_t *offset);
int rdmo_verbs_gather(rdmo_ep *ep, int target, const rdmo_object *o, uint32_t key, int max, rdmo_entry *out, int *n);
int rdmo_verbs_read(rdmo_ep *ep, int target, const rdmo_object *o, uint32_t row, bool keep, uint64_t *version,
                    uint64_t *data);
int rdmo_verbs_write_seal(rdmo_ep *ep, int target, const rdmo_object *o, uint32_t row, uint64_t version,
                          const uint64_t *data);
int rdmo_verbs_scatter(rdmo_ep *ep, int target, const rdmo_object *o, const rdmo_pair *pairs, int n);

#endif
