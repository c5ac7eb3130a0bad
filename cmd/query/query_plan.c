/* What a run of `rmabench query` needs, judged alike by the run (query_setup.c, after MPI_Init,
 * before anything is allocated) and by --plan (any rank count, nothing launched): the checks that
 * need the rank count and the memory of each kind of rank, as upper bounds from the sizes alone.
 * Beyond the data (windows, slices, tables, buffers) a rank holds O(P) words: the cells' counts
 * (at most 2^STAR_MAX_CELL_BITS), a broadcast communicator per memory rank, and the radix join's
 * histograms and exchange plan over 8 x 2^ceil(log2 P) partitions. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench/memory.h"
#include "cmd/query/query_cmd.h"
#include "joins/radix/radix_plan.h"

static uint64_t slice_rows(uint64_t total, int ranks) { return (total + (uint64_t)ranks - 1) / (uint64_t)ranks; }

static int64_t table_rows(const star_schema *s, int t) { return (int64_t)(t == 0 ? s->fact_rows : s->dim_rows[t - 1]); }
static int64_t table_row_bytes(const star_schema *s, int t) { return 8 * (t == 0 ? s->fact_words : s->dim_words[t - 1]); }

/* The load: this rank's slices of every table, the sorted copy of the largest, three words per cell. */
static int64_t load_bytes(const star_schema *s, int ranks)
{
    int64_t all = 0, most = 0;
    for (int t = 0; t < 1 + s->dims; t++) {
        const int64_t b = (int64_t)slice_rows((uint64_t)table_rows(s, t), ranks) * table_row_bytes(s, t);
        all += b + 24 * (int64_t)pull_table_cells(s, t);
        most = b > most ? b : most;
    }
    return all + most;
}

/* A compute rank's tables: per partition the power of two at or above twice its rows, 16 bytes a
 * slot: below 4 x rows + 2 slots whatever the partition's share. */
static int64_t tables_bytes(const star_schema *s)
{
    int64_t b = 0;
    for (int j = 0; j < s->dims; j++) b += 16 * (4 * table_rows(s, 1 + j) + 2 * (int64_t)pull_table_cells(s, 1 + j));
    return b;
}

/* A shuffling rank: its slices, then per join the rows it receives (uniform keys: its share of
 * the partitions, 5% and 1024 rows of room), their pack, the selected dimension rows, two
 * intermediates of the fact table's width and a partition's table. */
static int64_t shuffle_bytes(const star_schema *s, int ranks)
{
    const int64_t fw = table_row_bytes(s, 0), share = (int64_t)(slice_rows(s->fact_rows, ranks) * 105 / 100) + 1024;
    int64_t b = 3 * share * fw, widest_dim = 0; /* the slice, two intermediates */
    for (int j = 0; j < s->dims; j++) {
        const int64_t d = (int64_t)(slice_rows(s->dim_rows[j], ranks) * 105 / 100 + 1024) * table_row_bytes(s, 1 + j);
        b += d; /* its slice */
        widest_dim = d > widest_dim ? d : widest_dim;
    }
    return b + share * fw * 2 + 3 * widest_dim + 64 * (int64_t)(s->dim_rows[0] / (uint64_t)ranks + 2);
}

/* The radix layout and exchange plan of one join (radix_phases.h, exchange.h), all O(P) words. */
static int64_t shuffle_arrays(const query_opts *o, int ranks)
{
    join_opts jo;
    memset(&jo, 0, sizeof jo);
    jo.radix_bits = o->radix_bits;
    const int64_t np = INT64_C(1) << radix_plan_bits(&jo, ranks), P = ranks;
    return np * (8 * 8 + 4) + 2 * (np * 8 * 4 + P * 8 * 3 + 3 * 8 * np) + 4 * 4 * P;
}

