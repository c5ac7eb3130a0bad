/* `rmabench join --plan`: what a run at --ranks N (--ranks-per-host M) would do, printed without
 * launching a rank (no MPI_Init). It uses the run's own planning code: the workload of the rank
 * with the largest slice (workload_init), each algorithm's plan() (joins/join.h) with its
 * refusals, join_need_of for a rank's memory and bench/memory.h's host verdict. O(1) lines in the
 * rank count. The memory of a rank is split into the data (R and S, the windows, the algorithms'
 * copies of their share) and what lies beyond it (send buffers, tables, O(P)-word arrays, and
 * MEM_RUNTIME_BYTES for the process and the MPI library); the latter must stay within 256 MiB at
 * 4096 ranks with the defaults (docs/joins.md, unit/join_memory). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/options.h"
#include "cmd/join/join_cmd.h"

#define BEYOND_DATA_BOUND ((int64_t)256 << 20)

void join_need_of(const join_opts *o, const workload *w, const join_plan *plans, int nplans, join_need *n)
{
    memset(n, 0, sizeof *n);
    int64_t buffers = 0, beyond_windows = 0;
    for (int a = 0; a < nplans; a++) {
        const join_plan *p = &plans[a];
        if (join_plan_bytes(p) > n->plan_bytes) {
            n->plan_bytes = join_plan_bytes(p);
            n->join_window_bytes = p->window_bytes;
        }
        if (p->buffer_bytes > buffers) buffers = p->buffer_bytes;
        if (join_plan_bytes(p) - p->window_bytes > beyond_windows) beyond_windows = join_plan_bytes(p) - p->window_bytes;
        for (int s = 0; s < JOIN_WINDOW_SLOTS; s++)
            if (p->window_slot_bytes[s] > n->slot_bytes[s]) n->slot_bytes[s] = p->window_slot_bytes[s];
    }
    for (int s = 0; s < JOIN_WINDOW_SLOTS; s++) n->kept_bytes += n->slot_bytes[s];
    n->relations_bytes = (int64_t)((w->r_n + w->s_n) * sizeof(tuple_t));
    n->rank_bytes_join = n->relations_bytes + n->plan_bytes;
    /* kept windows are held while every algorithm runs, each beside the rest of its plan */
    if (o->window_life != WIN_LIFE_JOIN && beyond_windows + n->kept_bytes > n->plan_bytes)
        n->plan_bytes = beyond_windows + n->kept_bytes;
    n->rank_bytes = n->relations_bytes + n->plan_bytes;
    n->flag = o->r_total > 0 ? "--r-tuples" : "--tuples-per-rank";
    /* --buffer-memory is worth naming when the send buffers are an eighth of the need or more */
    n->advice = mem_advice(o->r_total <= 0, buffers >= n->rank_bytes / 8);
}

/* One rank's workload slice, the algorithms' plans for it, its need. */
typedef struct {
    int rank;
    workload wl;
    join_plan plans[2];
    join_need need;
    int64_t resident_plan; /* the larger plan plus the peers' window pages it may map */
} rank_plan;

/* The planned run's shape and two ranks of it: rank 0 (the largest even slice, and the sort-merge
 * splitter sample) and another (the last with --uneven: the largest slice; else rank 1). A host
 * needs at most rank 0's need plus (ranks per host - 1) times the other's. */
typedef struct {
    int ranks, per_host, hosts, nalgos, nfit;
    const join_algo *algos[2];
    bool fits[2];
    char refusal[2][512];   /* rank 0's refusal of each algorithm that does not fit */
    rank_plan r0, other;
} scale;

static void plan_rank(const join_opts *o, scale *sc, uint64_t r_total, int rank, rank_plan *rp, bool report)
{
    rp->rank = rank;
    workload_init(&rp->wl, r_total, (int)o->ratio, o->selectivity, o->skew, (uint64_t)o->seed, rank, sc->ranks,
                  o->uneven);
    join_plan fit[2];
    int nfit = 0;
    rp->resident_plan = 0;
    for (int a = 0; a < sc->nalgos; a++) {
        char err[512];
        sc->fits[a] = sc->algos[a]->plan(o, &rp->wl, sc->ranks, &rp->plans[a], err, sizeof err) == 0;
        if (!sc->fits[a]) {
            if (report) snprintf(sc->refusal[a], sizeof sc->refusal[a], "%s", err);
            continue;
        }
        fit[nfit++] = rp->plans[a];
        /* pages of the host's other ranks' windows this rank puts (or, --window shared, stores) into
         * are mapped here too (shared memory): at most its share, bounded by its own windows;
         * --window auto may choose MPI_Win_allocate when it runs */
        int64_t r = join_plan_bytes(&rp->plans[a]);
        if (sc->per_host > 1 && (o->window == WIN_ALLOCATE || o->window == WIN_AUTO || o->window == WIN_SHARED))
            r += rp->plans[a].window_bytes;
        if (r > rp->resident_plan) rp->resident_plan = r;
    }
    sc->nfit = nfit;
    join_need_of(o, &rp->wl, fit, nfit, &rp->need);
}

