/* The flags of `rmabench query` and the checks that need no rank count. MPI-free: parsed before
 * MPI_Init so that bad input exits 2 before anything is allocated. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench/options.h"
#include "bench/wait_bound.h"
#include "cmd/query/query_flags.h"
#include "joins/query/layout.h"
#include "rma/window.h"

const char *const query_design_names[] = {"pull", "shuffle", "both", NULL};
const char *const query_replicate_names[] = {"read", "bcast", NULL};
const char *const query_exchange_names[] = {"put", "alltoallv", NULL};
const char *const query_micro_names[] = {"none", "prefetch", "readers", "alltoallv", NULL};
/* the memory ranks' window: the flavours of rma/window.h less shared (no stores between ranks here) */
static const char *const window_names[] = {"allocate", "create", "create-huge", "auto", NULL};

void query_default_opts(query_opts *o)
{
    memset(o, 0, sizeof *o);
    o->design = QUERY_BOTH;
    o->tables = 4;
    o->fact_rows = 4000000;
    o->fact_width = STAR_SSB_FACT_BYTES;
    for (int j = 0; j < STAR_MAX_DIMS; j++) {
        o->dim_width[j] = star_ssb_dim_bytes[j];
        o->selectivity[j] = 1.0;
    }
    o->seed = 42;
    o->wait_bound_s = WAIT_BOUND_DEFAULT_S;
    o->repeat = 1;
    o->memory_ranks = 1;
    o->prefetch = 8;
    o->block_size = 2048;
    o->claim = 16;
    o->replicate = REPLICATE_READ;
    o->bcast_chunk = 256 << 10;
    o->window = WIN_AUTO;
    /* MPI_Alltoallv moves the shuffle's rows faster than MPI_Rput where ranks share cores
     * (docs/measurements.md, "From code comments") */
    o->exchange = QUERY_EXCHANGE_ALLTOALLV;
    o->micro_blocks = 16384;
    const int64_t depths[] = {1, 2, 4, 6, 8, 10, 16};
    o->n_prefetch = (int)(sizeof depths / sizeof depths[0]);
    memcpy(o->list_prefetch, depths, sizeof depths);
    o->list_block[0] = 2048;
    o->n_block = 1;
}

/* A --micro-* list: comma-separated values for parse (a count or a size), in [lo, hi]. */
static int parse_list(const char *flag, const char *text, bool bytes, int64_t lo, int64_t hi, int64_t *v, int *n,
                      char *err, size_t errlen)
{
    char buf[256];
    if (!text) return OPT_OK;
    snprintf(buf, sizeof buf, "%s", text);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const char *why = "is not a number";
        int64_t x;
        if ((bytes ? opt_parse_bytes(tok, &x, &why) : opt_parse_count(tok, &x, &why)) || x < lo || x > hi) {
            snprintf(err, errlen, "--%s: '%s' %s", flag, tok, x < lo || x > hi ? "is out of range" : why);
            return OPT_ERROR;
        }
        if (*n == QUERY_MAX_LIST) {
            snprintf(err, errlen, "--%s: more than %d values", flag, QUERY_MAX_LIST);
            return OPT_ERROR;
        }
        v[(*n)++] = x;
    }
    if (*n == 0) {
        snprintf(err, errlen, "--%s: needs at least one value", flag);
        return OPT_ERROR;
    }
    return OPT_OK;
}

/* Row widths and block size: whole words, room for the keys, a row in a block. */
static int check_shapes(const query_opts *o, char *err, size_t errlen)
{
    const int64_t need = 8 * o->tables; /* the record id (the term) and tables - 1 keys */
    if (o->fact_width % 8 || o->fact_width < need) {
        snprintf(err, errlen, "--fact-width: %" PRId64 " bytes: a fact row holds its record id and %" PRId64
                 " join key(s) in whole 8-byte words, at least %" PRId64, o->fact_width, o->tables - 1, need);
        return OPT_ERROR;
    }
    for (int j = 0; j + 1 < o->tables; j++)
        if (o->dim_width[j] % 8 || o->dim_width[j] < 16) {
            snprintf(err, errlen, "--dim%d-width: %" PRId64 " bytes: a dimension row holds its key and record id in whole "
                     "8-byte words, at least 16", j + 1, o->dim_width[j]);
            return OPT_ERROR;
        }
    int64_t widest = o->fact_width;
    for (int j = 0; j + 1 < o->tables; j++) widest = o->dim_width[j] > widest ? o->dim_width[j] : widest;
    if (o->micro == MICRO_NONE && query_rows_per_block((uint64_t)o->block_size, (uint64_t)widest) == 0) {
        snprintf(err, errlen, "--block-size: %" PRId64 " bytes hold no row of %" PRId64 " bytes after the %d-byte block "
                 "header", o->block_size, widest, QUERY_BLOCK_HEADER);
        return OPT_ERROR;
    }
    if (o->bcast_chunk < o->block_size) {
        snprintf(err, errlen, "--bcast-chunk: %" PRId64 " bytes hold no block of --block-size %" PRId64, o->bcast_chunk,
                 o->block_size);
        return OPT_ERROR;
    }
    return OPT_OK;
}

