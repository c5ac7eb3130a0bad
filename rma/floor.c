#include "rma/floor.h"

#include <stdatomic.h>
#include <stdint.h>

#include "bench/context.h"
#include "bench/stats.h"
#include "rma/shm_window.h"

enum { ROUNDS = 7, ITERS = 4000 };

/* One round at a or b: a bumps the word in b's segment and waits for b to echo it into a's. */
static double round_trip(_Atomic uint64_t *mine, _Atomic uint64_t *theirs, bool starts, uint64_t *next)
{
    double t0 = MPI_Wtime();
    for (int i = 0; i < ITERS; i++) {
        uint64_t v = ++*next;
        if (starts) {
            atomic_store_explicit(theirs, v, memory_order_release);
            while (atomic_load_explicit(mine, memory_order_acquire) != v) {}
        } else {
            while (atomic_load_explicit(mine, memory_order_acquire) != v) {}
            atomic_store_explicit(theirs, v, memory_order_release);
        }
    }
    return (MPI_Wtime() - t0) / ITERS;
}

double rma_floor_round_trip_us(MPI_Comm comm, int a, int b, bool spin_ok)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (!spin_ok || a == b) return -1; /* the same on every rank: no window for nothing */
    shm_window w;
    shm_window_open(&w, comm, 128, MPI_INFO_NULL);
    const bool pair = rank == a || rank == b;
    int ok = !pair || (shm_window_peer(&w, a) && shm_window_peer(&w, b)), all;
    MPI_CHECK(rank, MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
    double t[ROUNDS], med = -1;
    if (all) {
        /* each rank polls a word of its own segment, on a cache line of its own */
        _Atomic uint64_t *mine = pair ? shm_window_word(shm_window_peer(&w, rank), 0) : NULL;
        _Atomic uint64_t *theirs = pair ? shm_window_word(shm_window_peer(&w, rank == a ? b : a), 0) : NULL;
        uint64_t next = 0;
        for (int r = 0; r < ROUNDS; r++) {
            MPI_CHECK(rank, MPI_Barrier(comm));
            if (pair) t[r] = round_trip(mine, theirs, rank == a, &next);
        }
        if (rank == a) med = stats_median(t, ROUNDS) * 1e6;
        MPI_CHECK(rank, MPI_Bcast(&med, 1, MPI_DOUBLE, a, comm));
    }
    shm_window_close(&w);
    return med;
}
