/* The flags of `rmabench join`, in three groups (common, radix, sort-merge), and their checks.
 * MPI-free: parsed before MPI_Init so that bad input exits 2 before anything is allocated. */
#include <stdio.h>
#include <string.h>

#include "bench/numa_policy.h"
#include "bench/options.h"
#include "bench/wait_bound.h"
#include "cmd/join/join_cmd.h"
#include "joins/radix/exchange_registry.h"

const char *const join_algo_names[] = {"radix", "sortmerge", "both", "reference", NULL};
const char *const join_assign_names[] = {"round-robin", "sized", NULL};
const char *const join_scatter_names[] = {"auto", "direct", "staged", NULL}; /* RADIX_SCATTER_* */
const char *const join_schedule_names[] = {"as-is", "staggered", "random", NULL};
const char *const join_ranges_names[] = {"splitters", "equal", NULL};
const char *const join_run_sort_names[] = {"auto", "network", "radix", NULL};
const char *const join_band_count_names[] = {"sample", "exact", NULL};
const char *const join_simd_names[] = {"auto", "avx512", "avx2", "scalar", NULL};

void join_default_opts(join_opts *o)
{
    memset(o, 0, sizeof *o);
    o->algo = ALGO_RADIX;
    o->tuples_per_rank = 16000000;
    o->ratio = 1;
    o->selectivity = 1.0;
    o->seed = 42;
    o->repeat = 1;
    o->queries = 1;
    o->window = WIN_AUTO; /* rma/window_auto.h: the cheapest on this host; create with MPICH < 4.1 */
    o->window_life = JOIN_DEFAULT_WINDOW_LIFE;
    o->passes = -1;
    o->flush = RMA_FLUSH_AUTO; /* rma_flush_resolve: request where ranks outnumber cores or with MPICH < 4.1 */
    o->buffer_size = 64 * 1024;
    o->buffers_per_partition = 2;
    o->buffer_memory = JOIN_DEFAULT_BUFFER_MEMORY;
    o->compress = true; /* auto: packed when it fits (compress_given false) */
    o->ranges = RANGES_SPLITTERS;
    o->pack_bits = 64;
    o->wait_bound_s = WAIT_BOUND_DEFAULT_S;
}

/* A --selectivity of 0 (nothing to join), a --schedule the design would ignore (put sends whichever
 * buffer fills first, alltoallv leaves the order to the library): only designs that visit one peer at
 * a time take one. */
static int check_values(const join_opts *o, char *err, size_t errlen)
{
    if (o->selectivity <= 0) {
        snprintf(err, errlen, "--selectivity: must be greater than 0");
        return OPT_ERROR;
    }
    if (o->schedule == SCHEDULE_AS_IS || radix_exchange_takes_schedule(o->exchange)) return OPT_OK;
    char which[256];
    radix_exchange_schedule_names(" or ", which, sizeof which);
    snprintf(err, errlen, "--schedule: %s orders the peers of --exchange %s; %s has no peer order",
             join_schedule_names[o->schedule], which, radix_exchange_names()[o->exchange]);
    return OPT_ERROR;
}

/* Flags that would be silently ignored or overridden: --tuples-per-rank with --r-tuples, and a flag
 * of one algorithm's group given to a run of the other only (--algo both takes either). */
static int check_flag_groups(const join_opts *o, const opt_spec *const *tables, int argc, char **argv, bool seen_tpr,
                             bool seen_r_total, char *err, size_t errlen)
{
    if (seen_tpr && seen_r_total) {
        snprintf(err, errlen, "--r-tuples: sets the size of R, as --tuples-per-rank does: give one of them");
        return OPT_ERROR;
    }
    static const char *const group_names[] = {"radix", "sort-merge"};
    const int group_algo[] = {ALGO_RADIX, ALGO_SORTMERGE};
    for (int g = 0; g < 2; g++) {
        if (o->algo == ALGO_BOTH || o->algo == group_algo[g]) continue;
        const opt_spec *f = opt_given(tables, tables[1 + g], argc, argv, 2);
        if (f) {
            snprintf(err, errlen, "--%s: a %s join flag, which --algo %s does not use", f->name, group_names[g],
                     join_algo_names[o->algo]);
            return OPT_ERROR;
        }
    }
    return OPT_OK;
}

