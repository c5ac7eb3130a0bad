/* The endpoint: window, buffers, progress, the generic call and answer, the progress thread and
 * the end of a run (rdmo_quiesce). The designs live in rdmo/verbs.c, rdmo/queue.c and rdmo/rpc.c. */
#include "rdmo/ep.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/context.h"
#include "bench/fastclock.h"
#include "rma/notify.h"
#include "rma/progress.h"
#include "rma/window.h"

const char *const rdmo_design_names[] = {"verbs", "rdmo", "rpc", NULL};
const char *const rdmo_handler_names[] = {"poll", "thread", NULL};
const char *const rdmo_op_names[] = {"slotted-append", "conditional-gather", "signaled-read", "write-and-seal",
                                     "scatter-accumulate", NULL};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "rmabench: out of memory allocating an RDMO endpoint\n");
        abort();
    }
    return p;
}

void rdmo_progress(rdmo_ep *ep)
{
    if (ep->cfg.poll == NOTIFY_POLL_FAO) {
        uint64_t v = 0, dummy = 0;
        MPI_CHECK(ep->rank, MPI_Fetch_and_op(&dummy, &v, MPI_UINT64_T, ep->rank, 0, MPI_NO_OP, ep->win));
        MPI_CHECK(ep->rank, MPI_Win_flush(ep->rank, ep->win));
    } else if (ep->cfg.poll == NOTIFY_POLL_PROBE) {
        int flag = 0;
        MPI_CHECK(ep->rank, MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ep->comm, &flag, MPI_STATUS_IGNORE));
    }
    MPI_CHECK(ep->rank, MPI_Win_sync(ep->win));
}

/* Own backoff rather than notify_idle (spin, yield, sleep as it does): its counters are one
 * poller's per process, and a progress thread polls beside the rank's main thread. */
