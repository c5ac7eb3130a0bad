/* The distributed radix hash join over MPI RMA (thesis 3.2.1, 4.2.1): the orchestration of its
 * phases (the option checks and the memory estimate: radix_plan.c).
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

/* The local phases' buffers: per relation a scratch for one partition (the input's pages when they
 * are large enough: the input is dead after the network pass, and its pages are mapped already) and
 * the leaves' bounds; the hash table takes R's memory beyond its scratch. */
typedef struct {
    radix_local_plan plan;
    uint64_t leaves, max_part[2], *scratch[2], *bounds[2];
    bool scratch_own[2];
    radix_local_ws ws;
    radix_table table;
} local_bufs;

static void local_bufs_alloc(const join_input *in, join_output *out, const radix_layout *lay, const radix_format *f,
                             unsigned simd, int bits, local_bufs *lb)
{
    const bench_ctx *ctx = in->ctx;
    memset(lb, 0, sizeof *lb);
    lb->plan = plan_local(in->opt, lay, f);
    lb->leaves = UINT64_C(1) << lb->plan.total_bits;
    for (uint64_t p = 0; p < lay->nparts; p++)
        for (int rel = 0; rel < 2; rel++)
            if (lay->owner[p] == ctx->rank && lay->global[rel][p] > lb->max_part[rel]) lb->max_part[rel] = lay->global[rel][p];
    if (radix_local_ws_init(&lb->ws, &lb->plan)) fail_alloc(ctx, "the partitioning workspace");
    lb->ws.swwc.simd = (simd & RADIX_SIMD_SCATTER) != 0; /* --simd: the local passes' scatter, the probe */
    lb->ws.swwc.direct_bits = lay->direct_bits; /* --scatter */
    out->scatter_used = radix_scatter_name(bits, &lb->plan, lb->ws.swwc.direct_bits);
    lb->table.simd = (simd & RADIX_SIMD_PROBE) != 0;
    /* the kernels that ran: packed items only, and the AVX-512 scatter is a staged loop */
    const unsigned ran = strcmp(out->scatter_used, "direct") == 0 ? simd & ~(unsigned)RADIX_SIMD_SCATTER : simd;
    out->simd_used = radix_simd_name(f->words == 1 ? ran : 0);
    for (int rel = 0; rel < 2; rel++) {
        if (!(lb->bounds[rel] = malloc((lb->leaves + 1) * sizeof(uint64_t)))) fail_alloc(ctx, "the partition bounds");
        const uint64_t bytes = lb->max_part[rel] * (uint64_t)f->words * 8,
                       have = (rel == REL_R ? in->r_n : in->s_n) * sizeof(tuple_t);
        if (lb->plan.passes == 0) continue;
        if (in->reusable[rel] && bytes <= have) {
            lb->scratch[rel] = (uint64_t *)(void *)in->reusable[rel];
            out->reused[rel] = (bytes + sizeof(tuple_t) - 1) / sizeof(tuple_t);
        } else if ((lb->scratch[rel] = mem_alloc_large(bytes)) != NULL) {
            lb->scratch_own[rel] = true;
        } else {
            fail_alloc(ctx, "the local partitioning buffer");
        }
    }
    if (in->reusable[REL_R]) {
        const uint64_t from = (out->reused[REL_R] * sizeof(tuple_t) + 63) & ~(uint64_t)63, have = in->r_n * sizeof(tuple_t);
        if (have > from) {
            lb->table.arena = (uint32_t *)(void *)((char *)in->reusable[REL_R] + from);
            lb->table.arena_words = (have - from) / sizeof(uint32_t);
        }
    }
}

static void local_bufs_free(const join_input *in, join_output *out, const radix_format *f, local_bufs *lb)
{
    radix_local_ws_free(&lb->ws);
    if (lb->table.arena_used) /* R written over up to the table's end */
        out->reused[REL_R] = ((uint64_t)((char *)(lb->table.arena + lb->table.arena_used) - (char *)in->reusable[REL_R]) +
                              sizeof(tuple_t) - 1) / sizeof(tuple_t);
    radix_table_free(&lb->table);
    for (int rel = 0; rel < 2; rel++) {
        free(lb->bounds[rel]);
        if (lb->scratch_own[rel]) mem_free_large(lb->scratch[rel], lb->max_part[rel] * (uint64_t)f->words * 8);
    }
}

