/* Composite remote operations (rmabench rdmo, rdmo/rdmo.h): an operation's latency from the round
 * trips and messages it takes, counted by the run, and the handler's time at the target:
 *   verbs  t = sum_k R_k t_k + (M - R) t_op       R flushes, R_k of them closing a round that an
 *                                                 operation of kind k opened (CAS, fetch-and-op, get,
 *                                                 put, accumulate: t_rma_<k>_*, one operation and its
 *                                                 flush), M operations, the M - R beyond the first of
 *                                                 each round t_op each (t_rma_op_*)
 *   rdmo   t = R t_call + W t_word + R H          R calls of an empty method (t_rdmo_call_*: a notified
 *                                                 put there and one back, the target polling), W words
 *                                                 of 8 bytes of request and answer beyond the headers
 *                                                 (t_rdmo_word_*), each call running a method of H
 *                                                 seconds (the handler's time)
 *   rpc    the same over two-sided messages (t_rpc_call_*, t_rpc_word_*)
 * _local parameters for a target on the origin's host, _remote for one on another host. The
 * formula is one origin's: with more origins on one target the handler and the target's link are
 * shared, which it leaves out. MPI-free. */
#ifndef RMB_MODEL_RDMO_H
#define RMB_MODEL_RDMO_H
#include <stdbool.h>

#include "model/params.h"

/* The designs in rdmo/rdmo.h's order (model/ includes no layer above bench/). */
enum { MODEL_RDMO_VERBS = 0, MODEL_RDMO_RDMO = 1, MODEL_RDMO_RPC = 2 };

typedef struct {
    double total;      /* seconds per operation */
    double rounds;     /* the round trips' part */
    double messages;   /* the extra messages' part (verbs) */
    double handler;    /* the handler's part (rdmo, rpc) */
} rdmo_prediction;

/* The parameters the design needs (-1 terminated, for params_require). */
const int *model_rdmo_required(int design, bool remote);
/* The kinds of model_rdmo_latency's rounds, in rdmo/rdmo.h's order. */
enum { MODEL_RMA_CAS = 0, MODEL_RMA_FAO, MODEL_RMA_GET, MODEL_RMA_PUT, MODEL_RMA_ACC, MODEL_RMA_KINDS };
/* Per operation: rounds[k] (verbs) the round trips opened by kind k, rts all round trips, msgs the
 * messages, bytes (rdmo, rpc) the request and answer bytes, headers included; handler_s the method's
 * time per request (rdmo, rpc). */
rdmo_prediction model_rdmo_latency(const model_params *p, int design, bool remote, const double *rounds, double rts,
                                   double msgs, double bytes, double handler_s);
/* The bytes of an empty call (request and answer headers), which t_*_call covers. */
#define MODEL_RDMO_CALL_BYTES 16

#endif
