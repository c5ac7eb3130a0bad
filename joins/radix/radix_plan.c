#include "joins/radix/radix_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "joins/radix/exchange.h"
#include "joins/radix/radix_kernels.h"
#include "bench/memory.h"
#include "rma/putbuf.h"

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

static int check(const join_opts *o, const workload *w, int ranks, char *err, size_t errlen)
{
    int b = radix_plan_bits(o, ranks);
    if ((UINT64_C(1) << b) < (uint64_t)ranks) {
        snprintf(err, errlen, "--radix-bits: %d bits give %" PRIu64 " partitions for %d ranks: every rank needs one", b,
                 UINT64_C(1) << b, ranks);
        return -1;
    }
    if (o->local_bits > 0 && o->passes > 0 && b + o->local_bits * o->passes > 64) {
        snprintf(err, errlen, "--local-bits: %d radix bits + %" PRId64 " passes x %" PRId64 " bits exceed the 64 key bits",
                 b, o->passes, o->local_bits);
        return -1;
    }
    if (o->simd == SIMD_AVX512 && !radix_avx512_available()) {
        snprintf(err, errlen, "--simd: the radix join's avx512 kernels are not available here (CPU without AVX512F/CD/DQ/VPOPCNTDQ, or built with -Dsimd=scalar)");
        return -1;
    }
    if (o->passes == 0 && (w->r_total >> b) > UINT32_MAX / 2) {
        snprintf(err, errlen, "--passes: 0 passes leave partitions of ~%" PRIu64 " R tuples: the hash table holds < 2^31",
                 w->r_total >> b);
        return -1;
    }
    return 0;
}

/* The tuple format: packed into 8 bytes when the key less the radix bits and the rid offset fit a
 * word; otherwise 16 bytes by default, refused when --compress asked for packing; --no-compress:
 * 16 bytes. Fills the plan's format string; returns 0 or -1 with the reason in err. */
static int decide_format(const join_opts *o, const workload *w, int b, join_plan *out, char *err, size_t errlen)
{
    const int word = join_word_bits(o), key_bits = bits_for(workload_max_key(w));
    const int rid_bits = radix_format_for(w, true, b).rid_bits, rest = key_bits > b ? key_bits - b : 0;
    const bool fits = radix_compress_fits(key_bits, b, rid_bits, word);
    if (o->compress && o->compress_given && !fits) {
        snprintf(err, errlen, "--compress: keys of %d bits less %d radix bits plus rids of %d bits do not fit in %d bits "
                 "(leave --compress out for the 16-byte format)", key_bits, b, rid_bits, word);
        return -1;
    }
    out->tuple_bytes = o->compress && fits ? 8 : 16;
    if (out->tuple_bytes == 8)
        snprintf(out->format, sizeof out->format, "8 B packed (key %d - %d radix bits + rid %d bits%s)", key_bits, b,
                 rid_bits, word < 64 ? "; test word width" : "");
    else if (!o->compress)
        snprintf(out->format, sizeof out->format, "16 B (key and rid 8 B each; --no-compress)");
    else
        snprintf(out->format, sizeof out->format, "16 B (key and rid 8 B each): keys of %d bits less %d radix bits and "
                 "rids of %d bits need %d > %d", key_bits, b, rid_bits, rest + rid_bits, word);
    return 0;
}

/* Items of one relation this rank may own: its share of the partitions (one extra for the sized
 * assignment); with skew, S partitions are unpredictable: assume all of S. */
static uint64_t window_items_bound(uint64_t total, uint64_t np, int ranks, bool all)
{
    if (all) return total;
    uint64_t parts = (np + (uint64_t)ranks - 1) / (uint64_t)ranks + 1;
    double share = (double)total * (double)parts / (double)np * 1.05 + 1024;
    return share > (double)total ? total : (uint64_t)share;
}

