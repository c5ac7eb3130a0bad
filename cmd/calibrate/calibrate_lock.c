/* Lock-table communication times (thesis 5.3, eq. 5.1 and 5.3), measured with the lock table's own
 * primitives so that the model sees what the lock benchmark pays:
 *  - t_local_comm / t_remote_comm: half the round trip of a lock request and its answer, i.e. the
 *    lock table's notified put (rma/notify.c: put, flush, BXOR notification, flush; polled as the
 *    lock servers poll: loads on Open MPI, MPI_Iprobe + loads on MPICH), between rank 0 and a rank
 *    on its host / another host. With one rank per host, t_local_comm is rank 0's notified put to
 *    itself (a lower bound, noted in the file).
 *  - t_shared_comm: the same local round trip, halved, with both ranks pinned to one CPU and
 *    polling as ranks that share their core (yields, then sleeps): what a message costs when the
 *    ranks outnumber the cores (the lock benchmark oversubscribed).
 *  - t_vote: MPI_Fetch_and_op(MPI_SUM) + flush round trip to a peer (the 2PC vote); the peer polls
 *    its word with MPI_Fetch_and_op(MPI_NO_OP), which also makes MPICH progress the atomics.
 *  - t_clean_up: the sender's side of one notified put (end of transaction: tell the server, no
 *    reply), timed inside the ping-pong; to another host when there is one, and then
 *    t_clean_up_local to the rank on rank 0's host (the answer of a lock at the agent's own server).
 *  - comm_ranks_per_core: the ranks per core while these were measured (namespace hosts sharing
 *    one machine's cores): the model stretches the message times only beyond it.
 *  - t_queue: 0 (no contention in a micro-benchmark: the model's queueing, model/lock_model.h, adds it).
 *  - t_fao_local / t_fao_remote: MPI_Fetch_and_op SUM + flush round trips (t_vote is the one to the
 *    transaction's servers); t_server: calibrate_lock_server.
 *  - t_ack: the end-of-transaction acknowledgement, one way: half the ping-pong of the lock run's
 *    own signal, peer_words_add on the peer's word seen by the peer's poll (ack_round).
 * Each is the fastest of ROUNDS rounds of ITERS operations (one round is a few milliseconds; on a
 * shared machine single rounds vary by +-50%, and another program's turn on a core only lengthens
 * one), recorded with its spread over the rounds. Ranks
 * outside the pair wait in MPI calls. */
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/calibrate/calibrate.h"
#include "bench/stats.h"
#include "locking/lock.h"
#include "locking/lock_table.h"
#include "locking/workloads/registry.h"
#include "rma/floor.h"
#include "rma/notify.h"
#include "rma/notify_pick.h"
#include "rma/peer_words.h"
#include "rma/progress.h"
#include "rma/window.h"

enum { DONE = 8, PAYLOAD = 64 }; /* byte offsets in the vote window: rounds done, the voted word */
#define ITERS 5000       /* on one host: rounds of a few milliseconds, as long as a scheduler slice */
#define ITERS_REMOTE 200 /* between hosts a round trip over TCP is far longer than within one */
#define ITERS_SHARED 1000 /* two ranks on one core: a round trip is a few to 100 us (yields, sleeps) */
#define WARMUP 20
#define ROUNDS 7

typedef struct {
    const bench_ctx *ctx;
    rma_window w;
} lock_bench;

static int64_t read_own(lock_bench *b, int disp)
{
    int64_t v;
    MPI_CHECK(b->ctx->rank, MPI_Fetch_and_op(NULL, &v, MPI_INT64_T, b->ctx->rank, disp, MPI_NO_OP, b->w.win));
    MPI_CHECK(b->ctx->rank, MPI_Win_flush(b->ctx->rank, b->w.win));
    return v;
}

/* Ranks not driving the round: call MPI until the round is over. */
static void idle_until_done(lock_bench *b, int64_t round)
{
    poll_bound pb;
    poll_begin(&pb, "end of the calibration round", b->ctx->rank, 0, 60.0, true);
    while (read_own(b, DONE) < round)
        if (!poll_continue(&pb)) {
            poll_report_timeout(&pb);
            MPI_Abort(b->ctx->comm, 1);
        }
}

