#include "rma/window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/context.h"
#include "bench/phases.h"
#include "bench/yield_wait.h"
#include "bench/memory.h"
#include "bench/numa_policy.h"
#include "rma/window_auto.h"

const char *const win_flavor_names[] = {"allocate", "create", "create-huge", "auto", "shared", NULL};
const char *const win_life_names[] = {"join", "pool", "dynamic", NULL};

/* Window memory held now and at most (rma_window_held_bytes), growths beyond a reservation. */
static uint64_t held_now, held_peak;
static int regrown;

static void held_add(uint64_t bytes)
{
    held_now += bytes;
    if (held_now > held_peak) held_peak = held_now;
}

uint64_t rma_round_size(uint64_t bytes)
{
    if (bytes == 0) bytes = 64;
    return (bytes + 63) & ~(uint64_t)63;
}

void rma_window_alloc(rma_window *w, uint64_t bytes, win_flavor flavor, MPI_Comm comm)
{
    MPI_Comm_rank(comm, &w->rank);
    if (flavor == WIN_AUTO) flavor = rma_window_auto_flavor();
    w->bytes = rma_round_size(bytes);
#ifdef MPICH_VERSION
    /* MPICH 4.0's MPI_Win_allocate takes its symmetric-heap path only when every rank's size is a
     * page multiple, which makes allocation slower (docs/measurements.md, "From code comments"),
     * and the radix join (round sizes) and the sort-merge join (sampled ones) would take different
     * paths. A size that is never a page multiple keeps every window on one path. */
    if (flavor == WIN_ALLOCATE && w->bytes % (uint64_t)sysconf(_SC_PAGESIZE) == 0) w->bytes += 64;
#endif
    w->flavor = flavor;
    w->locked_all = 0;
    w->life = WIN_LIFE_JOIN;
    w->slot = -1;
    w->reused = false;
    w->disp_base = NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    /* We only use put/get and MPI_SUM/MPI_NO_OP atomics: lets the library pick faster paths. */
    MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
    MPI_Info_set(info, "same_disp_unit", "true");
    memset(&w->shm, 0, sizeof w->shm);
    w->shm.win = MPI_WIN_NULL;
    /* the node's segments (placed under --numa by shm_window_open itself), or none on this node */
    if (flavor == WIN_SHARED) shm_window_open(&w->shm, comm, w->bytes, MPI_INFO_NULL);
    const bool segment = w->shm.win != MPI_WIN_NULL;
    numa_policy_push(); /* --numa: pages this rank first touches follow the run's policy */
    if (segment) {
        w->base = w->shm.base;
        MPI_CHECK(w->rank, MPI_Win_create(w->base, (MPI_Aint)w->bytes, 1, info, comm, &w->win));
    } else if (flavor == WIN_ALLOCATE) {
        MPI_CHECK(w->rank, MPI_Win_allocate((MPI_Aint)w->bytes, 1, info, comm, &w->base, &w->win));
    } else {
        if (flavor == WIN_CREATE) {
            MPI_CHECK(w->rank, MPI_Alloc_mem((MPI_Aint)w->bytes, MPI_INFO_NULL, &w->base));
        } else if (!(w->base = mem_alloc_large(w->bytes))) {
            fprintf(stderr, "rmabench: rank %d: cannot allocate %llu bytes of window memory\n", w->rank,
                    (unsigned long long)w->bytes);
            MPI_Abort(comm, 1);
        }
        MPI_CHECK(w->rank, MPI_Win_create(w->base, (MPI_Aint)w->bytes, 1, info, comm, &w->win));
    }
    /* Under a policy, the owner faults its pages in now (else the first remote writer would place
     * them, on its own node, through shared memory); no-op under --numa off. */
    if (numa_policy() != NUMA_OFF && !segment) numa_touch_pages(w->base, w->bytes);
    numa_policy_pop();
    MPI_Info_free(&info);
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    held_add(w->bytes);
}

