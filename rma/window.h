/* Window allocation for every benchmark: MPI_Win_allocate (default), MPI_Win_create on
 * MPI_Alloc_mem memory, or MPI_Win_create on private anonymous memory that may use transparent huge
 * pages (create-huge: where the MPI library backs windows and MPI_Alloc_mem with 4 KiB shared
 * pages, first touch is several times slower than with 2 MiB pages); sizes rounded up to 64 bytes (MPICH 4.0's MPI_Win_allocate misplaces
 * remote writes when the size is not a multiple of 16; with MPICH, 64 more when that is a page
 * multiple, see window.c); errors return and are reported by rank. */
#ifndef RMB_WINDOW_H
#define RMB_WINDOW_H
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/context.h"
#include "rma/shm_window.h"

/* WIN_AUTO (--window auto) is no flavour of its own: rma/window_auto.h resolves it to the one whose
 * allocation and first touch cost least on this host; WIN_FLAVORS counts the flavours it chooses
 * among. WIN_SHARED (--window shared, never chosen by auto: it changes how data moves, not only
 * where the memory comes from) is MPI-3's shared-memory model under an RMA window: each node's
 * ranks get their memory from MPI_Win_allocate_shared on the node's communicator, the window over
 * all ranks is MPI_Win_create on that memory, and an operator may store straight into a segment of
 * a rank of its node (rma_window_peer_base) instead of putting there; ranks on other nodes are
 * reached by MPI_Put as with every flavour. A node where the library makes no shared window (a rank
 * alone on its node, Open MPI without osc sm) gets private memory: every transfer is then a put. */
typedef enum { WIN_ALLOCATE = 0, WIN_CREATE = 1, WIN_CREATE_HUGE = 2, WIN_AUTO = 3, WIN_SHARED = 4 } win_flavor;
enum { WIN_FLAVORS = 3 };
/* The library default, which --window auto (the joins' default) falls back to where it does not
 * measure (rma/window_auto.h): MPI_Win_allocate, except with MPICH before 4.1. Debian's MPICH 4.0.2
 * (ch4:ucx) can lose tuples in radix joins on MPI_Win_allocate windows (caught by verification;
 * never on MPI_Win_create windows, which are also faster there (docs/measurements.md, "From code
 * comments")); MPI_Win_allocate on MPICH 4.0 with UCX is a known trouble spot (pmodels/mpich#6110,
 * fixed for 4.1). --window allocate still selects it. */
#define RMA_JOIN_DEFAULT_FLAVOR (RMB_MPICH_BEFORE_4_1 ? WIN_CREATE : WIN_ALLOCATE)
extern const char *const win_flavor_names[]; /* {"allocate", "create", "create-huge", "auto", "shared", NULL} */

/* --window-life: how long a join's windows and their registration live.
 *   WIN_LIFE_JOIN     each join allocates (registers) its windows and frees them at its end
 *   WIN_LIFE_POOL     a window per slot, made at the first join at the size reserved for the slot
 *                     (rma_window_reserve: the plan's bound) and kept: later joins reuse it, pages
 *                     mapped, never registered again (thesis 3.2.1's pre-registered pool)
 *   WIN_LIFE_DYNAMIC  one MPI_Win_create_dynamic window per process and one block of memory (the
 *                     arena, the slots' reservations together, faulted in once); every join attaches
 *                     the arena (MPI_Win_attach), places its windows back to back in it at the sizes
 *                     it needs, tells every rank where they start (MPI_Allgather of addresses, which
 *                     move with the sizes) and detaches at its end */
typedef enum { WIN_LIFE_JOIN = 0, WIN_LIFE_POOL = 1, WIN_LIFE_DYNAMIC = 2 } win_life;
extern const char *const win_life_names[]; /* {"join", "pool", "dynamic", NULL} */

typedef struct {
    MPI_Win win;
    void *base;
    uint64_t bytes;       /* rounded size (a kept window: what it holds, at least what was asked) */
    win_flavor flavor;
    int rank;             /* for error messages */
    int locked_all;
    shm_window shm;       /* WIN_SHARED: the node's segments (shm.win MPI_WIN_NULL: none, and otherwise) */
    win_life life;        /* how rma_window_acquire got it (WIN_LIFE_JOIN for rma_window_alloc) */
    int slot;             /* its pool or arena slot, -1 for none */
    bool reused;          /* kept from an earlier join (pool; dynamic: in the arena): its pages are
                           * faulted in and its host peers' runs mapped already, so
                           * rma_window_prefault and _map_runs skip it */
    MPI_Aint *disp_base;  /* WIN_LIFE_DYNAMIC: every rank's address of this window, the target
                           * displacement of its byte 0 (rma_window_disp); NULL otherwise */
} rma_window;

/* The target displacement of byte `offset` of rank target's window: offset itself (disp_unit 1),
 * or in a dynamic window that rank's address of the window plus offset. */
static inline MPI_Aint rma_window_disp(const rma_window *w, int target, uint64_t offset)
{
    return w->disp_base ? MPI_Aint_add(w->disp_base[target], (MPI_Aint)offset) : (MPI_Aint)offset;
}

/* Where this rank may store into rank r's window directly: r's segment when the window is
 * WIN_SHARED and r shares this rank's node (this rank's own base for r itself), else NULL (put;
 * also for r itself where the node has no segments).
 * Stores must be made visible before the owner reads: rma_windows_end_epoch does that. */
static inline void *rma_window_peer_base(const rma_window *w, int r)
{
    return w->flavor == WIN_SHARED ? (void *)shm_window_peer(&w->shm, r) : NULL;
}

uint64_t rma_round_size(uint64_t bytes);