/* Ends a round: DONE on every other rank counts the rounds finished. */
static void end_round(lock_bench *b, int a)
{
    int64_t one = 1, old;
    for (int r = 0; r < b->ctx->size; r++)
        if (r != a) {
            MPI_CHECK(b->ctx->rank, MPI_Fetch_and_op(&one, &old, MPI_INT64_T, r, DONE, MPI_SUM, b->w.win));
            MPI_CHECK(b->ctx->rank, MPI_Win_flush(r, b->w.win));
        }
}

/* One round of votes (MPI_Fetch_and_op SUM + flush) from a to c; seconds per vote at rank a. */
static double vote_round(lock_bench *b, int a, int c, int64_t round, int iters)
{
    const bench_ctx *ctx = b->ctx;
    double per = 0;
    MPI_Barrier(ctx->comm);
    if (ctx->rank == a) {
        double t0 = 0;
        for (int i = 0; i < WARMUP + iters; i++) {
            if (i == WARMUP) t0 = MPI_Wtime();
            int64_t one = 1, old;
            MPI_CHECK(ctx->rank, MPI_Fetch_and_op(&one, &old, MPI_INT64_T, c, PAYLOAD, MPI_SUM, b->w.win));
            MPI_CHECK(ctx->rank, MPI_Win_flush(c, b->w.win));
        }
        per = (MPI_Wtime() - t0) / iters;
        end_round(b, a);
    } else {
        idle_until_done(b, round);
    }
    MPI_Barrier(ctx->comm);
    return per;
}

/* One round of the acknowledgement's ping-pong between ranks a and c: each adds 1 to the other's
 * word (twopc_ack's peer_words_add) once its own word shows the other's add, waiting as an agent
 * waits for its acknowledgements (peer_words_wait, twopc_wait_acks). Returns the round trip on
 * rank a, 0 elsewhere. */
static double ack_round(const bench_ctx *ctx, peer_words *pw, int a, int c, int iters)
{
    double per = 0;
    /* my word before the round, read before the barrier: the other rank adds only after it */
    const uint64_t start = ctx->rank == a || ctx->rank == c ? peer_words_read(pw, 0) : 0;
    MPI_Barrier(ctx->comm);
    if (ctx->rank == a || ctx->rank == c) {
        const int other = ctx->rank == a ? c : a;
        double t0 = 0;
        for (int i = 1; i <= WARMUP + iters; i++) {
            if (i == WARMUP + 1) t0 = MPI_Wtime();
            if (ctx->rank == a) peer_words_add(pw, other, 0, 1);
            poll_bound b;
            poll_begin(&b, "the acknowledgement ping-pong", ctx->rank, other, 60, ctx->poll_yield);
            if (!peer_words_wait(pw, 0, peer_words_at_least, start + (uint64_t)i, &b, NULL)) {
                poll_report_timeout(&b);
                MPI_Abort(ctx->comm, 3);
            }
            if (ctx->rank == c) peer_words_add(pw, other, 0, 1);
        }
        if (ctx->rank == a) per = (MPI_Wtime() - t0) / iters;
    }
    MPI_Barrier(ctx->comm);
    return per;
}

/* The rank at index `idx` among the ranks of host h, in rank order; -1: none. */
static int rank_at(const bench_ctx *ctx, int h, int idx)
{
    for (int r = 0; r < ctx->size; r++)
        if (ctx->rank_host[r] == h && idx-- == 0) return r;
    return -1;
}

/* In a lock run every agent and server talks at once, and where ranks share cores (namespace
 * hosts on one machine: 2 x 2 ranks on 2 cores) a round trip of one pair waits for the others' turns:
 * the pair of rank 0 and c ping-pongs with every other rank paired the same way at once. c on rank
 * 0's host: the i-th rank of each host with its (i xor 1)-th; c on another (the first rank of its
 * host): the i-th rank of host h with the i-th of host h xor (host 0 xor c's host). The half of a
 * pair on rank 0's side of the pairing leads. Returns this rank's partner, -1: none. (With one rank
 * idle in barriers per pair, the local round trip comes out shorter than in the lock runs:
 * docs/measurements.md, "From code comments".) */