void *rma_locked_window_open(MPI_Comm comm, int rank, uint64_t bytes, MPI_Info info, bool numa, MPI_Win *win)
{
    void *base = NULL;
    if (numa) numa_policy_push();
    MPI_CHECK(rank, MPI_Win_allocate((MPI_Aint)bytes, 1, info, comm, &base, win));
    if (numa && numa_policy() != NUMA_OFF) numa_touch_pages(base, bytes); /* before any peer can place them */
    if (numa) numa_policy_pop();
    MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
    memset(base, 0, bytes);
    MPI_CHECK(rank, MPI_Win_lock_all(MPI_MODE_NOCHECK, *win));
    MPI_CHECK(rank, MPI_Win_sync(*win));
    return base;
}

#if defined(MADV_POPULATE_WRITE) || defined(MADV_DONTNEED)
/* The whole pages inside [base, base + bytes): [*lo, *hi), empty when *hi <= *lo; returns the page size. */
static uintptr_t whole_pages(const void *base, uint64_t bytes, uintptr_t *lo, uintptr_t *hi)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    *lo = ((uintptr_t)base + page - 1) & ~(page - 1);
    *hi = ((uintptr_t)base + bytes) & ~(page - 1);
    return page;
}
#endif

static void prefault_bytes(char *base, uint64_t bytes);
static void arena_prefault(rma_window *w);

void rma_window_prefault(rma_window *w)
{
    if (w->reused) return;
    if (w->life == WIN_LIFE_DYNAMIC) arena_prefault(w);
    else prefault_bytes(w->base, w->bytes);
}

static void prefault_bytes(char *base, uint64_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t lo, hi;
    const uintptr_t page = whole_pages(base, bytes, &lo, &hi);
    if (hi > lo && madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0) {
        memset(base, 0, lo - (uintptr_t)base);
        memset((void *)hi, 0, (uintptr_t)base + bytes - hi);
        /* Populating maps the pages in this kernel, but under a hypervisor that keeps shadow page
         * tables the first store to each 4 KiB page still exits to the host (PLATFORM-NOTES), which
         * a populated window would pay in the network pass instead. One store per page pays it in
         * window_alloc, where first touch belongs (a 2 MiB page pays once). */
        for (volatile char *q = (volatile char *)lo; (uintptr_t)q < hi; q += page) *q = 0;
        return;
    }
#endif
    memset(base, 0, bytes);
}

/* One one-byte zero put per page of [disp, disp + bytes) of target's window (rma_window_map_runs). */
static void map_peer(rma_window *w, int target, uint64_t disp, uint64_t bytes)
{
    static const char zero = 0;
    if (bytes == 0) return;
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), end = disp + bytes;
    /* one point per page-size step lands on every page of the target's mapping whatever its
     * alignment there, but for a last page the range ends in before the next step: its last byte */
    for (uint64_t d = disp; d < end; d += page)
        MPI_CHECK(w->rank, MPI_Put(&zero, 1, MPI_BYTE, target, (MPI_Aint)d, 1, MPI_BYTE, w->win));
    MPI_CHECK(w->rank, MPI_Put(&zero, 1, MPI_BYTE, target, (MPI_Aint)(end - 1), 1, MPI_BYTE, w->win));
}

/* One store of a zero per page of [p, p + bytes) (and its last byte), in this rank's mapping. */
static void map_own_stores(unsigned char *p, uint64_t bytes)
{
    if (bytes == 0) return;
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    for (uint64_t d = 0; d < bytes; d += page) ((volatile unsigned char *)p)[d] = 0;
    ((volatile unsigned char *)p)[bytes - 1] = 0;
}

