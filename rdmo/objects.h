/* The named objects a target exposes to composite remote operations (the paper's abstract data
 * types) and their methods as the target runs them on its own memory. Every rank lays out the same
 * objects at the same offsets of its heap (rdmo_space): the verbs design reaches them with
 * MPI_Compare_and_swap, MPI_Fetch_and_op, MPI_Get, MPI_Put and MPI_Accumulate at those offsets; the
 * rdmo and rpc designs name them by id and the target runs the methods below. MPI-free.
 *
 *   page   a slotted page: a used-bytes word, then records of an 8-byte header (bit 63: valid,
 *          low 32 bits: payload length) and the payload padded to 8 bytes. SlottedAppend.
 *   table  a chained hash table: a pool counter, a head per bucket (entry index + 1, 0: empty),
 *          then entries {key, next (index + 1), a, b}; new entries go to the head of their chain,
 *          so a linked entry's key and next never change. ConditionalGather walks a bucket's chain
 *          and returns the entries with the key; ScatterAndAccumulate finds or inserts each key's
 *          entry and adds 1 to a (a count) and the value to b (a sum).
 *   rows   rows {lock (holder id, 0: free; a 32-bit word in 64 bits), version, data words}.
 *          SignaledRead takes the lock, reads version and data and, unless the caller keeps it,
 *          releases it again; WriteAndSeal writes version and data, then releases the lock: the
 *          seal that marks the write complete. */
#ifndef RMB_RDMO_OBJECTS_H
#define RMB_RDMO_OBJECTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a composite operation answers (the caller sees it). */
typedef enum {
    RDMO_OK = 0,
    RDMO_FULL = 1,        /* the page or the table has no room */
    RDMO_BUSY = 2,        /* SignaledRead: the row stayed locked through every try */
    RDMO_EQUEUE = 3,      /* the target's request queue was full: refused, not run */
    RDMO_ENOOBJ = 4,      /* no object of that id at the target: refused, not run */
    RDMO_ENOMETHOD = 5,   /* the object's type has no such method: refused, not run */
    RDMO_EBOUND = 6,      /* the method reached its bound (a chain longer than it may walk) */
    RDMO_ENOTHOLDER = 7,  /* WriteAndSeal by a caller that does not hold the row's lock */
    RDMO_EPAYLOAD = 8,    /* a request whose payload does not fit the method's format */
    RDMO_STATUSES,
    RDMO_PENDING = 255,   /* a method answers later (rdmo_answer): never on the wire */
} rdmo_status;
extern const char *const rdmo_status_names[]; /* "ok", "full", ..., indexed by rdmo_status */

/* The methods' bounds: what one call may return, take or touch (each method is bounded, as the
 * paper requires of an RDMO method; a slot may bound it further, rdmo_payload_capacity). */
enum { RDMO_GATHER_MAX = 64, RDMO_GATHER_BOUND = 4096, RDMO_SCATTER_MAX = 128, RDMO_ROW_WORDS_MAX = 64 };
/* RDMO_GATHER_BOUND: chain entries one ConditionalGather walks at most (RDMO_EBOUND beyond) */

typedef enum { OBJ_NONE = 0, OBJ_PAGE = 1, OBJ_TABLE = 2, OBJ_ROWS = 3, OBJ_CUSTOM = 4 } rdmo_obj_type;

typedef struct {
    uint16_t id;            /* 1..RDMO_MAX_OBJECTS */
    uint8_t type;           /* rdmo_obj_type */
    uint64_t offset, bytes; /* in the heap, 64-byte aligned */
    uint64_t n1, n2;        /* page: capacity bytes, -; table: buckets, entries; rows: rows, data words */
} rdmo_object;

enum { RDMO_MAX_OBJECTS = 8 };
typedef struct {
    int n;
    rdmo_object obj[RDMO_MAX_OBJECTS];
    uint64_t heap_bytes;
} rdmo_space;

