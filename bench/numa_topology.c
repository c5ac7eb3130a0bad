#include "bench/numa_topology.h"

#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/ranges.h"
#include "bench/rmb_config.h"

static bool mask_has(const uint64_t *m, int c) { return (m[c / 64] >> (c % 64)) & 1; }

void numa_mask_set(uint64_t *m, int c) { m[c / 64] |= (uint64_t)1 << (c % 64); }

static bool mask_subset(const uint64_t *a, const uint64_t *b)
{
    for (int w = 0; w < NUMA_MASK_WORDS; w++)
        if (a[w] & ~b[w]) return false;
    return true;
}

/* "0-3,8" */
static void fprint_mask(FILE *f, const uint64_t *m)
{
    bool first = true;
    for (int c = 0; c < 64 * NUMA_MASK_WORDS; c++) {
        if (!mask_has(m, c)) continue;
        int e = c;
        while (e + 1 < 64 * NUMA_MASK_WORDS && mask_has(m, e + 1)) e++;
        fprintf(f, "%s%d", first ? "" : ",", c);
        if (e > c) fprintf(f, "-%d", e);
        first = false;
        c = e;
    }
}

/* The cores of m as at most `runs` ranges (bounded length whatever the core count). */
static void fprint_mask_capped(FILE *f, const uint64_t *m, int runs)
{
    int cores[64 * NUMA_MASK_WORDS], n = 0;
    for (int c = 0; c < 64 * NUMA_MASK_WORDS; c++)
        if (mask_has(m, c)) cores[n++] = c;
    ranges_print(f, cores, n, runs);
}

static void my_place(const bench_ctx *ctx, numa_rank_place *p)
{
    memset(p, 0, sizeof *p);
    p->host = ctx->host_id;
    p->core = sched_getcpu();
    p->node = numa_node_of_core(p->core);
    p->online = ctx->online_cores;
    p->host_nodes = numa_node_count();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) CPU_SET(p->core < 0 ? 0 : p->core, &set);
    bool spans[1024] = {false};
    for (int c = 0; c < CPU_SETSIZE && c < 64 * NUMA_MASK_WORDS; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        numa_mask_set(p->allowed, c);
        p->nallowed++;
        int n = numa_node_of_core(c);
        if (n >= 0 && n < 1024 && !spans[n]) { spans[n] = true; p->nodes_spanned++; }
    }
}

