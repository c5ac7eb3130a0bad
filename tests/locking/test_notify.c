/* MPI test of the notified-put layer (rma/notify.h) under both transports: rank 0 owns a mailbox of
 * 130 slots (three notification words), every other rank owns the slots s with s % (size-1) ==
 * rank-1 and, per round, writes each of them once, then waits for rank 0's acknowledgement (sent
 * when the whole round has arrived) in its own one-slot mailbox. Rank 0 checks that every message arrives exactly once per round, in the
 * slot it was written to, with its payload intact. The rma transport runs twice: with the
 * shared-memory mailbox between ranks of a node (and the RMA one across nodes), and without it.
 * Prints verification: PASS|FAIL. */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench/context.h"
#include "rma/notify.h"

#define SLOTS 130
#define ROUNDS 40

typedef struct {
    uint64_t slot, round, sender, check;
} msg_t;

static int run(notify_transport t, bool shm, bench_ctx *ctx)
{
    notify_ep ep;
    int me = ctx->rank, n = ctx->size, senders = n - 1;
    notify_open(&ep, ctx->comm, t, NOTIFY_POLL_AUTO, shm, me == 0 ? SLOTS : 1, (int)sizeof(msg_t), ctx->poll_yield);
    /* asked = true even when shm is off: only then does the state say "on" if some rank made a
     * shared mailbox anyway, which the check at the end must catch */
    const char *shm_state = notify_shm_state(&ep, true);
    bool used_shm = shm_state && strcmp(shm_state, "on") == 0;
    int errors = 0;
    poll_bound b;
    if (me == 0) {
        static int got[SLOTS];
        int per_sender[64] = {0}, owned[64] = {0};
        for (int s = 0; s < SLOTS; s++) owned[s % senders]++;
        for (int round = 0; round < ROUNDS; round++) {
            memset(got, 0, sizeof got);
            memset(per_sender, 0, sizeof per_sender);
            for (int k = 0; k < SLOTS; k++) {
                msg_t m;
                int slot;
                poll_begin(&b, "notify test message", me, -1, 60, ctx->poll_yield);
                if (!notify_wait(&ep, &slot, &m, &b)) {
                    poll_report_timeout(&b);
                    MPI_Abort(ctx->comm, 3);
                }
                if (m.slot != (uint64_t)slot || m.round != (uint64_t)round || m.check != (m.slot * 31 + m.round) ||
                    m.sender != (uint64_t)(slot % senders + 1) || got[slot]++) {
                    if (errors++ < 5)
                        fprintf(stderr, "notify test: bad message in slot %d: slot %llu round %llu sender %llu\n", slot,
                                (unsigned long long)m.slot, (unsigned long long)m.round, (unsigned long long)m.sender);
                    continue;
                }
                per_sender[slot % senders]++;
            }
            /* the round is complete: every sender wrote each of its slots once; release them */
            for (int snd = 0; snd < senders; snd++) {
                if (per_sender[snd] != owned[snd]) errors++;
                msg_t ack = {0, (uint64_t)round, 0, 0};
                notify_send(&ep, snd + 1, 0, &ack);
            }
        }
    } else {
        for (int round = 0; round < ROUNDS; round++) {
            for (int s = me - 1; s < SLOTS; s += senders) {
                msg_t m = {(uint64_t)s, (uint64_t)round, (uint64_t)me, (uint64_t)s * 31 + (uint64_t)round};
                notify_send(&ep, 0, s, &m);
            }
            msg_t ack;
            int slot;
            poll_begin(&b, "notify test acknowledgement", me, 0, 60, ctx->poll_yield);
            if (!notify_wait(&ep, &slot, &ack, &b)) {
                poll_report_timeout(&b);
                MPI_Abort(ctx->comm, 3);
            }
            if (slot != 0 || ack.round != (uint64_t)round) errors++;
        }
    }
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, ctx->comm);
    notify_close(&ep);
    if (me == 0)
        printf("transport %s%s: %d rounds of %d slots, %d errors\n", notify_transport_names[t],
               t == NOTIFY_MSG ? "" : used_shm ? " (shared-memory mailbox)" : " (RMA mailbox)", ROUNDS, SLOTS, total);
    /* a shared mailbox when asked for and some rank shares a node, none when not asked for */
    if (shm && t == NOTIFY_RMA && ctx->ranks_per_host > 1 && !used_shm) total++;
    if (!shm && used_shm) total++;
    return total;
}

int main(int argc, char **argv)
{
    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    if (ctx.size < 2) bench_usage_error(&ctx, "test_notify: needs at least 2 ranks");
    int errors = run(NOTIFY_RMA, true, &ctx) + run(NOTIFY_RMA, false, &ctx) + run(NOTIFY_MSG, false, &ctx);
    if (ctx.rank == 0) printf("verification: %s\n", errors ? "FAIL" : "PASS");
    bench_ctx_free(&ctx);
    MPI_Finalize();
    return errors ? 1 : 0;
}