static int pair_partner(const bench_ctx *ctx, int c, bool *leads)
{
    const int h0 = ctx->rank_host[0], hc = ctx->rank_host[c], h = ctx->rank_host[ctx->rank];
    int idx = 0;
    for (int r = 0; r < ctx->rank; r++) idx += ctx->rank_host[r] == h;
    if (h0 == hc) {
        *leads = !(idx & 1);
        return c == 0 ? (ctx->rank == 0 ? 0 : -1) : rank_at(ctx, h, idx ^ 1);
    }
    const int d = h0 ^ hc, bit = d & -d;
    *leads = (h & bit) == (h0 & bit);
    return rank_at(ctx, h ^ d, idx);
}

/* ROUNDS rounds of the ping-pong between 0 and c (every pair at once, above; only 0 and c when
 * `shared`: that pair is pinned to one core), every round's times broadcast from rank 0. */
static void ping_pong(const bench_ctx *ctx, notify_ep *ep, int c, double rtt[ROUNDS], double send[ROUNDS], bool shared)
{
    const bool same_host = ctx->rank_host[c] == ctx->rank_host[0];
    const int iters = !same_host ? ITERS_REMOTE : shared ? ITERS_SHARED : ITERS;
    bool leads = ctx->rank == 0;
    const int partner = shared ? (ctx->rank == 0 ? c : ctx->rank == c ? 0 : -1) : pair_partner(ctx, c, &leads);
    for (int k = 0; k < ROUNDS; k++)
        notify_ping_pong_pairs(ctx, ep, partner, leads, WARMUP, iters, shared || ctx->poll_yield, 0, &rtt[k], &send[k]);
    MPI_Bcast(rtt, ROUNDS, MPI_DOUBLE, 0, ctx->comm);
    MPI_Bcast(send, ROUNDS, MPI_DOUBLE, 0, ctx->comm);
}

/* Parameter i = the fastest of the rounds of v * scale, with its spread. */
static void put_rounds(model_params *p, int i, const double *v, double scale)
{
    double w[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) w[k] = v[k] * scale;
    params_put_spread(p, i, w, ROUNDS);
    params_put(p, i, stats_min(w, ROUNDS));
}

/* t_ack between rank 0 and peer, through the words the lock run uses (shared ones as --notify-shm
 * auto resolves them for the 2PC words, locking/lock_run.c). Collective. */
static void calibrate_ack(const bench_ctx *ctx, int peer, bool remote, model_params *p)
{
    peer_words pw;
    const bool shm = notify_shm_resolve(NOTIFY_SHM_AUTO);
    peer_words_open(&pw, ctx->comm, 1, NOTIFY_POLL_AUTO, shm);
    const int iters = remote ? ITERS_REMOTE : ITERS;
    double t[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) t[k] = ack_round(ctx, &pw, 0, peer, iters);
    MPI_Bcast(t, ROUNDS, MPI_DOUBLE, 0, ctx->comm);
    put_rounds(p, MP_t_ack, t, 0.5);
    peer_words_close(&pw);
    snprintf(p->bench[MP_t_ack], sizeof p->bench[MP_t_ack],
             "half the ping-pong of peer_words_add (%s words, as twopc_ack) seen by the peer's poll, ranks 0 and %d, %d rounds of %d",
             shm && !remote ? "shared-memory" : "RMA", peer, ROUNDS, iters);
}

/* t_server: what a lock server spends on one request: its lock-table work (lt_request_lock of an
 * exclusive lock on a random id of 1M, and its share of lt_release_all at the end of a transaction
 * of LOCKS requests; every rank, the fastest of ROUNDS rounds) plus sending the answer, one notified put
 * (t_clean_up's primitive). */
