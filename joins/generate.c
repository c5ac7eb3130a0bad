#include "joins/generate.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "bench/rmb_config.h"

static inline uint64_t splitmix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int bits_for(uint64_t v)
{
    int b = 0;
    while (b < 64 && (v >> b)) b++;
    return b ? b : 1;
}

void workload_slice(uint64_t total, int rank, int ranks, bool uneven, uint64_t *off, uint64_t *n)
{
    if (!uneven) {
        uint64_t base = total / (uint64_t)ranks, extra = total % (uint64_t)ranks;
        *off = base * (uint64_t)rank + ((uint64_t)rank < extra ? (uint64_t)rank : extra);
        *n = base + ((uint64_t)rank < extra ? 1 : 0);
        return;
    }
    /* weights 1, 2, ..., ranks; boundaries floor(total * W(i) / W(ranks)) with W(i) = i(i+1)/2 */
    uint64_t wsum = (uint64_t)ranks * (uint64_t)(ranks + 1) / 2;
    uint64_t lo_w = (uint64_t)rank * (uint64_t)(rank + 1) / 2, hi_w = lo_w + (uint64_t)rank + 1;
    long double lo = (long double)total * lo_w / wsum, hi = (long double)total * hi_w / wsum;
    *off = (uint64_t)lo;
    *n = (rank == ranks - 1 ? total : (uint64_t)hi) - *off;
}

/* --- keyed bijections: 4-round balanced Feistel on 2k bits + cycle walking ------------------- */
static int perm_simd_best(void);

static void keyed_perm_init(keyed_perm *p, uint64_t n, uint64_t salt)
{
    p->n = n;
    int b = bits_for(n > 1 ? n - 1 : 1);
    if (b & 1) b++;
    if (b < 2) b = 2;
    p->bits = b;
    for (int i = 0; i < 4; i++) p->keys[i] = splitmix64(salt * 4 + (uint64_t)i + 0x5EED);
    p->simd = perm_simd_best();
}

static uint64_t keyed_perm_apply(const keyed_perm *p, uint64_t x)
{
    const int half = p->bits / 2;
    const uint64_t mask = (half >= 64) ? ~0ull : ((1ull << half) - 1);
    do {
        uint64_t l = x >> half, r = x & mask;
        for (int round = 0; round < 4; round++) {
            uint64_t f = splitmix64(r ^ p->keys[round]) & mask;
            uint64_t t = l ^ f;
            l = r;
            r = t;
        }
        x = (l << half) | r;
    } while (x >= p->n); /* cycle walking: stays a bijection on [0, n) */
    return x;
}

/* keyed_perm_apply over an array, out[i] = keyed_perm_apply(p, in[i]). The rounds of one value
 * wait on each other (two multiplies and their shifts each), and a value outside [0, n) walks again
 * (about half of them, the domain being up to 4n). So the four rounds go over a block of values at
 * once, a loop the compiler vectorizes (64-bit multiplies: vpmullq with AVX-512 DQ, three
 * vpmuludq with AVX2), then the values that must walk again are packed to the front with their
 * slots and go through the rounds again, until none is left: the same values as one at a time,
 * in a fraction of the time (docs/measurements.md, "From code comments"). */
enum { CHUNK = 1024 };
static inline __attribute__((always_inline)) void feistel_rounds(const keyed_perm *p, uint64_t *x, size_t n)
{
    const int half = p->bits / 2;
    const uint64_t mask = (half >= 64) ? ~0ull : ((1ull << half) - 1);
    const uint64_t k0 = p->keys[0], k1 = p->keys[1], k2 = p->keys[2], k3 = p->keys[3];
    for (size_t i = 0; i < n; i++) {
        uint64_t l = x[i] >> half, r = x[i] & mask, t;
        t = l ^ (splitmix64(r ^ k0) & mask), l = r, r = t;
        t = l ^ (splitmix64(r ^ k1) & mask), l = r, r = t;
        t = l ^ (splitmix64(r ^ k2) & mask), l = r, r = t;
        t = l ^ (splitmix64(r ^ k3) & mask), l = r, r = t;
        x[i] = (l << half) | r;
    }
}
typedef void rounds_fn(const keyed_perm *p, uint64_t *x, size_t n);
static void rounds_scalar(const keyed_perm *p, uint64_t *x, size_t n) { feistel_rounds(p, x, n); }
#if RMB_SIMD_AUTO
__attribute__((target("avx2"))) static void rounds_avx2(const keyed_perm *p, uint64_t *x, size_t n)
{
    feistel_rounds(p, x, n);
}
__attribute__((target("avx512f,avx512dq,avx512vl"))) static void rounds_avx512(const keyed_perm *p, uint64_t *x, size_t n)
{
    feistel_rounds(p, x, n);
}
#endif

