#include "rma/window_auto.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static win_flavor auto_choice = RMA_JOIN_DEFAULT_FLAVOR; /* what WIN_AUTO means in this process */

win_flavor rma_window_cheapest(const double cost[WIN_FLAVORS])
{
    int best = -1;
    for (int f = 0; f < WIN_FLAVORS; f++)
        if (cost[f] > 0 && (best < 0 || cost[f] < cost[best])) best = f;
    return best < 0 ? RMA_JOIN_DEFAULT_FLAVOR : (win_flavor)best;
}

/* not with MPICH < 4.1: MPI_Win_allocate lost tuples there (rma/window.h), never choose it by measurement */
int rma_window_auto_allowed(void) { return !RMB_MPICH_BEFORE_4_1; }

/* This thread's CPU seconds (the wall clock where the system has no thread clock). */
static double cpu_now(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return MPI_Wtime();
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One window of flavour f: get, fault in, map the next host peer's pages as the joins do with
 * MPI_Win_allocate, free; the CPU seconds this rank spent in them. CPU time, not wall time: the
 * work scales with the bytes (page faults, the host's faults under them, zeroing), while the wall
 * time of a probe on a host that other jobs load is mostly the ranks waiting for a core and for
 * each other, which does not rank the flavours (docs/window-lifetimes.md). */
static double one_window(const bench_ctx *ctx, win_flavor f, uint64_t bytes)
{
    MPI_CHECK(ctx->rank, MPI_Barrier(ctx->comm));
    double t = cpu_now();
    rma_window w;
    rma_window_alloc(&w, bytes, f, ctx->comm);
    rma_window_prefault(&w);
    t = cpu_now() - t;
    MPI_CHECK(ctx->rank, MPI_Barrier(ctx->comm)); /* not counted: waiting for the other ranks */
    const double t1 = cpu_now();
    /* the run of the next rank of this host that this rank maps, as rma_window_map_runs does */
    int next = bench_next_on_host(ctx);
    uint64_t first = 0, count = bytes;
    if (next >= 0) rma_window_map_runs(&w, ctx, 1, &next, &first, NULL, &count, 1);
    rma_window_free(&w);
    return t + cpu_now() - t1;
}

void rma_window_measure_costs(const bench_ctx *ctx, uint64_t bytes, int rounds, double cost[WIN_FLAVORS])
{
    double best[WIN_FLAVORS];
    /* the first window of a flavour sets up the library's component (Open MPI's first
     * MPI_Win_allocate costs far more than the next; docs/measurements.md, "From code comments"):
     * not a cost per byte */
    for (int f = 0; f < WIN_FLAVORS; f++) one_window(ctx, (win_flavor)f, 64);
    for (int r = 0; r < rounds; r++)
        for (int f = 0; f < WIN_FLAVORS; f++) {
            double t = one_window(ctx, (win_flavor)f, bytes);
            if (r == 0 || t < best[f]) best[f] = t;
        }
    /* every rank does the same work; one that waited for another in the library's collectives spun
     * there and counted the wait: the least any rank spent is the closest to the work */
    MPI_CHECK(ctx->rank, MPI_Allreduce(best, cost, WIN_FLAVORS, MPI_DOUBLE, MPI_MIN, ctx->comm));
    for (int f = 0; f < WIN_FLAVORS; f++) cost[f] /= (double)rma_round_size(bytes);
}

int rma_window_auto_crowd_ok(const bench_ctx *ctx) { return ctx->ranks_per_host <= 2 * ctx->host_cores_min; }

void rma_window_rate(const double cost[WIN_FLAVORS], const host_reclaim *host, uint64_t window_bytes,
                     double rated[WIN_FLAVORS], char *risk, size_t len)
{
    memcpy(rated, cost, sizeof(double) * WIN_FLAVORS);
    risk[0] = 0;
    if (!host->takes_huge || window_bytes < 2 * host->huge_bytes || cost[WIN_CREATE_HUGE] <= 0) return;
    /* the cheaper 4 KiB flavour: a tie goes to it (rma_window_cheapest takes the lower index) */
    const win_flavor small = cost[WIN_ALLOCATE] > 0 && (cost[WIN_CREATE] <= 0 || cost[WIN_ALLOCATE] < cost[WIN_CREATE])
                                 ? WIN_ALLOCATE : WIN_CREATE;
    if (cost[small] <= cost[WIN_CREATE_HUGE]) return;
    rated[WIN_CREATE_HUGE] = cost[small];
    snprintf(risk, len, "create-huge rated at %s's %.2f s/GB: the host takes freed %llu KiB blocks back (free page "
             "reporting), which windows of %llu MiB may meet", win_flavor_names[small], cost[small] * 1e9,
             (unsigned long long)(host->block_bytes >> 10), (unsigned long long)(window_bytes >> 20));
}

void rma_window_pick_flavor(const bench_ctx *ctx, const double *given, uint64_t window_bytes, rma_window_pick *out)
{
    memset(out, 0, sizeof *out);
    int have_given = given != NULL;
    for (int f = 0; have_given && f < WIN_FLAVORS; f++) have_given = given[f] > 0;
    if (!rma_window_auto_allowed()) {
        out->chosen = RMA_JOIN_DEFAULT_FLAVOR;
        snprintf(out->source, sizeof out->source, "library-safe (MPICH < 4.1)");
    } else if (!rma_window_auto_crowd_ok(ctx)) {
        /* far more ranks than cores: the measurement is slow (256 ranks on 2 cores: seconds) and
         * says little, and puts into MPI_Win_create windows wait for a target that rarely runs. Up
         * to two ranks per core they run often enough for the measurement to tell the flavours
         * apart (docs/measurements.md, "From code comments"). */
        out->chosen = RMA_JOIN_DEFAULT_FLAVOR;
        snprintf(out->source, sizeof out->source, "library default (over 2 ranks per core)");
    } else {
        if (have_given) {
            memcpy(out->cost, given, sizeof out->cost);
            snprintf(out->source, sizeof out->source, "given");
        } else {
            /* large enough that the cost per byte shows beside a window's fixed costs and the
             * noise of a loaded host (smaller probes had ranked the 4 KiB flavours the other way
             * round from the joins' windows: docs/window-lifetimes.md), small enough to be cheap
             * beside a run; three rounds, the fastest kept */
            const uint64_t lo = (uint64_t)256 << 10, hi = (uint64_t)8 << 20;
            out->bytes = window_bytes < lo ? lo : window_bytes > hi ? hi : window_bytes;
            rma_window_measure_costs(ctx, out->bytes, 3, out->cost);
            snprintf(out->source, sizeof out->source, "measured %llu KiB", (unsigned long long)(out->bytes >> 10));
        }
        /* every rank rates alike: the risk of any host, the smallest huge page */
        host_reclaim mine, all;
        host_reclaim_read("/sys", &mine);
        int64_t v[3] = {mine.takes_huge, mine.huge_bytes ? -(int64_t)mine.huge_bytes : INT64_MIN, (int64_t)mine.block_bytes}, w[3];
        MPI_CHECK(ctx->rank, MPI_Allreduce(v, w, 3, MPI_INT64_T, MPI_MAX, ctx->comm));
        all = mine;
        all.takes_huge = w[0] != 0;
        all.huge_bytes = w[1] == INT64_MIN ? 0 : (uint64_t)-w[1];
        all.block_bytes = (uint64_t)w[2];
        rma_window_rate(out->cost, &all, window_bytes, out->rated, out->risk, sizeof out->risk);
        out->chosen = rma_window_cheapest(out->rated);
    }
    auto_choice = out->chosen;
}

win_flavor rma_window_auto_flavor(void) { return auto_choice; }

void rma_window_pick_costs(const rma_window_pick *p, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int f = 0; f < WIN_FLAVORS && n < len; f++) {
        if (p->cost[f] <= 0) continue;
        int k = snprintf(buf + n, len - n, "%s%s %.2f", n ? "; " : "", win_flavor_names[f], p->cost[f] * 1e9);
        if (k < 0) break;
        n += (size_t)k;
    }
    if (n > 0 && n < len) n += (size_t)snprintf(buf + n, len - n, " s/GB");
    if (p->risk[0] && n < len) snprintf(buf + n, len - n, "%s%s", n ? "; " : "", p->risk);
}