enum { LOCKS = 10, TXNS = 2000 };
static void calibrate_lock_server(const bench_ctx *ctx, model_params *p)
{
    double t[ROUNDS];
    uint64_t seed = 99 + (uint64_t)ctx->rank;
    for (int k = 0; k < ROUNDS; k++) {
        lock_table lt;
        lt_init(&lt, DL_TIMEOUT, 1.0);
        double t0 = MPI_Wtime();
        for (uint64_t txn = 1; txn <= TXNS; txn++) {
            for (int j = 0; j < LOCKS; j++) {
                lt_request r = {.txn = txn, .age = txn, .lock_id = calibrate_mix(&seed) % (1u << 20), .agent = 0, .mode = LOCK_X};
                lt_reason why;
                lt_request_lock(&lt, &r, t0, 0, &why);
            }
            lt_release_all(&lt, txn, t0, NULL, NULL);
        }
        t[k] = (MPI_Wtime() - t0) / (TXNS * LOCKS);
        lt_free(&lt);
    }
    double med = calibrate_allreduce(ctx, stats_min(t, ROUNDS), MPI_SUM);
    params_put(p, MP_t_server, med + params_get(p, MP_t_clean_up));
    snprintf(p->bench[MP_t_server], sizeof p->bench[MP_t_server],
             "lt_request_lock (X, random of 1M ids) + its share of lt_release_all, %d-lock transactions x %d, %d rounds: %.3f us; plus t_clean_up (the answer)",
             LOCKS, TXNS, ROUNDS, med * 1e6);
}

/* t_agent: the agent's own work per transaction beside its messages (locking/agent.c
 * lock_agent_own_work: per request the agent's preparation and clock reads, every request granted
 * at once; the draw of the next transaction and the statistics happen while messages travel, and
 * are not timed), for the lock benchmark's defaults (the
 * synthetic workload, 10 locks per transaction, one server; an agent of a 2-rank host laid out by
 * hand, no MPI); every rank, the fastest of ROUNDS rounds of TXNS. In a 1 server + 1 agent run the
 * transaction's timed phases leave a remainder beside the requests' round trips: this work
 * (docs/measurements.md, "From code comments"). */
static void calibrate_lock_agent(const bench_ctx *ctx, model_params *p)
{
    lock_opts o = {.workload = lock_workload_index("synthetic"), .locks_per_txn = LOCKS, .locks_per_server = 1000000, .seed = 42};
    int rank_host[2] = {0, 0};
    bench_ctx two = {.size = 2, .hosts = 1, .rank_host = rank_host};
    lock_roles r;
    lock_roles_init(&r, &two, 1);
    if (r.i_am_server) { /* the agent's rank of the pair */
        lock_roles_free(&r);
        two.rank = 1;
        lock_roles_init(&r, &two, 1);
    }
    char err[256] = "";
    lock_workload wl = {lock_workload_of(&o), NULL};
    r.lock_space = wl.desc->lock_space(&o, &r, err, sizeof err);
    if (r.lock_space) wl.state = wl.desc->open(&o, &r, r.my_index, err, sizeof err);
    double t[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) t[k] = wl.state ? lock_agent_own_work(&o, &r, &wl, TXNS) : -1;
    if (wl.state) wl.desc->close(wl.state);
    lock_roles_free(&r);
    double med = stats_min(t, ROUNDS), worst = calibrate_allreduce(ctx, med, MPI_MIN);
    if (worst <= 0) calibrate_fail(ctx, "t_agent (lock_agent_own_work)");
    params_put_spread(p, MP_t_agent, t, ROUNDS);
    params_put(p, MP_t_agent, calibrate_allreduce(ctx, med, MPI_SUM));
    snprintf(p->bench[MP_t_agent], sizeof p->bench[MP_t_agent],
             "lock_agent_own_work: synthetic workload, %d locks per transaction, every request granted at once, %d transactions, %d rounds",
             LOCKS, TXNS, ROUNDS);
}

/* t_shared_comm (peer on rank 0's host) and t_shared_remote_comm (peer on another host): the
 * ping-pong with rank 0 and `peer` pinned to rank 0's CPU, polling as ranks that share their core do
 * (no spinning: yields, then sleeps). Between network-namespace hosts on one machine the pair then
 * shares a core as ranks of crowded runs on several such hosts do; between real hosts it measures
 * the remote round trip with yielding polls. Collective; each rank's affinity is restored
 * afterwards. Without sched_setaffinity (not Linux, or refused) it stays unset and the model falls
 * back to stretching t_local_comm / t_remote_comm (model/lock_model.h). */
