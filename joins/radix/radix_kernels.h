/* The radix hash join's compute kernels, MPI-free, so that tests and the calibration
 * (`rmabench calibrate`) can run and time them on local data.
 *
 * Items: after the network pass a relation is an array of 64-bit words holding either
 *   - packed tuples (1 word, the default when they fit): ((key >> radix_bits) << rid_bits) | (rid - rid_base). The
 *     network radix bits are implied by the partition a tuple sits in, so dropping them loses
 *     nothing; a relation's record ids are a known range (joins/generate.h), so storing offsets from
 *     its first (frame of reference) keeps rid_bits at the bits of the larger relation's size;
 *   - plain tuples (2 words): key, rid (tuple_t).
 * Every kernel reads the radix of an item as (word0 >> shift) & mask; radix_key_shift() maps an
 * original key bit to that shift for a format. */
#ifndef RMB_RADIX_KERNELS_H
#define RMB_RADIX_KERNELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "joins/generate.h"
#include "joins/tuple.h"

typedef struct {
    int words;      /* 1 = packed key|rid, 2 = tuple_t */
    int radix_bits; /* network radix bits (dropped from packed keys) */
    int rid_bits;   /* packed: low bits holding the rid's offset from rid_base */
    uint64_t rid_base[2]; /* packed: first record id of R [0] and S [1]; plain tuples keep the rids */
} radix_format;

/* The format of a join of workload w: packed or plain items (as the plan decided), network radix bits. */
radix_format radix_format_for(const workload *w, bool packed, int radix_bits);

/* Shift (in word0) of original key bit `bit` (bit >= radix_bits for packed items); capped at 63 so a
 * shift is always defined (partitioning by a constant bit stays correct, just unbalanced). */
static inline int radix_key_shift(const radix_format *f, int bit)
{
    int s = f->words == 1 ? bit - f->radix_bits + f->rid_bits : bit;
    return s > 63 ? 63 : s < 0 ? 0 : s;
}

/* --- compression (16 -> 8 bytes) ------------------------------------------------------------- */
/* Packing holds keys < 2^key_bits and rid offsets < 2^rid_bits in a word of word_bits (64; less
 * only in tests, --pack-bits) once radix_bits low key bits are dropped. No value is reserved: every
 * word is a tuple. `rid` below is the offset from the relation's rid_base. */
static inline bool radix_compress_fits(int key_bits, int radix_bits, int rid_bits, int word_bits)
{
    int rest = key_bits - radix_bits;
    if (rest < 0) rest = 0;
    return rid_bits >= 0 && rid_bits <= word_bits && rest + rid_bits <= word_bits;
}
static inline uint64_t radix_pack(uint64_t key, uint64_t rid, int radix_bits, int rid_bits)
{
    return rid_bits >= 64 ? rid : ((key >> radix_bits) << rid_bits) | rid;
}
static inline uint64_t radix_unpack_rid(uint64_t w, int rid_bits)
{
    return rid_bits >= 64 ? w : w & ((UINT64_C(1) << rid_bits) - 1);
}
/* The key, given the network partition it came from (its low radix_bits bits). */
static inline uint64_t radix_unpack_key(uint64_t w, uint64_t partition, int radix_bits, int rid_bits)
{
    uint64_t rest = rid_bits >= 64 ? 0 : w >> rid_bits;
    return (rest << radix_bits) | partition;
}

/* --- histogram ------------------------------------------------------------------------------ */
/* hist[key & (2^bits - 1)] += 1 over n input tuples (hist is not cleared). */
void radix_histogram_tuples(const tuple_t *t, uint64_t n, int bits, uint64_t *hist);
/* hist[(word0 >> shift) & (2^bits - 1)] += 1 over n items of `words` words. */
void radix_histogram_items(const uint64_t *items, uint64_t n, int words, int shift, int bits, uint64_t *hist);

/* --- one partitioning pass ------------------------------------------------------------------- */
/* Software write-combining state: RADIX_SWWC_RING cache lines per partition plus the write offsets;
 * reused across passes (allocate once for the largest fan-out). The lines are a ring: full lines
 * are written out at the end of a block of RADIX_SWWC_BLOCK(L) items (L items per line), not when
 * they fill. Within a block a partition completes at most 1 + (7L - 1) / L = 7 lines and fills an
 * 8th, so none is overwritten before it is written out, and the scatter loop has no branch on
 * whether a line is full (taken once in L items at random, it would be mispredicted about that
 * often, a large share of a pass's time). */
