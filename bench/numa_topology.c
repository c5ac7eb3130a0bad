#include "bench/numa_topology.h"

#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    for (int i = 0; i < size; i++) {
        if (pl[i].host != h) continue;
        bool seen = false;  /* report each distinct set once */
        for (int k = 0; k < i && !seen; k++)
            seen = pl[k].host == h && mask_subset(pl[k].allowed, pl[i].allowed) && mask_subset(pl[i].allowed, pl[k].allowed);
        if (seen) continue;
        int inside = 0;
        for (int j = 0; j < size; j++) inside += pl[j].host == h && mask_subset(pl[j].allowed, pl[i].allowed);
        if (inside > pl[i].nallowed) {
            fprintf(w, "%shost %s: %d ranks share %d core(s) (", (*nwarn)++ ? "; " : "", hname, inside, pl[i].nallowed);
            fprint_mask(w, pl[i].allowed);
            fprintf(w, ")");
        }
    }
    int unbound = 0, first = -1, nodes = 0;
    for (int i = 0; i < size; i++)
        if (pl[i].host == h && pl[i].host_nodes > 1 && pl[i].nodes_spanned > 1) {
            if (!unbound++) first = i;
            nodes = pl[i].host_nodes;
        }
    if (unbound)
        fprintf(w, "%shost %s: %d rank(s) unbound on a %d-node host (rank %d may run on cores of several nodes)",
                (*nwarn)++ ? "; " : "", hname, unbound, nodes, first);
}

static char *build_summary(const bench_ctx *ctx, const numa_rank_place *pl, numa_report *rep, const char *requested_name)
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
    for (int h = 0; h < ctx->hosts; h++) {
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
    if (rep->warning[0]) fprintf(f, "# binding warning: %s\n", rep->warning);
    fclose(f);
    return buf;
}

void numa_report_init(const bench_ctx *ctx, int requested, numa_report *rep)
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
    if (nwarn) fprintf(stderr, "rmabench: warning: %s\n", rep->warning);
    rep->header = build_summary(ctx, all, rep, numa_policy_names[requested]);
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
    numa_placement_stats(&checks, &pages, &secs);
    if (rep->worst < 0)
        printf("numa placement: not measured (no touched pages checked), policy %s\n", numa_policy_names[rep->policy]);
    else
        printf("numa placement: worst rank %d: %.1f%% of sampled pages on its intended node(s), policy %s "
               "(rank 0: %" PRIu64 " checks, %" PRIu64 " pages, %.3f ms)\n",
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