/* The run's refusal lines, word for word (join_setup.c): alone, or with --algo both naming what still runs. */
static void report_refusals(const join_opts *o, const scale *sc)
{
    const join_algo *runs = NULL;
    for (int a = 0; a < sc->nalgos; a++)
        if (sc->fits[a] && !runs) runs = sc->algos[a];
    for (int a = 0; a < sc->nalgos; a++) {
        if (sc->fits[a]) continue;
        if (o->algo != ALGO_BOTH) fprintf(stderr, "rmabench: %s\n", sc->refusal[a]);
        else
            fprintf(stderr, "rmabench: --algo: %s refused: %s%s%s\n", sc->algos[a]->name, sc->refusal[a],
                    runs ? "; running " : "", runs ? runs->name : "");
    }
}

static int plan_scale(const join_opts *o, scale *sc)
{
    sc->ranks = o->plan_ranks > 0 ? (int)o->plan_ranks : 1;
    sc->per_host = o->plan_ranks_per_host > 0 && o->plan_ranks_per_host < sc->ranks ? (int)o->plan_ranks_per_host
                                                                                     : sc->ranks;
    sc->hosts = (sc->ranks + sc->per_host - 1) / sc->per_host;
    uint64_t r_total = o->r_total > 0 ? (uint64_t)o->r_total : (uint64_t)o->tuples_per_rank * (uint64_t)sc->ranks;
    if (r_total < (uint64_t)sc->ranks) {
        fprintf(stderr, "rmabench: --r-tuples: %" PRIu64 " tuples cannot give each of %d ranks at least one\n", r_total,
                sc->ranks);
        return -1;
    }
    sc->nalgos = 0;
    if (o->algo == ALGO_RADIX || o->algo == ALGO_BOTH) sc->algos[sc->nalgos++] = &radix_join_algo;
    if (o->algo == ALGO_SORTMERGE || o->algo == ALGO_BOTH) sc->algos[sc->nalgos++] = &sortmerge_join_algo;
    if (o->algo == ALGO_REFERENCE) sc->algos[sc->nalgos++] = &reference_join_algo;
    /* rank 0 last: its verdicts (fits, nfit, refusals) stand, as on the run's rank 0 */
    plan_rank(o, sc, r_total, sc->ranks == 1 ? 0 : o->uneven ? sc->ranks - 1 : 1, &sc->other, false);
    plan_rank(o, sc, r_total, 0, &sc->r0, true);
    report_refusals(o, sc);
    return sc->nfit ? 0 : -1;
}

static void print_bytes(const char *label, int64_t v)
{
    char b[32];
    mem_format(v, b, sizeof b);
    printf("%s%s", label, b);
}

/* One algorithm: its format, what it resolved, its memory beyond R and S; returns beyond-the-data bytes. */
static int64_t print_algo(const join_algo *algo, const join_plan *p, int64_t relations)
{
    const char *n = algo->name;
    printf("%s: tuple format %s\n%s: %s\n", n, p->format, n, p->detail);
    printf("%s: memory per rank beyond R and S:", n);
    print_bytes(" windows ", p->window_bytes);
    print_bytes(", data copies ", p->copy_bytes);
    print_bytes(", send buffers ", p->buffer_bytes);
    print_bytes(", tables and per-rank arrays ", p->other_bytes);
    printf("\n%s resolved: partitions=%" PRId64 " radix_bits=%" PRId64 " passes=%" PRId64 " local_bits=%" PRId64
           " buffer_size=%" PRId64 " buffers=%" PRId64 " run_size=%" PRId64 " merge_fanin=%" PRId64
           " merge_passes=%" PRId64 " tuple_bytes=%d mem_rank=%" PRId64 "\n", n, p->partitions, p->radix_bits,
           p->passes, p->local_bits, p->buffer_size, p->buffers, p->run_size, p->merge_fanin, p->merge_passes,
           p->tuple_bytes, relations + join_plan_bytes(p) + MEM_RUNTIME_BYTES); /* the run's mem_plan_rank */
    int64_t beyond = p->buffer_bytes + p->other_bytes + MEM_RUNTIME_BYTES;
    print_bytes("  beyond the data: ", beyond);
    print_bytes(" (send buffers, tables, arrays, and process + MPI library ", MEM_RUNTIME_BYTES);
    print_bytes("); bound ", BEYOND_DATA_BOUND);
    printf(": %s\n", beyond <= BEYOND_DATA_BOUND ? "within" : "ABOVE");
    return beyond;
}

/* Each --window-life's window memory per rank (the rank that needs the most) and per host, the
 * run's marked: O(1) lines. */
