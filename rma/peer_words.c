#include "rma/peer_words.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/context.h"
#include "rma/window.h"

uint64_t peer_words_bytes(int words, int windows)
{
    return (uint64_t)windows * rma_round_size((uint64_t)words * sizeof(uint64_t));
}

void peer_words_open(peer_words *pw, MPI_Comm comm, int words, notify_poll_mode poll, bool shm)
{
    memset(pw, 0, sizeof *pw);
    pw->comm = comm;
    pw->words = words;
    pw->poll = notify_poll_resolve(poll);
    pw->win = pw->shm.win = MPI_WIN_NULL;
    MPI_Comm_rank(comm, &pw->rank);
    uint64_t bytes = peer_words_bytes(words, 1);
    if (shm) shm_window_open(&pw->shm, comm, bytes, MPI_INFO_NULL);
    if (!shm || shm_window_off_node(&pw->shm, comm))
        pw->base = rma_locked_window_open(comm, pw->rank, bytes, MPI_INFO_NULL, false, &pw->win);
    pw->rma_last = calloc((size_t)words, sizeof *pw->rma_last);
    if (!pw->rma_last) {
        fprintf(stderr, "rmabench: rank %d: out of memory for %d counter words\n", pw->rank, words);
        abort();
    }
    MPI_CHECK(pw->rank, MPI_Barrier(comm));
}

void peer_words_add(peer_words *pw, int target, int w, uint64_t v)
{
    unsigned char *seg = shm_window_peer(&pw->shm, target);
    if (seg) {
        atomic_fetch_add_explicit(shm_window_word(seg, w), v, memory_order_release);
        return;
    }
    uint64_t old = 0;
    blocking_begin("MPI_Fetch_and_op + MPI_Win_flush of a counter word", target);
    MPI_CHECK(pw->rank, MPI_Fetch_and_op(&v, &old, MPI_UINT64_T, target, (MPI_Aint)w * 8, MPI_SUM, pw->win));
    MPI_CHECK(pw->rank, MPI_Win_flush(target, pw->win));
    blocking_end();
}

uint64_t peer_words_read(peer_words *pw, int w)
{
    uint64_t v = 0;
    bool now = pw->shm.win == MPI_WIN_NULL || notify_pace_due(&pw->pace);
    if (pw->shm.win != MPI_WIN_NULL) v = atomic_load_explicit(shm_window_word(pw->shm.base, w), memory_order_acquire);
    if (now && pw->win != MPI_WIN_NULL) {
        pw->rma_last[w] = notify_read_own_word(pw->win, pw->comm, pw->rank, pw->base + w, (MPI_Aint)w * 8, pw->poll);
    } else if (now) { /* no RMA words: keep the library's other one-sided traffic moving */
        int flag = 0;
        MPI_CHECK(pw->rank, MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, pw->comm, &flag, MPI_STATUS_IGNORE));
    }
    return v + pw->rma_last[w];
}

bool peer_words_wait(peer_words *pw, int w, bool (*done)(uint64_t value, uint64_t arg), uint64_t arg, poll_bound *b,
                     uint64_t *value)
{
    unsigned idle = 0, spin = peer_words_spin_polls(pw, b->yield);
    const bool yield = b->yield;
    b->yield = false; /* notify_pace_idle does the backing off */
    bool ok = true;
    uint64_t v;
    while (!done(v = peer_words_read(pw, w), arg) && (ok = poll_continue(b))) notify_pace_idle(&pw->pace, &idle, spin);
    b->yield = yield;
    if (value) *value = v;
    return ok;
}

bool peer_words_at_least(uint64_t value, uint64_t n) { return value >= n; }

unsigned peer_words_spin_polls(const peer_words *pw, bool shared_core)
{
    if (pw->shm.win != MPI_WIN_NULL && !shared_core) return NOTIFY_SHM_SPIN_POLLS;
    return notify_spin_polls(pw->poll, shared_core);
}

void peer_words_reset(peer_words *pw, int w)
{
    if (pw->shm.win != MPI_WIN_NULL) atomic_store_explicit(shm_window_word(pw->shm.base, w), 0, memory_order_relaxed);
    if (pw->win != MPI_WIN_NULL) {
        /* written by atomics, so reset by one too rather than by a store some libraries would not
         * order with them */
        uint64_t zero = 0, old = 0;
        MPI_CHECK(pw->rank, MPI_Fetch_and_op(&zero, &old, MPI_UINT64_T, pw->rank, (MPI_Aint)w * 8, MPI_REPLACE, pw->win));
        MPI_CHECK(pw->rank, MPI_Win_flush(pw->rank, pw->win));
    }
    pw->rma_last[w] = 0;
}

void peer_words_close(peer_words *pw)
{
    MPI_CHECK(pw->rank, MPI_Barrier(pw->comm));
    shm_window_close(&pw->shm);
    if (pw->win != MPI_WIN_NULL) {
        MPI_CHECK(pw->rank, MPI_Win_unlock_all(pw->win));
        MPI_CHECK(pw->rank, MPI_Win_free(&pw->win));
    }
    free(pw->rma_last);
}