void rma_window_map_runs(rma_window *w, const bench_ctx *ctx, uint64_t n, const int *target, const uint64_t *first,
                         const uint64_t *first2, const uint64_t *count, uint64_t item_bytes)
{
    if (w->life == WIN_LIFE_DYNAMIC || w->reused) return;
    if (w->flavor == WIN_SHARED) {
        for (uint64_t i = 0; i < n; i++) {
            int t = target ? target[i] : (int)i;
            unsigned char *peer = t != ctx->rank ? rma_window_peer_base(w, t) : NULL;
            if (peer) map_own_stores(peer + (first[i] + (first2 ? first2[i] : 0)) * item_bytes, count[i] * item_bytes);
        }
        MPI_CHECK(ctx->rank, rmb_barrier(ctx->comm)); /* nobody stores into a run before it is mapped everywhere */
        return;
    }
    if (w->flavor != WIN_ALLOCATE || ctx->host_size < 2) return;
    rma_window_lock_all(w);
    for (uint64_t i = 0; i < n; i++) {
        int t = target ? target[i] : (int)i;
        if (t != ctx->rank && ctx->rank_host[t] == ctx->host_id)
            map_peer(w, t, (first[i] + (first2 ? first2[i] : 0)) * item_bytes, count[i] * item_bytes);
    }
    /* MPI_Win_unlock_all alone completes the puts at their targets; the flush guards against the
     * MPICH 4.0.2 trouble with MPI_Win_allocate (rma/window.h, RMA_JOIN_DEFAULT_FLAVOR), which
     * these puts do not cause, and costs nothing measurable */
    MPI_CHECK(w->rank, MPI_Win_flush_all(w->win));
    rma_window_unlock_all(w);
    MPI_CHECK(ctx->rank, rmb_barrier(ctx->comm));
}

/* The join's dynamic windows share one MPI_Win: its epoch opens with the first of them and
 * closes with the last. */
static int dyn_locks;

void rma_window_lock_all(rma_window *w)
{
    if (w->life != WIN_LIFE_DYNAMIC || dyn_locks++ == 0) MPI_CHECK(w->rank, MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win));
    w->locked_all = 1;
}

void rma_window_unlock_all(rma_window *w)
{
    if (w->life != WIN_LIFE_DYNAMIC || --dyn_locks == 0) MPI_CHECK(w->rank, MPI_Win_unlock_all(w->win));
    w->locked_all = 0;
}

double rma_windows_end_epoch(rma_window *w, int n, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < n; i++) {
        if (w[i].locked_all) rma_window_unlock_all(&w[i]);
        /* this rank's stores into its node's segments, ordered before the barrier */
        if (w[i].shm.win != MPI_WIN_NULL) MPI_CHECK(rank, MPI_Win_sync(w[i].shm.win));
    }
    const double waited = rmb_wait_all(comm); /* every origin has unlocked: every put into these windows is complete */
    for (int i = 0; i < n; i++) /* and the node's stores into this segment, before its loads */
        if (w[i].shm.win != MPI_WIN_NULL) MPI_CHECK(rank, MPI_Win_sync(w[i].shm.win));
    /* This rank reads its window with loads next: MPI_Win_sync brings the public copy into the
     * private one (separate model) and is the memory barrier between the origins' completed puts
     * and those loads (unified model; MPI 4.1 says so). Without it in the unified model, MPICH
     * 4.0.2 lost matches in a rare sort-merge run (docs/measurements.md, "From code comments");
     * whether that is the cause is not known. */
    for (int i = 0; i < n; i++) {
        MPI_CHECK(rank, MPI_Win_lock(MPI_LOCK_SHARED, w[i].rank, 0, w[i].win));
        MPI_CHECK(rank, MPI_Win_sync(w[i].win));
        MPI_CHECK(rank, MPI_Win_unlock(w[i].rank, w[i].win));
    }
    return waited;
}

/* MPI_Alloc_mem is malloc in MPICH 4.0: at 1-32 MiB glibc keeps a freed window in its heap and
 * hands it to the next run, whose window then takes no first-touch faults (above glibc's 32 MiB
 * mmap threshold every run faults). Dropping the pages
 * at free makes every --repeat run pay what a single run pays, as with the other flavours;
 * --window-pool is the way to keep them. The block stays the allocator's; its pages read as zero. */