#define RADIX_SWWC_RING 8
#define RADIX_SWWC_BLOCK(L) (7 * (L))
/* Lines per partition of the network pass: the ring up to 2^10 partitions (cache-sized, the local
 * passes' fan-out), one line beyond, written as soon as it fills (blocks of one tuple), so that the
 * staging at thesis scale (2^15 partitions) stays one line per partition. */
static inline uint64_t radix_net_ring(uint64_t nparts) { return nparts <= 1024 ? RADIX_SWWC_RING : 1; }
/* The staged line holding item q of partition p, with `ring` lines (a power of two) of L items
 * per partition: the one staging layout of the local and the network passes. */
static inline const uint64_t *radix_swwc_line(const uint64_t *lines, uint64_t p, uint64_t q, uint64_t L, uint64_t ring)
{
    return lines + (p * ring + ((q / L) & (ring - 1))) * 8;
}
/* Where a local pass writes the full staged line `line`, whose last item is staging index q of
 * partition p (W words an item, m = the slot of out[0] in its cache line): the output address of a
 * whole line, to stream; NULL when it is the partition's first line, which may begin before the
 * partition (its items inside are copied here with plain stores), or when it would end past the
 * partition (bounds that undercount it: counted in *bad, nothing written). */
static inline uint64_t *radix_full_line_dst(const uint64_t *line, uint64_t q, uint64_t p, uint64_t m, int W, uint64_t *out,
                                            const uint64_t *bounds, uint64_t *bad)
{
    const uint64_t L = 8 / (uint64_t)W, end = q + 1 - m, valid = end - bounds[p];
    if (end > bounds[p + 1]) {
        ++*bad;
        return NULL;
    }
    if (valid >= L) return out + (end - L) * (uint64_t)W;
    memcpy(out + bounds[p] * (uint64_t)W, line + (L - valid) * (uint64_t)W, valid * (uint64_t)W * sizeof(uint64_t));
    return NULL;
}
/* Passes of up to 2^RADIX_DIRECT_MAX_BITS partitions store every item straight at its place in the
 * output (plain stores, the line 256 bytes ahead of it prefetched for writing), with no staging:
 * at such fan-outs the output lines being filled stay in L1 and the prefetches hide the
 * read-for-ownership, and the loop does a third of the staged one's work (no staging store, no list
 * of completed lines, no write-out); beyond that fan-out the staged loop wins
 * (docs/measurements.md, "From code comments").
 * The network pass does the same at its fan-out (network_partition.c: network_direct_w, into
 * windows and put buffers). RADIX_SCATTER_* (--scatter): auto takes direct up to this fan-out. */
#define RADIX_DIRECT_MAX_BITS 7
enum { RADIX_SCATTER_AUTO, RADIX_SCATTER_DIRECT, RADIX_SCATTER_STAGED };
/* The fan-out bits up to which a pass scatters directly under --scatter `mode`. */
static inline int radix_direct_bits(int mode)
{
    return mode == RADIX_SCATTER_DIRECT ? 64 : mode == RADIX_SCATTER_STAGED ? -1 : RADIX_DIRECT_MAX_BITS;
}
/* Whether a pass of 2^bits partitions scatters directly, given radix_direct_bits: the one rule of
 * the passes, the plan's memory and the names that report them. */
static inline bool radix_pass_direct(int bits, int direct_bits) { return bits <= direct_bits; }
typedef struct {
    int max_bits;
    int direct_bits;   /* passes of up to 2^direct_bits partitions scatter directly (radix_direct_bits;
                        * init: RADIX_DIRECT_MAX_BITS); larger ones staged */
    uint64_t *lines;   /* 2^max_bits x RADIX_SWWC_RING lines of 8 words, 64-byte aligned */
    uint64_t *off;     /* 2^max_bits write offsets */
    int simd;          /* 1: 8-byte items go through the AVX-512 loop (scatter_avx512.c); init: where
                        * the CPU has it (radix_avx512_available), callers may clear it */
} radix_swwc;
int radix_swwc_init(radix_swwc *ws, int max_bits); /* 0 or -1 (no memory) */
/* The radix join's AVX-512 kernels (scatter_avx512.c, probe_avx512.c) need AVX512F, CD, DQ and
 * VPOPCNTDQ, detected at run time; never in a build with -Dsimd=scalar. */
int radix_avx512_available(void);
/* The AVX-512 scatter loop: one block of RADIX_SWWC_BLOCK(8) 8-byte items, as the scalar loop of
 * local_partition.c does it. */
uint64_t radix_scatter_block_avx512(const uint64_t *in, int shift, uint64_t mask, uint64_t *off, uint64_t *lines,
                                    uint64_t *fq, uint64_t *fp);
