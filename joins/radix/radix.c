/* The distributed radix hash join over MPI RMA (thesis 3.2.1, 4.2.1): the orchestration of its
 * phases, the option checks and the memory estimate.
 *   histogram          histogram.c          local + global histograms, assignment, offsets
 *   window_alloc       network_partition.c  one window per relation (first touch included)
 *   network_partition  network_partition.c  scatter into the owners' windows (put, flush: detail)
 *   local_partition    local_partition.c    passes until partitions fit the L2 cache
 *   build_probe        build_probe.c        hash table per partition, probe, count + checksum */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joins/radix/exchange.h"
#include "joins/radix/local_partition.h"
#include "bench/memory.h"
#include "bench/yield_wait.h"
#include "rma/putbuf.h"
#include "joins/radix/radix_phases.h"
#include "joins/radix/radix_plan.h"

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
static int plan(const join_opts *o, const workload *w, int ranks, join_plan *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check(o, w, ranks, err, errlen)) return -1;
    int b = radix_plan_bits(o, ranks);
    if (decide_format(o, w, b, out, err, errlen)) return -1;
    uint64_t np = UINT64_C(1) << b, item = (uint64_t)out->tuple_bytes;
    if (plan_buffers(o, w, np, ranks, item, out, err, errlen)) return -1;
    uint64_t wr = window_items_bound(w->r_total, np, ranks, false);
    uint64_t ws = window_items_bound(w->s_total, np, ranks, o->skew > 0);
    out->window_bytes = (int64_t)((wr + ws) * item);
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
    /* the exchange design's buffers (exchange.h): a relation's share packed, for alltoallv also received */
    const int copies = radix_exchange_copies(radix_exchange_of(o));
    if (copies) {
        const uint64_t mine = window_items_bound(w->r_total > w->s_total ? w->r_total : w->s_total, np, ranks, o->skew > 0);
        out->copy_bytes += (int64_t)((uint64_t)copies * mine * item);
    }
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

/* Local passes for the largest R partition of the layout (radix_plan.h). */
static radix_local_plan plan_local(const join_opts *o, const radix_layout *lay, const radix_format *f)
{
    uint64_t max_r = 0;
    for (uint64_t p = 0; p < lay->nparts; p++)
        if (lay->global[REL_R][p] > max_r) max_r = lay->global[REL_R][p];
    return radix_plan_local(o, max_r, f);
}

static void fail_alloc(const bench_ctx *ctx, const char *what)
{
    fprintf(stderr, "rmabench: rank %d: cannot allocate %s\n", ctx->rank, what);
    MPI_Abort(ctx->comm, 1);
}

/* The phases in display order: the thesis' Table 4.2 rows; put and flush are time inside the network pass. */
static const phase_decl radix_phases[] = {
    {"histogram", false}, {"window_alloc", false}, {"network_partition", false}, {"put", true}, {"flush", true},
    {"local_partition", false}, {"build_probe", false}, {"wait", false}, {NULL, false},
};

unsigned radix_simd_resolve(const bench_ctx *ctx, const join_opts *o)
{
    static int picked = -1;
    if (o->simd == SIMD_AVX512) return radix_avx512_available() ? RADIX_SIMD_SCATTER | RADIX_SIMD_PROBE : 0;
    if (o->simd != SIMD_AUTO) return 0;
    if (picked < 0) {
        int mine = ctx->rank == 0 ? (int)radix_simd_faster() : 0;
        MPI_CHECK(ctx->rank, rmb_bcast(&mine, 1, MPI_INT, 0, ctx->comm)); /* rank 0 timed: the others leave it the core */
        picked = mine;
    }
    return (unsigned)picked;
}

