/* Every join phase against the memory roofline. A phase's bytes come from its
 * algorithm's formulas (join_algo.bytes: the plan and the sizes, never counters); its achieved rate
 * is (read + written) / its average time over ranks, in GB/s per rank. The roofline time of a
 * phase (bench/membw.h membw_bound_seconds): the bytes it reads and writes alike stream at the
 * copy rate, the rest at the read or the write rate (the better of ordinary and non-temporal
 * stores); the fraction of the roofline is that time over the phase's average time (1 = at the
 * machine's streaming bandwidth; above 1 when data stayed in the caches or the formula counts
 * traffic the code avoided). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench/membw.h"
#include "cmd/join/join_cmd.h"
#include "joins/generate.h"
#include "joins/radix/radix_kernels.h"
#include "joins/sortmerge/smj_kernels.h"

void join_roofline_init(join_session *js)
{
    join_roofline *r = &js->roof;
    memset(r, 0, sizeof *r);
    snprintf(r->source, sizeof r->source, "none");
    const model_params *p = &js->model.p;
    if (js->model.on && p->set[MP_bw_mem_read] && p->set[MP_bw_mem_write] && p->set[MP_bw_mem_copy]) {
        r->on = true;
        r->read = params_get(p, MP_bw_mem_read);
        r->write = params_get(p, MP_bw_mem_write);
        r->copy = params_get(p, MP_bw_mem_copy);
        snprintf(r->source, sizeof r->source, "model %.540s", js->o.model);
        return;
    }
    if (!js->o.roofline) return;
    membw_result m;
    membw_measure(&js->ctx, 0, 3, "--roofline",
                  "a parameter file with bw_mem_read, bw_mem_write and bw_mem_copy (--model)", &m);
    r->on = true;
    r->read = m.rank_median[MEMBW_READ] * 1e9;
    r->write_plain = m.rank_median[MEMBW_WRITE] * 1e9;
    r->write_nt = m.rank_median[MEMBW_WRITE_NT] * 1e9;
    r->write = membw_write_best(&m) * 1e9;
    r->copy = m.rank_median[MEMBW_COPY] * 1e9;
    r->bytes = (int64_t)m.bytes;
    char llc[200];
    membw_describe_llc(&m, llc, sizeof llc); /* names it when the buffers were not beyond the cache */
    snprintf(r->source, sizeof r->source, "membw %s", llc);
}

void join_roofline_apply(const join_session *js, join_run_result *res)
{
    const phase_stats *st = &res->st;
    res->has_bytes = res->algo->bytes != NULL;
    const join_bytes_shape shape = {js->ctx.size, js->wl.r_total, js->wl.s_total, (int)res->out.tuple_bytes,
                                    (int)res->out.passes, (int)res->out.local_counted,
                                    js->o.window == WIN_SHARED ? js->ctx.host_size : 1};
    res->bound_s = -1;
    for (int i = 0; i < st->n; i++) {
        res->gbs[i] = res->frac[i] = -1;
        if (!res->has_bytes || st->detail[i] || st->avg[i] <= 0) continue;
        join_phase_bytes b = res->algo->bytes(st->name[i], &shape);
        if (b.read + b.written <= 0) continue;
        res->gbs[i] = (b.read + b.written) / st->avg[i] / 1e9;
        if (!js->roof.on) continue;
        const double bound = membw_bound_seconds(b.read, b.written, js->roof.read, js->roof.write, js->roof.copy);
        res->frac[i] = bound / st->avg[i];
        res->bound_s = (res->bound_s < 0 ? 0 : res->bound_s) + bound;
    }
}

/* The whole join at the roofline: its counted phases' bytes at the streaming rates, as input tuples
 * per second, beside this run's rate without window_alloc (the slowest rank's total less the
 * slowest window_alloc). How far a target lies from what this machine allows. */
void join_roofline_print_bound(const join_session *js, const join_run_result *res)
{
    if (res->bound_s <= 0) return;
    const phase_stats *st = &res->st;
    const double *alloc_max = phase_stats_find(st, "window_alloc", 1), alloc = alloc_max ? *alloc_max : 0;
    const double tuples = (double)js->wl.r_total + (double)js->wl.s_total, run = st->total_max - alloc;
    printf("at the roofline: the phases' bytes stream in %.4f s, %.2f M input tuples/s; this run without window_alloc "
           "%.2f M/s, %.2f of it\n",
           res->bound_s, tuples / res->bound_s / 1e6, run > 0 ? tuples / run / 1e6 : 0.0, run > 0 ? res->bound_s / run : 0.0);
}

void join_roofline_record(const join_session *js, const join_run_result *res, record *rec)
{
    const phase_stats *st = &res->st;
    const join_roofline *r = &js->roof;
    char col[64];
    for (int i = 0; i < st->n; i++) {
        snprintf(col, sizeof col, "t_%s_faults", st->name[i]);
        record_set(rec, col, "%.0f", st->faults[i]);
        snprintf(col, sizeof col, "t_%s_gbs", st->name[i]);
        if (res->gbs[i] >= 0) record_set(rec, col, "%.4f", res->gbs[i]);
        snprintf(col, sizeof col, "t_%s_roofline", st->name[i]);
        if (res->frac[i] >= 0) record_set(rec, col, "%.4f", res->frac[i]);
    }
    record_set(rec, "roofline_source", "%s", r->source);
    if (res->bound_s > 0) record_set(rec, "membw_bound_s", "%.6f", res->bound_s);
    if (!r->on) return;
    if (r->bytes) record_set(rec, "membw_bytes", "%" PRId64, r->bytes);
    record_set(rec, "membw_read", "%.3f", r->read / 1e9);
    record_set(rec, "membw_copy", "%.3f", r->copy / 1e9);
    if (r->bytes) {
        record_set(rec, "membw_write", "%.3f", r->write_plain / 1e9);
        record_set(rec, "membw_write_nt", "%.3f", r->write_nt / 1e9);
    } else record_set(rec, "membw_write", "%.3f", r->write / 1e9);
}

