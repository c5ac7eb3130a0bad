/* The verbs design: each operation as MPI-3 RMA on the object's bytes at the target, in as few round
 * trips as MPI allows. MPI orders no two RMA operations of one origin to different locations (only
 * accumulates to the same location, MPI-4.1 §12.7.2), so where one step must be visible before the
 * next (a record's payload before its valid header, a row's data before the seal, a new entry
 * before the head that links it) a flush stands between them; where the next step needs a result
 * (a reservation's offset, a chain's next pointer, the lock's old value) the flush brings it.
 * Independent steps of ScatterAndAccumulate's pairs share one flush per round. 32-bit
 * MPI_Compare_and_swap (Open MPI 4.1's 64-bit CAS faults in its shared-memory emulation); 64-bit
 * MPI_Fetch_and_op and accumulates. Every operation issued and every flush that completed some are
 * counted (msgs, rts). */
#include <stdlib.h>
#include <string.h>

#include "bench/context.h"
#include "bench/fastclock.h"
#include "rdmo/ep.h"
#include "rma/progress.h"

static void issued(rdmo_ep *ep, int kind)
{
    if (!ep->verbs_issued) ep->verbs_kind = kind;
    ep->c.msgs++;
    ep->verbs_issued++;
}

/* Complete what was issued to target (MPICH: only while the target calls MPI, which its serve loop
 * does; bounded by the watchdog). */
static void flush(rdmo_ep *ep, int target, const char *what)
{
    blocking_begin(what, target);
    MPI_CHECK(ep->rank, MPI_Win_flush(target, ep->win));
    blocking_end();
    if (ep->verbs_issued) {
        ep->c.rts++;
        ep->c.rounds[ep->verbs_kind]++;
    }
    ep->verbs_issued = 0;
}

static MPI_Aint at(const rdmo_ep *ep, const rdmo_object *o) { return ep->heap_at + (MPI_Aint)o->offset; }

/* A conflict window measured at the origin: from the middle of the round trip of the step that
 * began it to the middle of the one that ended it (where, on a symmetric link, the target saw them). */
static void window(rdmo_ep *ep, double first_issue, double first_done, double last_issue, double last_done)
{
    const double w = (last_issue + last_done) / 2 - (first_issue + first_done) / 2;
    ep->c.window_s += w;
    ep->c.windows++;
    rdmo_sample(&ep->window_samples, w);
}

int rdmo_verbs_append(rdmo_ep *ep, int target, const rdmo_object *o, const void *payload, uint32_t len, uint64_t *offset)
{
    const uint64_t need = rdmo_record_bytes(len);
    uint64_t old = 0;
    const double t0 = rmb_fast_now();
    MPI_CHECK(ep->rank, MPI_Fetch_and_op(&need, &old, MPI_UINT64_T, target, at(ep, o), MPI_SUM, ep->win));
    issued(ep, RDMO_RMA_FAO);
    flush(ep, target, "MPI_Fetch_and_op + MPI_Win_flush reserving a page record");
    const double t1 = rmb_fast_now();
    if (old + need > o->n1) return RDMO_FULL; /* the page stays full: later reservations start beyond it too */
    const MPI_Aint rec = at(ep, o) + RDMO_PAGE_HEADER + (MPI_Aint)old;
    MPI_CHECK(ep->rank, MPI_Put(payload, (int)len, MPI_BYTE, target, rec + 8, (int)len, MPI_BYTE, ep->win));
    issued(ep, RDMO_RMA_PUT);
    flush(ep, target, "MPI_Put + MPI_Win_flush of a record's payload"); /* before its header says valid */
    const uint64_t hdr = RDMO_RECORD_VALID | len;
    const double t2 = rmb_fast_now();
    MPI_CHECK(ep->rank, MPI_Accumulate(&hdr, 1, MPI_UINT64_T, target, rec, 1, MPI_UINT64_T, MPI_REPLACE, ep->win));
    issued(ep, RDMO_RMA_ACC);
    flush(ep, target, "MPI_Accumulate + MPI_Win_flush of a record's valid header");
    window(ep, t0, t1, t2, rmb_fast_now());
    *offset = old;
    return RDMO_OK;
}

