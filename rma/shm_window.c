#include "rma/shm_window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/context.h"
#include "bench/numa_policy.h"

/* comm rank -> node rank (-1: another node); room for every node rank's segment address */
static void map_ranks(shm_window *w, MPI_Comm comm)
{
    int size = 0;
    MPI_Comm_size(comm, &size);
    w->node_rank = calloc((size_t)size, sizeof *w->node_rank);
    int *all = calloc((size_t)size, sizeof *all);
    w->node_base = calloc((size_t)w->node_size, sizeof *w->node_base);
    if (!w->node_rank || !all || !w->node_base) {
        fprintf(stderr, "rmabench: rank %d: out of memory for the shared window's rank tables\n", w->rank);
        abort();
    }
    MPI_Group comm_group, node_group;
    MPI_Comm_group(comm, &comm_group);
    MPI_Comm_group(w->node, &node_group);
    for (int r = 0; r < size; r++) all[r] = r;
    MPI_Group_translate_ranks(comm_group, size, all, node_group, w->node_rank);
    for (int r = 0; r < size; r++)
        if (w->node_rank[r] == MPI_UNDEFINED) w->node_rank[r] = -1;
    free(all);
    MPI_Group_free(&comm_group);
    MPI_Group_free(&node_group);
}

void shm_window_open(shm_window *w, MPI_Comm comm, uint64_t bytes, MPI_Info info)
{
    memset(w, 0, sizeof *w);
    w->win = MPI_WIN_NULL;
    w->node = MPI_COMM_NULL;
    w->node_size = 1;
    w->bytes = bytes;
    MPI_Comm_rank(comm, &w->rank);
    MPI_Comm node;
    MPI_CHECK(w->rank, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &w->node_size);
    if (w->node_size < 2) {
        MPI_Comm_free(&node);
        w->node_size = 1;
        return;
    }
    MPI_Info shared;
    if (info == MPI_INFO_NULL) MPI_Info_create(&shared);
    else MPI_Info_dup(info, &shared);
    MPI_Info_set(shared, "alloc_shared_noncontig", "true"); /* each rank's segment on its own pages */
    numa_policy_push(); /* --numa: the pages this rank first touches follow the run's policy */
    int ok = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, shared, node, &w->base, &w->win) == MPI_SUCCESS, all = 0;
    MPI_Info_free(&shared);
    /* a library may have no shared-memory window for this communicator (Open MPI restricted to
     * --mca osc rdma,pt2pt): then none on the node, and the caller keeps its RMA path */
    MPI_CHECK(w->rank, MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, node));
    if (!all) {
        numa_policy_pop();
        if (ok) MPI_Win_free(&w->win);
        w->win = MPI_WIN_NULL;
        w->unavailable = true;
        MPI_Comm_free(&node);
        w->node_size = 1;
        return;
    }
    if (numa_policy() != NUMA_OFF) numa_touch_pages(w->base, bytes); /* before any peer can place them */
    numa_policy_pop();
    w->node = node;
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    memset(w->base, 0, bytes);
    MPI_CHECK(w->rank, MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win));
    MPI_CHECK(w->rank, MPI_Win_sync(w->win));
    map_ranks(w, comm);
    for (int r = 0; r < w->node_size; r++) {
        MPI_Aint size = 0;
        int disp = 0;
        MPI_CHECK(w->rank, MPI_Win_shared_query(w->win, r, &size, &disp, &w->node_base[r]));
    }
}

int shm_window_off_node(const shm_window *w, MPI_Comm comm)
{
    int size = 0, mine = 0, any = 0;
    MPI_Comm_size(comm, &size);
    mine = w->win == MPI_WIN_NULL || w->node_size < size;
    MPI_CHECK(w->rank, MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm));
    return any;
}

void shm_window_close(shm_window *w)
{
    if (w->win == MPI_WIN_NULL) return;
    MPI_CHECK(w->rank, MPI_Win_unlock_all(w->win));
    numa_placement_check(w->base, w->bytes); /* after use: where the pages really are */
    MPI_CHECK(w->rank, MPI_Win_free(&w->win));
    MPI_Comm_free(&w->node);
    free(w->node_base);
    free(w->node_rank);
    w->node_base = NULL;
    w->node_rank = NULL;
}
