/* One step of `rmabench rdmo`: the target (rank 0) builds its object afresh; the origins run their
 * warm-up, then their timed iterations, each call timed alone and its counts taken around it (for
 * write-and-seal: the seal, after an untimed SignaledRead that took the lock); the target's handler
 * (its poll inside rdmo_quiesce, or the progress thread) serves meanwhile, and ranks outside the
 * step only drive MPI's progress. */
#include <stdlib.h>
#include <string.h>

#include "bench/fastclock.h"
#include "cmd/rdmo/rdmo_cmd.h"
#include "rdmo/lat.h"

/* The target's object as the step starts: empty page or table, the gather table built, the rows at
 * their initial version. Built with the objects' own methods; the checker reads it with its own walk. */
static void build_object(rdmo_session *s)
{
    const rdmo_opts *o = &s->o;
    const rdmo_object *ob = rdmo_space_find(&s->lay.space, s->lay.obj);
    unsigned char *mem = rdmo_heap(s->ep) + ob->offset;
    memset(mem, 0, ob->bytes);
    if (o->op == RDMO_OP_GATHER) {
        for (uint32_t j = 0; j < (uint32_t)o->matches; j++)
            for (uint32_t k = 1; k <= (uint32_t)o->keys; k++) {
                rdmo_entry e;
                rdmo_workload_gather_entry((uint64_t)o->seed, k, j, &e);
                rdmo_table_insert(mem, ob->n1, ob->n2, k, e.a, e.b);
            }
    } else if (o->op == RDMO_OP_READ || o->op == RDMO_OP_SEAL) {
        for (uint64_t r = 0; r < ob->n1; r++) {
            uint64_t *row = (uint64_t *)(void *)(mem + r * rdmo_row_bytes(ob->n2));
            for (uint64_t w = 1; w < 2 + ob->n2; w++) row[w] = RDMO_ROW_INITIAL;
        }
    }
    rdmo_heap_sync(s->ep);
}

typedef struct {
    rdmo_session *s;
    rdmo_local *me;
    uint64_t rng;
    unsigned char *buf;     /* a record's payload */
    uint64_t *data;         /* a row's words */
    rdmo_entry got[RDMO_GATHER_MAX];
    rdmo_pair pairs[RDMO_SCATTER_MAX];
    bool timed;
} origin;

static uint64_t next_rand(origin *g) { return g->rng = rdmo_mix(g->rng); }

/* The origin's counts and time around one call (timed iterations only): the fields an origin
 * counts, copied before the clock starts. */
typedef struct {
    rdmo_counts c;
    double t0;
} mark;

static mark begin(const origin *g)
{
    const rdmo_counts *c = rdmo_counts_of(g->s->ep);
    mark m = {.c = {.ops = c->ops, .msgs = c->msgs, .rts = c->rts, .retries = c->retries, .busy = c->busy,
                    .window_s = c->window_s, .windows = c->windows}};
    for (int k = 0; k < RDMO_RMA_KINDS; k++) m.c.rounds[k] = c->rounds[k];
    m.c.bytes = c->bytes;
    m.t0 = rmb_fast_now();
    return m;
}

static void end(origin *g, const mark *m, int status, bool ok_is_busy)
{
    const double dt = rmb_fast_now() - m->t0;
    if (status == RDMO_OK) g->me->acked++;
    else if (!(ok_is_busy && status == RDMO_BUSY) && status != RDMO_EQUEUE) g->me->errors++;
    if (!g->timed) return;
    const rdmo_counts *c = rdmo_counts_of(g->s->ep);
    rdmo_counts *d = &g->me->c;
    d->ops += c->ops - m->c.ops;
    d->msgs += c->msgs - m->c.msgs;
    d->rts += c->rts - m->c.rts;
    d->retries += c->retries - m->c.retries;
    d->busy += c->busy - m->c.busy;
    d->window_s += c->window_s - m->c.window_s;
    for (int k = 0; k < RDMO_RMA_KINDS; k++) d->rounds[k] += c->rounds[k] - m->c.rounds[k];
    d->bytes += c->bytes - m->c.bytes;
    d->windows += c->windows - m->c.windows;
    if (status == RDMO_EQUEUE) d->rejected++; /* as the origin saw it */
    g->me->hist[rdmo_lat_bucket(dt)]++;
}

static void op_append(origin *g)
{
    const rdmo_opts *o = &g->s->o;
    const uint32_t len = (uint32_t)o->payload_bytes, rank = (uint32_t)g->s->ctx.rank;
    rdmo_workload_record((uint64_t)o->seed, rank, (uint32_t)g->me->acked, len, g->buf);
    uint64_t off;
    const mark m = begin(g);
    const int st = rdmo_slotted_append(g->s->ep, 0, g->s->lay.obj, g->buf, len, &off);
    end(g, &m, st, false);
}

static void op_gather(origin *g)
{
    const rdmo_opts *o = &g->s->o;
    const uint32_t key = (uint32_t)(next_rand(g) % (uint64_t)o->keys) + 1;
    int n = 0;
    const mark m = begin(g);
    const int st = rdmo_conditional_gather(g->s->ep, 0, g->s->lay.obj, key, (int)o->matches, g->got, &n);
    end(g, &m, st, false);
    if (st == RDMO_OK && !rdmo_check_gather_answer((uint64_t)o->seed, key, (uint32_t)o->matches, g->got, n))
        g->me->bad_answers++;
}

