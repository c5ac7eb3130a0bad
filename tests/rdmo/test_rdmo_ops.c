/* The five composite operations of one design (argv[1]: verbs, rdmo or rpc; argv[2]: poll or
 * thread) with every origin (ranks 1..) on target rank 0 at once: each call's counted messages and
 * round trips are what the design's structure says (verbs: SlottedAppend 3 and 3, WriteAndSeal 2 and
 * 2, a SignaledRead that got the lock 3 plus its lost tries, a gather one per chain step and the
 * head; rdmo and rpc: one request and one round trip per try), every gather answer holds exactly
 * its key's entries, no read sees a torn row, and the checker (rdmo/check.h) passes every object
 * afterwards against the acknowledged calls. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench/context.h"
#include "rdmo/check.h"
#include "rdmo/rdmo.h"
#include "rma/notify.h"
#include "tests/rma/rma_test.h"

enum { APPENDS = 40, GATHERS = 20, READS = 30, SEALS = 30, SCATTERS = 20, LEN = 40, BATCH = 5, KEYS = 16, MATCHES = 3,
       ROWS = 2, WORDS = 4, SKEYS = 32, SEED = 11 };

typedef struct {
    rdmo_ep *ep;
    uint16_t page, gtable, rows, stable;
    int design, errors, rank;
    uint64_t acked[5]; /* appends, -, -, seals, scatters */
} t_ctx;

#define EXPECT(cond)                                                                                 \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            fprintf(stderr, "rank %d: %s:%d: %s\n", t->rank, __FILE__, __LINE__, #cond);            \
            t->errors++;                                                                             \
        }                                                                                            \
    } while (0)

static rdmo_counts snap(t_ctx *t) { return *rdmo_counts_of(t->ep); }

static void appends(t_ctx *t)
{
    unsigned char rec[LEN];
    for (int i = 0; i < APPENDS; i++) {
        rdmo_workload_record(SEED, (uint32_t)t->rank, (uint32_t)t->acked[0], LEN, rec);
        const rdmo_counts a = snap(t);
        uint64_t off;
        const int st = rdmo_slotted_append(t->ep, 0, t->page, rec, LEN, &off);
        const rdmo_counts *b = rdmo_counts_of(t->ep);
        EXPECT(st == RDMO_OK);
        t->acked[0] += st == RDMO_OK;
        const uint64_t want = t->design == RDMO_DESIGN_VERBS ? 3 : 1;
        EXPECT(b->msgs - a.msgs == want && b->rts - a.rts == want);
    }
}

static void gathers(t_ctx *t)
{
    rdmo_entry got[MATCHES + 1];
    for (int i = 0; i < GATHERS; i++) {
        const uint32_t key = (uint32_t)(rdmo_mix((uint64_t)t->rank * 100 + (uint64_t)i) % KEYS) + 1;
        int n = 0;
        const rdmo_counts a = snap(t);
        const int st = rdmo_conditional_gather(t->ep, 0, t->gtable, key, MATCHES, got, &n);
        const rdmo_counts *b = rdmo_counts_of(t->ep);
        EXPECT(st == RDMO_OK && rdmo_check_gather_answer(SEED, key, MATCHES, got, n));
        if (t->design == RDMO_DESIGN_VERBS) EXPECT(b->rts - a.rts == b->msgs - a.msgs && b->rts - a.rts >= 1 + MATCHES);
        else EXPECT(b->rts - a.rts == 1 && b->msgs - a.msgs == 1);
    }
}

/* rts of one SignaledRead: per try one CAS (verbs) or one request; verbs adds the read and the release */
static void reads(t_ctx *t, bool keep_and_seal)
{
    uint64_t v, d[WORDS];
    for (int i = 0; i < (keep_and_seal ? SEALS : READS); i++) {
        const uint32_t row = (uint32_t)(rdmo_mix((uint64_t)t->rank * 7 + (uint64_t)i) % ROWS);
        const rdmo_counts a = snap(t);
        const int st = rdmo_signaled_read(t->ep, 0, t->rows, row, keep_and_seal, &v, d);
        const rdmo_counts *b = rdmo_counts_of(t->ep);
        const uint64_t tries = 1 + b->retries - a.retries;
        const uint64_t extra = st == RDMO_OK && t->design == RDMO_DESIGN_VERBS ? (keep_and_seal ? 1 : 2) : 0;
        EXPECT(st == RDMO_OK || st == RDMO_BUSY);
        EXPECT(b->rts - a.rts == tries + extra && b->msgs - a.msgs == tries + extra);
        if (st != RDMO_OK) continue;
        EXPECT(rdmo_check_row_read(v, d, WORDS));
        if (!keep_and_seal) continue;
        for (int w = 0; w < WORDS; w++) d[w] = v + 1;
        const rdmo_counts c = snap(t);
        const int s2 = rdmo_write_and_seal(t->ep, 0, t->rows, row, v + 1, d);
        const rdmo_counts *e = rdmo_counts_of(t->ep);
        EXPECT(s2 == RDMO_OK);
        t->acked[3] += s2 == RDMO_OK;
        const uint64_t want = t->design == RDMO_DESIGN_VERBS ? 2 : 1;
        EXPECT(e->rts - c.rts == want && e->msgs - c.msgs == want);
    }
}

