/* MPI test of rma/notify_pick.h, --notify-shm auto (any rank count, one host or several).
 * - the rule (MPI-free): the library's default path stays unless the other is faster by more than
 *   NOTIFY_PICK_MARGIN; not measured: the default;
 * - given: on and off are taken as asked, nothing measured;
 * - auto: every rank gets the same pick; where it measured, both round trips are positive and the
 *   choice is the rule's on them; where it did not, the library default and a reason;
 * - the msg transport: nothing measured;
 * - a ping-pong round with a limit too short for it gives up (-1) at rank 0, and the pair goes on
 *   with the next round (both still in step).
 * Prints verification: PASS|FAIL. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "bench/context.h"
#include "tests/rma/rma_test.h"
#include "rma/notify_pick.h"

static int errors;
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            errors++;                                                                                                  \
            fprintf(stderr, "rank %d: ", ctx.rank);                                                                    \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
        }                                                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    bench_mpi_init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    const bool lib = notify_shm_resolve(NOTIFY_SHM_AUTO);

    /* the rule */
    EXPECT(notify_shm_prefer(1.0, 0.5, false), "shm 2x faster than the default rma: shm");
    EXPECT(!notify_shm_prefer(1.0, 0.95, false), "shm 5%% faster than the default rma: stays rma");
    EXPECT(notify_shm_prefer(1.0, 0.95, true), "shm 5%% slower... default shm stays");
    EXPECT(!notify_shm_prefer(0.5, 1.0, true), "rma 2x faster than the default shm: rma");
    EXPECT(notify_shm_prefer(0.95, 1.0, true), "rma 5%% faster than the default shm: stays shm");
    EXPECT(notify_shm_prefer(-1, 0.5, true) && !notify_shm_prefer(1.0, -1, false), "not measured: the default");

    notify_shm_pick p;
    for (int m = NOTIFY_SHM_ON; m <= NOTIFY_SHM_OFF; m++) {
        notify_shm_choose(&ctx, (notify_shm_mode)m, NOTIFY_RMA, NOTIFY_POLL_AUTO, 32, &p);
        EXPECT(!p.measured && strcmp(p.source, "given") == 0 && p.shm == (m == NOTIFY_SHM_ON), "given %s: %s, shm %d",
               notify_shm_names[m], p.source, p.shm);
    }
    notify_shm_choose(&ctx, NOTIFY_SHM_AUTO, NOTIFY_MSG, NOTIFY_POLL_AUTO, 32, &p);
    EXPECT(!p.measured && strstr(p.source, "msg transport"), "msg: %s", p.source);

    notify_shm_choose(&ctx, NOTIFY_SHM_AUTO, NOTIFY_RMA, NOTIFY_POLL_AUTO, 32, &p);
    int mine[2] = {p.shm, p.measured}, lo[2], hi[2];
    MPI_Allreduce(mine, lo, 2, MPI_INT, MPI_MIN, ctx.comm);
    MPI_Allreduce(mine, hi, 2, MPI_INT, MPI_MAX, ctx.comm);
    EXPECT(lo[0] == hi[0] && lo[1] == hi[1], "the ranks disagree on the pick");
    char how[160];
    notify_shm_pick_describe(&p, how, sizeof how);
    if (p.measured) {
        EXPECT(p.rtt_us[0] > 0 && p.rtt_us[1] > 0, "measured: rma %.3f, shm %.3f us", p.rtt_us[0], p.rtt_us[1]);
        EXPECT(p.shm == notify_shm_prefer(p.rtt_us[0], p.rtt_us[1], lib), "measured %s but chose %d", how, p.shm);
        EXPECT(p.a == 0 && p.b > 0 && ctx.rank_host[p.b] == ctx.rank_host[0], "pair %d and %d", p.a, p.b);
    } else {
        EXPECT(p.shm == lib && strncmp(p.source, "library default (not measured: ", 31) == 0, "not measured: %s", how);
        /* the reasons it may have: no pair, ranks sharing cores, or a pair not running at once */
        int pair = 0;
        for (int r = 1; r < ctx.size; r++) pair |= ctx.rank_host[r] == ctx.rank_host[0];
        EXPECT(pair == 0 || ctx.any_poll_yield || strstr(p.source, "not running at once"), "not measured: %s", how);
    }

    /* a limit no round can meet: rank 0 gives up, the peer follows, the next round runs */
    int peer = -1;
    for (int r = 1; r < ctx.size && peer < 0; r++)
        if (ctx.rank_host[r] == ctx.rank_host[0]) peer = r;
    if (peer > 0) {
        notify_ep ep;
        notify_open(&ep, ctx.comm, NOTIFY_RMA, NOTIFY_POLL_AUTO, lib, 1, 32, ctx.poll_yield);
        double rtt, send;
        notify_ping_pong_round(&ctx, &ep, 0, peer, 0, 100000, ctx.poll_yield, 1e-9, &rtt, &send);
        EXPECT(ctx.rank != 0 || rtt == -1, "limit 1 ns: rtt %g, expected -1", rtt);
        notify_ping_pong_round(&ctx, &ep, 0, peer, 10, 200, ctx.poll_yield, 0, &rtt, &send);
        EXPECT(ctx.rank != 0 || rtt > 0, "no limit: rtt %g", rtt);
        notify_close(&ep);
    }
    if (ctx.rank == 0) printf("notify-shm auto: %s, %s\n", p.shm ? "on" : "off", how);

    return rma_test_finish(&ctx, errors);
}