static void give_back_pages(void *base, uint64_t bytes)
{
#ifdef MADV_DONTNEED
    uintptr_t lo, hi;
    whole_pages(base, bytes, &lo, &hi);
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
#else
    (void)base, (void)bytes;
#endif
}

void rma_window_free(rma_window *w)
{
    if (w->locked_all) rma_window_unlock_all(w);
    const bool segment = w->shm.win != MPI_WIN_NULL;
    if (!segment) numa_placement_check(w->base, w->bytes); /* after use: where the window's pages really are */
    MPI_CHECK(w->rank, MPI_Win_free(&w->win));
    if (segment) shm_window_close(&w->shm); /* checks the placement too */
    else if (w->flavor == WIN_SHARED) mem_free_large(w->base, w->bytes);
    if (w->flavor == WIN_CREATE) {
        give_back_pages(w->base, w->bytes);
        MPI_Free_mem(w->base);
    }
    if (w->flavor == WIN_CREATE_HUGE) mem_free_large(w->base, w->bytes);
    w->base = NULL;
    held_now -= w->bytes;
}

static uint64_t reserved[RMA_POOL_SLOTS];

void rma_window_reserve(int slot, uint64_t bytes)
{
    if (slot >= 0 && slot < RMA_POOL_SLOTS) reserved[slot] = bytes;
}

uint64_t rma_window_held_bytes(void) { return held_now; }
uint64_t rma_window_held_peak(void) { return held_peak; }
int rma_window_regrown(void) { return regrown; }
void rma_window_held_restart(void) { held_peak = held_now; }

/* --- WIN_LIFE_POOL: a window kept per slot ------------------------------------------------- */

static rma_window pool[RMA_POOL_SLOTS];
static MPI_Comm pool_comm[RMA_POOL_SLOTS];
static int pool_used[RMA_POOL_SLOTS];

static void pool_acquire(rma_window *w, uint64_t bytes, win_flavor flavor, MPI_Comm comm, int slot)
{
    rma_window *k = &pool[slot];
    int me, result = MPI_UNEQUAL;
    if (pool_used[slot]) MPI_Comm_compare(comm, pool_comm[slot], &result);
    /* every rank must take the same decision: reuse needs all of them to fit */
    int mine = !pool_used[slot] || (result != MPI_IDENT && result != MPI_CONGRUENT) || k->flavor != flavor ||
               k->bytes < rma_round_size(bytes),
        any = 1;
    MPI_Comm_rank(comm, &me);
    MPI_CHECK(me, MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm));
    if (any) {
        if (pool_used[slot]) {
            rma_window_free(k);
            MPI_Comm_free(&pool_comm[slot]);
        }
        regrown += reserved[slot] && bytes > reserved[slot]; /* this rank's data beyond the plan */
        rma_window_alloc(k, bytes > reserved[slot] ? bytes : reserved[slot], flavor, comm);
        MPI_Comm_dup(comm, &pool_comm[slot]); /* a handle that stays valid while the window is kept */
        pool_used[slot] = 1;
    }
    *w = *k;
    w->life = WIN_LIFE_POOL;
    w->slot = slot;
    w->reused = !any;
}

static void pool_release(rma_window *w)
{
    if (w->locked_all) rma_window_unlock_all(w);
    pool[w->slot] = *w;
    pool[w->slot].reused = false;
    w->base = NULL;
}

static void pool_drain(void)
{
    for (int slot = 0; slot < RMA_POOL_SLOTS; slot++) {
        if (!pool_used[slot]) continue;
        rma_window_free(&pool[slot]);
        MPI_Comm_free(&pool_comm[slot]);
        pool_used[slot] = 0;
    }
}

/* --- WIN_LIFE_DYNAMIC: one MPI_Win_create_dynamic window, an arena attached per join -------- */