/* The name of host h from ctx->hostnames ("a;b;c"). */
static void host_name(const bench_ctx *ctx, int h, char *out, size_t len)
{
    const char *s = ctx->hostnames;
    for (int i = 0; i < h && s; i++) {
        s = strchr(s, ';');
        if (s) s++;
    }
    if (!s) s = "?";
    size_t n = strcspn(s, ";");
    if (n >= len) n = len - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

void numa_host_warnings(FILE *w, int *nwarn, const numa_rank_place *pl, int size, int h, const char *hname)
{
    /* the host's ranks first, so that the pairwise work is per host, not over all ranks */
    int *mine = malloc(sizeof *mine * (size_t)(size > 0 ? size : 1)), n = 0;
    for (int i = 0; i < size; i++)
        if (pl[i].host == h) mine[n++] = i;
    for (int a = 0; a < n; a++) {
        const numa_rank_place *p = &pl[mine[a]];
        bool seen = false;  /* report each distinct set once */
        for (int k = 0; k < a && !seen; k++)
            seen = mask_subset(pl[mine[k]].allowed, p->allowed) && mask_subset(p->allowed, pl[mine[k]].allowed);
        if (seen) continue;
        int inside = 0;
        for (int j = 0; j < n; j++) inside += mask_subset(pl[mine[j]].allowed, p->allowed);
        if (inside > p->nallowed) {
            fprintf(w, "%shost %s: %d ranks share %d core(s) (", (*nwarn)++ ? "; " : "", hname, inside, p->nallowed);
            fprint_mask(w, p->allowed);
            fprintf(w, ")");
        }
    }
    int unbound = 0, first = -1, nodes = 0;
    for (int a = 0; a < n; a++) {
        const numa_rank_place *p = &pl[mine[a]];
        if (p->host_nodes > 1 && p->nodes_spanned > 1) {
            if (!unbound++) first = mine[a];
            nodes = p->host_nodes;
        }
    }
    free(mine);
    if (unbound)
        fprintf(w, "%shost %s: %d rank(s) unbound on a %d-node host (rank %d may run on cores of several nodes)",
                (*nwarn)++ ? "; " : "", hname, unbound, nodes, first);
}

/* How a rank is bound: 0 = unbound (any core of its host), else the number of cores it may use. */
static int bound_cores(const numa_rank_place *p) { return p->nallowed >= p->online ? 0 : p->nallowed; }

static void fprint_binding(FILE *f, int k)
{
    if (k == 0) fprintf(f, "unbound (any core of their host)");
    else if (k == 1) fprintf(f, "bound to one core each");
    else fprintf(f, "bound to %d cores each", k);
}

void numa_binding_summary(FILE *f, const numa_rank_place *pl, int size, int max_exceptions)
{
    enum { KINDS = 64 * NUMA_MASK_WORDS + 1 };
    int count[KINDS] = {0};
    for (int r = 0; r < size; r++) count[bound_cores(&pl[r])]++;
    int major = 0;
    for (int k = 1; k < KINDS; k++)
        if (count[k] > count[major]) major = k;
    uint64_t cores[NUMA_MASK_WORDS] = {0};
    bool node_seen[1025] = {false};
    for (int r = 0; r < size; r++) {
        if (bound_cores(&pl[r]) != major) continue;
        if (major == 0) {
            if (pl[r].core >= 0 && pl[r].core < 64 * NUMA_MASK_WORDS) numa_mask_set(cores, pl[r].core);
        } else
            for (int w = 0; w < NUMA_MASK_WORDS; w++) cores[w] |= pl[r].allowed[w];
        node_seen[pl[r].node >= 0 && pl[r].node < 1024 ? pl[r].node : 1024] = true;
    }
    int nodes[1024], nn = 0;
    for (int i = 0; i < 1024; i++)
        if (node_seen[i]) nodes[nn++] = i;
    fprintf(f, "# binding: ");
    if (count[major] == size) fprintf(f, "ranks 0-%d: ", size - 1);
    else fprintf(f, "%d of %d ranks: ", count[major], size);
    fprint_binding(f, major);
    fprintf(f, major == 0 ? ", running on cores " : ", cores ");
    fprint_mask_capped(f, cores, 4);
    fprintf(f, ", node(s) of their core ");
    ranges_print(f, nodes, nn, 4);
    if (node_seen[1024]) fprintf(f, "%s?", nn ? "," : "");
    int shown = 0;
    for (int r = 0; r < size; r++) {
        if (bound_cores(&pl[r]) == major) continue;
        if (shown == max_exceptions) {
            fprintf(f, " ... (%d more; --verbose lists every rank)", size - count[major] - shown);
            break;
        }
        fprintf(f, "%s rank %d (host %d): ", shown++ ? ";" : "; except", r, pl[r].host);
        fprint_binding(f, bound_cores(&pl[r]));
        if (bound_cores(&pl[r]) > 0) {
            fprintf(f, " (");
            fprint_mask_capped(f, pl[r].allowed, 4);
            fprintf(f, ")");
        }
    }
    fprintf(f, "\n");
}

/* The first `keep` "; "-separated warnings of w, then how many more (the CSV keeps them all). */
static char *cap_warnings(const char *w, int nwarn, int keep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const char *s = w;
    for (int i = 0; i < keep && s; i++) {
        const char *e = strstr(s, "; ");
        fprintf(f, "%s%.*s", i ? "; " : "", (int)(e ? (size_t)(e - s) : strlen(s)), s);
        s = e ? e + 2 : NULL;
    }
    if (nwarn > keep) fprintf(f, "; ... (%d more; --verbose or the CSV column binding_warning)", nwarn - keep);
    fclose(f);
    return buf;
}

static char *build_summary(const bench_ctx *ctx, const numa_rank_place *pl, numa_report *rep, const char *requested_name,
                           const char *warning, bool verbose)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!rep->available)
        fprintf(f, "# numa: unavailable (%s); policy off\n",
#if RMB_HAVE_NUMA
                "numa_available() < 0"
#else
                "built without libnuma"
#endif
        );
    else
        fprintf(f, "# numa: available, %d node(s); policy %s (requested %s); rank 0 intended node(s) %s; placement checked on up to %d pages per allocation\n",
                rep->nodes, numa_policy_names[rep->policy], requested_name, numa_intended_nodes(), NUMA_SAMPLE_PAGES);
    /* O(1) lines by default; every rank only when asked (the CSV row has every rank's core and node) */
    numa_binding_summary(f, pl, ctx->size, 4);
    for (int h = 0; verbose && h < ctx->hosts; h++) {
        char hname[MPI_MAX_PROCESSOR_NAME];
        host_name(ctx, h, hname, sizeof hname);
        fprintf(f, "# binding %s:", hname);
        int shown = 0;
        for (int r = 0; r < ctx->size; r++) {
            if (pl[r].host != h) continue;
            fprintf(f, "%s rank %d core %d node ", shown++ ? "," : "", r, pl[r].core);
            if (pl[r].node >= 0) fprintf(f, "%d", pl[r].node); else fprintf(f, "?");
            fprintf(f, " allowed ");
            if (pl[r].nallowed >= pl[r].online) fprintf(f, "all");
            else fprint_mask(f, pl[r].allowed);
        }
        fprintf(f, "\n");
    }
    if (warning[0]) fprintf(f, "# binding warning: %s\n", warning);
    fclose(f);
    return buf;
}

