/* Compute rates of the join kernels, every rank at once (memory bandwidth is shared as in a join).
 *
 * TO BE WIRED: until joins/radix/radix_kernels.h and joins/sortmerge/smj_kernels.h land on main,
 * these are minimal stand-in kernels of the same shape (histogram scan, radix scatter with 8-byte
 * compression, in-cache bucket-chained hash build/probe, LSD radix sort of cache-sized runs, heap
 * multi-way merge, merge-join scan). The parameter file says so in its `kernels` line; the model
 * comparison is only as good as the kernels timed here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "memory.h"
#include "tuple.h"

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Times fn over the repeats (every rank at once, synchronised), returns the median rate of n tuples. */
typedef void (*kernel_fn)(void *arg);
static double rate(const bench_ctx *ctx, const calibrate_opts *o, kernel_fn fn, void *arg, double n)
{
    double t[100];
    int reps = (int)o->repeats;
    fn(arg); /* warm-up: page faults, caches */
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(ctx->world);
        double t0 = MPI_Wtime();
        fn(arg);
        t[r] = MPI_Wtime() - t0;
    }
    double med = calibrate_median(t, reps);
    return calibrate_allreduce(ctx, n / med, MPI_SUM); /* mean over ranks of per-rank rates */
}

typedef struct {
    tuple_t *in, *out;
    uint64_t *packed;
    uint64_t n;
    int bits;
    uint32_t *hist;
    volatile uint64_t sink;
} part_arg;

static void k_scan(void *a_)
{
    part_arg *a = a_;
    uint32_t mask = (1u << a->bits) - 1;
    memset(a->hist, 0, sizeof(uint32_t) << a->bits);
    for (uint64_t i = 0; i < a->n; i++) a->hist[a->in[i].key & mask]++;
}

/* network pass: scatter into 2^bits partitions packing key and rid into 8 bytes */
static void k_partition_net(void *a_)
{
    part_arg *a = a_;
    uint32_t parts = 1u << a->bits, mask = parts - 1;
    uint64_t *pos = malloc(sizeof(uint64_t) * parts), off = 0;
    k_scan(a);
    for (uint32_t p = 0; p < parts; p++) { pos[p] = off; off += a->hist[p]; }
    for (uint64_t i = 0; i < a->n; i++) {
        uint64_t k = a->in[i].key;
        a->packed[pos[k & mask]++] = (k >> a->bits) << 32 | (a->in[i].rid & 0xffffffffu);
    }
    free(pos);
}

/* local pass: scatter full tuples on the next bits */
static void k_partition_local(void *a_)
{
    part_arg *a = a_;
    uint32_t parts = 1u << a->bits, mask = parts - 1;
    uint64_t *pos = malloc(sizeof(uint64_t) * parts), off = 0;
    memset(a->hist, 0, sizeof(uint32_t) << a->bits);
    for (uint64_t i = 0; i < a->n; i++) a->hist[(a->in[i].key >> 10) & mask]++;
    for (uint32_t p = 0; p < parts; p++) { pos[p] = off; off += a->hist[p]; }
    for (uint64_t i = 0; i < a->n; i++) a->out[pos[(a->in[i].key >> 10) & mask]++] = a->in[i];
    free(pos);
}

/* build (which = 0) or probe (which = 1) with cache-sized bucket-chained tables */
typedef struct {
    tuple_t *r, *s;
    uint64_t n, chunk;
    uint32_t *head, *next;
    int which;
    volatile uint64_t sink;
} hash_arg;

static void build_chunk(hash_arg *a, uint64_t base, uint64_t len, uint32_t buckets)
{
    memset(a->head, 0, sizeof(uint32_t) * buckets);
    for (uint64_t i = 0; i < len; i++) {
        uint32_t b = (uint32_t)(mix(a->r[base + i].key) & (buckets - 1));
        a->next[i] = a->head[b];
        a->head[b] = (uint32_t)i + 1;
    }
}

static void k_hash(void *a_)
{
    hash_arg *a = a_;
    uint32_t buckets = (uint32_t)a->chunk; /* chunk is a power of two */
    uint64_t matches = 0;
    for (uint64_t base = 0; base < a->n; base += a->chunk) {
        uint64_t len = a->n - base < a->chunk ? a->n - base : a->chunk;
        build_chunk(a, base, len, buckets);
        if (a->which == 0) continue;
        for (uint64_t i = 0; i < len; i++) {
            uint64_t k = a->s[base + i].key;
            for (uint32_t e = a->head[mix(k) & (buckets - 1)]; e; e = a->next[e - 1])
                matches += a->r[base + e - 1].key == k;
        }
    }
    a->sink = matches;
}

