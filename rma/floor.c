#include "rma/floor.h"

#include <stdatomic.h>
#include <stdint.h>

#include "bench/context.h"
#include "bench/stats.h"
#include "rma/shm_window.h"

enum { ROUNDS = 7, ITERS = 4000 };
/* A round longer than this is no hardware floor: the two ranks are not running at once (cores
 * shared with ranks the launch did not count, e.g. namespace hosts of one machine, or other jobs),
 * and each round trip would wait for a scheduler's turn, milliseconds (28 000 of them: minutes). */
#define ROUND_LIMIT_S 0.25
#define STOP UINT64_MAX /* a's word to b: the measurement is given up */

/* One round at a or b: a bumps the word in b's segment and waits for b to echo it into a's. Returns
 * the mean round trip, or -1 when a gave up (past ROUND_LIMIT_S; b then sees STOP). */
static double round_trip(_Atomic uint64_t *mine, _Atomic uint64_t *theirs, bool starts, uint64_t *next)
{
    const double t0 = MPI_Wtime();
    for (int i = 0; i < ITERS; i++) {
        const uint64_t v = ++*next;
        if (starts) {
            atomic_store_explicit(theirs, v, memory_order_release);
            for (unsigned spins = 1; atomic_load_explicit(mine, memory_order_acquire) != v; spins++)
                if (spins % 4096 == 0 && MPI_Wtime() - t0 > ROUND_LIMIT_S) {
                    atomic_store_explicit(theirs, STOP, memory_order_release);
                    return -1;
                }
        } else {
            uint64_t got;
            while ((got = atomic_load_explicit(mine, memory_order_acquire)) != v)
                if (got == STOP) return -1;
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
        bool stopped = false; /* a gave up: both skip the later rounds, every rank keeps to the barriers */
        for (int r = 0; r < ROUNDS; r++) {
            MPI_CHECK(rank, MPI_Barrier(comm));
            if (pair && !stopped) stopped = (t[r] = round_trip(mine, theirs, rank == a, &next)) < 0;
        }
        /* the fastest round: another program's turn on one of the two cores only lengthens a round,
         * and a median round of a busy machine read the slow placement's floor in the fast one */
        if (rank == a) med = stopped ? -1 : stats_min(t, ROUNDS) * 1e6;
        MPI_CHECK(rank, MPI_Bcast(&med, 1, MPI_DOUBLE, a, comm));
    }
    shm_window_close(&w);
    return med;
}