int keyed_perm_simd_available(int simd)
{
#if RMB_SIMD_AUTO
    __builtin_cpu_init();
    switch (simd) {
    case PERM_SIMD_AVX512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                                  __builtin_cpu_supports("avx512vl");
    case PERM_SIMD_AVX2: return __builtin_cpu_supports("avx2");
    default: return simd == PERM_SIMD_SCALAR;
    }
#else
    return simd == PERM_SIMD_SCALAR;
#endif
}

static int perm_simd_best(void)
{
    for (int s = PERM_SIMD_AVX512; s > PERM_SIMD_SCALAR; s--)
        if (keyed_perm_simd_available(s)) return s;
    return PERM_SIMD_SCALAR;
}

/* in may equal out: a block is copied before any of its slots is written */
static void keyed_perm_array(const keyed_perm *p, const uint64_t *in, uint64_t *out, size_t n)
{
    rounds_fn *rounds = rounds_scalar;
#if RMB_SIMD_AUTO
    if (p->simd == PERM_SIMD_AVX512) rounds = rounds_avx512;
    else if (p->simd == PERM_SIMD_AVX2) rounds = rounds_avx2;
#endif
    uint64_t x[CHUNK];
    uint32_t at[CHUNK]; /* the slot in the block of x[i] */
    for (size_t c = 0; c < n; c += CHUNK) {
        size_t m = n - c < CHUNK ? n - c : CHUNK;
        memcpy(x, in + c, m * sizeof *x);
        for (size_t i = 0; i < m; i++) at[i] = (uint32_t)i;
        while (m) {
            rounds(p, x, m);
            size_t walk = 0;
            for (size_t i = 0; i < m; i++) { /* no branch: every value is stored, a walker again later */
                const uint64_t v = x[i];
                const uint32_t a = at[i];
                out[c + a] = v;
                x[walk] = v;
                at[walk] = a;
                walk += v >= p->n;
            }
            m = walk;
        }
    }
}

uint64_t workload_perm(const workload *w, uint64_t i) { return keyed_perm_apply(&w->perm_r, i); }
uint64_t workload_s_tuple(const workload *w, uint64_t g) { return keyed_perm_apply(&w->perm_s, g); }

/* --- Zipf(s) over {1..n} by rejection-inversion (Hörmann & Derflinger 1996): O(1) per draw ---- */
static double helper1(double x) { return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x)); }
static double helper2(double x) { return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x)); }
static double zipf_h(double s, double x) { return exp(-s * log(x)); }
static double zipf_H(double s, double x) { double lx = log(x); return helper2((1 - s) * lx) * lx; }
static double zipf_Hinv(double s, double x)
{
    double t = x * (1 - s);
    if (t < -1) t = -1; /* numerical guard */
    return exp(helper1(t) * x);
}

static uint64_t zipf_draw(const workload *w, uint64_t t)
{
    const double s = w->zipf_s, n = (double)w->r_total;
    const double sv = 2 - zipf_Hinv(s, zipf_H(s, 2.5) - zipf_h(s, 2));
    for (uint64_t attempt = 0;; attempt++) {
        uint64_t rnd = splitmix64(w->seed * 0xD1B54A32D192ED03ull ^ (t * 0x9E3779B97F4A7C15ull + attempt));
        double u01 = (double)(rnd >> 11) * 0x1.0p-53;
        double u = w->zipf_hxn + u01 * (w->zipf_hx1 - w->zipf_hxn);
        double x = zipf_Hinv(s, u);
        double kd = floor(x + 0.5);
        if (kd < 1) kd = 1;
        if (kd > n) kd = n;
        if (kd - x <= sv || u >= zipf_H(s, kd + 0.5) - zipf_h(s, kd)) return (uint64_t)kd;
    }
}

void workload_init(workload *w, uint64_t r_total, int ratio, double selectivity, double skew, uint64_t seed,
                   int rank, int ranks, bool uneven)
{
    w->r_total = r_total;
    w->ratio = ratio;
    w->s_total = r_total * (uint64_t)ratio;
    w->selectivity = selectivity;
    w->skew = skew;
    w->seed = seed;
    workload_slice(w->r_total, rank, ranks, uneven, &w->r_off, &w->r_n);
    workload_slice(w->s_total, rank, ranks, uneven, &w->s_off, &w->s_n);
    keyed_perm_init(&w->perm_r, r_total, seed);
    /* S's order: keys of its own (another salt), independent of R's */
    keyed_perm_init(&w->perm_s, w->s_total, splitmix64(seed ^ 0x5A17ED0C0FFEEull));
    w->all_match = selectivity >= 1.0;
    w->sel_threshold = w->all_match ? UINT64_MAX : (uint64_t)(selectivity * 18446744073709551616.0);
    w->zipf_s = skew;
    if (skew > 0) {
        w->zipf_hx1 = zipf_H(skew, 1.5) - 1;
        w->zipf_hxn = zipf_H(skew, (double)r_total + 0.5);
    }
}

