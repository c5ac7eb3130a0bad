/* The flags of `rmabench aggregate`, their checks and the plan. MPI-free. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/memory.h"
#include "bench/options.h"
#include "cmd/aggregate/aggregate_cmd.h"
#include "rma/notify.h"

static void defaults(aggregate_opts *o)
{
    memset(o, 0, sizeof *o);
    o->design = RDMO_DESIGN_RDMO;
    o->handler = RDMO_HANDLER_POLL;
    o->poll = NOTIFY_POLL_AUTO;
    o->tuples_per_rank = 100000;
    o->group_size = 4;
    o->batch = 30;
    o->chain = 1;
    o->probes = 10000;
    o->slot_bytes = 1024;
    o->seed = 42;
    o->wait_bound_s = 60;
}

static void check(aggregate_opts *o, bool handler_seen, bool ranks_seen, bool rph_seen, bool output_seen)
{
    if (o->slot_bytes % 64) opt_usage_error("--slot-bytes: %" PRId64 " is not a multiple of 64", o->slot_bytes);
    const rdmo_config c = {.slot_bytes = (int)o->slot_bytes};
    const int cap = rdmo_payload_capacity(&c);
    if (o->batch * RDMO_PAIR_WIRE > cap)
        opt_usage_error("--batch: %" PRId64 " pairs need %" PRId64 " bytes of payload, more than a slot of --slot-bytes %" PRId64
                        " holds (%d)", o->batch, o->batch * RDMO_PAIR_WIRE, o->slot_bytes, cap);
    if (o->design == RDMO_DESIGN_VERBS && handler_seen)
        opt_usage_error("--handler: --design verbs has no handler (the target only drives MPI's progress)");
    if (!o->plan) {
        if (ranks_seen || rph_seen) opt_usage_error("--%s: only with --plan", ranks_seen ? "ranks" : "ranks-per-host");
        return;
    }
    if (!ranks_seen) opt_usage_error("--ranks: required with --plan");
    if (output_seen) opt_usage_error("--output: --plan runs nothing, so it writes no row");
    if (!rph_seen) o->plan_ranks_per_host = o->plan_ranks;
}

void aggregate_parse_opts(aggregate_opts *o, int argc, char **argv)
{
    defaults(o);
    bool handler_seen = false, ranks_seen = false, rph_seen = false, output_seen = false;
    const opt_spec specs[] = {
        {"design", OPT_CHOICE, &o->design, "verbs: MPI-3 RMA only; rdmo: requests to the owner's queue, its handler runs them; rpc: MPI_Isend / posted MPI_Irecv", 0, 0, rdmo_design_names, NULL},
        {"handler", OPT_CHOICE, &o->handler, "rdmo and rpc: every rank's own poll (while it waits for its answers) or a progress thread", 0, 0, rdmo_handler_names, &handler_seen},
        {"notify-poll", OPT_CHOICE, &o->poll, "how ranks make MPI move one-sided data while they wait (auto: load on Open MPI, probe elsewhere)", 0, 0, notify_poll_names, NULL},
        {"tuples-per-rank", OPT_COUNT, &o->tuples_per_rank, "tuples each rank aggregates", 1, 1e12, NULL, NULL},
        {"group-size", OPT_COUNT, &o->group_size, "tuples per group (groups: all tuples / this; high cardinality: few)", 1, 1e12, NULL, NULL},
        {"batch", OPT_INT, &o->batch, "(key, value) pairs per ScatterAndAccumulate call", 1, RDMO_SCATTER_MAX, NULL, NULL},
        {"chain", OPT_INT, &o->chain, "groups per bucket of an owner's table on average", 1, 1e6, NULL, NULL},
        {"probes-per-rank", OPT_COUNT, &o->probes, "ConditionalGather probes of owners' buckets per rank after the aggregation (0: none)", 0, 1e12, NULL, NULL},
        {"slot-bytes", OPT_BYTES, &o->slot_bytes, "a request or answer slot (a multiple of 64)", 128, 65536, NULL, NULL},
        {"seed", OPT_INT, &o->seed, "recorded seed (the generator is a fixed permutation)", 0, 9.2e18, NULL, NULL},
        {"output", OPT_STRING, &o->output, "append one CSV row to this file", 0, 0, NULL, &output_seen},
        {"wait-bound", OPT_INT, &o->wait_bound_s, "seconds any wait may take before the run is aborted", 1, 86400, NULL, NULL},
        OPT_VERBOSE(&o->verbose),
        {"plan", OPT_BOOL, &o->plan, "print what every rank allocates at --ranks and exit; no MPI", 0, 0, NULL, NULL},
        {"ranks", OPT_INT, &o->plan_ranks, "--plan: ranks of the run (required)", 1, 1e7, NULL, &ranks_seen},
        {"ranks-per-host", OPT_INT, &o->plan_ranks_per_host, "--plan: ranks per host (default: --ranks)", 1, 1e7, NULL, &rph_seen},
        OPT_END,
    };
    const opt_spec *tables[] = {specs, NULL};
    char err[512];
    const int rc = opt_parse(tables, argc, argv, 2, err, sizeof err);
    if (rc == OPT_HELP) {
        if (bench_env_rank() == 0) opt_usage("rmabench aggregate [flags]", tables);
        exit(0);
    }
    if (rc == OPT_ERROR) opt_usage_error("%s", err);
    check(o, handler_seen, ranks_seen, rph_seen, output_seen);
}

rdmo_config aggregate_config(const aggregate_opts *o, bool yield)
{
    return (rdmo_config){.design = o->design, .handler = o->handler, .poll = notify_poll_resolve((notify_poll_mode)o->poll),
                         .slot_bytes = (int)o->slot_bytes, .queue_depth = 64, .tries = 1, .gather_bound = RDMO_GATHER_BOUND,
                         .wait_bound_s = (double)o->wait_bound_s, .serve = true, .yield = yield, .calls = 1};
}

uint64_t aggregate_rank_bytes(const aggregate_opts *o, int ranks, char *err, size_t len)
{
    agg_gen g;
    if (agg_gen_init(&g, ranks, (uint64_t)o->tuples_per_rank, (uint64_t)o->group_size, err, len)) return 0;
    const agg_table_shape s = agg_table_shape_of(&g, (uint64_t)o->group_size, (uint64_t)o->chain, o->design);
    rdmo_space sp;
    rdmo_space_init(&sp);
    rdmo_space_add_table(&sp, s.buckets, s.entries);
    const rdmo_config c = aggregate_config(o, false);
    return rdmo_window_bytes(&c, &sp, ranks) + rdmo_aux_bytes(&c, ranks)
           + (uint64_t)ranks * ((uint64_t)o->batch * sizeof(rdmo_pair) + sizeof(int)) /* a batch per owner */
           + s.entries * sizeof(uint32_t);                                              /* the check's keys */
}