static int check_partitions(const query_opts *o, char *err, size_t errlen)
{
    if (o->partitions & (o->partitions - 1)) {
        snprintf(err, errlen, "--partitions: %" PRId64 " is not a power of two", o->partitions);
        return OPT_ERROR;
    }
    int bits = 0;
    while ((INT64_C(1) << bits) < o->partitions) bits++;
    if (bits * (o->tables - 1) > STAR_MAX_CELL_BITS) {
        snprintf(err, errlen, "--partitions: %" PRId64 " per join key make 2^%" PRId64 " cells of the fact table, above "
                 "2^%d", o->partitions, bits * (o->tables - 1), STAR_MAX_CELL_BITS);
        return OPT_ERROR;
    }
    return OPT_OK;
}

/* Flags of one design given to a run of the other, and --plan's flags without --plan. */
static int check_groups(const query_opts *o, const opt_spec *const *tables, int argc, char **argv, char *err, size_t errlen)
{
    const opt_spec *f;
    if (o->design == QUERY_SHUFFLE && (f = opt_given(tables, tables[1], argc, argv, 2))) {
        snprintf(err, errlen, "--%s: a flag of the pull design, which --design shuffle does not run", f->name);
        return OPT_ERROR;
    }
    if (o->design == QUERY_PULL && (f = opt_given(tables, tables[2], argc, argv, 2))) {
        snprintf(err, errlen, "--%s: a flag of the shuffle design, which --design pull does not run", f->name);
        return OPT_ERROR;
    }
    if (!o->plan && (o->plan_ranks || o->plan_ranks_per_host || o->host_memory)) {
        snprintf(err, errlen, "--%s: describes a planned run: give it with --plan",
                 o->plan_ranks ? "ranks" : o->plan_ranks_per_host ? "ranks-per-host" : "host-memory");
        return OPT_ERROR;
    }
    return OPT_OK;
}