void rdmo_space_init(rdmo_space *s);
/* Each returns the new object's id (0: RDMO_MAX_OBJECTS reached). */
uint16_t rdmo_space_add_page(rdmo_space *s, uint64_t capacity);
uint16_t rdmo_space_add_table(rdmo_space *s, uint64_t buckets, uint64_t entries);
uint16_t rdmo_space_add_rows(rdmo_space *s, uint64_t rows, uint64_t data_words);
uint16_t rdmo_space_add_custom(rdmo_space *s); /* state outside the heap (an operator's own) */
const rdmo_object *rdmo_space_find(const rdmo_space *s, uint16_t id);

/* --- page -------------------------------------------------------------------------------- */
#define RDMO_PAGE_HEADER 64      /* the used word, then the records from here */
#define RDMO_RECORD_VALID (UINT64_C(1) << 63)
static inline uint64_t rdmo_record_bytes(uint32_t len) { return 8 + ((uint64_t)len + 7) / 8 * 8; }
static inline uint64_t rdmo_page_bytes(uint64_t capacity) { return RDMO_PAGE_HEADER + (capacity + 7) / 8 * 8; }
/* Append a record; *offset: its header's offset in the record area. OK or FULL. */
int rdmo_page_append(unsigned char *page, uint64_t capacity, const void *payload, uint32_t len, uint64_t *offset);

/* --- table ------------------------------------------------------------------------------- */
typedef struct {
    uint32_t key, next; /* next: entry index + 1, 0 ends the chain */
    uint64_t a, b;
} rdmo_entry;
_Static_assert(sizeof(rdmo_entry) == 24, "a table entry is 24 bytes");
typedef struct {
    uint32_t key;
    uint64_t value;
} rdmo_pair; /* ScatterAndAccumulate's input, 12 bytes on the wire */
enum { RDMO_PAIR_WIRE = 12, RDMO_MATCH_WIRE = 20 }; /* a match on the wire: key, a, b */
/* Byte offsets in a table object: pool counter at 0, heads from 8, entries from rdmo_table_entries_at. */
static inline uint64_t rdmo_table_entries_at(uint64_t buckets) { return (8 + 4 * buckets + 63) / 64 * 64; }
static inline uint64_t rdmo_table_bytes(uint64_t buckets, uint64_t entries)
{
    return rdmo_table_entries_at(buckets) + entries * sizeof(rdmo_entry);
}
/* The bucket of a key (every design and the checker hash alike). */
static inline uint64_t rdmo_bucket(uint32_t key, uint64_t buckets)
{
    return (((uint64_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) % buckets;
}
/* Insert an entry at the head of its chain (building a table); OK or FULL. */
int rdmo_table_insert(unsigned char *t, uint64_t buckets, uint64_t entries, uint32_t key, uint64_t a, uint64_t b);
/* ScatterAndAccumulate, all pairs in order; OK, or FULL at the first pair without room (the
 * pairs before it counted: *done of them). */
int rdmo_table_accumulate(unsigned char *t, uint64_t buckets, uint64_t entries, const rdmo_pair *p, int n, int *done);
/* ConditionalGather: up to max entries with `key` from its bucket's chain, walking at most bound
 * entries (EBOUND with what was found when the chain is longer). */
int rdmo_table_gather(const unsigned char *t, uint64_t buckets, uint32_t key, int max, int bound, rdmo_entry *out, int *n);

/* --- rows -------------------------------------------------------------------------------- */
static inline uint64_t rdmo_row_bytes(uint64_t data_words) { return 16 + 8 * data_words; }
/* SignaledRead: lock the row for `me` (> 0), copy version and data, release unless keep. OK or BUSY. */
int rdmo_rows_read(unsigned char *rows, uint64_t data_words, uint32_t row, uint32_t me, bool keep, uint64_t *version,
                   uint64_t *data);
/* WriteAndSeal: version and data, then the lock released. OK or ENOTHOLDER. */
int rdmo_rows_write_seal(unsigned char *rows, uint64_t data_words, uint32_t row, uint32_t me, uint64_t version,
                         const uint64_t *data);

#endif