enum { RDMO_YIELDS = 64 };
void rdmo_idle(unsigned *idle, bool yield)
{
    const unsigned n = ++*idle, spin = yield ? 0 : 2048;
    if (n <= spin) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    if (n <= spin + RDMO_YIELDS) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

_Noreturn void rdmo_wait_failed(rdmo_ep *ep, const char *what, int peer)
{
    if (peer >= 0)
        fprintf(stderr, "rmabench: rank %d: no %s from rank %d after %.1f s\n", ep->rank, what, peer, ep->cfg.wait_bound_s);
    else
        fprintf(stderr, "rmabench: rank %d: no %s after %.1f s\n", ep->rank, what, ep->cfg.wait_bound_s);
    fflush(stderr);
    MPI_Abort(ep->comm, 3);
    exit(3);
}

bool rdmo_mpi_init(int *argc, char ***argv, bool thread, int *provided)
{
    int done = 0;
    MPI_Initialized(&done);
    if (done) {
        MPI_Query_thread(provided);
        return false;
    }
    bench_pre_init();
    MPI_Init_thread(argc, argv, thread ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, provided);
    return true;
}

rdmo_ep *rdmo_open(MPI_Comm comm, const rdmo_config *cfg, const rdmo_space *space)
{
    rdmo_ep *ep = xcalloc(1, sizeof *ep);
    ep->cfg = *cfg;
    ep->space = *space;
    MPI_Comm_rank(comm, &ep->rank);
    MPI_Comm_size(comm, &ep->size);
    MPI_CHECK(ep->rank, MPI_Comm_dup(comm, &ep->comm));
    MPI_Comm_set_errhandler(ep->comm, MPI_ERRORS_RETURN);
    const bool queue = cfg->design == RDMO_DESIGN_RDMO;
    ep->slot_words = cfg->slot_bytes / 8;
    ep->capacity = rdmo_payload_capacity(cfg) + (int)sizeof(rdmo_hdr);
    if (ep->cfg.calls < 1) ep->cfg.calls = 1;
    ep->ans_at = 64;
    ep->req_at = ep->ans_at + (queue ? (MPI_Aint)ep->cfg.calls * cfg->slot_bytes : 0);
    ep->heap_at = ep->req_at + (queue ? (MPI_Aint)ep->size * cfg->slot_bytes : 0); /* where every target has it */
    ep->win_bytes = rdmo_window_bytes(&ep->cfg, space, ep->size);
    ep->base = rma_locked_window_open(ep->comm, ep->rank, ep->win_bytes, MPI_INFO_NULL, true, &ep->win);
    ep->stamp_out = xcalloc((size_t)ep->size, 1);
    ep->stamp_in = xcalloc((size_t)ep->size, 1);
    ep->in_flight = xcalloc((size_t)ep->size, 1);
    ep->calls = xcalloc((size_t)ep->cfg.calls, sizeof *ep->calls);
    for (int k = 0; k < ep->cfg.calls; k++) {
        ep->calls[k].out = xcalloc((size_t)ep->capacity, 1);
        ep->calls[k].in = xcalloc((size_t)ep->capacity, 1);
    }
    for (int s = 0; s < ep->size; s++) ep->stamp_in[s] = 1;
    ep->out = xcalloc((size_t)ep->capacity, 1);
    ep->in = xcalloc((size_t)ep->capacity, 1);
    ep->ans = xcalloc((size_t)ep->capacity, 1);
    ep->hmsg = xcalloc((size_t)ep->capacity, 1);
    ep->words = xcalloc((size_t)ep->slot_words, 8);
    ep->hwords = xcalloc((size_t)ep->slot_words, 8);
    ep->queue = xcalloc((size_t)cfg->queue_depth, sizeof *ep->queue);
    ep->queue_mem = xcalloc((size_t)cfg->queue_depth, (size_t)ep->capacity);
    for (int i = 0; i < cfg->queue_depth; i++) ep->queue[i].msg = ep->queue_mem + (size_t)i * (size_t)ep->capacity;
    for (int k = 0; k < 2; k++) {
        rdmo_unflushed *u = k ? &ep->ans_unflushed : &ep->out_unflushed;
        u->rank = xcalloc((size_t)ep->size, sizeof *u->rank);
        u->mark = xcalloc((size_t)ep->size, 1);
    }
    if (cfg->serve) ep->method_samples = xcalloc(RDMO_METHODS, sizeof *ep->method_samples);
    rdmo_register_builtins(ep);
    if (cfg->design == RDMO_DESIGN_RPC) rdmo_rpc_open(ep);
    MPI_CHECK(ep->rank, MPI_Barrier(ep->comm));
    return ep;
}

void rdmo_close(rdmo_ep *ep)
{
    if (!ep) return;
    rdmo_handler_stop(ep);
    if (ep->cfg.design == RDMO_DESIGN_RDMO) {
        rdmo_queue_flush(ep, &ep->out_unflushed);
        rdmo_queue_flush(ep, &ep->ans_unflushed);
    }
    /* bounded like every wait (the watchdog): a peer that never arrives is named, not waited for */
    blocking_begin("the RDMO endpoint's close (MPI_Barrier, MPI_Win_unlock_all, MPI_Win_free)", -1);
    MPI_CHECK(ep->rank, MPI_Barrier(ep->comm));
    if (ep->cfg.design == RDMO_DESIGN_RPC) rdmo_rpc_close(ep);
    MPI_CHECK(ep->rank, MPI_Win_unlock_all(ep->win));
    MPI_CHECK(ep->rank, MPI_Win_free(&ep->win));
    blocking_end();
    MPI_Comm_free(&ep->comm);
    free(ep->stamp_out);
    free(ep->stamp_in);
    free(ep->in_flight);
    for (int k = 0; k < ep->cfg.calls; k++) {
        free(ep->calls[k].out);
        free(ep->calls[k].in);
    }
    free(ep->calls);
    free(ep->out);
    free(ep->in);
    free(ep->ans);
    free(ep->hmsg);
    free(ep->words);
    free(ep->hwords);
    free(ep->queue);
    free(ep->queue_mem);
    for (int k = 0; k < 2; k++) {
        free(k ? ep->ans_unflushed.rank : ep->out_unflushed.rank);
        free(k ? ep->ans_unflushed.mark : ep->out_unflushed.mark);
    }
    free(ep->verbs_pairs);
    free(ep->method_samples);
    free(ep);
}

unsigned char *rdmo_heap(rdmo_ep *ep) { return ep->base + ep->heap_at; }
const rdmo_space *rdmo_space_of(const rdmo_ep *ep) { return &ep->space; }
int rdmo_rank(const rdmo_ep *ep) { return ep->rank; }
rdmo_counts *rdmo_counts_of(rdmo_ep *ep) { return &ep->c; }
void rdmo_heap_sync(rdmo_ep *ep) { MPI_CHECK(ep->rank, MPI_Win_sync(ep->win)); }

void rdmo_samples_reset(rdmo_ep *ep)
{
    if (ep->method_samples)
        for (int m = 0; m < RDMO_METHODS; m++) ep->method_samples[m].n = 0;
    ep->window_samples.n = 0;
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static double median_of(const rdmo_samples *s)
{
    const uint32_t n = s->n < RDMO_SAMPLES ? s->n : RDMO_SAMPLES;
    if (!n) return -1;
    float v[RDMO_SAMPLES];
    memcpy(v, s->v, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5 * ((double)v[n / 2 - 1] + (double)v[n / 2]);
}

double rdmo_method_median_s(const rdmo_ep *ep, int method)
{
    return ep->method_samples && method > 0 && method < RDMO_METHODS ? median_of(&ep->method_samples[method]) : -1;
}

double rdmo_window_median_s(const rdmo_ep *ep) { return median_of(&ep->window_samples); }

void rdmo_register(rdmo_ep *ep, uint16_t obj, int method, rdmo_method_fn fn, void *arg)
{
    if (!rdmo_space_find(&ep->space, obj) || method <= 0 || method >= RDMO_METHODS) {
        fprintf(stderr, "rmabench: rank %d: registering method %d on object %u: no such object or method id\n",
                ep->rank, method, obj);
        abort();
    }
    ep->methods[obj - 1][method].fn = fn;
    ep->methods[obj - 1][method].arg = arg;
}

int rdmo_start(rdmo_ep *ep, int target, uint16_t obj, int method, const void *req, int len)
{
    int k = 0;
    while (k < ep->cfg.calls && ep->calls[k].busy) k++;
    if (len < 0 || len + (int)sizeof(rdmo_hdr) > ep->capacity || method <= 0 || method >= RDMO_METHODS ||
        ep->cfg.design == RDMO_DESIGN_VERBS || k == ep->cfg.calls || ep->in_flight[target]) {
        fprintf(stderr, "rmabench: rank %d: an RDMO request of %d bytes (method %d, design %s) to rank %d does not fit "
                        "its slot, or no call is free, or one to that rank is in flight\n",
                ep->rank, len, method, rdmo_design_names[ep->cfg.design], target);
        MPI_Abort(ep->comm, 3);
    }
    rdmo_call_slot *c = &ep->calls[k];
    const rdmo_hdr h = {obj, (uint8_t)method, 0, (uint16_t)len, (uint8_t)k, 0};
    memcpy(c->out, &h, sizeof h);
    if (len) memcpy(c->out + sizeof h, req, (size_t)len);
    c->busy = true;
    c->target = target;
    ep->in_flight[target] = 1;
    if (ep->cfg.design == RDMO_DESIGN_RDMO) rdmo_queue_start(ep, k, len);
    else rdmo_rpc_start(ep, k, len);
    ep->c.msgs++;
    ep->c.rts++;
    ep->c.bytes += sizeof h + (uint64_t)len;
    return k;
}

int rdmo_wait(rdmo_ep *ep, int call, void *ans, int *anslen, int cap)
{
    rdmo_call_slot *c = &ep->calls[call];
    const int n = ep->cfg.design == RDMO_DESIGN_RDMO ? rdmo_queue_wait(ep, call) : rdmo_rpc_wait(ep, call);
    ep->c.bytes += (uint64_t)n;
    c->busy = false;
    ep->in_flight[c->target] = 0;
    rdmo_hdr a;
    memcpy(&a, c->in, sizeof a);
    int got = n - (int)sizeof a;
    if (got > cap) got = cap;
    if (got > 0 && ans) memcpy(ans, c->in + sizeof a, (size_t)got);
    if (anslen) *anslen = got > 0 ? got : 0;
    return a.status;
}

int rdmo_call(rdmo_ep *ep, int target, uint16_t obj, int method, const void *req, int len, void *ans, int *anslen,
              int cap)
{
    return rdmo_wait(ep, rdmo_start(ep, target, obj, method, req, len), ans, anslen, cap);
}

void rdmo_execute(rdmo_ep *ep, const rdmo_token *t, const unsigned char *msg, int len)
{
    rdmo_hdr h;
    memcpy(&h, msg, sizeof h);
    const rdmo_object *o = rdmo_space_find(&ep->space, h.obj);
    int status = RDMO_OK, anslen = 0;
    if (len != (int)sizeof h + h.len) {
        status = RDMO_EPAYLOAD;
    } else if (!o || o->type == OBJ_NONE) {
        status = RDMO_ENOOBJ;
        ep->c.refused++;
    } else if (h.method >= RDMO_METHODS || !ep->methods[h.obj - 1][h.method].fn) {
        status = RDMO_ENOMETHOD;
        ep->c.refused++;
    } else {
        const double t0 = rmb_fast_now();
        status = ep->methods[h.obj - 1][h.method].fn(ep->methods[h.obj - 1][h.method].arg, t, msg + sizeof h, h.len,
                                                    ep->ans, &anslen, ep->capacity - (int)sizeof h);
        const double dt = rmb_fast_now() - t0;
        ep->c.handler_s += dt;
        ep->c.handled++;
        ep->c.method_s[h.method] += dt;
        ep->c.method_n[h.method]++;
        if (ep->method_samples) rdmo_sample(&ep->method_samples[h.method], dt);
        if (status == RDMO_PENDING) {
            ep->pending++;
            return;
        }
    }
    if (ep->cfg.design == RDMO_DESIGN_RDMO) rdmo_queue_send_answer(ep, t, status, ep->ans, anslen);
    else rdmo_rpc_send_answer(ep, t, status, ep->ans, anslen);
}

void rdmo_answer(rdmo_ep *ep, const rdmo_token *t, int status, const void *ans, int len)
{
    ep->pending--;
    if (ep->cfg.design == RDMO_DESIGN_RDMO) rdmo_queue_send_answer(ep, t, status, ans, len);
    else rdmo_rpc_send_answer(ep, t, status, ans, len);
}

int rdmo_serve(rdmo_ep *ep)
{
    ep->c.passes++;
    if (ep->cfg.design == RDMO_DESIGN_RDMO && ep->cfg.serve) return rdmo_queue_serve(ep);
    if (ep->cfg.design == RDMO_DESIGN_RPC) return rdmo_rpc_serve(ep);
    rdmo_progress(ep); /* verbs (and ranks without objects): only let MPI move the origins' operations */
    return 0;
}

static void *handler_main(void *arg)
{
    rdmo_ep *ep = arg;
    blocking_exempt_thread(); /* the command's thread keeps the wait bound's state (bench/wait_bound.h) */
    unsigned idle = 0;
    while (!atomic_load_explicit(&ep->stop, memory_order_acquire)) {
        if (rdmo_serve(ep) > 0) idle = 0;
        else rdmo_idle(&idle, ep->cfg.yield);
    }
    return NULL;
}

void rdmo_handler_start(rdmo_ep *ep)
{
    if (ep->cfg.handler != RDMO_HANDLER_THREAD || !ep->cfg.serve || atomic_load(&ep->running)) return;
    atomic_store(&ep->stop, false);
    if (pthread_create(&ep->thread, NULL, handler_main, ep) != 0) {
        fprintf(stderr, "rmabench: rank %d: cannot start the RDMO progress thread\n", ep->rank);
        MPI_Abort(ep->comm, 3);
    }
    atomic_store(&ep->running, true);
}

void rdmo_handler_stop(rdmo_ep *ep)
{
    if (!atomic_load(&ep->running)) return;
    atomic_store_explicit(&ep->stop, true, memory_order_release);
    pthread_join(ep->thread, NULL);
    atomic_store(&ep->running, false);
}

/* Whether this rank's waits serve its queue (the poll handler of a target). */
static bool serves_in_waits(const rdmo_ep *ep)
{
    return ep->cfg.serve && ep->cfg.handler == RDMO_HANDLER_POLL;
}

void rdmo_quiesce(rdmo_ep *ep)
{
    /* this rank's requests complete first: its calls are over (the handler's answers complete when
     * it is idle) */
    if (ep->cfg.design == RDMO_DESIGN_RDMO) rdmo_queue_flush(ep, &ep->out_unflushed);
    MPI_Request req;
    MPI_CHECK(ep->rank, MPI_Ibarrier(ep->comm, &req));
    int done = 0;
    unsigned idle = 0, polls = 0;
    const double deadline = MPI_Wtime() + ep->cfg.wait_bound_s;
    /* A rank that only drives progress cannot tell when origins need it (a verbs target: every
     * round trip between hosts waits for its next MPI call), so on a core of its own it never sleeps */
    const bool spin = !serves_in_waits(ep) && !ep->cfg.yield;
    while (!done) {
        MPI_CHECK(ep->rank, MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        if (done) break;
        if (serves_in_waits(ep) ? rdmo_serve(ep) > 0 : (rdmo_progress(ep), false)) idle = 0;
        else if (spin) idle = 0;
        else rdmo_idle(&idle, ep->cfg.yield);
        if ((++polls & 255) == 0 && MPI_Wtime() > deadline) rdmo_wait_failed(ep, "end of the other ranks' operations", -1);
    }
}

bool rdmo_wait_serves(const rdmo_ep *ep) { return serves_in_waits(ep); }