int rdmo_verbs_gather(rdmo_ep *ep, int target, const rdmo_object *o, uint32_t key, int max, rdmo_entry *out, int *n)
{
    const uint64_t buckets = o->n1;
    const MPI_Aint heads = at(ep, o) + 8, entries = at(ep, o) + (MPI_Aint)rdmo_table_entries_at(buckets);
    uint32_t cur = 0;
    MPI_CHECK(ep->rank, MPI_Get(&cur, 1, MPI_UINT32_T, target, heads + 4 * (MPI_Aint)rdmo_bucket(key, buckets), 1,
                                MPI_UINT32_T, ep->win));
    issued(ep, RDMO_RMA_GET);
    flush(ep, target, "MPI_Get + MPI_Win_flush of a bucket's head");
    int found = 0, steps = 0;
    while (cur && found < max) {
        if (steps++ == ep->cfg.gather_bound) {
            *n = found;
            return RDMO_EBOUND;
        }
        rdmo_entry e;
        MPI_CHECK(ep->rank, MPI_Get(&e, (int)sizeof e, MPI_BYTE, target, entries + (MPI_Aint)(cur - 1) * (MPI_Aint)sizeof e,
                                    (int)sizeof e, MPI_BYTE, ep->win));
        issued(ep, RDMO_RMA_GET);
        flush(ep, target, "MPI_Get + MPI_Win_flush of a chain entry"); /* the next address is in it */
        if (e.key == key) out[found++] = e;
        cur = e.next;
    }
    *n = found;
    return RDMO_OK;
}

static MPI_Aint row_at(const rdmo_ep *ep, const rdmo_object *o, uint32_t row)
{
    return at(ep, o) + (MPI_Aint)row * (MPI_Aint)rdmo_row_bytes(o->n2);
}

static void release(rdmo_ep *ep, int target, MPI_Aint lock)
{
    const uint32_t zero = 0;
    MPI_CHECK(ep->rank, MPI_Accumulate(&zero, 1, MPI_UINT32_T, target, lock, 1, MPI_UINT32_T, MPI_REPLACE, ep->win));
    issued(ep, RDMO_RMA_ACC);
    flush(ep, target, "MPI_Accumulate + MPI_Win_flush releasing a row lock");
}

int rdmo_verbs_read(rdmo_ep *ep, int target, const rdmo_object *o, uint32_t row, bool keep, uint64_t *version,
                    uint64_t *data)
{
    const MPI_Aint lock = row_at(ep, o, row);
    const uint32_t me = (uint32_t)ep->rank + 1, free_ = 0;
    uint32_t old = 1;
    double t0 = 0, t1 = 0;
    for (int t = 0; t < ep->cfg.tries && old != 0; t++) {
        if (t) ep->c.retries++;
        t0 = rmb_fast_now();
        MPI_CHECK(ep->rank, MPI_Compare_and_swap(&me, &free_, &old, MPI_UINT32_T, target, lock, ep->win));
        issued(ep, RDMO_RMA_CAS);
        flush(ep, target, "MPI_Compare_and_swap + MPI_Win_flush on a row lock");
        t1 = rmb_fast_now();
    }
    if (old != 0) {
        ep->c.busy++;
        return RDMO_BUSY;
    }
    const int bytes = (int)(8 * (1 + o->n2));
    uint64_t *buf = (uint64_t *)(void *)ep->in;
    MPI_CHECK(ep->rank, MPI_Get(buf, bytes, MPI_BYTE, target, lock + 8, bytes, MPI_BYTE, ep->win));
    issued(ep, RDMO_RMA_GET);
    flush(ep, target, "MPI_Get + MPI_Win_flush of a locked row"); /* read complete before the release */
    *version = buf[0];
    memcpy(data, buf + 1, (size_t)(bytes - 8));
    if (!keep) {
        const double t2 = rmb_fast_now();
        release(ep, target, lock);
        window(ep, t0, t1, t2, rmb_fast_now());
    }
    return RDMO_OK;
}