/* --queries and --repeat both repeat a join: a stream of fresh inputs, or runs on one input; a
 * dynamic window attaches memory of its own, which --window shared's segments are not;
 * --window-pool is --window-life pool. */
static int check_lifetime(join_opts *o, bool pool_flag, bool seen_life, char *err, size_t errlen)
{
    if (o->queries > 1 && o->repeat > 1) {
        snprintf(err, errlen, "--queries: runs each join on fresh data; --repeat runs it again on the same data: give one of them");
        return OPT_ERROR;
    }
    if (pool_flag && seen_life && o->window_life != WIN_LIFE_POOL) {
        snprintf(err, errlen, "--window-pool: means --window-life pool, which --window-life %s contradicts",
                 win_life_names[o->window_life]);
        return OPT_ERROR;
    }
    if (pool_flag) o->window_life = WIN_LIFE_POOL;
    if (o->window_life == WIN_LIFE_DYNAMIC && o->window == WIN_SHARED) {
        snprintf(err, errlen, "--window-life: dynamic attaches memory of its own to one MPI_Win_create_dynamic "
                 "window, and --window shared's segments are another window's: use pool or join");
        return OPT_ERROR;
    }
    return OPT_OK;
}

/* --ranks, --ranks-per-host and --host-memory describe a planned run: only with --plan; a plan
 * writes no row and compares with no model. */
static int check_plan_flags(const join_opts *o, char *err, size_t errlen)
{
    const char *flag = NULL;
    if (!o->plan) {
        if (o->plan_ranks) flag = "--ranks";
        else if (o->plan_ranks_per_host) flag = "--ranks-per-host";
        else if (o->host_memory) flag = "--host-memory";
        if (flag) snprintf(err, errlen, "%s: describes a planned run: only with --plan (a run has the launcher's ranks)", flag);
    } else if (o->output || o->model) {
        flag = o->output ? "--output" : "--model";
        snprintf(err, errlen, "%s: --plan runs nothing, so it writes no row and has nothing to compare", flag);
    }
    return flag ? OPT_ERROR : OPT_OK;
}

static const char flush_help[] =
    "send buffer reuse: MPI_Put + MPI_Win_flush to the target, or MPI_Rput + MPI_Wait (a waiting rank gives the core up "
    "where ranks outnumber cores); auto (default): request where ranks outnumber cores or with MPICH < 4.1, else window";

static const char window_help[] =
    "MPI_Win_allocate, MPI_Win_create on MPI_Alloc_mem, or on huge-page-able anonymous memory; auto (default): "
    "the one whose allocation and first touch cost least here (--model's t_win_cost_*, else measured at startup "
    "on a window of up to 8 MiB), create-huge rated at no less than the 4 KiB flavours where the host takes freed "
    "huge pages back (free page reporting); with MPICH < 4.1 auto is create; shared (never auto): MPI_Win_allocate_shared "
    "memory per host under an MPI_Win_create window, a host's ranks storing into each other's segments instead of putting";
static const char band_count_help[] =
    "with key bands, how the partition sizes each band piece: sample (default): from every 64th tuple, a slot with "
    "a margin, the input read once (a rank whose slot would overflow counts exactly); exact: a counting pass first";
static const char merge_bands_help[] =
    "key bands per range, merged on their own (0 = auto: from the fewest that reach the fewest merge passes up to 64, "
    "the count whose scatter + merge levels rank 0 timed cheapest, once per process; 1 = none)";
static const char run_sort_help[] =
    "in-cache sort of a packed run: sorting network (--simd's kernels), or LSD radix over the key bits (runs whose keys "
    "span up to 26 bits; wider ones take the network); auto (default): the faster of the two, timed once at startup";

static const char window_life_help[] =
    "how long the joins' windows live: join (each join allocates and frees them), pool (made at the first join at the "
    "plan's size, kept and reused, never registered again), dynamic (one MPI_Win_create_dynamic window; each join "
    "attaches one kept block of memory and exchanges the addresses); docs/window-lifetimes.md";

static const char queries_help[] =
    "joins back to back, query q on fresh data of the same shape (--seed + q, generated untimed); the first and the "
    "steady state reported apart";

