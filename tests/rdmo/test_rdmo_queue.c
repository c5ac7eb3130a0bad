/* The target's request queue (argv[1]: rdmo or rpc), three ranks, target rank 0, queue depth 1:
 *   - a request naming no object, or a method the object's type lacks, is answered "no such
 *     object" / "no such method" and never run (the object's counter and the page stay as they were);
 *   - a full queue answers "queue full", which the caller sees: origin 1's request is held by a
 *     method that answers later (RDMO_PENDING), so origin 2's request finds no room; once the held
 *     one is answered, the queue takes requests again;
 *   - rdmo only: two requests arriving in one pass of the handler with room for one: one run, one
 *     refused. */
#include <string.h>

#include "bench/context.h"
#include "rdmo/ep.h"
#include "rma/notify.h"
#include "tests/rma/rma_test.h"

enum { M_COUNT = RDMO_METHOD_USER, M_HOLD = RDMO_METHOD_USER + 1, M_UNKNOWN = RDMO_METHOD_USER + 2, TAG_GO = 99 };

typedef struct {
    int runs;
    rdmo_token held;
    bool holding;
} counter;

static int m_count(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans, int *anslen, int cap)
{
    (void)t, (void)req, (void)len, (void)ans, (void)cap;
    ((counter *)arg)->runs++;
    *anslen = 0;
    return RDMO_OK;
}

static int m_hold(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans, int *anslen, int cap)
{
    (void)req, (void)len, (void)ans, (void)cap, (void)anslen;
    counter *c = arg;
    c->held = *t;
    c->holding = true;
    return RDMO_PENDING;
}

static int errors;
static void expect(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        errors++;
    }
}

static int call(rdmo_ep *ep, uint16_t obj, int method) { return rdmo_call(ep, 0, obj, method, "x", 1, NULL, NULL, 0); }

/* Serve until cond holds (the target's loop), at most 10 s. */
#define SERVE_UNTIL(ep, cond)                                                 \
    do {                                                                      \
        unsigned idle_ = 0;                                                   \
        const double end_ = MPI_Wtime() + 10;                                 \
        while (!(cond) && MPI_Wtime() < end_)                                 \
            if (rdmo_serve(ep) == 0) rdmo_idle(&idle_, true);                 \
        expect(cond, "the target saw " #cond " within 10 s");                 \
    } while (0)

int main(int argc, char **argv)
{
    const int design = argc > 1 && strcmp(argv[1], "rpc") == 0 ? RDMO_DESIGN_RPC : RDMO_DESIGN_RDMO;
    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    rdmo_space sp;
    rdmo_space_init(&sp);
    const uint16_t obj = rdmo_space_add_custom(&sp), page = rdmo_space_add_page(&sp, 1024);
    const rdmo_config cfg = {design, RDMO_HANDLER_POLL, notify_poll_resolve(NOTIFY_POLL_AUTO), 256, 1, 1, 16, 60,
                             ctx.rank == 0, true, 1};
    rdmo_ep *ep = rdmo_open(ctx.comm, &cfg, &sp);
    counter c = {0};
    rdmo_register(ep, obj, M_COUNT, m_count, &c);
    rdmo_register(ep, obj, M_HOLD, m_hold, &c);
    /* unknown object and method: refused, never run */
    if (ctx.rank == 1) {
        expect(call(ep, 7, M_COUNT) == RDMO_ENOOBJ, "a request to object 7 (none) is answered 'no such object'");
        expect(call(ep, obj, M_UNKNOWN) == RDMO_ENOMETHOD, "an unregistered method is answered 'no such method'");
        expect(call(ep, page, RDMO_M_GATHER) == RDMO_ENOMETHOD, "a page has no gather method");
    }
    rdmo_quiesce(ep);
    if (ctx.rank == 0) {
        expect(c.runs == 0, "no method ran for the refused requests");
        expect(*(uint64_t *)(void *)(rdmo_heap(ep) + rdmo_space_find(&sp, page)->offset) == 0, "the page is untouched");
        expect(rdmo_counts_of(ep)->refused == 3, "three requests refused");
    }
    MPI_Barrier(ctx.comm);
    /* a full queue: the held request takes the only place */
    if (ctx.rank == 0) {
        SERVE_UNTIL(ep, c.holding);
        MPI_Send(NULL, 0, MPI_BYTE, 2, TAG_GO, MPI_COMM_WORLD);
        SERVE_UNTIL(ep, rdmo_counts_of(ep)->rejected == 1);
        rdmo_answer(ep, &c.held, RDMO_OK, NULL, 0);
    } else if (ctx.rank == 1) {
        expect(call(ep, obj, M_HOLD) == RDMO_OK, "the held request is answered ok at last");
    } else if (ctx.rank == 2) {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect(call(ep, obj, M_COUNT) == RDMO_EQUEUE, "a request finding the queue full is answered 'queue full'");
    }
    rdmo_quiesce(ep);
    if (ctx.rank == 2) expect(call(ep, obj, M_COUNT) == RDMO_OK, "after the answer the queue takes requests again");
    rdmo_quiesce(ep);
    if (ctx.rank == 0) expect(c.runs == 1, "the refused request never ran, the later one did");
    MPI_Barrier(ctx.comm); /* no origin sends again before the target counted (quiesce serves while it waits) */
    /* rdmo: two arrivals in one pass, room for one */
    if (design == RDMO_DESIGN_RDMO) {
        if (ctx.rank == 0) {
            unsigned idle = 0;
            for (;;) { /* both requests in their slots before the one pass */
                rdmo_progress(ep);
                int in = 0;
                for (int s = 1; s <= 2; s++)
                    in += rdmo_wire_complete((uint64_t *)(void *)(ep->base + ep->req_at + (MPI_Aint)s * cfg.slot_bytes),
                                             ep->slot_words, ep->stamp_in[s]);
                if (in == 2) break;
                rdmo_idle(&idle, true);
            }
            const uint64_t before = rdmo_counts_of(ep)->rejected;
            expect(rdmo_serve(ep) == 2, "one pass sees both requests");
            expect(rdmo_counts_of(ep)->rejected == before + 1, "one of them is refused");
        } else {
            const int st = call(ep, obj, M_COUNT);
            expect(st == RDMO_OK || st == RDMO_EQUEUE, "each is run or refused");
            int queue_full = st == RDMO_EQUEUE, total = 0;
            MPI_Reduce(&queue_full, &total, 1, MPI_INT, MPI_SUM, 0, ep->comm);
        }
        if (ctx.rank == 0) {
            int none = 0, total = 0;
            MPI_Reduce(&none, &total, 1, MPI_INT, MPI_SUM, 0, ep->comm);
            expect(total == 1, "exactly one origin saw 'queue full'");
        }
        rdmo_quiesce(ep);
    }
    if (ctx.rank == 0 && !errors) printf("queue: unknown object and method refused, full queue answered 'queue full'\n");
    rdmo_close(ep);
    return rma_test_finish(&ctx, errors);
}
