#include "joins/radix/radix_plan.h"

#include <string.h>

#define AUTO_MAX_LOCAL_BITS 10 /* single-pass fan-out that software write-combining handles well */

int radix_plan_bits(const join_opts *o, int ranks)
{
    if (o->radix_bits > 0) return (int)o->radix_bits;
    int b = 0;
    while ((1 << b) < ranks) b++;
    return b + 3 > 20 ? 20 : b + 3;
}

radix_local_plan radix_plan_local(const join_opts *o, uint64_t max_r_part, const radix_format *f)
{
    int need = radix_local_bits_needed(max_r_part, 8 * f->words, radix_l2_bytes());
    radix_local_plan pl;
    memset(&pl, 0, sizeof pl);
    if (o->passes >= 0) {
        pl.passes = (int)o->passes;
        if (pl.passes == 0) return pl;
        int per = o->local_bits > 0 ? (int)o->local_bits : (need + pl.passes - 1) / pl.passes;
        if (per < 1) per = 1;
        for (int k = 0; k < pl.passes; k++) pl.bits[k] = per;
    } else if (need > 0) {
        int maxb = o->local_bits > 0 ? (int)o->local_bits : AUTO_MAX_LOCAL_BITS;
        pl.passes = (need + maxb - 1) / maxb;
        if (pl.passes > RADIX_MAX_PASSES) pl.passes = RADIX_MAX_PASSES;
        for (int k = 0; k < pl.passes; k++)
            pl.bits[k] = o->local_bits > 0 ? maxb : need / pl.passes + (k < need % pl.passes);
    }
    for (int k = 0; k < pl.passes; k++) {
        if (f->radix_bits + pl.total_bits + pl.bits[k] > 64) pl.bits[k] = 64 - f->radix_bits - pl.total_bits;
        pl.total_bits += pl.bits[k];
    }
    return pl;
}

int radix_plan_sub_bits(const join_opts *o, uint64_t r_total, int bits, const radix_format *f)
{
    const uint64_t np = UINT64_C(1) << bits;
    radix_local_plan lp = radix_plan_local(o, (r_total + np - 1) / np, f);
    if (lp.passes == 0 || (np << lp.bits[0]) > RADIX_SUB_BINS_MAX) return 0;
    return lp.bits[0];
}
