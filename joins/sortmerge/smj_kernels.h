/* The sort-merge join's compute kernels, MPI-free so that calibration can time them on local data.
 *
 * Two tuple formats (chosen by smj_format_for, joins/sortmerge/smj_format.h):
 * - packed, one 64-bit word per tuple: (key - range_base) << rid_bits | (rid - rid_base). Sorting
 *   the words sorts by key (ties by rid), runs and windows hold half the bytes of 16-byte tuples,
 *   and min/max instructions sort them. Values may use all 64 bits but are never UINT64_MAX, which
 *   the vector merges use as padding; AVX2 compares signed, so values that may reach 2^63 take
 *   its _u64 kernels (smj_simd_for_values);
 * - wide, tuple_t (key, rid) as generated: the fallback when a range's key offsets and the record
 *   ids do not fit one word together. Sorted by key only (scalar LSD radix sort of a run by its key
 *   offset, a heap merge), which the matching scan needs; ties in any order. */
#ifndef RMB_SMJ_KERNELS_H
#define RMB_SMJ_KERNELS_H
#include <stddef.h>
#include <stdint.h>

#include "joins/tuple.h"

/* Kernel sets; the values 0-3 match join.h's SIMD_* choices. SMJ_SIMD_AVX2_U64: the AVX2 kernels
 * for packed values that may have bit 63 set (chosen by smj_simd_for_values, never by a flag). */
enum { SMJ_SIMD_AUTO = 0, SMJ_SIMD_AVX512 = 1, SMJ_SIMD_AVX2 = 2, SMJ_SIMD_SCALAR = 3, SMJ_SIMD_AVX2_U64 = 4 };

/* 1 if this build has the kernel set and this CPU can run it (scalar: always). */
int smj_simd_available(int simd);
/* auto -> the best available set; others returned unchanged (check availability first). */
int smj_simd_resolve(int simd);
const char *smj_simd_name(int simd); /* "avx512", "avx2", "scalar" */
/* The kernel set for packed values of a resolved set: u64 = values may be 2^63 or more. */
int smj_simd_for_values(int simd, int u64);

/* Sort n packed values from src into dst (src may equal dst); tmp holds n values of scratch.
 * In cache when n * 16 bytes fit L2. */
void smj_sort_run(const uint64_t *src, size_t n, uint64_t *dst, uint64_t *tmp, int simd);

/* The run sort of --run-sort (join.h run_sort): the network sort above, or LSD radix over the key
 * bits (sort_radix.c) where a run's keys span at most two digits. */
enum { SMJ_RUN_SORT_AUTO = 0, SMJ_RUN_SORT_NETWORK = 1, SMJ_RUN_SORT_RADIX = 2 };
enum { SMJ_RADIX_DIGIT_BITS = 13 };
/* Sort n packed values from src into dst (src may equal dst; tmp: n values of scratch) by the bits
 * from `shift` up (the key offsets; rid_bits below them), stably: equal keys keep their input
 * order, which is full word order where their record ids ascend in the input (the partition keeps
 * input order). Returns the passes (1 or 2), or -1, touching nothing, when the keys span more than
 * 2 * SMJ_RADIX_DIGIT_BITS bits (sort those with smj_sort_run). */
int smj_radix_sort_run(const uint64_t *src, size_t n, uint64_t *dst, uint64_t *tmp, int shift);
/* A run sorted as --run-sort says (run_sort resolved): by smj_radix_sort_run where run_sort is
 * SMJ_RUN_SORT_RADIX and the keys fit it, else by smj_sort_run with simd's kernels. Returns 1
 * when the radix sort took it. */
int smj_sort_run_by(const uint64_t *src, size_t n, uint64_t *dst, uint64_t *tmp, int shift, int run_sort, int simd);
/* --run-sort auto: SMJ_RUN_SORT_NETWORK or _RADIX, whichever sorted a run of `run` words with
 * 24-bit keys faster on this host (simd: the network sort's kernel set). A few milliseconds. */