/* With --roofline, the kernel of an in-cache phase alone on one core (rank 0's, while the other
 * ranks wait for the next run), measured once per process and kernel: build + probe over the
 * leaves the radix join's --simd auto times (radix_build_probe_rate), or the run sort that sorted
 * most runs (radix_sort: the radix sort) over runs of the join's length with the keys of a rank's
 * range (smj_run_sort_rate). Tuples per second; 0 where there is nothing to measure (the 16-byte
 * format) or no memory. *how names the sample. */
static double kernel_alone(const join_session *js, const join_run_result *res, bool bp, bool radix_sort, const char **how)
{
    static struct {
        bool done;
        char key[96];
        double rate;
    } cache[2];
    const join_output *out = &res->out;
    if (!js->o.roofline || out->tuple_bytes != 8) return 0; /* asked for; the wide kernels: no sample here */
    char key[96];
    const uint64_t keys = workload_max_key(&js->wl) / (uint64_t)js->ctx.size + 1;
    if (bp) snprintf(key, sizeof key, "%s", out->simd_used ? out->simd_used : "scalar");
    else snprintf(key, sizeof key, "%s %" PRId64 " %d", radix_sort ? "radix" : "network", out->run_size, bits_for(keys));
    *how = bp ? "build + probe of 4 L2-sized leaves" : radix_sort ? "LSD radix sort of runs" : "network sort of runs";
    if (cache[bp].done && strcmp(cache[bp].key, key) == 0) return cache[bp].rate;
    if (bp) {
        const char *used = out->simd_used ? out->simd_used : "";
        cache[bp].rate = radix_build_probe_rate(strcmp(used, radix_simd_name(RADIX_SIMD_PROBE)) == 0 ||
                                                strcmp(used, radix_simd_name(RADIX_SIMD_PROBE | RADIX_SIMD_SCATTER)) == 0);
    } else {
        const int simd = smj_simd_resolve((int)js->o.simd);
        cache[bp].rate = out->run_size >= 2 ? smj_run_sort_rate((size_t)out->run_size, bits_for(keys),
                                                               radix_sort ? SMJ_RUN_SORT_RADIX : SMJ_RUN_SORT_NETWORK, simd)
                                            : 0;
    }
    cache[bp].done = true;
    snprintf(cache[bp].key, sizeof cache[bp].key, "%s", key);
    return cache[bp].rate;
}

/* The phases that work in the caches (a hash table per leaf, a run sorted in the L2): their bound is
 * the core, not the memory, so they are shown as tuples per second per core (this rank's share of
 * R and S over the phase's average time) beside the same kernel alone on one core: from --model's
 * rates (rmabench calibrate: P_build and P_probe, P_sort_run or P_sort_radix) when it has them,
 * else with --roofline timed on a sample at run time (kernel_alone). */
void join_roofline_print_in_cache(const join_session *js, const join_run_result *res)
{
    const phase_stats *st = &res->st;
    const double per_rank_r = (double)js->wl.r_total / js->ctx.size, per_rank_s = (double)js->wl.s_total / js->ctx.size;
    const model_params *p = &js->model.p;
    for (int i = 0; i < st->n; i++) {
        const bool bp = strcmp(st->name[i], "build_probe") == 0, sort = strcmp(st->name[i], "sort") == 0;
        if ((!bp && !sort) || st->avg[i] <= 0) continue;
        printf("in cache, per core: %s %.2f M tuples/s", st->name[i], (per_rank_r + per_rank_s) / st->avg[i] / 1e6);
        double alone = 0;
        if (js->model.on && bp && p->set[MP_P_build] && p->set[MP_P_probe])
            alone = (per_rank_r + per_rank_s) /
                    (per_rank_r / params_get(p, MP_P_build) + per_rank_s / params_get(p, MP_P_probe));
        const bool radix = sort && res->out.radix_share > 0.5; /* the kernel that sorted most runs */
        const int sort_rate = radix && p->set[MP_P_sort_radix] ? MP_P_sort_radix : MP_P_sort_run;
        if (js->model.on && sort && p->set[sort_rate]) alone = params_get(p, sort_rate);
        if (alone > 0) {
            printf(" (the kernel alone on one core: %.2f, --model)\n", alone / 1e6);
            continue;
        }
        const char *how = "";
        alone = kernel_alone(js, res, bp, radix, &how);
        if (alone > 0) printf(" (the kernel alone on one core: %.2f, %s)\n", alone / 1e6, how);
        else printf(" (the kernel alone on one core: %s)\n",
                    bp ? "rmabench calibrate's P_build, P_probe"
                    : radix ? "calibrate's P_sort_radix" : "build/smj-sortbench, or calibrate's P_sort_run");
    }
}