/* Collective. disp_unit 1 (byte displacements). WIN_AUTO takes the flavour rma_window_pick chose in
 * this process (rma/window_auto.h), or RMA_JOIN_DEFAULT_FLAVOR before any pick. */
void rma_window_alloc(rma_window *w, uint64_t bytes, win_flavor flavor, MPI_Comm comm);
void rma_window_lock_all(rma_window *w);    /* MPI_Win_lock_all(MPI_MODE_NOCHECK) */
void rma_window_unlock_all(rma_window *w);
void rma_window_free(rma_window *w);
/* Faults the window's pages in now (the kernel populates them, MADV_POPULATE_WRITE, where it can;
 * else a write pass), so that the phases using the window do not pay for first touch; nothing for
 * a reused window (w->reused); a dynamic window's first faults in the whole arena. */
void rma_window_prefault(rma_window *w);
/* Collective over the window's ranks (ctx->comm): maps the runs this rank will put into the
 * windows of the other ranks of its host, before the first real put goes there. With
 * MPI_Win_allocate between ranks of one host both libraries map the target's segment into the
 * origin and a put is a store to it, so the first put to every page takes a page fault in the
 * origin, inside the timed network pass (docs/measurements.md, "From code comments"). One one-byte
 * zero put per page; nothing may be in the runs yet. Run i goes to rank target[i] (target NULL:
 * rank i) at items first[i] (+ first2[i] when given), count[i] items of item_bytes. Ends with a
 * barrier, so that no real put overtakes a mapping put; nothing (not even the barrier) for the
 * other flavours (their puts write the target's own mapping, which the owner has prefaulted) or
 * one rank per host. WIN_SHARED: this rank will store into those runs itself, so it maps them
 * with one store of a zero per page of its mapping of the peer's segment (no MPI call; the barrier).
 * Nothing for a reused window (w->reused, the same on every rank for a pooled one: the runs of an
 * earlier join were mapped, a later join's few pages beyond them fault in at their first put) or
 * a dynamic one (its peers' memory is not mapped into this process). */
void rma_window_map_runs(rma_window *w, const bench_ctx *ctx, uint64_t n, const int *target, const uint64_t *first,
                         const uint64_t *first2, const uint64_t *count, uint64_t item_bytes);

/* Collective over comm: an MPI_Win_allocate window of `bytes` (disp_unit 1; info may be
 * MPI_INFO_NULL) for the words that peers update with atomics and the owner reads in place (notify
 * mailboxes, peer words): errors return, zeroed, locked for all ranks (MPI_MODE_NOCHECK) for its
 * whole life, synced. numa: the pages this rank touches first follow --numa (numa_policy_push, and
 * under a policy a touch before any peer can place them). Returns its base; rank: for messages. */
void *rma_locked_window_open(MPI_Comm comm, int rank, uint64_t bytes, MPI_Info info, bool numa, MPI_Win *win);

/* The end of a passive-target epoch in which ranks put into each other's windows. Collective over
 * comm (the windows' group): unlocks each of the n windows (MPI_Win_unlock_all completes this
 * rank's puts at their targets), waits at a barrier until every origin has done so, then makes
 * what arrived visible to this rank's own loads: an MPI_Win_sync in a lock of its own window (the
 * separate model's copy, the unified model's memory barrier). WIN_SHARED also syncs the node's
 * shared window before and after the barrier, which orders the stores of the node's ranks into
 * this rank's segment (rma_window_peer_base) before its loads (MPI-4.1 §12.7).
 * Afterwards the owner may read its windows with plain loads.
 * Returns the seconds this rank waited at the barrier (the phase's imbalance: rmb_wait_all). */
double rma_windows_end_epoch(rma_window *w, int n, MPI_Comm comm);

/* The windows of a join, by lifetime (--window-life, win_life above). Collective over comm.
 * rma_window_acquire: a window of at least `bytes` in slot `slot` (0 <= slot < RMA_POOL_SLOTS; a
 * join's relations take slots 0 and 1); WIN_LIFE_JOIN: rma_window_alloc. WIN_LIFE_POOL: the window
 * kept in the slot when it is of the same flavour and communicator and holds `bytes` on every rank
 * (one MPI_Allreduce decides), else a new one of max(bytes, the slot's reservation) (the old one
 * freed; counted in rma_window_regrown where bytes is beyond a reservation). WIN_LIFE_DYNAMIC: the next
 * `bytes` of the arena (from max(reservations) summed, made and attached at the first acquire
 * after every window was released; a request beyond it gets memory and an attachment of its own,
 * counted in rma_window_regrown), then every rank's address of it (MPI_Allgather). w->reused tells
 * whether its pages are already faulted in. rma_window_release gives it back: unlocked and freed
 * (join), kept (pool), detached with the arena's last window (dynamic; the memory stays).
 * rma_window_pool_drain (collective over the windows' communicators) frees every kept window,
 * the dynamic window and the arena; call it before MPI_Finalize. */
enum { RMA_POOL_SLOTS = 4 };
void rma_window_reserve(int slot, uint64_t bytes);
void rma_window_acquire(rma_window *w, uint64_t bytes, win_flavor flavor, win_life life, MPI_Comm comm, int slot);
void rma_window_release(rma_window *w);
void rma_window_pool_drain(void);
/* Window memory this process holds now (kept windows, the arena, windows acquired and not yet
 * released) and the most it held at once so far; times this rank's data asked a kept window or
 * the arena for more than its reservation (the plan's bound did not hold: skewed data). */
uint64_t rma_window_held_bytes(void);
uint64_t rma_window_held_peak(void);
int rma_window_regrown(void);
/* The peak starts again from what is held now (after measurements that were not the run's windows). */
void rma_window_held_restart(void);

#endif
