/* 64-bit words of a rank that its peers add to and only the owner reads and resets: the lock
 * benchmark's 2PC vote and end-of-transaction acknowledgement counters (locking/twopc.h). A peer
 * on the owner's node adds with a C11 atomic (memory_order_release) to the owner's segment of a
 * shared-memory window (rma/shm_window.h); a peer on another node with MPI_Fetch_and_op(MPI_SUM)
 * + MPI_Win_flush to the owner's RMA window. The value is the sum of both words: the owner reads
 * its shared word with an acquire load on every read, and its RMA word the way the library needs
 * (notify_read_own_word) when its pace says so (notify_pace in rma/notify.h), or on every read
 * without a shared window; without an RMA window (all ranks on one node) that read runs MPI's progress engine
 * (MPI_Iprobe) instead. The words carry no payload, so no MPI_Win_sync is needed beside them. */
#ifndef RMB_PEER_WORDS_H
#define RMB_PEER_WORDS_H
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "rma/notify.h"
#include "rma/shm_window.h"

typedef struct {
    MPI_Comm comm;
    int rank, words;
    notify_poll_mode poll;     /* resolved */
    MPI_Win win;               /* RMA words; MPI_WIN_NULL when every rank shares one node's shared window */
    uint64_t *base;
    shm_window shm;            /* shared words (win MPI_WIN_NULL: none) */
    uint64_t *rma_last;        /* [words] RMA words as last read */
    notify_pace pace;          /* when to read the RMA words too (the waiter calls notify_pace_idle) */
} peer_words;

/* Bytes per rank for `words` words (the RMA window and the shared one): for plans. */
uint64_t peer_words_bytes(int words, int windows);

/* Collective over comm: `words` zeroed words on every rank; shm: peers on the node add through
 * shared memory. */
void peer_words_open(peer_words *pw, MPI_Comm comm, int words, notify_poll_mode poll, bool shm);
/* Add v to word w of rank target (returns when the add is visible to target). */
void peer_words_add(peer_words *pw, int target, int w, uint64_t v);
/* My word w (shared + RMA). */
uint64_t peer_words_read(peer_words *pw, int w);
/* notify_spin_polls for waiting on my words (shared words poll faster). */
unsigned peer_words_spin_polls(const peer_words *pw, bool shared_core);
/* Wait until done(my word w, arg), polling as notify_wait does: spinning, then yielding and
 * sleeping (notify_pace_idle; b->yield: the rank shares its core). *value (if not NULL): the word
 * as last read. False when the bound b is hit (the caller reports it). */
bool peer_words_wait(peer_words *pw, int w, bool (*done)(uint64_t value, uint64_t arg), uint64_t arg, poll_bound *b,
                     uint64_t *value);
/* peer_words_wait's condition for a word that peers count up: value >= n. */
bool peer_words_at_least(uint64_t value, uint64_t n);
/* Set my word w to 0 (no peer may be adding to it). */
void peer_words_reset(peer_words *pw, int w);
/* Collective. */
void peer_words_close(peer_words *pw);

#endif