static void calibrate_shared_comm(const bench_ctx *ctx, notify_ep *ep, int peer, int param, model_params *p)
{
    calibrate_pin pin;
    const bool remote = ctx->rank_host[peer] != ctx->rank_host[0];
    if (calibrate_pin_begin(ctx, ctx->rank == 0 || ctx->rank == peer, &pin)) {
        double rtt[ROUNDS], send[ROUNDS];
        ping_pong(ctx, ep, peer, rtt, send, true);
        put_rounds(p, param, rtt, 0.5);
        /* On one host the slowest round, not the median: the rounds can fall in two groups, in
         * proportions that change from one calibration to the next, and the lock runs on shared
         * cores match the slower group (docs/measurements.md, "From code comments"). Between hosts
         * each round's mean holds the tail of scheduler turns already (200 round trips a round):
         * the fastest round, as every other message time. */
        if (!remote) {
            double slowest = rtt[0];
            for (int k = 1; k < ROUNDS; k++) slowest = rtt[k] > slowest ? rtt[k] : slowest;
            params_put(p, param, 0.5 * slowest);
        }
        /* Open MPI yields in its own progress when told (mpirun does when it oversubscribes): the
         * lock runs are then several times slower, so the file says which way this was measured */
        const char *lib_yield = getenv("OMPI_MCA_mpi_yield_when_idle");
        snprintf(p->bench[param], sizeof p->bench[param],
                 "half the notified-put ping-pong between ranks 0 and %d%s pinned to CPU %d, polling with yields and sleeps, %s of %d rounds of %d%s%s",
                 peer, remote ? " (another host)" : "", pin.cpu, remote ? "fastest" : "slowest", ROUNDS,
                 remote ? ITERS_REMOTE : ITERS_SHARED, lib_yield ? ", OMPI_MCA_mpi_yield_when_idle=" : "", lib_yield ? lib_yield : "");
    } else if (ctx->rank == 0) {
        fprintf(stderr, "rmabench: calibrate: %s not measured: no sched_setaffinity here, or refused\n", params_name(param));
    }
    calibrate_pin_end(ctx, &pin);
}

/* t_local_comm's micro-benchmark, with the mailbox --notify-shm auto picked for it */
static void note_local_comm(model_params *p, const notify_shm_pick *pick, int peer)
{
    char how[160];
    notify_shm_pick_describe(pick, how, sizeof how);
    snprintf(p->bench[MP_t_local_comm], sizeof p->bench[MP_t_local_comm],
             "half the notified-put ping-pong, ranks 0 and %d, %d rounds of %d; --notify-shm auto: %s, %.140s", peer, ROUNDS,
             ITERS, pick->shm ? "on" : "off", how);
}

/* The clean-up goes to the transaction's servers: remote ones when there are other hosts, and then
 * the one to a server on the host (a lock at the agent's own server, and its answer) beside it. The
 * message times hold the sharing of the cores they were measured with (a calibration on crowded
 * namespace hosts: what its lock runs see); the model stretches them only beyond it. */
static void put_clean_up(const bench_ctx *ctx, model_params *p, int local, int remote, const double *send, const double *send_local)
{
    put_rounds(p, MP_t_clean_up, remote > 0 ? send : send_local, 1.0);
    if (local > 0 && remote > 0) put_rounds(p, MP_t_clean_up_local, send_local, 1.0);
    const double per_core = (double)ctx->ranks_per_machine / bench_online_cores();
    params_put(p, MP_comm_ranks_per_core, per_core > 1 ? per_core : 1);
}