int rdmo_verbs_write_seal(rdmo_ep *ep, int target, const rdmo_object *o, uint32_t row, uint64_t version,
                          const uint64_t *data)
{
    const MPI_Aint lock = row_at(ep, o, row);
    const int bytes = (int)(8 * (1 + o->n2));
    uint64_t *buf = (uint64_t *)(void *)ep->out;
    buf[0] = version;
    memcpy(buf + 1, data, (size_t)(bytes - 8));
    const double t0 = rmb_fast_now();
    MPI_CHECK(ep->rank, MPI_Put(buf, bytes, MPI_BYTE, target, lock + 8, bytes, MPI_BYTE, ep->win));
    issued(ep, RDMO_RMA_PUT);
    flush(ep, target, "MPI_Put + MPI_Win_flush of a row's data"); /* written before the seal */
    const double t1 = rmb_fast_now();
    release(ep, target, lock);
    window(ep, t0, t1, t1, rmb_fast_now());
    return RDMO_OK;
}

/* ScatterAndAccumulate: one pair per distinct key of the batch (counts and sums merged), each
 * walking its bucket's chain to its entry or inserting one; all pairs advance together, one flush
 * per round. An insert: MPI_Fetch_and_op on the pool counter for an entry, the entry put (next:
 * the head as last read), then MPI_Compare_and_swap of the head from that value to the entry; a
 * lost CAS walks the chain's new part and, if the key is still not there, links the same entry again. */
typedef struct {
    uint32_t key;
    uint64_t cnt, sum;
    uint32_t head, cur, stop; /* head as last read; the entry examined; where the walk already was */
    uint64_t alloc;           /* the entry allocated for an insert, UINT64_MAX: none */
    uint32_t kn[2];           /* key and next of the entry examined */
    uint32_t cas_old;
    int state;
    rdmo_entry e;             /* origin buffers, kept until their flush */
    uint64_t add[2];
} vpair;
enum { P_WALK, P_INSERT, P_DONE };

static int merge_pairs(const rdmo_pair *pairs, int n, vpair *v)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < m && v[j].key != pairs[i].key) j++;
        if (j == m) v[m++] = (vpair){.key = pairs[i].key, .alloc = UINT64_MAX, .state = P_WALK};
        v[j].cnt++;
        v[j].sum += pairs[i].value;
    }
    return m;
}

typedef struct {
    rdmo_ep *ep;
    int target;
    const rdmo_object *o;
    MPI_Aint heads, entries;
} vtable;

static void walk_round(const vtable *t, vpair *v, int m)
{
    int any = 0;
    for (int i = 0; i < m; i++) {
        if (v[i].state != P_WALK || v[i].cur == v[i].stop) continue;
        MPI_CHECK(t->ep->rank, MPI_Get(v[i].kn, 2, MPI_UINT32_T, t->target,
                                       t->entries + (MPI_Aint)(v[i].cur - 1) * (MPI_Aint)sizeof(rdmo_entry), 2,
                                       MPI_UINT32_T, t->ep->win));
        issued(t->ep, RDMO_RMA_GET);
        any = 1;
    }
    if (any) flush(t->ep, t->target, "MPI_Get + MPI_Win_flush of chain entries");
    for (int i = 0; i < m; i++) {
        if (v[i].state != P_WALK) continue;
        if (v[i].cur == v[i].stop) v[i].state = P_INSERT; /* the chain's end, or where the last walk began */
        else if (v[i].kn[0] == v[i].key) v[i].state = P_DONE;
        else v[i].cur = v[i].kn[1];
    }
}

