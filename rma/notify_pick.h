/* --notify-shm auto: which notified put is faster within a host, MPI_Put + MPI_Accumulate into an
 * RMA window or stores into a shared-memory mailbox (rma/notify.h), is a property of the system,
 * not of the MPI library alone: with the same Open MPI the faster path differs from one CPU to
 * another (docs/measurements.md, "From code comments"). The pick measures both paths with the same
 * ping-pong (rank 0 and the next rank of its host) and takes the other path than the library's
 * default (notify_shm_resolve) only when it is faster by more than NOTIFY_PICK_MARGIN, because a
 * bare ping-pong can lean a few per cent the other way from the lock run. Not measured (the library
 * default) where the pair cannot run at once (ranks share cores: each round trip would wait for a
 * scheduler turn; or a round outlasts PICK_ROUND_LIMIT_S, the cores being shared with ranks or jobs
 * nobody counted) or there is no pair (no two ranks on rank 0's host). */
#ifndef RMB_NOTIFY_PICK_H
#define RMB_NOTIFY_PICK_H
#include <stdbool.h>
#include <stddef.h>

#include "bench/context.h"
#include "rma/notify.h"

#define NOTIFY_PICK_MARGIN 0.10

typedef struct {
    bool shm;         /* the choice: same-host senders use the shared-memory mailbox */
    bool measured;
    double rtt_us[2]; /* median round trip, us: [0] the RMA path (shm off), [1] the shared mailbox; -1: not measured */
    int a, b;         /* the pair measured (-1: none) */
    char source[96];  /* "given", "measured", "library default (<why not measured>)" */
} notify_shm_pick;

/* Collective over ctx->comm: one round of `warmup + iters` notified-put round trips (slot 0 of ep,
 * messages of ep->msg_bytes) between ranks a and c. At rank a: seconds per round trip and the
 * median seconds of one notify_send; 0 elsewhere; -1 when limit_s > 0 and the round took longer
 * (a stops, and tells c in its last message). a == c: a sends to itself and waits for its own
 * message. yield: poll as a rank that shares its core. Ranks outside the pair wait at barriers. */
void notify_ping_pong_round(const bench_ctx *ctx, notify_ep *ep, int a, int c, int warmup, int iters, bool yield,
                            double limit_s, double *rtt, double *send);

/* The decision from the two measured medians (us; <= 0: not measured) and the library's default:
 * the other path only when it is faster by more than NOTIFY_PICK_MARGIN. MPI-free. */
/* The same with every rank of a pairing at once (a lock run's agents and servers all talk at once):
 * each rank passes its partner (-1: none, it waits at the barriers) and whether it leads (sends
 * first, times; the partner answers; a rank that is its own partner leads). Results at the leaders. */
void notify_ping_pong_pairs(const bench_ctx *ctx, notify_ep *ep, int partner, bool leads, int warmup, int iters, bool yield,
                            double limit_s, double *rtt, double *send);

bool notify_shm_prefer(double rtt_off_us, double rtt_on_us, bool library_default);

/* Collective: the mailbox to use for `mode` (NOTIFY_SHM_AUTO measures, as above) with transport t
 * and messages of msg_bytes, polled with `poll`; the same on every rank. */
void notify_shm_choose(const bench_ctx *ctx, notify_shm_mode mode, notify_transport t, notify_poll_mode poll,
                       int msg_bytes, notify_shm_pick *out);

/* "measured between ranks 0 and 1: rma 1.21 us, shm 0.53 us" or the source alone. */
void notify_shm_pick_describe(const notify_shm_pick *p, char *buf, size_t len);

#endif