static void op_read(origin *g)
{
    const rdmo_opts *o = &g->s->o;
    const uint32_t row = (uint32_t)(next_rand(g) % (uint64_t)o->rows);
    uint64_t v;
    const mark m = begin(g);
    const int st = rdmo_signaled_read(g->s->ep, 0, g->s->lay.obj, row, false, &v, g->data);
    end(g, &m, st, true);
    if (st == RDMO_OK && !rdmo_check_row_read(v, g->data, (uint64_t)o->row_words)) g->me->bad_answers++;
}

/* A SignaledRead that keeps the lock (untimed), then the timed WriteAndSeal of the next version. */
static void op_seal(origin *g)
{
    const rdmo_opts *o = &g->s->o;
    const uint32_t row = (uint32_t)(next_rand(g) % (uint64_t)o->rows);
    uint64_t v = 0;
    int st = RDMO_BUSY;
    const double deadline = MPI_Wtime() + (double)o->wait_bound_s;
    while (st == RDMO_BUSY && MPI_Wtime() < deadline)
        st = rdmo_signaled_read(g->s->ep, 0, g->s->lay.obj, row, true, &v, g->data);
    if (st != RDMO_OK) {
        g->me->errors++;
        return;
    }
    if (!rdmo_check_row_read(v, g->data, (uint64_t)o->row_words)) g->me->bad_answers++;
    for (int64_t w = 0; w < o->row_words; w++) g->data[w] = v + 1;
    const mark m = begin(g);
    const int st2 = rdmo_write_and_seal(g->s->ep, 0, g->s->lay.obj, row, v + 1, g->data);
    end(g, &m, st2, false);
}

static void op_scatter(origin *g)
{
    const rdmo_opts *o = &g->s->o;
    for (int j = 0; j < (int)o->batch; j++)
        g->pairs[j] = rdmo_workload_pair((uint64_t)o->seed, (uint32_t)g->s->ctx.rank, g->me->acked, j, (uint32_t)o->keys);
    const mark m = begin(g);
    const int st = rdmo_scatter_accumulate(g->s->ep, 0, g->s->lay.obj, g->pairs, (int)o->batch);
    end(g, &m, st, false);
}

static void run_origin(rdmo_session *s, rdmo_local *me, bool timed, int64_t n)
{
    static void (*const ops[RDMO_OPS])(origin *) = {op_append, op_gather, op_read, op_seal, op_scatter};
    origin g = {s, me, rdmo_mix((uint64_t)s->o.seed ^ (uint64_t)s->ctx.rank << 20 ^ (uint64_t)timed), NULL, NULL, {{0}}, {{0}}, timed};
    g.buf = malloc((size_t)s->o.payload_bytes + 8);
    g.data = malloc(8 * (size_t)s->o.row_words + 8);
    if (!g.buf || !g.data) {
        fprintf(stderr, "rmabench: rank %d: out of memory for an origin's buffers\n", s->ctx.rank);
        MPI_Abort(s->ctx.comm, 3);
    }
    const double t0 = MPI_Wtime();
    for (int64_t i = 0; i < n; i++) ops[s->o.op](&g);
    if (timed) me->elapsed = MPI_Wtime() - t0;
    free(g.buf);
    free(g.data);
}

/* The target's handler counts over the timed iterations, into me->c's target fields. */
static void target_counts(rdmo_local *me, const rdmo_counts *before, const rdmo_counts *after)
{
    rdmo_counts *d = &me->c;
    d->handled = after->handled - before->handled;
    d->answers = after->answers - before->answers;
    d->rejected += after->rejected - before->rejected;
    d->refused = after->refused - before->refused;
    d->handler_s = after->handler_s - before->handler_s;
    d->passes = after->passes - before->passes;
    d->arrivals = after->arrivals - before->arrivals;
    for (int i = 0; i < RDMO_METHODS; i++) {
        d->method_n[i] = after->method_n[i] - before->method_n[i];
        d->method_s[i] = after->method_s[i] - before->method_s[i];
    }
}

void rdmo_bench_step(rdmo_session *s, int origins, rdmo_local *me)
{
    uint64_t *hist = me->hist;
    memset(hist, 0, RDMO_LAT_BUCKETS * sizeof *hist);
    *me = (rdmo_local){.hist = hist};
    const int rank = s->ctx.rank;
    const bool origin_here = s->my_origin >= 0 && s->my_origin < origins;
    if (rank == 0) build_object(s);
    MPI_CHECK(rank, MPI_Barrier(s->ctx.comm));
    if (rank == 0) rdmo_handler_start(s->ep);
    if (origin_here) run_origin(s, me, false, s->o.warmup);
    rdmo_quiesce(s->ep);
    MPI_CHECK(rank, MPI_Barrier(s->ctx.comm)); /* no timed request before the target's counts are taken */
    const rdmo_counts before = *rdmo_counts_of(s->ep);
    rdmo_samples_reset(s->ep);
    if (origin_here) run_origin(s, me, true, s->o.iterations);
    rdmo_quiesce(s->ep);
    me->window_s = rdmo_window_median_s(s->ep);
    if (rank == 0) {
        rdmo_handler_stop(s->ep);
        target_counts(me, &before, rdmo_counts_of(s->ep));
        rdmo_heap_sync(s->ep);
        me->window_s = rdmo_method_median_s(s->ep, rdmo_method_of(s->o.op));
    }
}
