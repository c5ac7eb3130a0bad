/* The sort-merge join's tuple format, decided from the global sizes and the rank count alone
 * (MPI-free: plan() and `rmabench join --plan` use it for any scale, the run obeys it).
 *
 * Packed (8 B): a range's keys share the range's lower bound, which every rank knows before it
 * packs (the splitters, or the equal widths), so a word holds only the key's offset in its range
 * (thesis 3.4.1's prefix compression of the partitioning bits) and the record id's offset from
 * its relation's first id: offset << rid_bits | rid. It fits when every range can be at most
 * max_width = 2^(word_bits - rid_bits) - 1 keys wide and the ranks' ranges still cover the keys,
 * ranks * max_width >= max_key: the largest word is then (max_width - 1) << rid_bits | (2^rid_bits
 * - 1) < 2^word_bits - 1, never UINT64_MAX, the vector merges' padding. Sampled splitters are moved
 * where a range would be wider (smj_clamp_splitters).
 * Wide (16 B): tuple_t as generated, when the packed format does not fit (e.g. 4096 ranks x 40M at
 * 1:8: range offsets of 26 bits and S record ids of 41 bits need 67 > 64). */
#ifndef RMB_SMJ_FORMAT_H
#define RMB_SMJ_FORMAT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joins/generate.h"

typedef struct {
    bool packed;
    int word_bits;        /* bits of a packed word: 64 (less only with the test knob --pack-bits) */
    int key_bits;         /* bits of the largest key */
    int rid_bits;         /* bits of the larger relation's record id offsets */
    int equal_bits;       /* bits of an equal-width range's width, ceil(max_key / ranks) */
    uint64_t max_key;
    uint64_t max_width;   /* packed: keys one range may span (offsets 0 .. max_width - 1) */
} smj_format;

/* The bits of the larger relation's record id offsets. */
int smj_rid_bits(const workload *w);
/* The format of a join of w's global sizes over `ranks` ranges with words of word_bits (<= 64). */
smj_format smj_format_for(const workload *w, int ranks, int word_bits);
/* Keys each rank samples for the splitters: 4096, fewer at scale so that rank 0 gathers and sorts
 * at most 2^21 keys (16 MiB) in all, never fewer than 64. */
int smj_samples_per_rank(int ranks);
/* The largest received share over the average that the plan allows for: a range of k sampled keys
 * holds a share of the data with a relative standard deviation of about 1/sqrt(k), so 1 + 5/sqrt(k)
 * covers the largest of 10^5 ranges with probability > 0.97; at least 1.25 (key groups). */
double smj_window_slack(int ranks);
/* "8 B packed (...)" or "16 B (...): ... need N > 64", for the run header and the plan. */
void smj_format_describe(const smj_format *f, char *buf, size_t len);

#endif
