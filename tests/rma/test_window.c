/* MPI test of one window flavour (rma/window.h; argv[1]: allocate | create | create-huge | shared). For
 * requested sizes 0, 1000 and one page, every rank checks its window:
 * - the size is rounded up to a multiple of 64 bytes (with MPICH, MPI_Win_allocate sizes that come
 *   out as a page multiple get 64 more, window.c), and the memory is there: every byte writable;
 * - the attributes MPI reports: MPI_WIN_BASE is the base, MPI_WIN_SIZE the rounded size,
 *   MPI_WIN_DISP_UNIT 1, MPI_WIN_CREATE_FLAVOR the flavour's (create-huge is MPI_Win_create on our
 *   own memory), MPI_WIN_MODEL unified or separate (printed);
 * - a put of 8 bytes from the left neighbour into the last 8 bytes of the requested size lands
 *   there after rma_windows_end_epoch, and nothing else changes (MPICH 4.0 misplaced remote writes
 *   in windows whose size is not a multiple of 16);
 * - shared: a rank of the same node is reached by stores (rma_window_peer_base, which is the base
 *   itself for this rank, and NULL without a node segment: one rank): 8 bytes stored into the first
 *   8 of the right neighbour's segment are there after rma_windows_end_epoch as well.
 * Then the memory of a freed window is not handed to the next one with its pages still mapped: a
 * third 8 MiB window in a row (under glibc's 32 MiB ceiling for keeping freed blocks in its heap) takes a
 * minor fault on at least 90% of its pages (of its 2 MiB pages with create-huge), so each --repeat
 * run of a join pays the first touch a single run pays (window.c, give_back_pages).
 * Prints verification: PASS|FAIL. */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/context.h"
#include "bench/phases.h"
#include "rma/window.h"

enum { FILL = 0x3C };

static uint64_t expected_bytes(uint64_t requested, win_flavor flavor)
{
    uint64_t b = requested == 0 ? 64 : (requested + 63) / 64 * 64;
#ifdef MPICH_VERSION
    if (flavor == WIN_ALLOCATE && b % (uint64_t)sysconf(_SC_PAGESIZE) == 0) b += 64;
#else
    (void)flavor;
#endif
    return b;
}

static int check_attributes(const rma_window *w, win_flavor flavor, int me, int print)
{
    int errors = 0, flag = 0;
    void *base = NULL;
    MPI_Aint *size;
    int *disp_unit, *created, *model;
    MPI_Win_get_attr(w->win, MPI_WIN_BASE, &base, &flag);
    if (!flag || base != w->base) errors++, fprintf(stderr, "rank %d: MPI_WIN_BASE %p, base %p\n", me, base, w->base);
    MPI_Win_get_attr(w->win, MPI_WIN_SIZE, &size, &flag);
    if (!flag || (uint64_t)*size != w->bytes) errors++, fprintf(stderr, "rank %d: MPI_WIN_SIZE differs from bytes\n", me);
    MPI_Win_get_attr(w->win, MPI_WIN_DISP_UNIT, &disp_unit, &flag);
    if (!flag || *disp_unit != 1) errors++, fprintf(stderr, "rank %d: MPI_WIN_DISP_UNIT is not 1\n", me);
    MPI_Win_get_attr(w->win, MPI_WIN_CREATE_FLAVOR, &created, &flag);
    int want = flavor == WIN_ALLOCATE ? MPI_WIN_FLAVOR_ALLOCATE : MPI_WIN_FLAVOR_CREATE;
    if (!flag || *created != want) errors++, fprintf(stderr, "rank %d: MPI_WIN_CREATE_FLAVOR %d, want %d\n", me, *created, want);
    MPI_Win_get_attr(w->win, MPI_WIN_MODEL, &model, &flag);
    if (!flag || (*model != MPI_WIN_UNIFIED && *model != MPI_WIN_SEPARATE))
        errors++, fprintf(stderr, "rank %d: MPI_WIN_MODEL missing\n", me);
    else if (print)
        printf("%s: memory model %s\n", win_flavor_names[flavor], *model == MPI_WIN_UNIFIED ? "unified" : "separate");
    return errors;
}