static void print_lifetimes(const join_opts *o, const scale *sc, const rank_plan *big)
{
    const join_need *n0 = &sc->r0.need, *n1 = &sc->other.need;
    const int64_t join_rank = big->need.join_window_bytes, kept_rank = big->need.kept_bytes;
    const int64_t join_host = n0->join_window_bytes + (int64_t)(sc->per_host - 1) * n1->join_window_bytes;
    const int64_t kept_host = n0->kept_bytes + (int64_t)(sc->per_host - 1) * n1->kept_bytes;
    char a[32], b[32];
    for (int life = 0; win_life_names[life]; life++) {
        const bool join = life == WIN_LIFE_JOIN;
        mem_format(join ? join_rank : kept_rank, a, sizeof a);
        mem_format(join ? join_host : kept_host, b, sizeof b);
        printf("window-life %s%s: %s per rank, %s per host %s\n", win_life_names[life],
               life == o->window_life ? " (this run)" : "", a, b,
               join ? "while a join runs, allocated and freed by every join"
               : life == WIN_LIFE_POOL ? "held from the first join to the end, a window per slot at its largest plan"
                                       : "held from the first join to the end in one arena, attached by every join to one "
                                         "dynamic window, with 8 B per slot and rank of addresses");
    }
}

/* The host verdict: --host-memory, else this machine's when the plan is for one host. A run that
 * would fit with --window-life join names that flag. */
static int judge_host(const join_opts *o, const scale *sc, const join_need *need, int64_t host_need, int64_t host_need_join)
{
    int64_t avail = o->host_memory > 0 ? o->host_memory : sc->hosts == 1 ? mem_available_bytes() : 0;
    print_bytes("memory per host: ", host_need);
    printf(" (%d ranks)", sc->per_host);
    if (avail <= 0) {
        printf("; not checked: give --host-memory (the memory one host of the run offers)\n");
        return 0;
    }
    print_bytes(o->host_memory > 0 ? "; --host-memory " : "; this machine has ", avail);
    printf(" available\n");
    char msg[512];
    if (mem_host_verdict(host_need, avail, need->flag, need->advice, msg, sizeof msg) == 0) return 0;
    if (mem_host_verdict(host_need_join, avail, need->flag, need->advice, msg, sizeof msg) == 0)
        mem_host_verdict(host_need, avail, "--window-life", JOIN_LIFE_ADVICE, msg, sizeof msg);
    fprintf(stderr, "rmabench: %s\n", msg);
    return -1;
}

int join_plan_main(const join_opts *o)
{
    if (bench_env_rank() != 0) return 0; /* launched by mistake: one copy prints */
    scale sc;
    memset(&sc, 0, sizeof sc);
    int ok = plan_scale(o, &sc) == 0;
    printf("# rmabench join --plan: %d ranks on %d host(s), %d per host; nothing launched\n", sc.ranks, sc.hosts,
           sc.per_host);
    if (!ok) return 2;
    /* the rank that needs the most speaks for every rank */
    const rank_plan *big = sc.other.need.rank_bytes > sc.r0.need.rank_bytes ? &sc.other : &sc.r0;
    char rn[32], sn[32];
    opt_format_count((int64_t)big->wl.r_total, rn, sizeof rn);
    opt_format_count((int64_t)big->wl.s_total, sn, sizeof sn);
    printf("# |R| = %s, |S| = %s (1:%d, selectivity %g, skew %g); rank %d holds R %" PRIu64 " + S %" PRIu64
           " tuples\n", rn, sn, (int)o->ratio, o->selectivity, o->skew, big->rank, big->wl.r_n, big->wl.s_n);
    int64_t beyond = 0;
    for (int a = 0; a < sc.nalgos; a++) {
        if (!sc.fits[a]) continue;
        int64_t b = print_algo(sc.algos[a], &big->plans[a], big->need.relations_bytes);
        if (b > beyond) beyond = b;
    }
    const int64_t rank = big->need.rank_bytes + MEM_RUNTIME_BYTES;
    const int64_t resident = big->need.relations_bytes + big->resident_plan + MEM_RUNTIME_BYTES;
    const int64_t host = sc.r0.need.rank_bytes + (int64_t)(sc.per_host - 1) * sc.other.need.rank_bytes +
                         (int64_t)sc.per_host * MEM_RUNTIME_BYTES;
    const int64_t host_join = host - sc.r0.need.rank_bytes - (int64_t)(sc.per_host - 1) * sc.other.need.rank_bytes +
                              sc.r0.need.rank_bytes_join + (int64_t)(sc.per_host - 1) * sc.other.need.rank_bytes_join;
    print_bytes("memory per rank: ", rank);
    print_bytes(" = R and S ", big->need.relations_bytes);
    print_bytes(" + the larger plan ", big->need.plan_bytes);
    print_bytes(" + process and MPI library ", MEM_RUNTIME_BYTES);
    print_bytes("; resident at most ", resident);
    printf(" (peers' window pages written on this host count there too)\n");
    printf("plan bytes: rank=%" PRId64 " host=%" PRId64 " resident=%" PRId64 " beyond_data=%" PRId64 "\n", rank, host,
           resident, beyond);
    print_lifetimes(o, &sc, big);
    int host_ok = judge_host(o, &sc, &big->need, host, host_join) == 0;
    printf("plan: %s\n", !host_ok ? "does not fit" : sc.nfit < sc.nalgos ? "fits in part (see the refusal)" : "fits");
    /* the exit status the run would have (docs/joins.md, "Exit status") */
    return !host_ok ? JOIN_EXIT_USAGE : sc.nfit < sc.nalgos ? JOIN_EXIT_PARTLY_REFUSED : JOIN_EXIT_OK;
}