int smj_run_sort_faster(size_t run, int simd);
/* The run sort alone on this core, in words per second: the best of two rounds over up to 8 runs
 * (at most 2^21 words) of `run` words with key_bits random key bits over ascending record ids, by
 * run_sort (SMJ_RUN_SORT_NETWORK with simd's kernels, or _RADIX; too wide for it: the network
 * sort). 0 without memory or for runs beyond 2^21 words. Tens of milliseconds at 131072 words. */
double smj_run_sort_rate(size_t run, int key_bits, int run_sort, int simd);

/* Merge sorted a[0..na) and b[0..nb) into out (na + nb values, no overlap with the inputs). */
void smj_merge2(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out, int simd);

/* Merge k sorted runs into out with an in-cache merge tree (FIFO buffers of `buffer` values
 * between the 2-way merge nodes). runs[i] / lens[i] must not overlap out. Returns 0, or -1 when
 * the scratch memory cannot be allocated. */
int smj_merge_runs(const uint64_t *const *runs, const size_t *lens, int k, uint64_t *out, size_t buffer, int simd);

/* Sort a sequence that consists of sorted runs (run i: starts[i] .. starts[i] + lens[i] inside
 * data) by merging up to `fanin` runs at a time, ping-ponging between data and scratch (both n
 * values). Returns the array that holds the sorted result (data or scratch) and the number of
 * merge passes in *passes (the thesis' d). NULL when scratch memory for the tree is missing. */
uint64_t *smj_merge_passes(uint64_t *data, uint64_t *scratch, size_t n, const size_t *starts, const size_t *lens,
                           int runs, int fanin, int simd, int *passes);
/* The words of FIFO buffers a merge tree of smj_merge_passes at this fan-in uses; with tree (at
 * least that many words) smj_merge_passes_in takes them from there instead of allocating each tree's. */
size_t smj_merge_tree_words(int fanin);
/* band_runs, bands: the runs come band by band (sort_internal.h smj_run_passes); NULL, 1: one band. */
uint64_t *smj_merge_passes_in(uint64_t *data, uint64_t *scratch, const size_t *starts, const size_t *lens, int runs,
                              const int *band_runs, int bands, int fanin, int simd, int *passes, uint64_t *tree);

/* Matching scan over two packed, sorted relations of one range: counts pairs with equal keys (any
 * N:M) and sums match_term(r_rid, s_rid, key) over them; key_base: the range's lowest key (packed
 * keys are offsets from it); rid_base[0], rid_base[1]: the first record id of R and of S (packed
 * rids are offsets from them). simd: the kernel set (AVX-512, and AVX2 up to 1:2, scan in blocks; match.c). */
void smj_match(const uint64_t *r, size_t rn, const uint64_t *s, size_t sn, int rid_bits, uint64_t key_base,
               const uint64_t rid_base[2], int simd, uint64_t *matches, uint64_t *checksum);

/* --- the wide (16-byte) format: wide.c ---------------------------------------------------------- */
/* Sort n tuples from src into dst by key (src may equal dst); tmp holds n tuples of scratch. */
void smj_wide_sort_run(const tuple_t *src, size_t n, tuple_t *dst, tuple_t *tmp);
/* smj_merge_passes for tuples sorted by key: returns data or scratch, NULL without memory. */
tuple_t *smj_wide_merge_passes(tuple_t *data, tuple_t *scratch, const size_t *starts, const size_t *lens, int runs,
                               const int *band_runs, int bands, int fanin, int *passes);
/* smj_match for tuples sorted by key (keys and record ids as generated). */
void smj_wide_match(const tuple_t *r, size_t rn, const tuple_t *s, size_t sn, uint64_t *matches, uint64_t *checksum);

/* Range boundaries from a sorted key sample: splitters[0 .. parts-2]; part t holds the keys k with
 * splitters[t-1] < k <= splitters[t]. Every part's share of the sample is as close to even as the
 * key groups allow; a key is never split between parts. */