static int run(const bench_ctx *ctx, win_flavor flavor, uint64_t requested)
{
    const int me = ctx->rank, left = (me + ctx->size - 1) % ctx->size, right = (me + 1) % ctx->size;
    rma_window w;
    rma_window_alloc(&w, requested, flavor, ctx->comm);
    int errors = 0;
    if (w.bytes != expected_bytes(requested, flavor) || w.bytes % 64 != 0 || w.flavor != flavor)
        errors++, fprintf(stderr, "rank %d: %llu bytes requested, %llu given\n", me, (unsigned long long)requested,
                          (unsigned long long)w.bytes);
    memset(w.base, FILL, w.bytes);
    errors += check_attributes(&w, flavor, me, me == 0 && requested == 1000);
    MPI_Barrier(ctx->comm);
    /* the last 8 bytes of what was asked for (the first 8 when less was asked) */
    const uint64_t at = requested >= 8 ? requested - 8 : 0, mark = 0x0123456789ABCDEFull ^ (uint64_t)me;
    rma_window_lock_all(&w);
    MPI_CHECK(me, MPI_Put(&mark, 8, MPI_BYTE, right, (MPI_Aint)at, 8, MPI_BYTE, w.win));
    /* shared: a store into the right neighbour's segment, where the put does not go */
    unsigned char *peer = right != me && requested >= 16 ? rma_window_peer_base(&w, right) : NULL;
    const bool stores = flavor == WIN_SHARED && ctx->size > 1 && ctx->host_size == ctx->size;
    if (stores && (rma_window_peer_base(&w, me) != w.base || (requested >= 16 && !peer)))
        errors++, fprintf(stderr, "rank %d: a shared window without its node's segments\n", me);
    if (flavor != WIN_SHARED && rma_window_peer_base(&w, right))
        errors++, fprintf(stderr, "rank %d: a %s window offers a peer's memory\n", me, win_flavor_names[flavor]);
    if (peer) memcpy(peer, &mark, 8);
    rma_windows_end_epoch(&w, 1, ctx->comm);
    const unsigned char *b = w.base;
    uint64_t got;
    memcpy(&got, b + at, 8);
    if (got != (0x0123456789ABCDEFull ^ (uint64_t)left))
        errors++, fprintf(stderr, "rank %d: %llu bytes: the put from rank %d is not at byte %llu\n", me,
                          (unsigned long long)requested, left, (unsigned long long)at);
    const uint64_t stored = peer ? 8 : 0; /* the left neighbour stored into b[0..8) as I did into mine */
    if (stored) {
        memcpy(&got, b, 8);
        if (got != (0x0123456789ABCDEFull ^ (uint64_t)left))
            errors++, fprintf(stderr, "rank %d: %llu bytes: the store from rank %d is not at byte 0\n", me,
                              (unsigned long long)requested, left);
    }
    for (uint64_t i = stored; i < w.bytes; i++)
        if ((i < at || i >= at + 8) && b[i] != FILL && errors++ < 5)
            fprintf(stderr, "rank %d: byte %llu changed\n", me, (unsigned long long)i);
    rma_window_free(&w);
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, ctx->comm);
    return all;
}

/* Faults this rank takes getting a window of `bytes` and writing all of it; *huge: its memory is
 * this library's large allocation (create-huge, and shared without a node segment), which may
 * come in 2 MiB pages. */
static long touch_faults(win_flavor flavor, uint64_t bytes, MPI_Comm comm, bool *huge)
{
    rma_window w;
    long before = rmb_minflt();
    rma_window_alloc(&w, bytes, flavor, comm);
    memset(w.base, FILL, w.bytes);
    long faults = rmb_minflt() - before;
    *huge = flavor == WIN_CREATE_HUGE || (flavor == WIN_SHARED && w.shm.win == MPI_WIN_NULL);
    rma_window_free(&w);
    return faults;
}

static int fresh_pages(const bench_ctx *ctx, win_flavor flavor)
{
    const uint64_t bytes = (uint64_t)8 << 20;
    bool huge;
    /* glibc: the first block is mapped on its own, and its free raises the threshold; the second
     * grows the heap; the third is the second's memory */
    touch_faults(flavor, bytes, ctx->comm, &huge);
    touch_faults(flavor, bytes, ctx->comm, &huge);
    long third = touch_faults(flavor, bytes, ctx->comm, &huge);
    const uint64_t page = huge ? (uint64_t)2 << 20 : (uint64_t)sysconf(_SC_PAGESIZE);
    const long want = (long)(bytes / page * 9 / 10);
    if (third >= want) return 0;
    fprintf(stderr, "rank %d: a third %s window of 8 MiB took %ld minor faults, want >= %ld: a freed window's "
                    "pages were reused\n", ctx->rank, win_flavor_names[flavor], third, want);
    return 1;
}

int main(int argc, char **argv)
{
    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    int flavor = 0, errors = 0;
    while (win_flavor_names[flavor] && (argc < 2 || strcmp(win_flavor_names[flavor], argv[1]) != 0)) flavor++;
    if (!win_flavor_names[flavor]) {
        if (ctx.rank == 0) fprintf(stderr, "usage: test_window allocate|create|create-huge|shared\n");
        errors = 1;
    }
    const uint64_t sizes[] = {0, 1000, (uint64_t)sysconf(_SC_PAGESIZE)};
    for (int i = 0; i < 3 && !errors; i++) errors += run(&ctx, (win_flavor)flavor, sizes[i]);
    if (!errors) {
        int mine = fresh_pages(&ctx, (win_flavor)flavor);
        MPI_Allreduce(&mine, &errors, 1, MPI_INT, MPI_SUM, ctx.comm);
    }
    if (ctx.rank == 0) printf("verification: %s\n", errors ? "FAIL" : "PASS");
    bench_ctx_free(&ctx);
    MPI_Finalize();
    return errors ? 1 : 0;
}