static int check_split(const query_opts *o, int ranks, char *err, size_t errlen)
{
    const bool pull = (o->design != QUERY_SHUFFLE && o->micro == MICRO_NONE) || o->micro == MICRO_PREFETCH ||
                      o->micro == MICRO_READERS;
    if (pull && o->memory_ranks == 0) {
        snprintf(err, errlen, "--memory-ranks: 0: the pull design keeps its tables in at least one memory rank");
        return -1;
    }
    if (pull && o->memory_ranks >= ranks) {
        snprintf(err, errlen, "--memory-ranks: %" PRId64 " of %d rank(s) leave no compute rank: give at most %d",
                 o->memory_ranks, ranks, ranks - 1);
        return -1;
    }
    for (int i = 0; o->micro == MICRO_READERS && i < o->n_readers; i++)
        if (o->list_readers[i] > ranks - o->memory_ranks) {
            snprintf(err, errlen, "--micro-readers: %" PRId64 " readers, but %" PRId64 " compute rank(s)", o->list_readers[i],
                     ranks - o->memory_ranks);
            return -1;
        }
    return 0;
}

int query_check_ranks(const query_opts *o, const star_schema *s, int ranks, query_need *n, char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    if (check_split(o, ranks, err, errlen)) return -1;
    const int M = (int)o->memory_ranks;
    char have[32], need[32];
    if (o->micro != MICRO_NONE) {
        int64_t most = 0;
        for (int i = 0; i < o->n_block; i++) most = o->list_block[i] > most ? o->list_block[i] : most;
        n->window_bytes = o->micro == MICRO_ALLTOALLV ? 0 : o->micro_blocks * (o->micro == MICRO_PREFETCH ? most : o->block_size);
        n->memory_rank = n->window_bytes;
        n->compute_rank = o->prefetch * most + 2 * o->bcast_chunk;
        if (o->micro == MICRO_ALLTOALLV) /* a send and a receive buffer on every rank */
            n->memory_rank = n->compute_rank = 2 * o->micro_blocks * o->block_size;
        if (o->memory_capacity > 0 && n->window_bytes > o->memory_capacity) {
            mem_format(n->window_bytes, need, sizeof need);
            mem_format(o->memory_capacity, have, sizeof have);
            snprintf(err, errlen, "--micro-blocks: the scanned table takes %s, above --memory-capacity %s", need, have);
            return -1;
        }
        return 0;
    }
    const bool pull = o->design != QUERY_SHUFFLE, shuffle = o->design != QUERY_PULL;
    n->arrays_bytes = (pull ? 16 * M + 16 * (int64_t)pull_table_cells(s, 0) * 2 : 0) + (shuffle ? shuffle_arrays(o, ranks) : 0);
    if (pull) {
        n->window_bytes = (int64_t)pull_window_blocks_bound(s, M, (uint64_t)o->block_size) * o->block_size;
        n->tables_bytes = tables_bytes(s);
        n->load_bytes = load_bytes(s, ranks);
        n->memory_rank = n->window_bytes + n->load_bytes;
        n->compute_rank = n->tables_bytes + n->load_bytes + o->prefetch * o->block_size +
                          (o->replicate == REPLICATE_BCAST ? 2 * o->bcast_chunk : 0);
    }
    if (shuffle) {
        n->shuffle_data = shuffle_bytes(s, ranks);
        n->memory_rank += n->shuffle_data;
        n->compute_rank += n->shuffle_data;
        n->shuffle_rank = n->shuffle_data;
    }
    n->memory_rank += n->arrays_bytes;
    n->compute_rank += n->arrays_bytes;
    n->shuffle_rank += n->arrays_bytes;
    if (pull && o->memory_capacity > 0 && n->window_bytes > o->memory_capacity) {
        mem_format(n->window_bytes, need, sizeof need);
        mem_format(o->memory_capacity, have, sizeof have);
        snprintf(err, errlen, "--fact-rows: the tables take %s per memory rank on %d memory rank(s), above --memory-capacity "
                 "%s: give more --memory-ranks or fewer rows", need, M, have);
        return -1;
    }
    return 0;
}

int64_t query_rank_need(const query_opts *o, const query_need *n, int rank)
{
    if (o->design == QUERY_SHUFFLE && o->micro == MICRO_NONE) return n->shuffle_rank;
    return rank < o->memory_ranks ? n->memory_rank : n->compute_rank;
}

static void print_bytes(const char *label, int64_t v)
{
    char b[32];
    mem_format(v, b, sizeof b);
    printf("%s%s", label, b);
}

/* The most any host needs: the host of rank 0 (the most memory ranks), the one with rank M (memory
 * and compute ranks), the last (compute ranks only); with K ranks a host. */