void smj_pick_splitters(const uint64_t *sorted_sample, size_t m, int parts, uint64_t *splitters);
/* Equal-width boundaries over [1, max_key] (the thesis). */
void smj_equal_splitters(uint64_t max_key, int parts, uint64_t *splitters);
/* Moves boundaries as little as needed so that no part spans more than max_width keys of [1,
 * max_key] (the packed format's limit); needs parts * max_width >= max_key. Returns the number of
 * boundaries moved. */
int smj_clamp_splitters(uint64_t *splitters, int parts, uint64_t max_key, uint64_t max_width);
/* The lowest key of part t: 1 for part 0 (keys are at least 1, joins/generate.h), else the
 * previous boundary + 1. */
static inline uint64_t smj_part_base(const uint64_t *splitters, int t) { return t ? splitters[t - 1] + 1 : 1; }

/* The part of key under splitters (parts - 1 of them): the first splitter >= key, i.e. the number
 * of splitters below it. Branch-free (the comparison is a coin flip per tuple, a branch would
 * mispredict half the time). Up to SMJ_PART_COUNT splitters it counts them: independent
 * comparisons, where each level of a binary search waits for the previous one's load, and the
 * partition's scatter cannot compute its next store address (pos[part]++) until the part is known,
 * so counting is several times faster than the search from 3 parts on (docs/measurements.md, "From
 * code comments"). */
enum { SMJ_PART_COUNT = 15 };
static inline int smj_part_of(uint64_t key, const uint64_t *splitters, int parts)
{
    size_t n = (size_t)parts - 1;
    if (n == 0) return 0;
    if (n == 1) return splitters[0] < key;
    if (n <= SMJ_PART_COUNT) {
        int below = 0;
        for (size_t i = 0; i < n; i++) below += splitters[i] < key;
        return below;
    }
    const uint64_t *b = splitters;
    while (n > 1) {
        size_t half = n / 2;
        /* arithmetic, not a select gcc may turn into a branch: keys are random, so that branch
         * mispredicted every other tuple per level (docs/measurements.md, "From code comments") */
        b += half & ((size_t)0 - (size_t)(b[half - 1] < key));
        n -= half;
    }
    return (int)(b - splitters) + (*b < key);
}

/* Many parts (thesis scale: 4096 ranks) make smj_part_of a search of 12 levels, each a load the
 * next depends on, an order of magnitude slower than at 2 parts (docs/measurements.md, "From code
 * comments"), and the partition looks a key up twice. The lookup table splits the keys into buckets
 * by their top bits (at most SMJ_LUT_BITS of them): first[b] is the part of bucket b's lowest key,
 * first[nb] the last part, so a key's part lies in [first[b], first[b + 1]], mostly one part,
 * searched among those splitters alone. A fixed size (256 KiB at most, whatever the rank count);
 * first == NULL: no table (under 16 parts, where smj_part_of counts the splitters, and in the join
 * the table's cache lines would compete with the scatter's). */
enum { SMJ_LUT_BITS = 16, SMJ_LUT_MIN_PARTS = 16 };
typedef struct {
    int shift;       /* bucket of a key: key >> shift (at most nb - 1: a larger key is in the last) */
    uint64_t nb;
    uint32_t *first; /* [nb + 1] */
} smj_range_lut;
/* 0, or -1 without memory; parts < SMJ_LUT_MIN_PARTS: no table (first = NULL). Sized for keys in
 * [0, max_key]; any key is looked up right. */
int smj_range_lut_init(smj_range_lut *l, const uint64_t *splitters, int parts, uint64_t max_key);
void smj_range_lut_free(smj_range_lut *l);
/* The part of key (<= max_key) under splitters: smj_part_of's answer, through the table if any. */
static inline int smj_part_lut(uint64_t key, const uint64_t *splitters, int parts, const smj_range_lut *l)
{
    if (!l->first) return smj_part_of(key, splitters, parts);
    uint64_t b = key >> l->shift;
    b = b < l->nb ? b : l->nb - 1;
    const uint32_t lo = l->first[b], hi = l->first[b + 1];
    return (int)lo + smj_part_of(key, splitters + lo, (int)(hi - lo) + 1);
}