int query_parse_opts(query_opts *o, int argc, char **argv, char *err, size_t errlen)
{
    const char *lp = NULL, *lb = NULL, *lr = NULL;
    const opt_spec common[] = {
        {"design", OPT_CHOICE, &o->design, "pull (memory and compute ranks, no shuffle), shuffle (a radix shuffle per join), or both, one after the other on the same data", 0, 0, query_design_names, NULL},
        {"tables", OPT_INT, &o->tables, "tables of the star query: the fact table and tables-1 dimensions (customer, part, supplier)", 2, 1 + STAR_MAX_DIMS, NULL, NULL},
        {"fact-rows", OPT_COUNT, &o->fact_rows, "rows of the fact table (SSB's lineorder), all ranks together", 1, 1e12, NULL, NULL},
        {"dim1-rows", OPT_COUNT, &o->dim_rows[0], "rows of dimension 1 (0 = SSB's customer share of --fact-rows, 1/200)", 0, 1e11, NULL, NULL},
        {"dim2-rows", OPT_COUNT, &o->dim_rows[1], "rows of dimension 2 (0 = SSB's part share, 1/30)", 0, 1e11, NULL, NULL},
        {"dim3-rows", OPT_COUNT, &o->dim_rows[2], "rows of dimension 3 (0 = SSB's supplier share, 1/3000)", 0, 1e11, NULL, NULL},
        {"fact-width", OPT_BYTES, &o->fact_width, "bytes of a fact row (SSB's lineorder: 88)", 8, 4096, NULL, NULL},
        {"dim1-width", OPT_BYTES, &o->dim_width[0], "bytes of a dimension 1 row (SSB's customer: 120)", 8, 4096, NULL, NULL},
        {"dim2-width", OPT_BYTES, &o->dim_width[1], "bytes of a dimension 2 row (SSB's part: 104)", 8, 4096, NULL, NULL},
        {"dim3-width", OPT_BYTES, &o->dim_width[2], "bytes of a dimension 3 row (SSB's supplier: 112)", 8, 4096, NULL, NULL},
        {"dim1-selectivity", OPT_DOUBLE, &o->selectivity[0], "fraction of dimension 1's rows the query's filter keeps", 1e-9, 1, NULL, NULL},
        {"dim2-selectivity", OPT_DOUBLE, &o->selectivity[1], "fraction of dimension 2's rows the filter keeps", 1e-9, 1, NULL, NULL},
        {"dim3-selectivity", OPT_DOUBLE, &o->selectivity[2], "fraction of dimension 3's rows the filter keeps", 1e-9, 1, NULL, NULL},
        {"partitions", OPT_INT, &o->partitions, "partitions per join key (a power of two; 0 = a dimension partition's table fits 256 KiB, the fact table's cells at most 1 per 4 blocks)", 0, 65536, NULL, NULL},
        {"seed", OPT_INT, &o->seed, "generator seed", 0, 9.2e18, NULL, NULL},
        {"repeat", OPT_INT, &o->repeat, "runs of each design on the same data; the median is reported", 1, 1000, NULL, NULL},
        {"warmup", OPT_INT, &o->warmup, "runs before the --repeat ones, verified, not counted", 0, 100, NULL, NULL},
        {"output", OPT_STRING, &o->output, "append one CSV row per run to this file", 0, 0, NULL, NULL},
        {"model", OPT_STRING, &o->model, "model parameter file: the prediction of each design beside its time (rmamodel query)", 0, 0, NULL, NULL},
        {"plan", OPT_BOOL, &o->plan, "print the memory per rank and host of a run at --ranks and exit; launches nothing", 0, 0, NULL, NULL},
        OPT_PLAN_SCALE(&o->plan_ranks, &o->plan_ranks_per_host, &o->host_memory, "--plan: ranks of the planned run (default 4)"),
        OPT_WAIT_BOUND(&o->wait_bound_s),
        OPT_VERBOSE(&o->verbose),
        OPT_END,
    };
    const opt_spec pull[] = {
        {"pull design (--design pull)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"memory-ranks", OPT_INT, &o->memory_ranks, "ranks 0..M-1 hold the tables; the others compute", 0, 1e7, NULL, NULL},
        {"prefetch", OPT_INT, &o->prefetch, "block reads (MPI_Rget) a compute rank keeps in flight", 1, 1024, NULL, NULL},
        {"block-size", OPT_BYTES, &o->block_size, "bytes of a block, the unit of every read (the seed's 2 KiB)", 64, 1 << 26, NULL, NULL},
        {"claim", OPT_INT, &o->claim, "fewest fact blocks a compute rank claims at once from the shared counter (MPI_Fetch_and_op); claims are guided: half of what is left over the compute ranks, down to this", 1, 1 << 20, NULL, NULL},
        {"replicate", OPT_CHOICE, &o->replicate, "dimensions to the compute ranks: every compute rank reads every block, or each memory rank broadcasts its blocks (MPI_Ibcast)", 0, 0, query_replicate_names, NULL},
        {"bcast-chunk", OPT_BYTES, &o->bcast_chunk, "bytes one broadcast moves (--replicate bcast, --micro readers)", 64, 1 << 30, NULL, NULL},
        {"memory-capacity", OPT_BYTES, &o->memory_capacity, "bytes one memory rank may hold (0 = what its host has)", 0, 9e18, NULL, NULL},
        {"window", OPT_CHOICE, &o->window, "the memory ranks' window (rma/window.h; auto: the library's default)", 0, 0, window_names, NULL},
        OPT_END,
    };
    const opt_spec shuffle[] = {
        {"shuffle design (--design shuffle)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"radix-bits", OPT_INT, &o->radix_bits, "network partitions of each join's shuffle, bits (0 = the radix join's rule)", 0, 20, NULL, NULL},
        {"exchange", OPT_CHOICE, &o->exchange, "how each join moves its rows: MPI_Rput of each partition's rows into its owner's window (the radix join's put design), or one MPI_Alltoallv per relation (the radix join's alltoallv design)", 0, 0, query_exchange_names, NULL},
        OPT_END,
    };
    const opt_spec micro[] = {
        {"micro-benchmarks (--micro, pull design flags apply)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"micro", OPT_CHOICE, &o->micro, "prefetch: one compute rank scans memory rank 0's blocks at each prefetch depth and block size; readers: 1..C compute ranks scan them at once, by reads and by broadcast; alltoallv: every rank sends --micro-blocks blocks, an even share to every rank, in one MPI_Alltoallv (the shuffle's transfer, for its model)", 0, 0, query_micro_names, NULL},
        {"micro-blocks", OPT_COUNT, &o->micro_blocks, "blocks of the scanned table", 1, 1e9, NULL, NULL},
        {"micro-prefetch", OPT_STRING, &lp, "prefetch depths of --micro prefetch (default 1,2,4,6,8,10,16)", 0, 0, NULL, NULL},
        {"micro-block-size", OPT_STRING, &lb, "block sizes of --micro prefetch (default 2K)", 0, 0, NULL, NULL},
        {"micro-readers", OPT_STRING, &lr, "reading compute ranks of --micro readers (default 1..all)", 0, 0, NULL, NULL},
        OPT_END,
    };
    const opt_spec *tables[] = {common, pull, shuffle, micro, NULL};
    int rc = opt_parse(tables, argc, argv, 2, err, errlen);
    if (rc == OPT_HELP && bench_env_rank() == 0) opt_usage("rmabench query [flags]", tables);
    if (rc == OPT_OK) rc = parse_list("micro-prefetch", lp, false, 1, 1024, o->list_prefetch, &o->n_prefetch, err, errlen);
    if (rc == OPT_OK) rc = parse_list("micro-block-size", lb, true, 64, 1 << 26, o->list_block, &o->n_block, err, errlen);
    if (rc == OPT_OK) rc = parse_list("micro-readers", lr, false, 1, 1e6, o->list_readers, &o->n_readers, err, errlen);
    if (rc == OPT_OK) rc = check_groups(o, tables, argc, argv, err, errlen);
    if (rc == OPT_OK) rc = check_shapes(o, err, errlen);
    if (rc == OPT_OK) rc = check_partitions(o, err, errlen);
    return rc;
}