static struct {
    MPI_Win win;          /* MPI_WIN_NULL until the first dynamic window */
    MPI_Comm comm;        /* a duplicate of the windows' communicator */
    int rank, size;
    char *base;           /* the arena: the slots' reservations together */
    uint64_t bytes, used; /* its size, and the bytes this join's windows take from its start */
    win_flavor flavor;    /* where its memory came from (arena_memory) */
    bool touched;         /* faulted in (rma_window_prefault of its first window) */
    int attached;         /* this join's windows in the arena; the arena is attached while > 0 */
    MPI_Aint *disp[RMA_POOL_SLOTS]; /* [size] every rank's address of each slot's window */
} dyn = {MPI_WIN_NULL, MPI_COMM_NULL, 0, 0, NULL, 0, 0, WIN_CREATE_HUGE, false, 0, {NULL}};

/* Memory for the arena (or a window beyond it): MPI_Alloc_mem for allocate and create (the
 * library's memory: a dynamic window allocates none itself), huge-page-able anonymous memory for
 * create-huge and shared. */
static void *arena_memory(win_flavor flavor, uint64_t bytes)
{
    void *p = NULL;
    if (flavor == WIN_ALLOCATE || flavor == WIN_CREATE) {
        if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p) != MPI_SUCCESS) p = NULL;
    } else {
        p = mem_alloc_large(bytes);
    }
    if (!p) {
        fprintf(stderr, "rmabench: rank %d: cannot allocate %llu bytes of dynamic window memory\n", dyn.rank,
                (unsigned long long)bytes);
        MPI_Abort(dyn.comm, 1);
    }
    held_add(bytes);
    return p;
}

static void arena_memory_free(win_flavor flavor, void *p, uint64_t bytes)
{
    if (flavor == WIN_ALLOCATE || flavor == WIN_CREATE) MPI_Free_mem(p);
    else mem_free_large(p, bytes);
    held_now -= bytes;
}