/* Send buffers (thesis 3.2.1: a buffer per remote partition, 2 by default so that partitioning
 * overlaps the transfer). Sized by a budget per rank (--buffer-memory), not per partition: with
 * 8 x 2^ceil(log2 P) partitions, 2 x 64 KiB per remote partition would be 128 MiB per rank at
 * 128 ranks and 4 GiB at 4096, more than the data. Under the default 128 MiB budget the buffers
 * keep the thesis' 64 KiB (full bandwidth above 8 KiB, its Fig. 3.7) up to 128 ranks and shrink
 * beyond: 2 KiB puts at 4096 ranks (32767 remote partitions x 2), 1.6 KiB at 5040. One buffer set per
 * target rank instead would not aggregate: this rank's runs inside the partitions a target owns
 * are not contiguous in its window, so each still needs its own put. Sized for the rank with the
 * most remote partitions (np - 1), the same on every rank. */
static int plan_buffers(const join_opts *o, const workload *w, uint64_t np, int ranks, uint64_t item, join_plan *out,
                        char *err, size_t errlen)
{
    const uint64_t remote = ranks > 1 ? np - 1 : 0, n = remote * (uint64_t)o->buffers_per_partition;
    /* nor larger than twice what a rank sends to one partition on average (whole lines): with little
     * data per partition (256 ranks x 1K tuples) bigger buffers would only hold nothing; a size
     * changes the number of puts, never the result */
    const uint64_t per_part = 2 * (w->r_total + w->s_total) / (uint64_t)ranks * item / np + 63;
    const size_t want = per_part < (uint64_t)o->buffer_size ? (size_t)per_part : (size_t)o->buffer_size;
    const size_t size = putbuf_size_for_budget(want, (uint64_t)o->buffer_memory, n);
    if (n > 0 && size == 0) {
        char have[32], need[32];
        mem_format(o->buffer_memory, have, sizeof have);
        mem_format((int64_t)(n * 64), need, sizeof need);
        snprintf(err, errlen,
                 "--buffer-memory: %s cannot give %" PRIu64 " send buffers (%" PRIu64 " remote partitions x %" PRId64
                 ") a cache line each: give at least %s, or fewer --buffers-per-partition or --radix-bits",
                 have, n, remote, o->buffers_per_partition, need);
        return -1;
    }
    out->buffer_size = (int64_t)size;
    out->buffers = (int64_t)n;
    out->buffer_bytes = (int64_t)putbuf_bytes((int)remote, size, (int)o->buffers_per_partition);
    return 0;
}

/* Per-rank arrays, O(np + P) words: histograms (histogram.c: 8 words per partition), owners, the
 * sized assignment's sort and loads, the network pass's staging lines and offsets
 * (network_partition.c), the put buffers' bookkeeping, the local passes' workspace and bounds;
 * the first local pass's counts (at most RADIX_SUB_BINS_MAX bins: fine histograms, the reduction's
 * send and receive buffers, 2 words a bin each, and P counts). */
static uint64_t rank_arrays_bytes(const join_opts *o, int bits, int ranks, const radix_local_plan *lp, int sub_bits)
{
    const uint64_t np = UINT64_C(1) << bits, P = (uint64_t)ranks, remote = ranks > 1 ? np - 1 : 0;
    uint64_t b = np * (8 * 8 + sizeof(int)) + 2 * P * 8;
    if (sub_bits > 0) b += 3 * 2 * (np << sub_bits) * 8 + P * (sizeof(int) + 8);
    if (o->assign == ASSIGN_SIZED) b += np * 16 + P * 8;
    b += np * (64 * radix_net_ring(np) + 8 + 8 + 1 + sizeof(int) + sizeof(MPI_Aint));
    if (radix_pass_direct(bits, radix_direct_bits(o->scatter))) b += np * 2 * 8; /* the direct pass's cursors */
    b += putbuf_state_bytes(np, remote, (int)o->buffers_per_partition, ranks);
    int maxb = 1;
    for (int k = 0; k < lp->passes; k++) {
        if (lp->bits[k] > maxb) maxb = lp->bits[k];
        b += ((UINT64_C(1) << lp->bits[k]) + 1) * 8;
    }
    b += (UINT64_C(1) << maxb) * (64 * RADIX_SWWC_RING + 8) + 2 * ((UINT64_C(1) << lp->total_bits) + 1) * 8;
    return b;
}