void calibrate_lock(const bench_ctx *ctx, const calibrate_opts *o, model_params *p)
{
    (void)o;
    int local = -1, remote = -1;
    for (int r = 1; r < ctx->size; r++) {
        if (ctx->rank_host[r] == ctx->rank_host[0] && local < 0) local = r;
        if (ctx->rank_host[r] != ctx->rank_host[0] && remote < 0) remote = r;
    }

    /* lock requests and answers: one 32-byte slot per rank, as an agent's mailbox */
    /* the mailbox `rmabench lock` takes by default (--notify-shm auto: measured, rma/notify_pick.h) */
    notify_shm_pick pick;
    notify_shm_choose(ctx, NOTIFY_SHM_AUTO, NOTIFY_RMA, NOTIFY_POLL_AUTO, 32, &pick);
    notify_ep ep;
    notify_open(&ep, ctx->comm, NOTIFY_RMA, NOTIFY_POLL_AUTO, pick.shm, 1, 32, ctx->poll_yield);
    double rtt[ROUNDS], send[ROUNDS], send_local[ROUNDS];
    /* the state of the machine the message times below are measured in: on a virtual machine the
     * floor can be bimodal with the host's placement of the virtual CPUs, and the lock's round
     * trips follow it (rma/floor.h) */
    if (local > 0) {
        const double floor_us = rma_floor_round_trip_us(ctx->comm, 0, local, !ctx->any_poll_yield);
        if (floor_us > 0) {
            params_put(p, MP_t_floor_rtt, floor_us * 1e-6);
            snprintf(p->bench[MP_t_floor_rtt], sizeof p->bench[MP_t_floor_rtt],
                     "rma_floor_round_trip_us between ranks 0 and %d: C11 stores and loads, fastest of 7 rounds of 4000", local);
        } else if (ctx->rank == 0) {
            fprintf(stderr, "rmabench: calibrate: t_floor_rtt not measured: %s\n",
                    ctx->any_poll_yield ? "ranks share cores" : "the pair was not running at once");
        }
    }
    /* No second rank on rank 0's host (one rank per host): rank 0 to itself, the same notified put
     * and poll through the MPI library, one message per iteration; no cache line crosses cores, so
     * it is a lower bound, and the file says how it was measured. */
    ping_pong(ctx, &ep, local > 0 ? local : 0, rtt, send_local, false);
    put_rounds(p, MP_t_local_comm, rtt, local > 0 ? 0.5 : 1.0);
    note_local_comm(p, &pick, local > 0 ? local : 0);
    if (local < 0)
        p->how[MP_t_local_comm] = "measured by rank 0 to itself (no second rank on its host): a lower bound";
    if (remote > 0) {
        ping_pong(ctx, &ep, remote, rtt, send, false);
        put_rounds(p, MP_t_remote_comm, rtt, 0.5);
    }
    if (local > 0) calibrate_shared_comm(ctx, &ep, local, MP_t_shared_comm, p);
    if (remote > 0) calibrate_shared_comm(ctx, &ep, remote, MP_t_shared_remote_comm, p);
    put_clean_up(ctx, p, local, remote, send, send_local);
    params_put(p, MP_t_queue, 0);
    notify_close(&ep);
    int peer = remote > 0 ? remote : local;
    if (peer < 0) return; /* one rank: no vote to measure */

    /* fetch-and-op round trips to a rank on the host and on another host; the vote is one to the
     * transaction's servers, remote ones when there are other hosts; the release acknowledgement
     * is one the server issues, seen by the agent's poll: half a round trip */
    lock_bench b = {.ctx = ctx};
    rma_window_alloc(&b.w, 128, WIN_ALLOCATE, ctx->comm);
    memset(b.w.base, 0, 128);
    MPI_Barrier(ctx->comm);
    rma_window_lock_all(&b.w);
    MPI_Barrier(ctx->comm);
    double t[ROUNDS];
    int64_t round = 0;
    const int peers[2] = {local, remote}, which[2] = {MP_t_fao_local, MP_t_fao_remote};
    for (int h = 0; h < 2; h++) {
        if (peers[h] <= 0) continue;
        const int iters = h == 0 ? ITERS : ITERS_REMOTE;
        for (int k = 0; k < ROUNDS; k++) t[k] = vote_round(&b, 0, peers[h], ++round, iters);
        MPI_Bcast(t, ROUNDS, MPI_DOUBLE, 0, ctx->comm);
        put_rounds(p, which[h], t, 1.0);
        if (peers[h] == peer) put_rounds(p, MP_t_vote, t, 1.0);
    }
    rma_window_free(&b.w);
    calibrate_ack(ctx, peer, peer == remote, p);
    calibrate_lock_server(ctx, p);
    calibrate_lock_agent(ctx, p);
}