static int64_t host_need(const query_opts *o, const query_need *n, int ranks, int per_host)
{
    const int candidates[3] = {0, (int)o->memory_ranks < ranks ? (int)o->memory_ranks : 0, ranks - 1};
    int64_t most = 0;
    for (int c = 0; c < 3; c++) {
        const int first = candidates[c] / per_host * per_host;
        int64_t b = 0;
        for (int r = first; r < first + per_host && r < ranks; r++) b += query_rank_need(o, n, r) + MEM_RUNTIME_BYTES;
        most = b > most ? b : most;
    }
    return most;
}

static void print_schema(const star_schema *s)
{
    char c[32];
    opt_format_count((int64_t)s->fact_rows, c, sizeof c);
    printf("# star query: %d tables: lineorder %s rows x %d B", 1 + s->dims, c, 8 * s->fact_words);
    for (int j = 0; j < s->dims; j++) {
        opt_format_count((int64_t)s->dim_rows[j], c, sizeof c);
        printf("; %s %s x %d B (selectivity %g, %d partition(s))", star_dim_names[j], c, 8 * s->dim_words[j],
               s->selectivity[j], 1 << s->part_bits[j]);
    }
    printf("; %" PRIu64 " fact cells\n", UINT64_C(1) << s->cell_bits);
}

int query_plan_main(const query_opts *o)
{
    if (bench_env_rank() != 0) return 0;
    const int ranks = o->plan_ranks > 0 ? (int)o->plan_ranks : 4;
    const int per_host = o->plan_ranks_per_host > 0 && o->plan_ranks_per_host < ranks ? (int)o->plan_ranks_per_host : ranks;
    const int hosts = (ranks + per_host - 1) / per_host, M = (int)o->memory_ranks;
    printf("# rmabench query --plan: %d ranks on %d host(s), %d per host; nothing launched\n", ranks, hosts, per_host);
    star_schema s;
    query_schema(o, 0, ranks, &s);
    query_need n;
    char err[512];
    if (query_check_ranks(o, &s, ranks, &n, err, sizeof err)) {
        fprintf(stderr, "rmabench: %s\n", err);
        return QUERY_EXIT_USAGE;
    }
    print_schema(&s);
    if (o->design != QUERY_SHUFFLE) {
        printf("pull: %d memory rank(s), %d compute rank(s);", M, ranks - M);
        print_bytes(" window per memory rank ", n.window_bytes);
        print_bytes("; tables per compute rank ", n.tables_bytes);
        print_bytes("; load per rank (slices, a sorted copy) ", n.load_bytes);
        printf("\n");
    }
    if (o->design != QUERY_PULL) print_bytes("shuffle: slices, intermediates and received rows per rank ", n.shuffle_data), printf("\n");
    print_bytes("per-rank arrays: ", n.arrays_bytes);
    printf(" (O(P) words: cells, broadcast communicators, the radix histograms and exchange plan)\n");
    const int64_t host = host_need(o, &n, ranks, per_host);
    printf("plan bytes: memory_rank=%" PRId64 " compute_rank=%" PRId64 " shuffle_rank=%" PRId64 " arrays=%" PRId64
           " host=%" PRId64 "\n", n.memory_rank + MEM_RUNTIME_BYTES, n.compute_rank + MEM_RUNTIME_BYTES,
           n.shuffle_rank + MEM_RUNTIME_BYTES, n.arrays_bytes, host);
    const int64_t avail = o->host_memory > 0 ? o->host_memory : hosts == 1 ? mem_available_bytes() : 0;
    print_bytes("memory per host: ", host);
    if (avail <= 0) {
        printf("; not checked: give --host-memory (the memory one host of the run offers)\nplan: fits\n");
        return QUERY_EXIT_OK;
    }
    print_bytes(o->host_memory > 0 ? "; --host-memory " : "; this machine has ", avail);
    printf(" available\n");
    char msg[512];
    if (mem_host_verdict(host, avail, "--fact-rows", mem_advice(false, false), msg, sizeof msg)) {
        fprintf(stderr, "rmabench: %s\n", msg);
        printf("plan: does not fit\n");
        return QUERY_EXIT_USAGE;
    }
    printf("plan: fits\n");
    return QUERY_EXIT_OK;
}
