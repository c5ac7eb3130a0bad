/* --simd auto for the radix join: which of its AVX-512 kernels beat the scalar ones on this CPU,
 * each timed against its scalar twin on a small sample (a few milliseconds, once per process).
 * The same instructions cost very differently between CPUs that have them: the gather/scatter loop
 * beats the scalar one on some and loses to it on others (scatter_avx512.c;
 * docs/measurements.md, "From code comments"). MPI-free. */
#include <stdlib.h>

#include "bench/fastclock.h"
#include "joins/radix/radix_kernels.h"

enum { PICK_ROUNDS = 5, PICK_BITS = 6, PICK_ITEMS = 1 << 16, PICK_LEAVES = 4, LEAF_MIN = 1 << 12, LEAF_MAX = 1 << 16 };

static double best_of(double a, double b) { return a < b ? a : b; }

/* A 2^PICK_BITS-way pass over PICK_ITEMS random items (512 KiB: the join's local pass at its
 * fan-out, in L2), each kernel alternately; 1 when the AVX-512 loop is the faster. */
static int scatter_faster(uint64_t *buf)
{
    uint64_t *in = buf, *out = buf + PICK_ITEMS, bounds[(1 << PICK_BITS) + 1], x = UINT64_C(0x9E3779B97F4A7C15);
    for (uint64_t i = 0; i < PICK_ITEMS; i++) x ^= x << 13, x ^= x >> 7, x ^= x << 17, in[i] = x;
    radix_swwc ws;
    if (radix_swwc_init(&ws, PICK_BITS)) return 0;
    ws.direct_bits = radix_direct_bits(RADIX_SCATTER_STAGED); /* the direct scatter has no AVX-512 twin */
    radix_pass_bounds(in, PICK_ITEMS, 1, 7, PICK_BITS, bounds);
    double best[2] = {1e30, 1e30};
    for (int k = 0; k < PICK_ROUNDS; k++)
        for (int simd = 0; simd < 2; simd++) {
            ws.simd = simd;
            const double t0 = rmb_monotonic_s();
            radix_scatter_pass(in, PICK_ITEMS, 1, 7, PICK_BITS, out, bounds, &ws);
            best[simd] = best_of(best[simd], rmb_monotonic_s() - t0);
        }
    radix_swwc_free(&ws);
    return best[1] < best[0];
}

/* The join's leaf: an R partition and its table in half the L2 (radix_local_bits_needed), 16 bytes
 * an item. Which probe wins can depend on the leaf's size, for the chained table as for the
 * one-item buckets (distinct keys, as in this sample) (docs/measurements.md, "From code comments").
 * */
static uint64_t join_leaf(void)
{
    const uint64_t leaf = radix_l2_bytes() / 32;
    return leaf < LEAF_MIN ? LEAF_MIN : leaf > LEAF_MAX ? LEAF_MAX : leaf;
}

enum { RID_BITS = 24, LEAF_BITS = 2 };
static const radix_format leaf_format = {.words = 1, .radix_bits = 0, .rid_bits = RID_BITS, .rid_base = {0, 0}};

/* PICK_LEAVES leaves of `leaf` R items (distinct keys: the one-item buckets the joins' key columns
 * get, build_probe.c) and as many S items (1:1), packed as the join packs them: r, s and their
 * leaves' bounds rb, sb. */
static void leaf_sample(uint64_t *r, uint64_t *s, uint64_t leaf, uint64_t *rb, uint64_t *sb)
{
    const uint64_t n = leaf * PICK_LEAVES;
    for (uint64_t l = 0; l < PICK_LEAVES; l++) {
        rb[l] = sb[l] = l * leaf;
        for (uint64_t i = 0; i < leaf; i++) { /* keys i << LEAF_BITS | l, in two different orders */
            const uint64_t kr = (i * 2654435761u) % leaf, ks = (i * 40503u + 7) % leaf;
            r[l * leaf + i] = ((kr << LEAF_BITS | l) << RID_BITS) | (l * leaf + i);
            s[l * leaf + i] = ((ks << LEAF_BITS | l) << RID_BITS) | (l * leaf + i);
        }
    }
    rb[PICK_LEAVES] = sb[PICK_LEAVES] = n;
}

/* One build + probe of the sample's leaves with table t (t->simd: the probe), its seconds; a
 * negative time when the table could not be had. */
static double time_leaves(const uint64_t *r, const uint64_t *rb, const uint64_t *s, const uint64_t *sb, radix_table *t)
{
    uint64_t m = 0, c = 0;
    const double t0 = rmb_monotonic_s();
    if (radix_build_probe_leaves(r, rb, s, sb, PICK_LEAVES, UINT64_MAX, &leaf_format, 0, RID_BITS + LEAF_BITS, t, &m, &c))
        return -1;
    return rmb_monotonic_s() - t0;
}

/* Build + probe of the sample, each probe alternately; 1 when the AVX-512 probe is the faster. */
static int probe_faster(uint64_t *buf, uint64_t leaf)
{
    uint64_t *r = buf, *s = buf + leaf * PICK_LEAVES, rb[PICK_LEAVES + 1], sb[PICK_LEAVES + 1];
    leaf_sample(r, s, leaf, rb, sb);
    radix_table t = {0};
    double best[2] = {1e30, 1e30};
    for (int k = 0; k < PICK_ROUNDS; k++)
        for (int simd = 0; simd < 2; simd++) {
            t.simd = simd;
            const double sec = time_leaves(r, rb, s, sb, &t);
            if (sec < 0) k = PICK_ROUNDS; /* no table: keep the scalar probe */
            else best[simd] = best_of(best[simd], sec);
        }
    radix_table_free(&t);
    return best[1] < best[0];
}

double radix_build_probe_rate(int probe_simd)
{
    const uint64_t leaf = join_leaf(), n = leaf * PICK_LEAVES;
    uint64_t *buf = malloc(2 * n * sizeof *buf), rb[PICK_LEAVES + 1], sb[PICK_LEAVES + 1];
    if (!buf) return 0;
    leaf_sample(buf, buf + n, leaf, rb, sb);
    radix_table t = {0};
    t.simd = probe_simd && radix_avx512_available();
    double best = 1e30;
    for (int k = 0; k < 2 * PICK_ROUNDS && best > 0; k++) {
        const double sec = time_leaves(buf, rb, buf + n, sb, &t);
        best = sec < 0 ? 0 : best_of(best, sec);
    }
    radix_table_free(&t);
    free(buf);
    return best > 0 ? (double)(2 * n) / best : 0;
}

unsigned radix_simd_faster(void)
{
    if (!radix_avx512_available()) return 0;
    const uint64_t leaf = join_leaf(), words = 2 * (PICK_ITEMS > leaf * PICK_LEAVES ? PICK_ITEMS : leaf * PICK_LEAVES);
    uint64_t *buf = malloc(words * sizeof *buf);
    if (!buf) return 0;
    const unsigned mask = (scatter_faster(buf) ? RADIX_SIMD_SCATTER : 0u) | (probe_faster(buf, leaf) ? RADIX_SIMD_PROBE : 0u);
    free(buf);
    return mask;
}

const char *radix_simd_name(unsigned mask)
{
    static const char *const names[] = {"scalar", "avx512-scatter", "avx512-probe", "avx512"};
    return names[mask & 3];
}