/* LSD radix sort of runs of `chunk` tuples on the key's low 32 bits (4 passes of 8 bits) */
static void sort_run(tuple_t *t, tuple_t *tmp, uint64_t n)
{
    for (int shift = 0; shift < 32; shift += 8) {
        uint64_t count[256] = {0};
        for (uint64_t i = 0; i < n; i++) count[(t[i].key >> shift) & 255]++;
        uint64_t off = 0;
        for (int b = 0; b < 256; b++) { uint64_t c = count[b]; count[b] = off; off += c; }
        for (uint64_t i = 0; i < n; i++) tmp[count[(t[i].key >> shift) & 255]++] = t[i];
        memcpy(t, tmp, n * sizeof *t);
    }
}

typedef struct {
    tuple_t *in, *work, *tmp, *out;
    uint64_t n, run;
    int fanin;
    volatile uint64_t sink;
} sort_arg;

static void k_sort(void *a_)
{
    sort_arg *a = a_;
    memcpy(a->work, a->in, a->n * sizeof(tuple_t));
    for (uint64_t base = 0; base < a->n; base += a->run) {
        uint64_t len = a->n - base < a->run ? a->n - base : a->run;
        sort_run(a->work + base, a->tmp, len);
    }
}

/* one multi-way merge pass over groups of `fanin` sorted runs (binary heap of run heads) */
static void k_merge(void *a_)
{
    sort_arg *a = a_;
    uint64_t pos[4096], end[4096];
    int heap[4096];
    uint64_t o = 0;
    for (uint64_t g = 0; g < a->n; g += a->run * (uint64_t)a->fanin) {
        int m = 0;
        for (int r = 0; r < a->fanin && g + (uint64_t)r * a->run < a->n; r++) {
            pos[r] = g + (uint64_t)r * a->run;
            end[r] = pos[r] + a->run < a->n ? pos[r] + a->run : a->n;
            heap[m++] = r;
        }
#define KEY(r) (a->work[pos[r]].key)
        for (int i = m / 2 - 1; i >= 0; i--) /* heapify */
            for (int j = i;;) {
                int c = 2 * j + 1;
                if (c >= m) break;
                if (c + 1 < m && KEY(heap[c + 1]) < KEY(heap[c])) c++;
                if (KEY(heap[j]) <= KEY(heap[c])) break;
                int t = heap[j]; heap[j] = heap[c]; heap[c] = t; j = c;
            }
        while (m > 0) {
            int r = heap[0];
            a->out[o++] = a->work[pos[r]++];
            if (pos[r] == end[r]) heap[0] = heap[--m];
            for (int j = 0;;) {
                int c = 2 * j + 1;
                if (c >= m) break;
                if (c + 1 < m && KEY(heap[c + 1]) < KEY(heap[c])) c++;
                if (KEY(heap[j]) <= KEY(heap[c])) break;
                int t = heap[j]; heap[j] = heap[c]; heap[c] = t; j = c;
            }
        }
#undef KEY
    }
    a->sink = o;
}

/* merge-join scan of two sorted relations of n/2 tuples each (rate counted over both) */
static void k_match(void *a_)
{
    sort_arg *a = a_;
    const tuple_t *r = a->tmp, *s = a->tmp + a->n / 2;
    uint64_t nr = a->n / 2, ns = a->n - nr, i = 0, j = 0, m = 0;
    while (i < nr && j < ns) {
        if (r[i].key < s[j].key) i++;
        else if (r[i].key > s[j].key) j++;
        else { m += r[i].rid ^ s[j].rid; j++; }
    }
    a->sink = m;
}