static void run(const join_input *in, join_output *out)
{
    const bench_ctx *ctx = in->ctx;
    const join_opts *o = in->opt;
    phase_set *ph = &out->phases;

    const int bits = radix_plan_bits(o, ctx->size);
    const radix_format f = radix_format_for(in->wl, in->plan->tuple_bytes == 8, bits); /* as planned */
    const uint64_t W = (uint64_t)f.words;

    const unsigned simd = radix_simd_resolve(ctx, o); /* before the first timed phase */
    long f0 = rmb_minflt(), f1;
    double t = rmb_now();
    radix_layout lay;
    radix_histogram_phase(in, bits, radix_plan_sub_bits(o, in->wl->r_total, bits, &f), o->assign, &lay);
    lay.simd = simd;
    lay.direct_bits = radix_direct_bits(o->scatter);
    double t1 = rmb_now();
    phases_add(ph, "histogram", t1 - t - lay.t_wait);
    phases_add(ph, "wait", lay.t_wait);
    phases_add_faults(ph, "histogram", (f1 = rmb_minflt()) - f0);

    rma_window win[2];
    radix_windows_alloc(in, &lay, &f, win);
    radix_exchange_bufs xb; /* the buffers of --exchange beyond put (none for put) */
    radix_exchange_bufs_alloc(in, &lay, &f, &xb);
    double t2 = rmb_now();
    phases_add(ph, "window_alloc", t2 - t1);
    phases_add_faults(ph, "window_alloc", (f0 = rmb_minflt()) - f1);

    radix_pass_times tp;
    xb.design->run(in, &lay, &f, win, &xb, &tp); /* the network pass in the design --exchange chose */
    double t3 = rmb_now();
    phases_add(ph, "network_partition", t3 - t2 - tp.wait);
    phases_add_faults(ph, "network_partition", (f1 = rmb_minflt()) - f0);
    phases_add(ph, "put", tp.put);
    phases_add(ph, "flush", tp.flush);
    phases_add(ph, "wait", tp.wait);

    /* Per owned partition: local partitioning of its R and S pieces, then build + probe of every
     * resulting pair. Interleaved so the scratch buffers hold one partition (fresh memory is costly). */
    radix_local_plan plan = plan_local(o, &lay, &f);
    const bool counted = plan.passes > 0 && lay.sub_bits == plan.bits[0]; /* the first pass's counts arrived */
    const uint64_t leaves = UINT64_C(1) << plan.total_bits;
    uint64_t max_part[2] = {0, 0};
    for (uint64_t p = 0; p < lay.nparts; p++)
        for (int rel = 0; rel < 2; rel++)
            if (lay.owner[p] == ctx->rank && lay.global[rel][p] > max_part[rel]) max_part[rel] = lay.global[rel][p];
    uint64_t *scratch[2] = {NULL, NULL}, *bounds[2];
    bool scratch_own[2] = {false, false};
    radix_local_ws lws;
    radix_table table;
    memset(&table, 0, sizeof table);
    if (radix_local_ws_init(&lws, &plan)) fail_alloc(ctx, "the partitioning workspace");
    lws.swwc.simd = (simd & RADIX_SIMD_SCATTER) != 0; /* --simd: the local passes' scatter, the probe */
    lws.swwc.direct_bits = lay.direct_bits; /* --scatter */
    out->scatter_used = radix_scatter_name(bits, &plan, lws.swwc.direct_bits);
    table.simd = (simd & RADIX_SIMD_PROBE) != 0;
    /* the kernels that ran: packed items only, and the AVX-512 scatter is a staged loop */
    const unsigned ran = strcmp(out->scatter_used, "direct") == 0 ? simd & ~(unsigned)RADIX_SIMD_SCATTER : simd;
    out->simd_used = radix_simd_name(f.words == 1 ? ran : 0);
    for (int rel = 0; rel < 2; rel++) {
        if (!(bounds[rel] = malloc((leaves + 1) * sizeof(uint64_t)))) fail_alloc(ctx, "the partition bounds");
        /* the input relation is dead after the network pass: its pages, already mapped, hold the
         * local passes' output (issue 16: no fresh pages after window_alloc) when it is large enough */
        const uint64_t bytes = max_part[rel] * W * 8, have = (rel == REL_R ? in->r_n : in->s_n) * sizeof(tuple_t);
        if (plan.passes == 0) continue;
        if (in->reusable[rel] && bytes <= have) {
            scratch[rel] = (uint64_t *)(void *)in->reusable[rel];
            out->reused[rel] = (bytes + sizeof(tuple_t) - 1) / sizeof(tuple_t);
        } else if ((scratch[rel] = mem_alloc_large(bytes)) != NULL) {
            scratch_own[rel] = true;
        } else {
            fail_alloc(ctx, "the local partitioning buffer");
        }
    }
    /* the hash table too: R's memory beyond its scratch, when there is one */
    if (in->reusable[REL_R]) {
        const uint64_t from = (out->reused[REL_R] * sizeof(tuple_t) + 63) & ~(uint64_t)63,
                       have = in->r_n * sizeof(tuple_t);
        if (have > from) {
            table.arena = (uint32_t *)(void *)((char *)in->reusable[REL_R] + from);
            table.arena_words = (have - from) / sizeof(uint32_t);
        }
    }
    const int hash_shift = radix_key_shift(&f, bits + plan.total_bits);
    uint64_t matches = 0, checksum = 0;
    long flt_local = 0, flt_bp = 0, f4 = rmb_minflt(); /* the scratch above counts as local_partition's */
    flt_local += f4 - f1;
    double t_local = 0, t_bp = 0, t4 = rmb_now();
    for (uint64_t p = 0, k = 0; p < lay.nparts; p++) {
        if (lay.owner[p] != ctx->rank) continue;
        uint64_t *fin[2];
        for (int rel = 0; rel < 2; rel++)
            fin[rel] = radix_local_partition((uint64_t *)win[rel].base + lay.base[rel][p] * W, scratch[rel],
                                             lay.global[rel][p], &f, &plan, bounds[rel], &lws,
                                             counted ? radix_sub_counts(&lay, k, rel) : NULL);
        k++;
        double t5 = rmb_now();
        long f5 = rmb_minflt();
        t_local += t5 - t4;
        flt_local += f5 - f4;
        if (radix_build_probe_leaves(fin[REL_R], bounds[REL_R], fin[REL_S], bounds[REL_S], leaves, UINT64_MAX, &f, p,
                                     hash_shift, &table, &matches, &checksum))
            fail_alloc(ctx, "the hash table");
        t4 = rmb_now();
        f4 = rmb_minflt();
        t_bp += t4 - t5;
        flt_bp += f4 - f5;
    }
    radix_local_ws_free(&lws);
    phases_add(ph, "local_partition", t_local);
    phases_add(ph, "build_probe", t_bp);
    phases_add_faults(ph, "local_partition", flt_local);
    phases_add_faults(ph, "build_probe", flt_bp);
    /* the slowest rank's build/probe: wait, not window_alloc (the release synchronises anyway) */
    phases_add(ph, "wait", rmb_wait_all(ctx->comm));
    double t5 = rmb_now();
    long f5 = rmb_minflt();

    /* releasing the windows is collective: it counts as window_alloc time */
    for (int rel = 0; rel < 2; rel++) rma_window_release(&win[rel], o->window_pool ? rel : -1);
    radix_exchange_bufs_free(&xb);
    phases_add(ph, "window_alloc", rmb_now() - t5);
    phases_add_faults(ph, "window_alloc", rmb_minflt() - f5);

    out->matches = matches;
    out->checksum = checksum;
    out->radix_bits = bits;
    out->local_bits = plan.passes ? plan.bits[0] : 0;
    out->passes = plan.passes;
    out->local_counted = plan.passes - counted;
    out->tuple_bytes = 8 * f.words;
    if (table.arena_used) /* R written over up to the table's end */
        out->reused[REL_R] = ((uint64_t)((char *)(table.arena + table.arena_used) - (char *)in->reusable[REL_R]) +
                              sizeof(tuple_t) - 1) / sizeof(tuple_t);
    radix_table_free(&table);
    for (int rel = 0; rel < 2; rel++) {
        free(bounds[rel]);
        if (scratch_own[rel]) mem_free_large(scratch[rel], max_part[rel] * W * 8);
    }
    radix_layout_free(&lay);
}

const join_algo radix_join_algo = {"radix", radix_phases, plan, run, radix_phase_bytes};