/* The write-out of the nf full lines that loop listed (fq, fp; 8-byte items), each whole line in
 * one 64-byte non-temporal store (the portable radix_stream_line issues four 16-byte ones, which
 * is slower; docs/measurements.md, "From code comments"); returns the lines past
 * their partition (radix_full_line_dst). */
uint64_t radix_write_lines_avx512(const uint64_t *fq, const uint64_t *fp, uint64_t nf, uint64_t m, const uint64_t *lines,
                                  uint64_t *out, const uint64_t *bounds);
/* The network pass's: RADIX_SWWC_BLOCK(8) tuples packed (radix_pack, plus `add`: the rids'
 * offset) and staged by their low key bits (mask), its offsets and lines those of 2^10 partitions
 * or fewer (radix_net_ring: RADIX_SWWC_RING lines each). */
uint64_t radix_pack_block_avx512(const tuple_t *in, int radix_bits, int rid_bits, uint64_t add, uint64_t mask,
                                 uint64_t *off, uint64_t *lines, uint64_t *fq, uint64_t *fp);
void radix_swwc_free(radix_swwc *ws);

/* --simd auto (kernel_pick.c): which AVX-512 kernels run faster than their scalar twins on this
 * host, timed on a small sample (a few ms): RADIX_SIMD_SCATTER (the passes' scatter and the network
 * pass's pack), RADIX_SIMD_PROBE; 0 without AVX-512. radix_simd_name: "scalar", "avx512-scatter",
 * "avx512-probe" or "avx512" (both). */
enum { RADIX_SIMD_SCATTER = 1, RADIX_SIMD_PROBE = 2 };
unsigned radix_simd_faster(void);
/* Build + probe alone on this core, in R and S items per second: the best of 10 over the sample
 * radix_simd_faster times (leaves of an L2's share, distinct keys, 1:1, packed), with the AVX-512
 * probe where probe_simd is set and the CPU has it. 0 without memory. A few milliseconds. */
double radix_build_probe_rate(int probe_simd);
const char *radix_simd_name(unsigned mask);

/* Scatter n items of `words` words from `in` to `out` (n items, out-of-place) by
 * (word0 >> shift) & (2^bits - 1); bounds[0..2^bits] receive the partition starts (item indices
 * into out, bounds[2^bits] = n). Stable within a partition. out must be 8*words-byte aligned. */
void radix_partition_pass(const uint64_t *in, uint64_t n, int words, int shift, int bits, uint64_t *out,
                          uint64_t *bounds, radix_swwc *ws);
/* The bounds a pass over these items takes: their histogram's prefix sums (bounds[2^bits] = n). */
void radix_pass_bounds(const uint64_t *in, uint64_t n, int words, int shift, int bits, uint64_t *bounds);
/* The same pass with bounds[0..2^bits] given (the prefix sums of its items' histogram): the
 * scatter alone, as the network pass does it once the histogram phase has counted (calibrate's
 * P_partition, eq. 3.3-3.6; the histogram is eq. 3.1's P_scan); direct or staged by ws->direct_bits.
 * Returns 0, or -1 when a partition held more or fewer items than its bounds: the output is then
 * not the partitioned items, and nothing was written outside out[0, n) (the staged loop writes
 * nothing outside a partition's own range either; the direct one may, into a neighbour's). */
int radix_scatter_pass(const uint64_t *in, uint64_t n, int words, int shift, int bits, uint64_t *out,
                        const uint64_t *bounds, radix_swwc *ws);

/* --- build + probe one partition ------------------------------------------------------------- */
/* Bucket-chained hash table (Balkesen et al.): heads[hash] = 1 + index of the last R item with that
 * hash, next[i] = 1 + index of the previous one. Sized for the largest R partition.
 * Packed items first try a table of one item per bucket (direct[hash] = the R item, an empty
 * bucket holding a word of another hash, which matches no S item of this one): where no two R
 * items of a leaf share a hash, as with a key column of distinct values partitioned on its low
 * bits, a probe is one load and one compare, no head, link or chain. The build sees a shared hash
 * and then builds the chained table instead (build_probe.c). */
typedef struct {
    uint32_t *heads, *next;
    uint64_t head_cap, next_cap;
    uint64_t *direct;  /* head_cap words */
    int simd;          /* 1: packed S items probe 8 at a time in AVX-512 (probe_avx512.c); 0 (zeroed) scalar */
    /* memory to carve heads and next from before allocating (dead input, already mapped: no fresh
     * pages); arena_used: the most words of it taken. NULL: allocate. */
    uint32_t *arena;
    uint64_t arena_words, arena_used;
} radix_table;
int radix_table_reserve(radix_table *t, uint64_t r_n); /* 0 or -1 (no memory) */
void radix_table_free(radix_table *t);
uint64_t radix_table_bytes(uint64_t r_n);              /* memory for a partition of r_n items */