uint64_t workload_max_key(const workload *w) { return w->all_match ? w->r_total : 2 * w->r_total; }

uint64_t workload_partner(const workload *w, uint64_t t)
{
    if (!w->all_match && splitmix64(t ^ (w->seed * 0xA0761D6478BD642Full)) >= w->sel_threshold) return UINT64_MAX;
    if (w->skew > 0) return zipf_draw(w, t) - 1;
    return t % w->r_total;
}

static void generate_r_range(const workload *w, tuple_t *out, uint64_t first, uint64_t n)
{
    uint64_t j[CHUNK], key[CHUNK];
    for (uint64_t i = first; i < first + n; i += CHUNK) {
        const size_t len = first + n - i < CHUNK ? (size_t)(first + n - i) : CHUNK;
        for (size_t k = 0; k < len; k++) j[k] = w->r_off + i + k;
        keyed_perm_array(&w->perm_r, j, key, len);
        for (size_t k = 0; k < len; k++) out[i + k] = (tuple_t){key[k] + 1, j[k]};
    }
}

/* The key of logical S tuple t whose partner is j (UINT64_MAX: none). */
static uint64_t s_key(const workload *w, uint64_t t, uint64_t j)
{
    return j != UINT64_MAX ? workload_perm(w, j) + 1 : w->r_total + 1 + splitmix64(t ^ w->seed) % w->r_total;
}

/* expected (may be NULL): workload_expected's matches and checksum of these tuples, from the draws
 * that made them rather than from out[] (a second pass of the same draws would repeat two of the
 * five keyed permutations per R and S tuple) */
static void generate_s_range(const workload *w, tuple_t *out, uint64_t first, uint64_t n, uint64_t expected[2])
{
    const uint64_t rid0 = workload_rid_first(w, 1);
    uint64_t m = 0, c = 0, g[CHUNK], t[CHUNK], j[CHUNK], pr[CHUNK];
    for (uint64_t i = first; i < first + n; i += CHUNK) { /* the two permutations a chunk at a time */
        const size_t len = first + n - i < CHUNK ? (size_t)(first + n - i) : CHUNK;
        for (size_t k = 0; k < len; k++) g[k] = w->s_off + i + k;
        keyed_perm_array(&w->perm_s, g, t, len);
        for (size_t k = 0; k < len; k++) {
            j[k] = workload_partner(w, t[k]);
            pr[k] = j[k] != UINT64_MAX ? j[k] : 0; /* no partner: a key of its own (s_key) */
        }
        keyed_perm_array(&w->perm_r, pr, pr, len);
        for (size_t k = 0; k < len; k++) {
            const uint64_t key = j[k] != UINT64_MAX ? pr[k] + 1 : s_key(w, t[k], j[k]);
            out[i + k] = (tuple_t){key, rid0 + g[k]};
            if (j[k] != UINT64_MAX) {
                m++;
                c += match_term(j[k], rid0 + g[k], key);
            }
        }
    }
    if (expected) {
        expected[0] = m;
        expected[1] = c;
    }
}

void generate_r(const workload *w, tuple_t *out) { generate_r_range(w, out, 0, w->r_n); }

void generate_s(const workload *w, tuple_t *out) { generate_s_range(w, out, 0, w->s_n, NULL); }

void generate_s_expected(const workload *w, tuple_t *out, uint64_t expected[2]) { generate_s_range(w, out, 0, w->s_n, expected); }

void generate_range(const workload *w, int rel, tuple_t *out, uint64_t first, uint64_t n)
{
    if (rel == 0) generate_r_range(w, out, first, n);
    else generate_s_range(w, out, first, n, NULL);
}

void workload_expected(const workload *w, uint64_t *matches, uint64_t *checksum)
{
    const uint64_t rid0 = workload_rid_first(w, 1);
    uint64_t m = 0, c = 0;
    for (uint64_t i = 0; i < w->s_n; i++) {
        uint64_t g = w->s_off + i, j = workload_partner(w, workload_s_tuple(w, g));
        if (j == UINT64_MAX) continue;
        m++;
        c += match_term(j, rid0 + g, workload_perm(w, j) + 1);
    }
    *matches = m;
    *checksum = c;
}