/* The checks, then windows, send buffers, scratch and tables as upper bounds. */
int radix_plan(const join_opts *o, const workload *w, int ranks, join_plan *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check(o, w, ranks, err, errlen)) return -1;
    int b = radix_plan_bits(o, ranks);
    if (decide_format(o, w, b, out, err, errlen)) return -1;
    uint64_t np = UINT64_C(1) << b, item = (uint64_t)out->tuple_bytes;
    if (plan_buffers(o, w, np, ranks, item, out, err, errlen)) return -1;
    uint64_t wr = window_items_bound(w->r_total, np, ranks, false);
    uint64_t ws = window_items_bound(w->s_total, np, ranks, o->skew > 0);
    out->window_slot_bytes[REL_R] = (int64_t)(wr * item);
    out->window_slot_bytes[REL_S] = (int64_t)(ws * item);
    radix_format f = radix_format_for(w, out->tuple_bytes == 8, b);
    /* R's keys are a permutation of 1..|R|: its low bits split R evenly, so the largest R
     * partition, and with it the local passes, is known before the run (S is split by R's keys) */
    radix_local_plan lp = radix_plan_local(o, (w->r_total + np - 1) / np, &f);
    out->partitions = (int64_t)np;
    out->radix_bits = b;
    out->passes = lp.passes;
    out->local_bits = lp.passes ? lp.bits[0] : 0;
    /* local partitioning scratch holds one partition per relation (run(): max_part); with skew an
     * S partition may be all of S */
    const uint64_t part_r = (uint64_t)((double)w->r_total / (double)np * 1.05) + 1024;
    const uint64_t part_s = o->skew > 0 ? ws : (uint64_t)((double)w->s_total / (double)np * 1.05) + 1024;
    out->copy_bytes = lp.passes == 0 ? 0 : (int64_t)((part_r + part_s) * item);
    /* the exchange design's buffers (exchange.h): the get design's flags and pack in a window of
     * their own (exchange_plan.c), the others' a relation's share packed, for alltoallv also received */
    const radix_exchange_design *xd = radix_exchange_of(o);
    const int copies = xd->buffers == RADIX_XBUF_PACK_WINDOW ? 0 : radix_exchange_copies(xd);
    if (xd->buffers == RADIX_XBUF_PACK_WINDOW)
        out->window_slot_bytes[RADIX_GET_SLOT] = (int64_t)radix_get_window_bytes(ranks, w->r_n > w->s_n ? w->r_n : w->s_n, item);
    if (copies) {
        const uint64_t mine = window_items_bound(w->r_total > w->s_total ? w->r_total : w->s_total, np, ranks, o->skew > 0);
        out->copy_bytes += (int64_t)((uint64_t)copies * mine * item);
    }
    for (int s = 0; s < JOIN_WINDOW_SLOTS; s++) out->window_bytes += out->window_slot_bytes[s];
    uint64_t table = radix_table_bytes(lp.passes == 0 ? wr : radix_l2_bytes() / 8);
    const int sub_bits = radix_plan_sub_bits(o, w->r_total, b, &f);
    out->other_bytes = (int64_t)(table + rank_arrays_bytes(o, b, ranks, &lp, sub_bits));
    char bsize[32], budget[32];
    mem_format(out->buffer_size, bsize, sizeof bsize);
    mem_format(o->buffer_memory, budget, sizeof budget);
    snprintf(out->detail, sizeof out->detail,
             "%" PRIu64 " partitions (%d radix bits), %d local pass(es)%s%s; %" PRId64 " send buffers of %s (%" PRId64
             " per remote partition, --buffer-memory %s)", np, b, lp.passes,
             lp.passes ? " as the sizes tell" : "", sub_bits ? ", the first counted in the histogram phase" : "",
             out->buffers, bsize, o->buffers_per_partition, budget);
    return 0;
}
