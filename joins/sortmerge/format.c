/* The sort-merge join's tuple format decision (smj_format.h). MPI-free. */
#include <math.h>
#include <stdio.h>

#include "joins/sortmerge/smj_format.h"

int smj_rid_bits(const workload *w)
{
    uint64_t max_rid = w->s_total > w->r_total ? w->s_total : w->r_total;
    return bits_for(max_rid > 1 ? max_rid - 1 : 1);
}

smj_format smj_format_for(const workload *w, int ranks, int word_bits)
{
    smj_format f = {0};
    f.word_bits = word_bits;
    f.max_key = workload_max_key(w);
    f.key_bits = bits_for(f.max_key);
    f.rid_bits = smj_rid_bits(w);
    uint64_t equal_width = f.max_key / (uint64_t)ranks + (f.max_key % (uint64_t)ranks != 0);
    f.equal_bits = bits_for(equal_width ? equal_width : 1);
    int offset_bits = word_bits - f.rid_bits;
    if (offset_bits <= 0) return f;
    /* offsets below 2^key_bits - 1 already leave the all-ones word unused: no range limit */
    f.max_width = offset_bits >= f.key_bits ? f.max_key : (UINT64_C(1) << offset_bits) - 1;
    f.packed = f.max_width >= equal_width;
    return f;
}

void smj_format_describe(const smj_format *f, char *buf, size_t len)
{
    if (f->packed)
        snprintf(buf, len, "8 B packed (key offset in its range %d + rid %d bits; keys %d bits%s)",
                 f->max_width == f->max_key ? f->key_bits : bits_for(f->max_width), f->rid_bits, f->key_bits,
                 f->word_bits < 64 ? ", test word width" : "");
    else
        snprintf(buf, len, "16 B (key and rid 8 B each): range key offsets of %d and rids of %d bits need %d > %d",
                 f->equal_bits, f->rid_bits, f->equal_bits + f->rid_bits, f->word_bits);
}

int smj_samples_per_rank(int ranks)
{
    int k = (1 << 21) / ranks;
    return k > 4096 ? 4096 : k < 64 ? 64 : k;
}

double smj_window_slack(int ranks)
{
    double s = 1 + 5 / sqrt((double)smj_samples_per_rank(ranks));
    return s < 1.25 ? 1.25 : s;
}