void numa_report_init(const bench_ctx *ctx, int requested, bool verbose, numa_report *rep)
{
    memset(rep, 0, sizeof *rep);
    char warn[256];
    rep->policy = numa_setup(requested, warn, sizeof warn);
    rep->available = numa_is_available();
    rep->nodes = numa_node_count();
    rep->worst = -1;
    rep->worst_rank = -1;
    if (ctx->rank == 0 && warn[0]) fprintf(stderr, "rmabench: warning: %s\n", warn);

    numa_rank_place mine, *all = NULL;
    my_place(ctx, &mine);
    if (ctx->rank == 0) all = malloc(sizeof *all * (size_t)ctx->size);
    MPI_CHECK(ctx->rank, MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, ctx->comm));
    if (ctx->rank != 0) return;

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int r = 0; r < ctx->size; r++) fprintf(f, "%s%d", r ? ";" : "", all[r].core);
    fclose(f);
    rep->rank_cores = buf;
    f = open_memstream(&buf, &len);
    for (int r = 0; r < ctx->size; r++) {
        if (all[r].node >= 0) fprintf(f, "%s%d", r ? ";" : "", all[r].node);
        else fprintf(f, "%s?", r ? ";" : "");
    }
    fclose(f);
    rep->rank_nodes = buf;
    f = open_memstream(&buf, &len);
    int nwarn = 0;
    for (int h = 0; h < ctx->hosts; h++) {
        char hname[MPI_MAX_PROCESSOR_NAME];
        host_name(ctx, h, hname, sizeof hname);
        numa_host_warnings(f, &nwarn, all, ctx->size, h, hname);
    }
    fclose(f);
    rep->warning = buf;
    char *shown = verbose ? NULL : cap_warnings(rep->warning, nwarn, 3);
    if (nwarn) fprintf(stderr, "rmabench: warning: %s\n", shown ? shown : rep->warning);
    rep->header = build_summary(ctx, all, rep, numa_policy_names[requested], shown ? shown : rep->warning, verbose);
    free(shown);
    free(all);
}

void numa_report_free(numa_report *rep)
{
    free(rep->header);
    free(rep->rank_cores);
    free(rep->rank_nodes);
    free(rep->warning);
    memset(rep, 0, sizeof *rep);
}

void numa_report_print_header(const numa_report *rep)
{
    if (rep->header) fputs(rep->header, stdout);
}

void numa_report_run(const bench_ctx *ctx, numa_report *rep)
{
    double w = numa_placement_worst();
    /* Ranks that checked nothing do not count: 2 is above every fraction. */
    struct { double v; int rank; } mine = {w < 0 ? 2.0 : w, ctx->rank}, low;
    MPI_CHECK(ctx->rank, MPI_Allreduce(&mine, &low, 1, MPI_DOUBLE_INT, MPI_MINLOC, ctx->comm));
    rep->worst = low.v > 1.5 ? -1 : low.v;
    rep->worst_rank = low.v > 1.5 ? -1 : low.rank;
}

void numa_report_print_run(const numa_report *rep)
{
    if (!rep->available) {
        printf("numa placement: unavailable\n");
        return;
    }
    uint64_t checks = 0, pages = 0;
    double secs = 0;
    numa_placement_stats_since(&checks, &pages, &secs); /* this run's checks; the worst is since the start */
    if (rep->worst < 0)
        printf("numa placement: not measured (no touched pages checked), policy %s\n", numa_policy_names[rep->policy]);
    else
        printf("numa placement: worst rank %d: %.1f%% of sampled pages on its intended node(s), policy %s "
               "(rank 0 in this run: %" PRIu64 " checks, %" PRIu64 " pages, %.3f ms)\n",
               rep->worst_rank, 100.0 * rep->worst, numa_policy_names[rep->policy], checks, pages, 1e3 * secs);
}

void numa_report_columns(const numa_report *rep, record *rec)
{
    record_set(rec, "numa", "%s", rep->available ? "available" : "unavailable");
    record_set(rec, "numa_policy", "%s", numa_policy_names[rep->policy]);
    if (rep->worst >= 0) record_set(rec, "numa_placement_worst", "%.4f", rep->worst);
    record_set(rec, "rank_cores", "%s", rep->rank_cores ? rep->rank_cores : "");
    record_set(rec, "rank_numa_nodes", "%s", rep->rank_nodes ? rep->rank_nodes : "");
    record_set(rec, "binding_warning", "%s", rep->warning ? rep->warning : "");
}
