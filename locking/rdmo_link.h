/* --transport rdmo: the lock table's messages as composite remote operations (rdmo/rdmo.h, design
 * rdmo: a notified put into the server's request queue, one back) on the server's lock object,
 * whose one method takes every message of the protocol:
 *   a lock request (MSG_LOCK, or MSG_END_LOCK) names the bytes of the locked row it reads: the
 *   answer is the grant and, when granted, the row image (SignaledRead-style: the lock and the read
 *   of the row it guards in one round trip, the data phase's MPI_Get gone);
 *   the end of a committed transaction (MSG_END, or the end in MSG_END_LOCK) carries the images of
 *   the rows it wrote on that server: the server writes them, then releases the locks
 *   (WriteAndSeal: the write and the release in one round trip, the data phase's MPI_Put gone), and
 *   its answer is the acknowledgement (no acknowledgement word); rows beyond one request go ahead
 *   in requests of their own (MSG_WRITE);
 *   2PC is unchanged: a vote request (MSG_VOTE) is answered once the server has voted on the
 *   agent's vote word (locking/twopc.h), which the agent polls as with every transport.
 * Writes happen at commit, after the vote, so an abort has nothing to undo. Requests on the wire:
 * lock_msg, u32 bytes of the row to read, u16 rows written, then per row u64 lock id, u16 bytes
 * and the image; a request the server cannot parse aborts the run (the agents build them). */
#ifndef RMB_LOCK_RDMO_LINK_H
#define RMB_LOCK_RDMO_LINK_H
#include <stdbool.h>
#include <stdint.h>

#include "locking/lock.h"
#include "rdmo/rdmo.h"

#define LOCK_RDMO_SLOT_BYTES 4096 /* a request: a lock message and a few TPC-C rows (stock: 306 B) */
enum { LOCK_RDMO_METHOD = RDMO_METHOD_USER };

/* The endpoint's configuration of a rank: servers serve (their loop is the handler), an agent has
 * `calls` requests in flight at most (votes and ends to every server of a transaction at once).
 * MPI-free, for the plan. */
rdmo_config lock_rdmo_config(const lock_opts *o, bool server, int calls, bool yield);
/* The calls an agent keeps: one per server a transaction may contact. */
int lock_rdmo_calls(int nservers, int max_locks_per_txn);
/* The lock object's layout (no heap: the lock table lives in the server's own memory). */
void lock_rdmo_space(rdmo_space *s);

/* Collective: the endpoint (servers: the tokens and read sizes per agent). */
void lock_rdmo_open(lock_run *run, int calls);
void lock_rdmo_close(lock_run *run);

/* --- agent ------------------------------------------------------------------------------------- */
/* The rows a transaction wrote (staged[i]: request i's row image, at run->rows + i * TPCC_ROW_STRIDE). */
typedef struct {
    const lock_request *reqs;
    const uint8_t *staged;
    int n;
} lock_rdmo_writes;
/* The bytes of request r's row the grant brings: TPC-C's row image under S or X, a bank balance. */
unsigned lock_rdmo_read_bytes(const lock_run *run, const lock_request *r);
/* Send m to the server at server_rank, with read_bytes of its row to bring and the rows of w that
 * belong to that server (w may be NULL): rows beyond one request first, each in its own request
 * waited for. Returns the call; bytes written are added to *written (may be NULL). */
int lock_rdmo_send(lock_run *run, int server_rank, const lock_msg *m, unsigned read_bytes, const lock_rdmo_writes *w,
                   uint64_t *written);
/* Wait for the call's answer: the lock response (MSG_LOCK, MSG_END_LOCK) into resp and its row into
 * row (NULL: none expected); the other messages' answers carry nothing. */
void lock_rdmo_wait(lock_run *run, int call, lock_msg *resp, unsigned char *row, unsigned row_cap);

/* --- server ------------------------------------------------------------------------------------ */
/* A request taken by the lock object's method: the message into m, the agent's token and read size
 * kept, the rows written. False for MSG_WRITE (answered here: nothing else to do). */
bool lock_rdmo_take(lock_run *run, const rdmo_token *t, const unsigned char *req, int len, lock_msg *m);
/* The answer to agent's lock request: resp and, when granted and asked for, the row. */
void lock_rdmo_answer(lock_run *run, uint32_t agent, const lock_msg *resp);
/* The answer to a request that needs none beyond its arrival (an end, a vote, the agent's last). */
void lock_rdmo_ack(lock_run *run, uint32_t agent);

#endif