void calibrate_compute(const bench_ctx *ctx, const calibrate_opts *o, model_params *p)
{
    uint64_t n = (uint64_t)o->tuples;
    int64_t need = (int64_t)(n * sizeof(tuple_t) * 4 + n * 8);
    mem_check_or_exit(ctx, need, "--tuples");
    tuple_t *in = mem_alloc_large(n * sizeof(tuple_t)), *out = mem_alloc_large(n * sizeof(tuple_t));
    tuple_t *work = mem_alloc_large(n * sizeof(tuple_t)), *tmp = mem_alloc_large(n * sizeof(tuple_t));
    uint64_t *packed = mem_alloc_large(n * 8);
    if (!in || !out || !work || !tmp || !packed) {
        fprintf(stderr, "rmabench: rank %d: calibrate: cannot allocate %lld bytes\n", ctx->rank, (long long)need);
        MPI_Abort(ctx->world, 2);
    }
    /* keys as the generator makes them: a permutation-like spread over [1, n * ranks] */
    uint64_t range = n * (uint64_t)ctx->size;
    for (uint64_t i = 0; i < n; i++) in[i] = (tuple_t){mix(i + (uint64_t)ctx->rank * n) % range + 1, i};

    /* fan-outs the joins use at this scale: TO BE WIRED to the radix join's choice */
    int net_bits = 10, local_bits = 8;
    static uint32_t hist[1 << 16];
    part_arg pa = {.in = in, .out = out, .packed = packed, .n = n, .bits = net_bits, .hist = hist};
    params_put(p, MP_P_scan, rate(ctx, o, k_scan, &pa, (double)n));
    params_put(p, MP_P_partition, rate(ctx, o, k_partition_net, &pa, (double)n));
    params_put(p, MP_partition_bits, net_bits);
    pa.bits = local_bits;
    params_put(p, MP_P_partition_local, rate(ctx, o, k_partition_local, &pa, (double)n));
    params_put(p, MP_partition_local_bits, local_bits);
    params_put(p, MP_radix_local_passes, 1);
    /* sort-merge range partitioning has the same shape at this size (stand-in) */
    params_put(p, MP_P_partition_range, params_get(p, MP_P_partition_local));

    /* build/probe on partitions of 16K tuples (256 KiB: fits L2) */
    const uint64_t chunk = 1 << 14;
    uint32_t *head = malloc(sizeof(uint32_t) * chunk), *next = malloc(sizeof(uint32_t) * chunk);
    for (uint64_t i = 0; i < n; i++) out[i] = in[(i ^ 1) < n ? (i ^ 1) : i]; /* S: same keys, other order */
    hash_arg ha = {.r = in, .s = out, .n = n, .chunk = chunk, .head = head, .next = next, .which = 0};
    double build = rate(ctx, o, k_hash, &ha, (double)n);
    ha.which = 1;
    double both = rate(ctx, o, k_hash, &ha, (double)n);
    params_put(p, MP_P_build, build);
    /* the probe timing includes a rebuild: probe rate = 1 / (1/both - 1/build) */
    double probe_time = 1 / both - 1 / build;
    params_put(p, MP_P_probe, probe_time > 0 ? 1 / probe_time : both);
    free(head);
    free(next);

    /* sort runs of 64K tuples (1 MiB, the L2 size), merge at fan-in 16, matching scan */
    const uint64_t run = 1 << 16;
    const int fanin = 16;
    sort_arg sa = {.in = in, .work = work, .tmp = tmp, .out = out, .n = n, .run = run, .fanin = fanin};
    double sort_copy = rate(ctx, o, k_sort, &sa, (double)n);
    params_put(p, MP_P_sort_run, sort_copy);
    params_put(p, MP_sort_run_length, (double)run);
    /* work now holds sorted runs */
    params_put(p, MP_P_merge, rate(ctx, o, k_merge, &sa, (double)n));
    params_put(p, MP_merge_fanin, fanin);
    /* two sorted halves for the matching scan: sort both halves fully (one merge of their runs) */
    sa.run = n / 2 ? n / 2 : 1;
    /* R = the first merged group (sorted), S = the same keys: every R tuple has one partner, as
     * in the 1:1 workload */
    memcpy(tmp, out, n / 2 * sizeof(tuple_t));
    memcpy(tmp + n / 2, out, n / 2 * sizeof(tuple_t));
    params_put(p, MP_P_match, rate(ctx, o, k_match, &sa, (double)n));

    mem_free_large(in, n * sizeof(tuple_t));
    mem_free_large(out, n * sizeof(tuple_t));
    mem_free_large(work, n * sizeof(tuple_t));
    mem_free_large(tmp, n * sizeof(tuple_t));
    mem_free_large(packed, n * 8);
    if (ctx->rank == 0)
        snprintf(p->info[MI_kernels], sizeof p->info[MI_kernels],
                 "stand-in kernels in model/calibrate_compute.c (to be wired to the joins' kernels)");
}