/* --exchange's and --schedule's help: they name the designs of the registry (joins/radix/exchange.h). */
typedef struct {
    char exchange[1024], schedule[512];
} exchange_helps;

static void exchange_help_texts(exchange_helps *h)
{
    char scheduled[256];
    radix_exchange_help(h->exchange, sizeof h->exchange);
    radix_exchange_schedule_names(" and ", scheduled, sizeof scheduled);
    snprintf(h->schedule, sizeof h->schedule, "peer order of %s: ranks 0..P-1 (as-is), round k to rank+k mod P "
             "(staggered), a seeded permutation per rank and relation (random)", scheduled);
}

int join_parse_opts(join_opts *o, int argc, char **argv, char *err, size_t errlen)
{
    bool seen_tpr = false, seen_r_total = false, pool_flag = false, seen_life = false;
    exchange_helps help;
    exchange_help_texts(&help);
    const opt_spec common[] = {
        {"common flags", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"algo", OPT_CHOICE, &o->algo, "join algorithm (both: radix, then sortmerge on the same data; reference: the collective-only join to copy)", 0, 0, join_algo_names, NULL},
        {"tuples-per-rank", OPT_COUNT, &o->tuples_per_rank, "tuples of R per rank (S: ratio times as many)", 1, 1e12, NULL, &seen_tpr},
        {"r-tuples", OPT_COUNT, &o->r_total, "total tuples of R (instead of --tuples-per-rank)", 1, 1e13, NULL, &seen_r_total},
        {"uneven", OPT_BOOL, &o->uneven, "rank i holds a share proportional to i+1", 0, 0, NULL, NULL},
        {"ratio", OPT_INT, &o->ratio, "|S| / |R|: partners per R tuple (1:N)", 1, 64, NULL, NULL},
        {"selectivity", OPT_DOUBLE, &o->selectivity, "fraction of S tuples with a partner", 0, 1, NULL, NULL},
        {"skew", OPT_DOUBLE, &o->skew, "Zipf factor of S's references to R (0 = uniform)", 0, 10, NULL, NULL},
        {"seed", OPT_INT, &o->seed, "generator seed", 0, 9.2e18, NULL, NULL},
        {"repeat", OPT_INT, &o->repeat, "runs on the same data; the median is reported", 1, 1000, NULL, NULL},
        {"queries", OPT_INT, &o->queries, queries_help, 1, 1e6, NULL, NULL},
        {"warmup", OPT_INT, &o->warmup,
         "runs before the --repeat ones, verified but not counted in the median (a process's first run pays for cold caches and fresh memory)",
         0, 100, NULL, NULL},
        {"output", OPT_STRING, &o->output, "append one CSV row per run to this file", 0, 0, NULL, NULL},
        {"model", OPT_STRING, &o->model, "model parameter file: print predicted vs measured", 0, 0, NULL, NULL},
        {"roofline", OPT_BOOL, &o->roofline,
         "measure the memory roofline at startup (rmabench membw: a machine's ranks stream 4x its last-level cache) for the phase table's roofline "
         "column, unless --model's file has bw_mem_read, bw_mem_write and bw_mem_copy", 0, 0, NULL, NULL},
        {"window", OPT_CHOICE, &o->window, window_help, 0, 0, win_flavor_names, NULL},
        {"window-life", OPT_CHOICE, &o->window_life, window_life_help, 0, 0, win_life_names, &seen_life},
        {"window-pool", OPT_BOOL, &pool_flag, "the same as --window-life pool", 0, 0, NULL, NULL},
        {"flush", OPT_CHOICE, &o->flush, flush_help, 0, 0, rma_flush_names, NULL},
        {"numa", OPT_CHOICE, &o->numa, "memory placement (auto: local on multi-node hosts, else off)", 0, 0, numa_policy_names, NULL},
        {"plan", OPT_BOOL, &o->plan, "print what the run would do at --ranks (partitions, passes, buffers, windows, memory per rank and host) and exit; launches nothing", 0, 0, NULL, NULL},
        OPT_PLAN_SCALE(&o->plan_ranks, &o->plan_ranks_per_host, &o->host_memory, "--plan: ranks of the planned run (default 1)"),
        {"pack-bits", OPT_INT, &o->pack_bits,
         "test only: width of a packed tuple word (64), so that tests reach the formats' limits with small data", 16, 64, NULL, NULL},
        {"simd", OPT_CHOICE, &o->simd, "kernels: the sort-merge join's sort, merge and match, the radix join's scatters and probe (avx2: scalar there); auto = the best the CPU has", 0, 0, join_simd_names, NULL},
        OPT_VERBOSE(&o->verbose),
        OPT_WAIT_BOUND(&o->wait_bound_s),
        OPT_END,
    };
    const opt_spec radix[] = {
        {"radix hash join (--algo radix)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"radix-bits", OPT_INT, &o->radix_bits, "network fan-out bits (0 = enough partitions for every rank)", 0, 20, NULL, NULL},
        {"local-bits", OPT_INT, &o->local_bits, "fan-out bits per local pass (0 = auto)", 0, 16, NULL, NULL},
        {"passes", OPT_INT, &o->passes, "local partitioning passes (-1 = until partitions fit L2)", -1, 4, NULL, NULL},
        {"assign", OPT_CHOICE, &o->assign, "partition-to-rank assignment (sized: largest first to the least loaded)", 0, 0, join_assign_names, NULL},
        {"scatter", OPT_CHOICE, &o->scatter, "partitioning passes (network and local): store each tuple at its place (direct) or stage cache lines and stream them (staged); auto = direct up to 2^7 partitions a pass", 0, 0, join_scatter_names, NULL},
        {"buffer-size", OPT_BYTES, &o->buffer_size, "bytes per network send buffer", 256, 1 << 30, NULL, NULL},
        {"buffers-per-partition", OPT_INT, &o->buffers_per_partition, "send buffers per remote partition", 1, 64, NULL, NULL},
        {"buffer-memory", OPT_BYTES, &o->buffer_memory, "all send buffers of a rank together: buffers shrink below --buffer-size when the partitions need more (memory independent of the rank count)", 4096, 1e15, NULL, NULL},
        {"exchange", OPT_CHOICE, &o->exchange, help.exchange, 0, 0, radix_exchange_names(), NULL},
        {"schedule", OPT_CHOICE, &o->schedule, help.schedule, 0, 0, join_schedule_names, NULL},
        {"list-exchanges", OPT_BOOL, &o->list_exchanges,
         "print the --exchange designs, one a line with the --schedule values each takes, and exit", 0, 0, NULL, NULL},
        {"compress", OPT_BOOL, &o->compress,
         "pack key and rid into 8 bytes (default: when they fit, else 16 bytes; --compress: refuse what does not fit)", 0,
         0, NULL, &o->compress_given},
        OPT_END,
    };
    const opt_spec sortmerge[] = {
        {"sort-merge join (--algo sortmerge)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"ranges", OPT_CHOICE, &o->ranges, "range boundaries: from a key sample, or equal-width (the thesis')", 0, 0, join_ranges_names, NULL},
        {"run-size", OPT_COUNT, &o->run_size, "run length in tuples (0 = fit L2, or twice that where it saves a merge level, measured)", 0, 1e9, NULL, NULL},
        {"merge-fanin", OPT_INT, &o->merge_fanin, "multi-way merge fan-in (0 = 16)", 0, 4096, NULL, NULL},
        {"merge-bands", OPT_INT, &o->merge_bands, merge_bands_help, 0, 4096, NULL, NULL},
        {"run-sort", OPT_CHOICE, &o->run_sort, run_sort_help, 0, 0, join_run_sort_names, NULL},
        {"band-count", OPT_CHOICE, &o->band_count, band_count_help, 0, 0, join_band_count_names, NULL},
        OPT_END,
    };
    const opt_spec *tables[] = {common, radix, sortmerge, NULL};
    int rc = opt_parse(tables, argc, argv, 2, err, errlen);
    if (rc == OPT_HELP && bench_env_rank() == 0) opt_usage("rmabench join [flags]", tables);
    if (rc == OPT_OK) rc = check_flag_groups(o, tables, argc, argv, seen_tpr, seen_r_total, err, errlen);
    if (rc == OPT_OK) rc = check_plan_flags(o, err, errlen);
    if (rc == OPT_OK) rc = check_values(o, err, errlen);
    if (rc == OPT_OK) rc = check_lifetime(o, pool_flag, seen_life, err, errlen);
    return rc;
}