/* Inserting pairs: allocate, put, link. False when the pool ran out (RDMO_FULL). */
static bool insert_round(const vtable *t, vpair *v, int m)
{
    rdmo_ep *ep = t->ep;
    const uint64_t one = 1;
    int any = 0;
    for (int i = 0; i < m; i++)
        if (v[i].state == P_INSERT && v[i].alloc == UINT64_MAX) {
            MPI_CHECK(ep->rank, MPI_Fetch_and_op(&one, &v[i].alloc, MPI_UINT64_T, t->target, at(ep, t->o), MPI_SUM, ep->win));
            issued(ep, RDMO_RMA_FAO);
            any = 1;
        }
    if (any) flush(ep, t->target, "MPI_Fetch_and_op + MPI_Win_flush allocating table entries");
    any = 0;
    for (int i = 0; i < m; i++) {
        if (v[i].state != P_INSERT) continue;
        if (v[i].alloc >= t->o->n2) return false;
        rdmo_entry *e = &v[i].e;
        *e = (rdmo_entry){v[i].key, v[i].head, 0, 0};
        MPI_CHECK(ep->rank, MPI_Put(e, (int)sizeof *e, MPI_BYTE, t->target,
                                    t->entries + (MPI_Aint)v[i].alloc * (MPI_Aint)sizeof *e, (int)sizeof *e, MPI_BYTE, ep->win));
        issued(ep, RDMO_RMA_PUT);
        any = 1;
    }
    if (!any) return true;
    flush(ep, t->target, "MPI_Put + MPI_Win_flush of new table entries"); /* complete before they are linked */
    for (int i = 0; i < m; i++) {
        if (v[i].state != P_INSERT) continue;
        const uint32_t want = (uint32_t)v[i].alloc + 1;
        MPI_CHECK(ep->rank, MPI_Compare_and_swap(&want, &v[i].head, &v[i].cas_old, MPI_UINT32_T, t->target,
                                                 t->heads + 4 * (MPI_Aint)rdmo_bucket(v[i].key, t->o->n1), ep->win));
        issued(ep, RDMO_RMA_CAS);
    }
    flush(ep, t->target, "MPI_Compare_and_swap + MPI_Win_flush linking table entries");
    for (int i = 0; i < m; i++) {
        if (v[i].state != P_INSERT) continue;
        if (v[i].cas_old == v[i].head) {
            v[i].state = P_DONE;
            v[i].cur = (uint32_t)v[i].alloc + 1;
        } else { /* another origin linked first: walk what it added */
            ep->c.retries++;
            v[i].stop = v[i].head;
            v[i].head = v[i].cur = v[i].cas_old;
            v[i].state = P_WALK;
        }
    }
    return true;
}

int rdmo_verbs_scatter(rdmo_ep *ep, int target, const rdmo_object *o, const rdmo_pair *pairs, int n)
{
    if (!ep->verbs_pairs) ep->verbs_pairs = calloc((size_t)ep->capacity / RDMO_PAIR_WIRE + 1, sizeof(vpair));
    vpair *v = ep->verbs_pairs;
    if (!v) abort();
    const vtable t = {ep, target, o, at(ep, o) + 8, at(ep, o) + (MPI_Aint)rdmo_table_entries_at(o->n1)};
    const int m = merge_pairs(pairs, n, v);
    for (int i = 0; i < m; i++) {
        MPI_CHECK(ep->rank, MPI_Get(&v[i].head, 1, MPI_UINT32_T, target,
                                    t.heads + 4 * (MPI_Aint)rdmo_bucket(v[i].key, o->n1), 1, MPI_UINT32_T, ep->win));
        issued(ep, RDMO_RMA_GET);
    }
    flush(ep, target, "MPI_Get + MPI_Win_flush of bucket heads");
    for (int i = 0; i < m; i++) v[i].cur = v[i].head;
    bool room = true;
    for (bool busy = true; busy && room;) {
        walk_round(&t, v, m);
        room = insert_round(&t, v, m);
        busy = false;
        for (int i = 0; i < m; i++) busy |= v[i].state != P_DONE;
    }
    int any = 0;
    for (int i = 0; i < m; i++) {
        if (v[i].state != P_DONE) continue;
        v[i].add[0] = v[i].cnt;
        v[i].add[1] = v[i].sum;
        MPI_CHECK(ep->rank, MPI_Accumulate(v[i].add, 2, MPI_UINT64_T, target,
                                           t.entries + (MPI_Aint)(v[i].cur - 1) * (MPI_Aint)sizeof(rdmo_entry) + 8, 2,
                                           MPI_UINT64_T, MPI_SUM, ep->win));
        issued(ep, RDMO_RMA_ACC);
        any = 1;
    }
    if (any) flush(ep, target, "MPI_Accumulate + MPI_Win_flush of counts and sums");
    return room ? RDMO_OK : RDMO_FULL;
}