static void scatters(t_ctx *t)
{
    rdmo_pair p[BATCH];
    for (int i = 0; i < SCATTERS; i++) {
        for (int j = 0; j < BATCH; j++) p[j] = rdmo_workload_pair(SEED, (uint32_t)t->rank, t->acked[4], j, SKEYS);
        const rdmo_counts a = snap(t);
        const int st = rdmo_scatter_accumulate(t->ep, 0, t->stable, p, BATCH);
        const rdmo_counts *b = rdmo_counts_of(t->ep);
        EXPECT(st == RDMO_OK);
        t->acked[4] += st == RDMO_OK;
        if (t->design == RDMO_DESIGN_VERBS) EXPECT(b->rts - a.rts >= 2 && b->msgs - a.msgs >= 2 * (b->rts - a.rts) / 2);
        else EXPECT(b->rts - a.rts == 1 && b->msgs - a.msgs == 1);
    }
}

static void build(t_ctx *t, const rdmo_space *sp)
{
    unsigned char *heap = rdmo_heap(t->ep);
    const rdmo_object *g = rdmo_space_find(sp, t->gtable), *r = rdmo_space_find(sp, t->rows);
    for (uint32_t j = 0; j < MATCHES; j++)
        for (uint32_t k = 1; k <= KEYS; k++) {
            rdmo_entry e;
            rdmo_workload_gather_entry(SEED, k, j, &e);
            rdmo_table_insert(heap + g->offset, g->n1, g->n2, k, e.a, e.b);
        }
    for (uint64_t i = 0; i < ROWS; i++) {
        uint64_t *row = (uint64_t *)(void *)(heap + r->offset + i * rdmo_row_bytes(WORDS));
        for (int w = 1; w < 2 + WORDS; w++) row[w] = RDMO_ROW_INITIAL;
    }
    rdmo_heap_sync(t->ep);
}

static int verify(t_ctx *t, const rdmo_space *sp, int ranks)
{
    uint64_t mine[3] = {t->acked[0], t->acked[3], t->acked[4]}, *all = calloc((size_t)ranks * 3, 8);
    MPI_Gather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (t->rank != 0) {
        free(all);
        return 0;
    }
    uint64_t *col = calloc((size_t)ranks, 8), seals = 0;
    unsigned char *heap = rdmo_heap(t->ep);
    int bad = 0;
    for (int k = 0; k < 3; k++) {
        for (int r = 0; r < ranks; r++) col[r] = all[3 * r + k];
        rdmo_verdict v;
        const rdmo_object *o = rdmo_space_find(sp, k == 0 ? t->page : k == 1 ? t->rows : t->stable);
        if (k == 0) v = rdmo_check_page(heap + o->offset, o->n1, col, ranks, LEN, SEED);
        else if (k == 1) {
            for (int r = 0; r < ranks; r++) seals += col[r];
            v = rdmo_check_rows(heap + o->offset, o->n1, o->n2, seals);
        } else v = rdmo_check_table_sums(heap + o->offset, o->n1, o->n2, col, ranks, BATCH, SKEYS, SEED);
        if (!v.pass) fprintf(stderr, "checker: %s\n", v.why);
        bad += !v.pass;
    }
    const rdmo_object *g = rdmo_space_find(sp, t->gtable);
    const rdmo_verdict vg = rdmo_check_table_built(heap + g->offset, g->n1, g->n2, KEYS, MATCHES, SEED);
    if (!vg.pass) fprintf(stderr, "checker: %s\n", vg.why);
    printf("checked: %" PRIu64 " seals, page, rows, tables\n", seals);
    free(col);
    free(all);
    return bad + !vg.pass;
}

int main(int argc, char **argv)
{
    const int design = argc > 1 && strcmp(argv[1], "verbs") == 0 ? RDMO_DESIGN_VERBS
                       : argc > 1 && strcmp(argv[1], "rpc") == 0 ? RDMO_DESIGN_RPC : RDMO_DESIGN_RDMO;
    const int handler = argc > 2 && strcmp(argv[2], "thread") == 0 ? RDMO_HANDLER_THREAD : RDMO_HANDLER_POLL;
    int provided;
    bench_pre_init();
    MPI_Init_thread(&argc, &argv, handler == RDMO_HANDLER_THREAD ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    rdmo_space sp;
    rdmo_space_init(&sp);
    t_ctx t = {.design = design, .rank = ctx.rank};
    t.page = rdmo_space_add_page(&sp, (uint64_t)ctx.size * APPENDS * rdmo_record_bytes(LEN));
    t.gtable = rdmo_space_add_table(&sp, 4, KEYS * MATCHES);
    t.rows = rdmo_space_add_rows(&sp, ROWS, WORDS);
    t.stable = rdmo_space_add_table(&sp, 8, (uint64_t)SKEYS * (uint64_t)ctx.size);
    const rdmo_config cfg = {design, handler, notify_poll_resolve(NOTIFY_POLL_AUTO), 512, 8, 2, RDMO_GATHER_BOUND, 60,
                             ctx.rank == 0, ctx.poll_yield, 1};
    t.ep = rdmo_open(ctx.comm, &cfg, &sp);
    if (ctx.rank == 0) build(&t, &sp);
    MPI_Barrier(ctx.comm);
    if (ctx.rank == 0) rdmo_handler_start(t.ep);
    if (ctx.rank > 0) {
        appends(&t);
        gathers(&t);
        reads(&t, false);
        reads(&t, true);
        scatters(&t);
    }
    rdmo_quiesce(t.ep);
    if (ctx.rank == 0) {
        rdmo_handler_stop(t.ep);
        rdmo_heap_sync(t.ep);
        const rdmo_counts *c = rdmo_counts_of(t.ep);
        if (design != RDMO_DESIGN_VERBS && c->answers != c->handled) t.errors++; /* one answer per request run */
    }
    t.errors += verify(&t, &sp, ctx.size);
    rdmo_close(t.ep);
    return rma_test_finish(&ctx, t.errors);
}