/* The AVX-512 probe of 8-byte items (probe_avx512.c): the first s_n rounded down to 8 S items against
 * a built table (heads, next of nb = mask + 1 buckets); adds matches and checksum terms as
 * build_probe.c's scalar loop does (the caller passes its per-partition constants). Returns the
 * items probed. */
typedef struct {
    int hash_shift, rid_bits, radix_bits;
    uint64_t mask, keymask, khi_mul, pre0;
    uint64_t part, rid_base[2]; /* read by the mutant tests/mutants/radix_swap_rids.patch */
} radix_probe_consts;
uint64_t radix_probe_avx512(const uint64_t *r, const uint64_t *s, uint64_t s_n, const radix_probe_consts *k,
                            const uint32_t *heads, const uint32_t *next, uint64_t *matches, uint64_t *checksum);
/* The same over the one-item buckets (radix_table.direct, mask + 1 of them). */
uint64_t radix_probe_direct_avx512(const uint64_t *s, uint64_t s_n, const radix_probe_consts *k, const uint64_t *direct,
                                   uint64_t *matches, uint64_t *checksum);

/* Join one partition pair of network partition `part` (the keys' low radix_bits bits, which packed
 * items lack): every S item against every R item with an equal key (R keys need not be unique).
 * hash_shift = radix_key_shift() of the first key bit not used by partitioning. Adds the number of
 * matched pairs and the sum of match_term(r_rid, s_rid, key) to *matches, *checksum.
 * r_n must fit in 32 bits. */
void radix_build_probe(const uint64_t *r, uint64_t r_n, const uint64_t *s, uint64_t s_n, const radix_format *f,
                       uint64_t part, int hash_shift, radix_table *t, uint64_t *matches, uint64_t *checksum);
/* Join every leaf of one locally partitioned network partition: leaf i holds R items
 * [r_bounds[i], r_bounds[i+1]) and S items [s_bounds[i], s_bounds[i+1]) (in items of f->words words).
 * Grows the table to the largest R leaf first. At most s_cap S items are probed per leaf (UINT64_MAX:
 * all; calibration times the build alone with 1). Returns 0, or -1 when the table cannot grow. */
int radix_build_probe_leaves(const uint64_t *r, const uint64_t *r_bounds, const uint64_t *s, const uint64_t *s_bounds,
                             uint64_t leaves, uint64_t s_cap, const radix_format *f, uint64_t part, int hash_shift,
                             radix_table *t, uint64_t *matches, uint64_t *checksum);

/* --- local partitioning plan ----------------------------------------------------------------- */
/* Bits below which a partition of r_n R items (item_bytes each) plus its hash table fits in half of
 * l2_bytes; returns total local bits. */
int radix_local_bits_needed(uint64_t r_n, int item_bytes, uint64_t l2_bytes);
/* L2 size of this CPU (sysconf), 1 MiB when unknown. */
uint64_t radix_l2_bytes(void);

/* Non-temporal copy of one 64-byte line (src and dst 64-byte aligned): the partitioned output is
 * not read again soon, so it bypasses the cache and skips the read-for-ownership. */
#if defined(__x86_64__)
#include <emmintrin.h>
static inline void radix_stream_line(uint64_t *dst, const uint64_t *src)
{
    __m128i *d = (__m128i *)(void *)dst;
    const __m128i *s = (const __m128i *)(const void *)src;
    _mm_stream_si128(d, _mm_load_si128(s));
    _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
    _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
    _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
}
/* The same, with the line's last 16 bytes given in registers: they were just stored, and loading
 * them back as one 16-byte word would stall on store-to-load forwarding. */
static inline void radix_stream_line_last(uint64_t *dst, const uint64_t *src, uint64_t w6, uint64_t w7)
{
    __m128i *d = (__m128i *)(void *)dst;
    const __m128i *s = (const __m128i *)(const void *)src;
    _mm_stream_si128(d, _mm_load_si128(s));
    _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
    _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
    _mm_stream_si128(d + 3, _mm_set_epi64x((long long)w7, (long long)w6));
}
static inline void radix_stream_fence(void) { _mm_sfence(); }
#else
static inline void radix_stream_line_last(uint64_t *dst, const uint64_t *src, uint64_t w6, uint64_t w7)
{
    for (int i = 0; i < 6; i++) dst[i] = src[i];
    dst[6] = w6;
    dst[7] = w7;
}
static inline void radix_stream_line(uint64_t *dst, const uint64_t *src)
{
    for (int i = 0; i < 8; i++) dst[i] = src[i];
}
static inline void radix_stream_fence(void) {}
#endif

#endif