int aggregate_plan_print(const aggregate_opts *o)
{
    const int ranks = (int)o->plan_ranks, rph = (int)o->plan_ranks_per_host;
    char err[256], a[32], b[32];
    const uint64_t bytes = aggregate_rank_bytes(o, ranks, err, sizeof err);
    if (!bytes) {
        fprintf(stderr, "rmabench: %s\n", err);
        return 2;
    }
    agg_gen g;
    agg_gen_init(&g, ranks, (uint64_t)o->tuples_per_rank, (uint64_t)o->group_size, err, sizeof err);
    const agg_table_shape s = agg_table_shape_of(&g, (uint64_t)o->group_size, (uint64_t)o->chain, o->design);
    printf("# rmabench aggregate --plan: %d ranks, %d per host; design %s; nothing run\n", ranks, rph, rdmo_design_names[o->design]);
    printf("tuples: %" PRIu64 " in %" PRIu64 " groups\n", g.tuples, g.groups);
    printf("table per rank: %" PRIu64 " buckets, %" PRIu64 " entries\n", s.buckets, s.entries);
    printf("request slots per rank: %d of %" PRId64 " B\n", o->design == RDMO_DESIGN_RDMO ? ranks : 0, o->slot_bytes);
    mem_format((int64_t)bytes, a, sizeof a);
    printf("memory per rank: %" PRIu64 " B (%s)\n", bytes, a);
    const uint64_t host = (uint64_t)rph * (bytes + MEM_RUNTIME_BYTES);
    mem_format((int64_t)host, b, sizeof b);
    char msg[512];
    const int bad = mem_host_verdict((int64_t)host, mem_available_bytes(), "--tuples-per-rank", "fewer --tuples-per-rank", msg, sizeof msg);
    printf("memory per host: %" PRIu64 " B (%s); fits this host: %s\n", host, b, bad ? "no" : "yes");
    if (bad) fprintf(stderr, "rmabench: %s\n", msg);
    return bad ? 2 : 0;
}
