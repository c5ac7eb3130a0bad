/* Windows under each policy (MPI): rma_window_alloc sets the run's policy around MPI_Win_allocate /
 * MPI_Alloc_mem and restores the thread's policy afterwards, the rank's window pages are faulted
 * in under it without changing a byte, and the placement check finds them on the intended node
 * (100% on a one-node host). Run with 2 ranks: mpi_check.sh ... --grep 'window placement ok'. */
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "bench/context.h"
#include "bench/numa_topology.h"
#include "bench/rmb_config.h"
#include "rma/window.h"
#if RMB_HAVE_NUMA
#include <numaif.h>
#endif

static int thread_mode(void)
{
#if RMB_HAVE_NUMA
    int mode = -1;
    return get_mempolicy(&mode, NULL, 0, NULL, 0) == 0 ? mode : -2;
#else
    return -1;
#endif
}

int main(int argc, char **argv)
{
    bench_pre_init();
    MPI_Init(&argc, &argv);
    bench_ctx ctx;
    bench_ctx_init(&ctx, MPI_COMM_WORLD);
    const int policies[] = {NUMA_LOCAL, NUMA_INTERLEAVE, NUMA_OFF};
    for (int i = 0; i < 3; i++)
        for (int flavor = WIN_ALLOCATE; flavor <= WIN_CREATE; flavor++) {
            numa_report rep;
            numa_report_init(&ctx, policies[i], false, &rep);
            int before = thread_mode();
            rma_window w;
            rma_window_alloc(&w, 4u << 20, (win_flavor)flavor, ctx.comm);
            CHECK(thread_mode() == before);
            /* the neighbour writes a pattern into our window while we check it */
            rma_window_lock_all(&w);
            uint64_t pattern = 0x5eed0000u + (uint64_t)i * 16 + (uint64_t)flavor;
            int peer = (ctx.rank + 1) % ctx.size;
            for (uint64_t off = 0; off < w.bytes; off += 65536)
                MPI_CHECK(ctx.rank, MPI_Put(&pattern, 1, MPI_UINT64_T, peer, (MPI_Aint)off, 1, MPI_UINT64_T, w.win));
            MPI_CHECK(ctx.rank, MPI_Win_flush_all(w.win));
            MPI_Barrier(ctx.comm);
            MPI_CHECK(ctx.rank, MPI_Win_sync(w.win));
            int same = 1;
            for (uint64_t off = 0; off < w.bytes; off += 65536) same &= *(uint64_t *)((char *)w.base + off) == pattern;
            CHECK(same);
            double f = numa_placement_check(w.base, w.bytes);
            if (numa_is_available() && numa_node_count() == 1) CHECK(f == 1.0);
            if (!numa_is_available()) CHECK(f < 0);
            MPI_Barrier(ctx.comm);
            rma_window_free(&w);
            numa_report_run(&ctx, &rep);
            if (numa_is_available() && numa_node_count() == 1) CHECK(rep.worst == 1.0);
            numa_report_free(&rep);
        }
    int bad = check_failures, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (ctx.rank == 0 && !any) printf("window placement ok (%s)\n", numa_is_available() ? "measured" : "numa unavailable");
    bench_ctx_free(&ctx);
    MPI_Finalize();
    return any ? 1 : 0;
}