/* Per owned partition: local partitioning of its R and S pieces, then build + probe of every
 * resulting pair. Interleaved so the scratch buffers hold one partition (fresh memory is costly).
 * The buffers' allocation counts as local_partition. */
static void local_phases(const join_input *in, join_output *out, const radix_layout *lay, const radix_format *f,
                         rma_window win[2], int bits, unsigned simd, local_bufs *lb, phase_clock *pc)
{
    local_bufs_alloc(in, out, lay, f, simd, bits, lb);
    const uint64_t W = (uint64_t)f->words;
    const bool counted = lb->plan.passes > 0 && lay->sub_bits == lb->plan.bits[0]; /* the first pass's counts arrived */
    const int hash_shift = radix_key_shift(f, bits + lb->plan.total_bits);
    uint64_t matches = 0, checksum = 0;
    for (uint64_t p = 0, k = 0; p < lay->nparts; p++) {
        if (lay->owner[p] != in->ctx->rank) continue;
        uint64_t *fin[2];
        for (int rel = 0; rel < 2; rel++)
            fin[rel] = radix_local_partition((uint64_t *)win[rel].base + lay->base[rel][p] * W, lb->scratch[rel],
                                             lay->global[rel][p], f, &lb->plan, lb->bounds[rel], &lb->ws,
                                             counted ? radix_sub_counts(lay, k, rel) : NULL);
        k++;
        phase_end(pc, "local_partition", 0);
        if (radix_build_probe_leaves(fin[REL_R], lb->bounds[REL_R], fin[REL_S], lb->bounds[REL_S], lb->leaves, UINT64_MAX, f,
                                     p, hash_shift, &lb->table, &matches, &checksum))
            fail_alloc(in->ctx, "the hash table");
        phase_end(pc, "build_probe", 0);
    }
    out->matches = matches;
    out->checksum = checksum;
    out->local_bits = lb->plan.passes ? lb->plan.bits[0] : 0;
    out->passes = lb->plan.passes;
    out->local_counted = lb->plan.passes - counted;
}

static void run(const join_input *in, join_output *out)
{
    const bench_ctx *ctx = in->ctx;
    const join_opts *o = in->opt;
    const int bits = radix_plan_bits(o, ctx->size);
    const radix_format f = radix_format_for(in->wl, in->plan->tuple_bytes == 8, bits); /* as planned */
    const unsigned simd = radix_simd_resolve(ctx, o); /* before the first timed phase */
    phase_clock pc;
    phase_mark(&pc, &out->phases);

    radix_layout lay;
    radix_histogram_phase(in, bits, radix_plan_sub_bits(o, in->wl->r_total, bits, &f), o->assign, &lay);
    lay.simd = simd;
    lay.direct_bits = radix_direct_bits(o->scatter);
    phase_end(&pc, "histogram", lay.t_wait);

    rma_window win[2];
    radix_windows_alloc(in, &lay, &f, win);
    radix_exchange_bufs xb; /* the buffers of --exchange beyond put (none for put) */
    radix_exchange_bufs_alloc(in, &lay, &f, &xb);
    phase_end(&pc, "window_alloc", 0);

    radix_pass_times tp;
    xb.design->run(in, &lay, &f, win, &xb, &tp); /* the network pass in the design --exchange chose */
    phase_end(&pc, "network_partition", tp.wait);
    phases_add(&out->phases, "put", tp.put);
    phases_add(&out->phases, "flush", tp.flush);

    local_bufs lb;
    local_phases(in, out, &lay, &f, win, bits, simd, &lb, &pc);
    /* the slowest rank's build/probe: wait, not window_alloc (the release synchronises anyway) */
    rmb_wait_all(ctx->comm);
    phase_end(&pc, "wait", 0);

    /* releasing the windows is collective: it counts as window_alloc time */
    for (int rel = 0; rel < 2; rel++) rma_window_release(&win[rel]);
    radix_exchange_bufs_free(&xb);
    phase_end(&pc, "window_alloc", 0);

    local_bufs_free(in, out, &f, &lb);
    out->radix_bits = bits;
    out->tuple_bytes = 8 * f.words;
    radix_layout_free(&lay);
}

const join_algo radix_join_algo = {"radix", radix_phases, radix_plan, run, radix_phase_bytes};
