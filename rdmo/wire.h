/* A request or an answer of the rdmo design travels as one MPI_Accumulate(MPI_REPLACE) of 64-bit
 * words into a slot of the receiver's window. MPI makes an accumulate atomic per element of its
 * datatype, not as a whole (MPI-4.1 §12.7.1), and orders accumulates from one origin only where
 * they overlap (§12.7.2): a flag word written after the payload would need a flush between them,
 * a second round trip. So every word carries the message's stamp in its top byte and 7 bytes of
 * the message below it: the receiver knows the message is complete when every word of it shows
 * the stamp it expects next for that slot. A sender writes its slot again only after the answer to
 * its previous message came (one message in flight per slot), so a word shows either the stamp of
 * the message before or the one expected; stamps run 1..255 and a zeroed slot shows none of them.
 * The first word holds the header (rdmo_hdr), whose len says how many words follow. MPI-free. */
#ifndef RMB_RDMO_WIRE_H
#define RMB_RDMO_WIRE_H
#include <stdbool.h>
#include <stdint.h>

#define RDMO_WORD_PAYLOAD 7 /* message bytes per 64-bit word: the top byte is the stamp */

/* The header of every message (8 bytes: the first word holds its first 7 and one payload byte
 * less than a word would; len is in the first word). */
typedef struct {
    uint16_t obj;    /* the named object at the target (rdmo/objects.h) */
    uint8_t method;  /* a method registered for the object's type */
    uint8_t status;  /* answers: rdmo_status */
    uint16_t len;    /* payload bytes after the header */
    uint8_t rslot;   /* requests: the origin's answer slot */
    uint8_t astamp;  /* requests: the stamp the answer carries (the origin's answer slot counts its own:
                      * answers from different targets arrive there in turn) */
} rdmo_hdr;
_Static_assert(sizeof(rdmo_hdr) == 8, "the header is 8 bytes");

static inline int rdmo_wire_words(int bytes) { return (bytes + RDMO_WORD_PAYLOAD - 1) / RDMO_WORD_PAYLOAD; }
/* The largest message (header included) a slot of slot_bytes takes. */
static inline int rdmo_wire_capacity(int slot_bytes) { return slot_bytes / 8 * RDMO_WORD_PAYLOAD; }
/* The next stamp after s: 1..255, never 0 (a zeroed slot). */
static inline uint8_t rdmo_stamp_next(uint8_t s) { return (uint8_t)(s == 255 ? 1 : s + 1); }

/* bytes[0..n) into rdmo_wire_words(n) words, each stamped. */
void rdmo_wire_pack(uint8_t stamp, const void *bytes, int n, uint64_t *words);
/* Whether slot (capacity max_words) holds a complete message stamped `stamp`: word 0 and as many
 * more as its header's len needs. Loads are atomic per word (the words change under the reader). */
bool rdmo_wire_complete(const uint64_t *slot, int max_words, uint8_t stamp);
/* The message of a complete slot into bytes (at most cap bytes); returns its length (header
 * included), or -1 when its header claims more than cap or the slot holds. */
int rdmo_wire_unpack(const uint64_t *slot, int max_words, void *bytes, int cap);

#endif