/* Tuples per range (the sort-merge histogram, eq. 3.1): count[0 .. parts-1] over n tuples, through
 * SMJ_COUNT_LANES arrays of counters summed at the end. With few ranges most consecutive keys land
 * on the same counter, and with one array each increment waits for the previous one's store
 * (docs/measurements.md, "From code comments"). Up to SMJ_PART_COUNT
 * splitters without a lookup table the lanes are filled from sums kept in registers instead
 * (splitters.c: count_above). lanes: scratch of SMJ_COUNT_LANES * parts words. */
enum { SMJ_COUNT_LANES = 4 };
void smj_count_ranges(const tuple_t *t, uint64_t n, const uint64_t *splitters, int parts, const smj_range_lut *l,
                      uint64_t *lanes, uint64_t *count);

/* key: the offset from its range's lowest key; rid: the offset from the relation's first record id */
static inline uint64_t smj_pack(uint64_t key, uint64_t rid, int rid_bits) { return key << rid_bits | rid; }

/* One range (one rank): every tuple packed in order, (key << rid_bits) + rid - sub with sub = the
 * range's (lowest key << rid_bits) + the relation's first record id, mod 2^64 (exact: the result
 * fits). No range lookup and no histogram: the sort-merge partition on one rank (P_pack). */
static inline void smj_pack_all(const tuple_t *t, uint64_t n, int rid_bits, uint64_t sub, uint64_t *out)
{
    for (uint64_t i = 0; i < n; i++) out[i] = (t[i].key << rid_bits) + t[i].rid - sub;
}

/* The partition's band scatter (range.c) in two steps where the CPU has AVX-512DQ: a block's
 * parts f = target << lb | band and packed words first (band_avx512.c), then the stores. For up to
 * SMJ_BAND_VEC_PARTS targets, found by counting the splitters below a key (no lookup table). The
 * band of a key at offset o in target t's range: min((o * mul[t]) >> SMJ_BAND_SHIFT, last). */
enum { SMJ_BAND_SHIFT = 57, SMJ_BAND_VEC_PARTS = 16 };
typedef struct {
    int parts, lb, rid_bits; /* targets (<= SMJ_BAND_VEC_PARTS), log2 of the bands */
    uint64_t last;           /* bands - 1 */
    uint64_t spl[SMJ_BAND_VEC_PARTS - 1];
    uint64_t base[SMJ_BAND_VEC_PARTS], mul[SMJ_BAND_VEC_PARTS], sub[SMJ_BAND_VEC_PARTS]; /* per target */
} smj_band_vec;
/* 1 where this build has the kernel and the CPU runs it (AVX-512F and DQ). */
int smj_band_vec_available(void);
/* part[i] and word[i] of the n tuples t[i]; word = (key << rid_bits) + rid - sub[target]. */
void smj_band_words_avx512(const tuple_t *t, size_t n, const smj_band_vec *v, uint64_t *part, uint64_t *word);
/* The same, one tuple at a time: the reference the kernel is tested against. */
static inline void smj_band_words_scalar(const tuple_t *t, size_t n, const smj_band_vec *v, uint64_t *part, uint64_t *word)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t key = t[i].key;
        int tgt = 0;
        for (int s = 0; s + 1 < v->parts; s++) tgt += v->spl[s] < key;
        const uint64_t band = ((key - v->base[tgt]) * v->mul[tgt]) >> SMJ_BAND_SHIFT;
        part[i] = (uint64_t)tgt << v->lb | (band < v->last ? band : v->last);
        word[i] = (key << v->rid_bits) + t[i].rid - v->sub[tgt];
    }
}

/* Default run length (tuples): a run, its sorted copy and the sort's scratch fit L2. */
size_t smj_default_run_size(void);

#endif