/* The dynamic window over comm, made once (collective the first time). */
static void dyn_open(MPI_Comm comm, win_flavor flavor)
{
    if (dyn.win != MPI_WIN_NULL) return;
    MPI_Comm_dup(comm, &dyn.comm);
    MPI_Comm_rank(dyn.comm, &dyn.rank);
    MPI_Comm_size(dyn.comm, &dyn.size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
    MPI_CHECK(dyn.rank, MPI_Win_create_dynamic(info, dyn.comm, &dyn.win));
    MPI_Info_free(&info);
    MPI_Win_set_errhandler(dyn.win, MPI_ERRORS_RETURN);
    dyn.flavor = flavor == WIN_AUTO ? rma_window_auto_flavor() : flavor;
    for (int s = 0; s < RMA_POOL_SLOTS; s++)
        if (!(dyn.disp[s] = calloc((size_t)dyn.size, sizeof(MPI_Aint)))) {
            fprintf(stderr, "rmabench: rank %d: out of memory for the dynamic window's addresses\n", dyn.rank);
            MPI_Abort(dyn.comm, 1);
        }
}

static void dyn_acquire(rma_window *w, uint64_t bytes, win_flavor flavor, MPI_Comm comm, int slot)
{
    dyn_open(comm, flavor);
    const uint64_t need = rma_round_size(bytes);
    if (dyn.attached == 0) { /* the join's first window: the arena, attached for the join */
        uint64_t want = 0;
        for (int s = 0; s < RMA_POOL_SLOTS; s++) want += reserved[s] ? rma_round_size(reserved[s]) : 0;
        if (want < need) {
            regrown += want > 0; /* this rank's data beyond the plan */
            want = need;
        }
        if (dyn.bytes < want) {
            if (dyn.base) arena_memory_free(dyn.flavor, dyn.base, dyn.bytes);
            dyn.base = arena_memory(dyn.flavor, want);
            dyn.bytes = want;
            dyn.touched = false;
        }
        dyn.used = 0;
        MPI_CHECK(dyn.rank, MPI_Win_attach(dyn.win, dyn.base, (MPI_Aint)dyn.bytes));
    }
    memset(w, 0, sizeof *w);
    w->win = dyn.win;
    w->rank = dyn.rank;
    w->flavor = dyn.flavor;
    w->shm.win = MPI_WIN_NULL;
    w->life = WIN_LIFE_DYNAMIC;
    w->slot = slot;
    w->bytes = need;
    if (dyn.used + need <= dyn.bytes) { /* back to back from the arena's start */
        w->base = dyn.base + dyn.used;
        dyn.used += need;
        w->reused = dyn.touched;
    } else { /* beyond the reservation: memory and an attachment of this window's own */
        w->base = arena_memory(dyn.flavor, need);
        MPI_CHECK(dyn.rank, MPI_Win_attach(dyn.win, w->base, (MPI_Aint)need));
        regrown++;
    }
    dyn.attached++;
    /* where the window starts moves with this join's sizes: every rank learns every rank's */
    MPI_Aint mine;
    MPI_Get_address(w->base, &mine);
    MPI_CHECK(dyn.rank, MPI_Allgather(&mine, 1, MPI_AINT, dyn.disp[slot], 1, MPI_AINT, dyn.comm));
    w->disp_base = dyn.disp[slot];
}

static void arena_prefault(rma_window *w)
{
    const bool in_arena = (char *)w->base >= dyn.base && (char *)w->base < dyn.base + dyn.bytes;
    if (!in_arena) {
        prefault_bytes(w->base, w->bytes);
    } else if (!dyn.touched) {
        prefault_bytes(dyn.base, dyn.bytes);
        dyn.touched = true;
    }
}

static void dyn_release(rma_window *w)
{
    if (w->locked_all) rma_window_unlock_all(w);
    const bool in_arena = (char *)w->base >= dyn.base && (char *)w->base < dyn.base + dyn.bytes;
    if (!in_arena) {
        MPI_CHECK(dyn.rank, MPI_Win_detach(dyn.win, w->base));
        arena_memory_free(dyn.flavor, w->base, w->bytes);
    }
    if (--dyn.attached == 0) MPI_CHECK(dyn.rank, MPI_Win_detach(dyn.win, dyn.base));
    w->base = NULL;
    w->disp_base = NULL;
}

static void dyn_drain(void)
{
    if (dyn.win == MPI_WIN_NULL) return;
    MPI_CHECK(dyn.rank, MPI_Win_free(&dyn.win));
    if (dyn.base) arena_memory_free(dyn.flavor, dyn.base, dyn.bytes);
    for (int s = 0; s < RMA_POOL_SLOTS; s++) free(dyn.disp[s]);
    MPI_Comm_free(&dyn.comm);
    memset(&dyn, 0, sizeof dyn);
    dyn.win = MPI_WIN_NULL;
    dyn.comm = MPI_COMM_NULL;
}

/* --- every lifetime ------------------------------------------------------------------------ */

void rma_window_acquire(rma_window *w, uint64_t bytes, win_flavor flavor, win_life life, MPI_Comm comm, int slot)
{
    if (flavor == WIN_AUTO) flavor = rma_window_auto_flavor(); /* so that a kept window matches */
    if (slot < 0 || slot >= RMA_POOL_SLOTS || life == WIN_LIFE_JOIN) {
        rma_window_alloc(w, bytes, flavor, comm);
        return;
    }
    if (life == WIN_LIFE_POOL) pool_acquire(w, bytes, flavor, comm, slot);
    else dyn_acquire(w, bytes, flavor, comm, slot);
}

void rma_window_release(rma_window *w)
{
    if (w->life == WIN_LIFE_POOL) pool_release(w);
    else if (w->life == WIN_LIFE_DYNAMIC) dyn_release(w);
    else rma_window_free(w);
}

void rma_window_pool_drain(void)
{
    pool_drain();
    dyn_drain();
}
